/* db_gaps: the yardstick as a table, CSV or JSON (db_gaps.h). */
#include "db_gaps.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis_util.h"
#include "cli.h"
#include "store_gaps.h"

typedef struct gaps_out {
    FILE *f;
    int format, pass; /* table: pass 0 measures, pass 1 prints */
    int w_trace, w_policy;
    size_t n, solved, below;
    json_t *arr;
} gaps_out;

static void num(FILE *f, double d, const char *fmt)
{
    if (isfinite(d))
        fprintf(f, fmt, d);
}

static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static json_t *jnum(double d)
{
    return isfinite(d) ? json_real(d) : json_null();
}

static int one(void *vctx, const store_gap_row *g)
{
    gaps_out *o = vctx;
    const store_row *r = g->run;
    const store_solution *s = g->sol;
    if (o->format == 0 && o->pass == 0) {
        int l = (int)strlen(r->trace_name);
        o->w_trace = l > o->w_trace ? l : o->w_trace;
        l = (int)strlen(r->policy);
        o->w_policy = l > o->w_policy ? l : o->w_policy;
        o->n++;
        o->solved += s != NULL;
        o->below += g->gap.gap_optimum < -1e-9;
        return 0;
    }
    if (o->format == 0) {
        char ov[32] = "-", opt[32] = "-", bd[32] = "-", go[32] = "-", gb[32] = "-", it[16] = "-";
        if (s)
            snprintf(it, sizeof it, "%u", s->key.iteration);
        if (r->has_overhead)
            snprintf(ov, sizeof ov, "%.4f", r->overhead);
        if (isfinite(g->gap.opt_overhead))
            snprintf(opt, sizeof opt, "%.4f%s", g->gap.opt_overhead, g->gap.proven ? "" : "*");
        if (isfinite(g->gap.bound_overhead))
            snprintf(bd, sizeof bd, "%.4f", g->gap.bound_overhead);
        if (isfinite(g->gap.gap_optimum))
            snprintf(go, sizeof go, "%+.2f%%", 100 * g->gap.gap_optimum);
        if (isfinite(g->gap.gap_bound))
            snprintf(gb, sizeof gb, "%+.2f%%", 100 * g->gap.gap_bound);
        fprintf(o->f, "%-*s  %-*s  %5.3f  %-11s  %8s  %-7s  %4s  %-10s  %8s  %8s  %9s  %9s%s%s\n",
                o->w_trace, r->trace_name, o->w_policy, r->policy, r->ratio, r->status, ov,
                s ? s->key.coarsen : "-", it, s ? s->status : "-", opt, bd, go, gb,
                g->gap.finding ? "  " : "", g->gap.finding ? g->gap.finding : "");
        if (*r->note)
            fprintf(o->f, "  note: %s\n", r->note);
        return 0;
    }
    if (o->format == 1) {
        FILE *f = o->f;
        csv_str(f, r->trace_name);
        fputc(',', f);
        csv_str(f, r->trace_hash);
        fputc(',', f);
        csv_str(f, r->policy);
        fputc(',', f);
        csv_str(f, r->params);
        fprintf(f, ",%.17g,%llu,%.17g,", r->ratio, (unsigned long long)r->budget,
                r->remat_limit);
        csv_str(f, r->allocator);
        fputc(',', f);
        csv_str(f, r->status);
        fputc(',', f);
        if (r->has_overhead)
            fprintf(f, "%.17g", r->overhead);
        if (s) {
            fprintf(f, ",%s,%u,%.17g,%s,%u,", s->key.coarsen, s->key.iteration,
                    s->key.time_limit, s->status, s->nodes);
        } else {
            fputs(",,,,,,", f);
        }
        num(f, g->gap.opt_overhead, "%.17g");
        fputc(',', f);
        num(f, g->gap.bound_overhead, "%.17g");
        fputc(',', f);
        num(f, g->gap.gap_optimum, "%.17g");
        fputc(',', f);
        num(f, g->gap.gap_bound, "%.17g");
        fputc(',', f);
        if (g->gap.finding)
            csv_str(f, g->gap.finding);
        fputc(',', f);
        csv_str(f, r->note);
        fputc('\n', f);
        return 0;
    }
    json_t *j = json_object();
    json_object_set_new(j, "trace", json_string(r->trace_name));
    json_object_set_new(j, "trace_hash", json_string(r->trace_hash));
    json_object_set_new(j, "policy", json_string(r->policy));
    json_object_set_new(j, "params", json_string(r->params));
    json_object_set_new(j, "ratio", json_real(r->ratio));
    json_object_set_new(j, "budget", json_integer((json_int_t)r->budget));
    json_object_set_new(j, "remat_limit", json_real(r->remat_limit));
    json_object_set_new(j, "allocator", json_string(r->allocator));
    json_object_set_new(j, "status", json_string(r->status));
    json_object_set_new(j, "overhead", r->has_overhead ? json_real(r->overhead) : json_null());
    json_object_set_new(j, "coarsen", s ? json_string(s->key.coarsen) : json_null());
    json_object_set_new(j, "iteration", s ? json_integer(s->key.iteration) : json_null());
    json_object_set_new(j, "time_limit", s ? json_real(s->key.time_limit) : json_null());
    json_object_set_new(j, "solver_status", s ? json_string(s->status) : json_null());
    json_object_set_new(j, "nodes", s ? json_integer(s->nodes) : json_null());
    json_object_set_new(j, "proven", json_boolean(g->gap.proven));
    json_object_set_new(j, "opt_overhead", jnum(g->gap.opt_overhead));
    json_object_set_new(j, "bound_overhead", jnum(g->gap.bound_overhead));
    json_object_set_new(j, "gap_optimum", jnum(g->gap.gap_optimum));
    json_object_set_new(j, "gap_bound", jnum(g->gap.gap_bound));
    json_object_set_new(j, "finding", g->gap.finding ? json_string(g->gap.finding) : json_null());
    json_object_set_new(j, "note", *r->note ? json_string(r->note) : json_null());
    return json_array_append_new(o->arr, j) ? GMS_ENOMEM : 0;
}

static int run(store *s, const store_filter *f, gaps_out *o, gms_error *err)
{
    if (o->format == 1)
        fputs("trace,trace_hash,policy,params,ratio,budget,remat_limit,allocator,status,"
              "overhead,coarsen,iteration,time_limit,solver_status,nodes,opt_overhead,"
              "bound_overhead,gap_optimum,gap_bound,finding,note\n", o->f);
    if (o->format == 2 && !(o->arr = json_array()))
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    if (o->format == 0) {
        int rc = store_query_gaps(s, f, 1, one, o, err);
        if (rc)
            return rc;
        fprintf(o->f, "%-*s  %-*s  %5s  %-11s  %8s  %-7s  %4s  %-10s  %8s  %8s  %9s  %9s\n",
                o->w_trace, "TRACE", o->w_policy, "POLICY", "RATIO", "STATUS", "OVERHEAD",
                "COARSEN", "IT", "SOLVER", "OPTIMUM", "LP BOUND", "GAP", "GAP BOUND");
        o->pass = 1;
    }
    int rc = store_query_gaps(s, f, 1, one, o, err);
    if (rc == GMS_ENOMEM)
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    if (!rc && o->format == 2) {
        if (json_dumpf(o->arr, o->f, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0)
            rc = gms_error_set(err, GMS_EIO, "writing JSON");
        fputc('\n', o->f);
    }
    if (!rc && o->format == 0)
        fprintf(o->f, "%zu rows, %zu beside a stored answer, %zu below it (a finding: see "
                      "docs/optimal.md); GAP = overhead / the optimum's - 1; * = best found "
                      "within a time limit, not proven\n",
                o->n, o->solved, o->below);
    json_decref(o->arr);
    return rc;
}

int db_gaps(store *s, const store_filter *f, int format, const char *out)
{
    gaps_out o = {.format = format, .w_trace = 5, .w_policy = 6, .f = stdout};
    cli_outfile of;
    int to_file = out && strcmp(out, "-") != 0;
    if (to_file) {
        if (cli_outfile_open(&of, "db gaps", out))
            return 1;
        o.f = of.f;
    }
    gms_error err = {0};
    if (run(s, f, &o, &err)) {
        cli_error("db gaps", "%s", err.msg);
        if (to_file)
            cli_outfile_abort(&of);
        return 1;
    }
    if (to_file)
        return cli_outfile_commit(&of, "db gaps") ? 1 : 0;
    return fflush(stdout) == 0 ? 0 : 1;
}
