/*
 * sim_reftable: replay the reference table in one process and compare (see sim_reftable.h).
 */
#include "sim_reftable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "registry.h"
#include "sim.h"
#include "sim_ref.h"

/* A row of the table and how our run of it compared. */
typedef struct ref_row {
    sim_ref_row ref;
    int agree, exact;
    double wall_s;
} ref_row;

typedef struct group {
    const char *log, *model, *policy;
    int rows, agree, exact;
    double ours_s, simrd_s;
} group;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads the table into rows[] (ours zeroed); 0, or -1 with the message printed. */
static int load_rows(const char *cmd, const char *csv, ref_row **out, size_t *n_out)
{
    sim_ref_row *refs;
    size_t n;
    gms_error err = {0};
    if (sim_ref_load(csv, &refs, &n, &err) != 0) {
        cli_error(cmd, "%s", err.msg);
        return -1;
    }
    if (n == 0) { /* nothing compared must not read as "all rows agree" */
        cli_error(cmd, "%s: the reference table has a header but no rows", csv);
        free(refs);
        return -1;
    }
    ref_row *rows = calloc(n + 1, sizeof *rows);
    if (!rows) {
        sim_ref_free(refs, n);
        cli_error(cmd, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        rows[i].ref = refs[i];
    free(refs); /* the strings now belong to rows[] */
    *out = rows;
    *n_out = n;
    return 0;
}

static void rows_free(ref_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].ref.log);
        free(rows[i].ref.model);
        free(rows[i].ref.policy);
    }
    free(rows);
}

/* Runs row r on runner; fills r->agree/exact/wall_s; prints a diff unless quiet. */
static int run_row(const char *cmd, sim_runner *run, const sim_trace *t, ref_row *r, int quiet)
{
    const sim_ref_row *f = &r->ref;
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find(f->policy);
    if (!cfg.policy) {
        cli_error(cmd, "reference row %s: unknown policy %s", f->log, f->policy);
        return -1;
    }
    cfg.budget = sim_budget_for_ratio(t, f->ratio);
    cfg.seed = (uint64_t)f->trial;
    sim_result res;
    gms_error err = {0};
    if (sim_runner_run(run, &cfg, &res, &err) != 0) {
        cli_error(cmd, "%s %s ratio %g: %s", f->log, f->policy, f->ratio, err.msg);
        return -1;
    }
    const sim_baseline *bl = sim_trace_baseline(t);
    const char *st = sim_status_name(res.status);
    double rel = 0;
    if (res.status == SIM_OK && f->has_overhead && f->overhead != 0)
        rel = (res.overhead - f->overhead) / f->overhead;
    if (rel < 0)
        rel = -rel;
    r->agree = strcmp(st, f->status) == 0 && cfg.budget == f->budget &&
               bl->memory == f->base_mem && bl->compute == f->base_compute &&
               res.evictions == f->evictions && res.eager_evictions == f->eager &&
               res.remat_compute == f->remat && res.peak_memory == f->peak && rel <= 1e-9;
    r->exact =
        r->agree && (res.status != SIM_OK || !f->has_overhead || res.overhead == f->overhead);
    r->wall_s = res.wall_s;
    if (!r->agree && !quiet)
        fprintf(stderr,
                "MISMATCH %s %s trial %d ratio %g\n"
                "  budget    %-22llu ref %llu\n"
                "  status    %-22s ref %s\n"
                "  overhead  %-22.17g ref %.17g\n"
                "  evictions %-22llu ref %llu\n"
                "  eager     %-22llu ref %llu\n"
                "  remat     %-22llu ref %llu\n"
                "  peak      %-22llu ref %llu\n",
                f->model, f->policy, f->trial, f->ratio, (unsigned long long)cfg.budget,
                (unsigned long long)f->budget, st, f->status,
                res.status == SIM_OK ? res.overhead : 0.0, f->overhead,
                (unsigned long long)res.evictions, (unsigned long long)f->evictions,
                (unsigned long long)res.eager_evictions, (unsigned long long)f->eager,
                (unsigned long long)res.remat_compute, (unsigned long long)f->remat,
                (unsigned long long)res.peak_memory, (unsigned long long)f->peak);
    if (!quiet && r->agree && !r->exact)
        fprintf(stderr, "NOTE %s %s ratio %g: overhead %.17g vs %.17g (within 1e-9)\n", f->model,
                f->policy, f->ratio, res.overhead, f->overhead);
    return 0;
}

/* The CSV's directory + "/../traces/dtr-iclr21". */
static char *default_traces_dir(const char *csv)
{
    const char *slash = strrchr(csv, '/');
    size_t dlen = slash ? (size_t)(slash - csv) : 1;
    const char *dir = slash ? csv : ".";
    char *out = malloc(dlen + 32);
    if (out)
        snprintf(out, dlen + 32, "%.*s/../traces/dtr-iclr21", (int)dlen, dir);
    return out;
}

int sim_reftable_run(const char *cmd, const sim_reftable_opts *o)
{
    ref_row *rows;
    size_t n;
    if (load_rows(cmd, o->csv, &rows, &n) != 0)
        return 1;
    char *tdir = o->traces_dir ? strdup(o->traces_dir) : default_traces_dir(o->csv);
    group *groups = calloc(n + 1, sizeof *groups);
    size_t n_groups = 0;
    int rc = 0;
    double load_s = 0, cpu_s = 0, wall_s = 0, simrd_s = 0;
    int repeat = o->repeat > 0 ? o->repeat : 1;
    if (!tdir || !groups) {
        cli_error(cmd, "out of memory");
        rc = 1;
        goto done;
    }
    if (o->rows)
        printf("log_file,policy,trial,ratio,status_ok,agree,exact,wall_s\n");
    /* logs in order of first appearance; each loaded once */
    for (size_t i = 0; i < n && rc == 0; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(rows[j].ref.log, rows[i].ref.log) == 0;
        if (seen)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", tdir, rows[i].ref.log);
        double l0 = wall_now();
        sim_trace *t;
        sim_runner *run = NULL;
        gms_error err = {0};
        if (sim_trace_load(path, &t, &err) != 0) {
            cli_error(cmd, "%s (use --traces DIR to say where the logs are)", err.msg);
            rc = 1;
            break;
        }
        if (sim_runner_new(t, &run, &err) != 0) {
            cli_error(cmd, "%s", err.msg);
            sim_trace_free(t);
            rc = 1;
            break;
        }
        load_s += wall_now() - l0;
        for (int rep = 0; rep < repeat && rc == 0; rep++) {
            double c0 = cpu_now(), w0 = wall_now();
            for (size_t j = i; j < n && rc == 0; j++)
                if (strcmp(rows[j].ref.log, rows[i].ref.log) == 0)
                    rc = run_row(cmd, run, t, &rows[j], o->quiet || rep > 0) ? 1 : 0;
            cpu_s += cpu_now() - c0;
            wall_s += wall_now() - w0;
        }
        sim_runner_free(run);
        sim_trace_free(t);
        for (size_t j = i; j < n && rc == 0; j++) {
            ref_row *r = &rows[j];
            if (strcmp(r->ref.log, rows[i].ref.log) != 0)
                continue;
            size_t g = 0;
            while (g < n_groups && !(strcmp(groups[g].log, r->ref.log) == 0 &&
                                     strcmp(groups[g].policy, r->ref.policy) == 0))
                g++;
            if (g == n_groups) {
                groups[g] =
                    (group){.log = r->ref.log, .model = r->ref.model, .policy = r->ref.policy};
                n_groups++;
            }
            groups[g].rows++;
            groups[g].agree += r->agree;
            groups[g].exact += r->exact;
            groups[g].ours_s += r->wall_s;
            groups[g].simrd_s += r->ref.simrd_s;
            simrd_s += r->ref.simrd_s;
            if (o->rows)
                printf("%s,%s,%d,%.1f,%d,%d,%d,%.6f\n", r->ref.log, r->ref.policy, r->ref.trial,
                       r->ref.ratio, strcmp(r->ref.status, "ok") == 0, r->agree, r->exact,
                       r->wall_s);
        }
    }
    if (rc == 0) {
        FILE *f = o->rows ? stderr : stdout;
        int rows_n = 0, agree = 0, exact = 0;
        fprintf(f, "%-22s %-10s %5s %6s %6s %10s %10s\n", "model", "policy", "rows", "agree",
                "exact", "ours_s", "simrd_s");
        for (size_t g = 0; g < n_groups; g++) {
            fprintf(f, "%-22s %-10s %5d %6d %6d %10.4f %10.3f\n", groups[g].model,
                    groups[g].policy, groups[g].rows, groups[g].agree, groups[g].exact,
                    groups[g].ours_s, groups[g].simrd_s);
            rows_n += groups[g].rows;
            agree += groups[g].agree;
            exact += groups[g].exact;
        }
        fprintf(f, "%-22s %-10s %5d %6d %6d %10.4f %10.3f\n", "total", "", rows_n, agree, exact,
                wall_s / repeat, simrd_s);
        fprintf(f,
                "simulations: %d rows x %d repeat(s): cpu %.4f s (%.4f s per table), wall %.4f s; "
                "trace loading %.3f s; simrd %.1f s; speed-up %.0fx\n",
                rows_n, repeat, cpu_s, cpu_s / repeat, wall_s, load_s, simrd_s,
                cpu_s > 0 ? simrd_s / (cpu_s / repeat) : 0.0);
        if (agree != rows_n)
            rc = 1;
    }
done:
    free(groups);
    free(tdir);
    rows_free(rows, n);
    return rc;
}
