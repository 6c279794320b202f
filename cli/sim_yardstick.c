/* sim_yardstick: a heuristic sim run's gaps to the stored optimum (sim_yardstick.h). */
#include "sim_yardstick.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sim_layers.h"
#include "store.h"
#include "store_solution.h"
#include "yardstick.h"

static int keep(void *ctx, const store_solution *sol)
{
    sim_yardstick *y = ctx;
    sim_yardstick_entry *e = realloc(y->e, (y->n + 1) * sizeof *e);
    if (!e)
        return GMS_ENOMEM;
    y->e = e;
    e += y->n++;
    memset(e, 0, sizeof *e);
    snprintf(e->coarsen, sizeof e->coarsen, "%s", sol->key.coarsen ? sol->key.coarsen : "");
    snprintf(e->status, sizeof e->status, "%s", sol->status ? sol->status : "");
    e->iteration = sol->key.iteration;
    e->nodes = sol->nodes;
    e->time_limit = sol->key.time_limit;
    e->objective = sol->objective;
    e->lower_bound = sol->lower_bound;
    e->compute = sol->compute;
    return 0;
}

int sim_yardstick_load(const char *db, const char *trace_path, const sim_trace *t,
                       uint64_t budget, sim_yardstick *y, gms_error *err)
{
    memset(y, 0, sizeof *y);
    y->db = db;
    y->budget = budget;
    sim_layers *l;
    if (sim_layers_build(t, &l, err))
        return -1;
    y->iterations = sim_layers_iterations(l);
    sim_layers_free(l);
    char hash[17];
    store *s;
    if (store_hash_file(trace_path, hash, err) || store_open(db, STORE_READONLY, &s, err))
        return -1;
    int rc = store_solutions_at(s, hash, budget, keep, y, err);
    store_close(s);
    if (rc)
        sim_yardstick_free(y);
    if (rc == GMS_ENOMEM)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    return rc;
}

void sim_yardstick_free(sim_yardstick *y)
{
    free(y->e);
    y->e = NULL;
    y->n = 0;
}

static void gap_of(const sim_yardstick_entry *e, int run_ok, double overhead, yardstick_gap *g)
{
    yardstick_solution s = {.status = e->status, .has_objective = !isnan(e->objective),
                            .objective = e->objective, .lower_bound = e->lower_bound,
                            .compute = e->compute, .coarsen = e->coarsen};
    yardstick_gap_of(run_ok, overhead, &s, g);
}

static json_t *num(double d)
{
    return isfinite(d) ? json_real(d) : json_null();
}

/* How to get an answer where the store has none. */
static void hint(const sim_yardstick *y, const char *trace, char *buf, size_t len)
{
    snprintf(buf, len, "%s holds no Checkmate answer for this trace at %llu B; solve one with "
                       "'gpumemsim sim %s --policy checkmate --budget %lluB --db %s' "
                       "(add --coarsen outputs for the op-level program, --time-limit S to bound "
                       "it)",
             y->db, (unsigned long long)y->budget, trace, (unsigned long long)y->budget, y->db);
}

void sim_yardstick_print_json(const sim_yardstick *y, const char *trace, int run_ok,
                              double overhead)
{
    if (!y)
        return;
    json_t *o = json_object(), *arr = json_array();
    json_object_set_new(o, "trace_iterations", json_integer(y->iterations));
    json_object_set_new(o, "comparable", json_boolean(y->iterations == 1));
    if (y->iterations != 1)
        json_object_set_new(o, "note", json_string("the heuristic's overhead is over all the "
                                                   "trace's iterations, the optimum's over one"));
    for (size_t i = 0; i < y->n; i++) {
        const sim_yardstick_entry *e = &y->e[i];
        yardstick_gap g;
        gap_of(e, run_ok, overhead, &g);
        json_t *j = json_object();
        json_object_set_new(j, "coarsen", json_string(e->coarsen));
        json_object_set_new(j, "iteration", json_integer(e->iteration));
        json_object_set_new(j, "nodes", json_integer(e->nodes));
        json_object_set_new(j, "time_limit", json_real(e->time_limit));
        json_object_set_new(j, "solver_status", json_string(e->status));
        json_object_set_new(j, "proven", json_boolean(g.proven));
        json_object_set_new(j, "opt_overhead", num(g.opt_overhead));
        json_object_set_new(j, "bound_overhead", num(g.bound_overhead));
        json_object_set_new(j, "gap_optimum", num(g.gap_optimum));
        json_object_set_new(j, "gap_bound", num(g.gap_bound));
        json_object_set_new(j, "finding", g.finding ? json_string(g.finding) : json_null());
        if (!(e->compute > 0))
            json_object_set_new(j, "note", json_string("stored before schema version 9 without "
                                                       "the graph's compute: replay it once "
                                                       "with --policy checkmate --db to fill it"));
        json_array_append_new(arr, j);
    }
    json_object_set_new(o, "solutions", arr);
    if (y->n == 0) {
        char h[1200];
        hint(y, trace, h, sizeof h);
        json_object_set_new(o, "hint", json_string(h));
    }
    char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(o);
    printf(", \"yardstick\": %s", s ? s : "null");
    free(s);
}

static void fmt_gap(double g, char *buf, size_t len)
{
    if (isfinite(g))
        snprintf(buf, len, "%+.2f%%", 100 * g);
    else
        snprintf(buf, len, "-");
}

void sim_yardstick_print_text(const sim_yardstick *y, const char *trace, int run_ok,
                              double overhead)
{
    if (!y)
        return;
    if (y->n == 0) {
        char h[1200];
        hint(y, trace, h, sizeof h);
        printf("yardstick        none: %s\n", h);
        return;
    }
    for (size_t i = 0; i < y->n; i++) {
        const sim_yardstick_entry *e = &y->e[i];
        yardstick_gap g;
        gap_of(e, run_ok, overhead, &g);
        char a[32], b[32], o[32], lb[32];
        fmt_gap(g.gap_optimum, a, sizeof a);
        fmt_gap(g.gap_bound, b, sizeof b);
        snprintf(o, sizeof o, isfinite(g.opt_overhead) ? "%.6f" : "-", g.opt_overhead);
        snprintf(lb, sizeof lb, isfinite(g.bound_overhead) ? "%.6f" : "-", g.bound_overhead);
        printf("yardstick        %s (%s, iteration %u, %u nodes%s): optimum %s, LP bound %s; "
               "gap %s to it, %s to the bound\n",
               e->status, strcmp(e->coarsen, "layers") == 0 ? "coarsened by layers"
                          : strcmp(e->coarsen, "outputs") == 0 ? "op level, by output"
                                                                : "op level",
               e->iteration, e->nodes, e->time_limit > 0 ? ", time-limited" : "", o, lb, a, b);
        if (g.finding)
            printf("                 finding: %s\n", g.finding);
    }
    if (y->iterations != 1)
        printf("                 (the heuristic's overhead is over all %u iterations, the "
               "optimum's over one)\n", y->iterations);
}
