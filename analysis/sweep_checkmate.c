/* sweep_checkmate: Checkmate runs in a sweep, with the solver's answers cached in the store
 * (see sweep_checkmate.h). */
#include "sweep_checkmate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkmate_events.h"
#include "opt_extract.h"
#include "opt_size.h"
#include "opt_replay.h"
#include "opt_solve.h"
#include "optimal_seeds.h"
#include "store_solution.h"

const char *sweep_checkmate_coarsen(const sweep_spec *sp)
{
    return sp->ck_coarsen ? sp->ck_coarsen : "auto";
}

const char *sweep_checkmate_name(size_t i, const char **description)
{
    static const char *const names[][2] = {
        {"checkmate", "solved, not a heuristic: Checkmate's MILP (CBC) on one iteration's "
                      "graph, its schedule replayed (docs/optimal.md)"},
        {"checkmate-approx", "solved, not a heuristic: the Checkmate authors' LP rounding, "
                             "replayed (docs/optimal.md)"},
    };
    if (i >= sizeof names / sizeof names[0])
        return NULL;
    if (description)
        *description = names[i][1];
    return names[i][0];
}

int sweep_checkmate_is(const char *policy)
{
    return strcmp(policy, "checkmate") == 0 || strcmp(policy, "checkmate-approx") == 0;
}

const char *sweep_checkmate_search(const char *policy, double time_limit, int no_improve)
{
    return !no_improve && time_limit > 0 && strcmp(policy, "checkmate") == 0 ? "windows"
                                                                              : "none";
}

void sweep_checkmate_params(const sweep_spec *sp, const char *policy, const sim_trace *t,
                            uint64_t budget, char *buf, size_t len)
{
    const char *c = sweep_checkmate_coarsen(sp);
    opt_coarsen picked;
    char why[8];
    gms_error ignored;
    /* auto is keyed by what it picks for this trace and budget (deterministic), so the run's
     * params and its solution's key agree; a trace without the iteration fails later, in
     * the run, with its message */
    if (strcmp(c, "auto") == 0)
        c = opt_graph_auto(t, sp->ck_iteration, budget, sp->ck_time_limit, NULL, &picked, why,
                           sizeof why, &ignored) == 0 ? opt_coarsen_name(picked) : "auto";
    int n = snprintf(buf, len, "coarsen=%s,iteration=%u,time_limit=%.17g", c, sp->ck_iteration,
                     sp->ck_time_limit > 0 ? sp->ck_time_limit : 0.0);
    if (n > 0 && (size_t)n < len &&
        !strcmp(sweep_checkmate_search(policy, sp->ck_time_limit, sp->ck_no_improve), "windows"))
        n += snprintf(buf + n, len - (size_t)n, ",search=windows");
    /* the default seeds keep the key runs had before seeding (docs/optimal.md says what a
     * store of then holds); other lists are part of it, '+' for the list's commas */
    const char *seeds = sp->ck_seed_policies;
    if (seeds && strcmp(seeds, OPTIMAL_SEEDS_DEFAULT) && n > 0 && (size_t)n < len) {
        int m = snprintf(buf + n, len - (size_t)n, ",seeds=%s", seeds);
        for (char *q = buf + n + 7; m > 0 && *q; q++)
            if (*q == ',')
                *q = '+';
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The schedule as stored: R then S, n x n bytes each. */
static int decode(const store_solution *sol, uint32_t n, opt_schedule **out, gms_error *err)
{
    size_t nn = (size_t)n * n;
    if (sol->nodes != n || sol->schedule_len != 2 * nn)
        return gms_error_set(err, GMS_EFORMAT,
                             "the store's cached solution has %u nodes (%zu bytes) and the "
                             "graph %u: the store is damaged; delete its solutions row",
                             sol->nodes, sol->schedule_len, n);
    opt_schedule *s = opt_schedule_new(n);
    if (!s)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    memcpy(s->R, sol->schedule, nn);
    memcpy(s->S, (const uint8_t *)sol->schedule + nn, nn);
    *out = s;
    return 0;
}

/* A stored answer_from as the static name opt_answer_from gives; NULL when not known. */
static const char *from_name(const char *stored)
{
    static const char *const names[] = {"solver", "window-search", "seed"};
    for (size_t i = 0; stored && i < sizeof names / sizeof *names; i++)
        if (!strcmp(stored, names[i]))
            return names[i];
    return NULL;
}

static opt_solve_status status_from_name(const char *name)
{
    for (int st = OPT_STATUS_OPTIMAL; st <= OPT_STATUS_UNKNOWN; st++)
        if (strcmp(name, opt_status_name((opt_solve_status)st)) == 0)
            return (opt_solve_status)st;
    return OPT_STATUS_UNKNOWN;
}

int sweep_checkmate_solve(store *s, const opt_graph *g, const store_solution_key *key,
                          double time_limit, const optimal_seeds *sd, opt_answer *a,
                          int *cached, sweep_checkmate_how *how, gms_error *err)
{
    memset(a, 0, sizeof *a);
    *cached = 0;
    sweep_checkmate_how unwanted;
    if (!how)
        how = &unwanted;
    memset(how, 0, sizeof *how);
    store_solution got = {0};
    int found = 0;
    int rc = s ? store_get_solution(s, key, &got, &found, err) : 0;
    if (rc)
        return rc;
    if (found) {
        *cached = 1;
        a->status = status_from_name(got.status);
        a->objective = got.objective;
        a->lower_bound = got.lower_bound;
        a->bound_boundary = got.bound_boundary;
        a->solver_bound = -1;
        a->gap = got.gap;
        a->seconds = got.solve_s;
        a->compute = opt_graph_compute(g);
        if (got.schedule && a->status != OPT_STATUS_INFEASIBLE)
            rc = decode(&got, g->n, &a->schedule, err);
        how->from = a->schedule ? from_name(got.answer_from) : NULL;
        store_solution_clear(&got);
        /* a store's answer may be from a solve without these seeds: never worse than them */
        double before = a->schedule ? a->objective : -1;
        if (!rc && sd && optimal_seeds_improve(sd, g, a) < 0)
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        if (!rc && a->schedule && a->objective != before)
            how->from = "seed";
        /* a solution stored before schema version 9 gets its graph's compute now, for the
         * yardstick (a read-only store cannot take it: skipped, nothing lost) */
        if (!rc && !(got.compute > 0)) {
            gms_error ignored;
            (void)store_solution_fill_compute(s, key, a->compute, &ignored);
        }
        return rc;
    }
    /* the request `optimal` makes for these settings: the same answer in every command */
    opt_request rq = {.budget = key->budget, .time_limit = time_limit,
                      .mode = strcmp(key->mode, "approx") == 0 ? OPT_MODE_APPROX
                                                                : OPT_MODE_MILP,
                      .improve = !strcmp(store_solution_search(key), "windows")};
    if (sd && rq.mode == OPT_MODE_MILP) {
        rq.seeds = sd->seeds;
        rq.seed_names = sd->names;
        rq.n_seeds = sd->n_seeds;
    }
    if ((rc = opt_solve(g, &rq, a, err)) != 0)
        return rc;
    how->from = opt_answer_from(a);
    how->searched = a->improve_ran;
    how->windows = a->improve_windows;
    if (!s)
        return 0;
    size_t nn = (size_t)g->n * g->n;
    uint8_t *blob = a->schedule ? malloc(nn > 0 ? 2 * nn : 1) : NULL;
    if (a->schedule && !blob) {
        opt_answer_clear(a);
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
    if (blob) {
        memcpy(blob, a->schedule->R, nn);
        memcpy(blob + nn, a->schedule->S, nn);
    }
    store_solution sol = {.key = *key, .status = opt_status_name(a->status),
                          .objective = a->objective, .lower_bound = a->lower_bound,
                          .bound_boundary = a->bound_boundary,
                          .gap = a->gap, .solve_s = a->seconds, .nodes = g->n,
                          .compute = opt_graph_compute(g), .answer_from = how->from,
                          .schedule = blob, .schedule_len = blob ? 2 * nn : 0};
    rc = store_put_solution(s, &sol, err);
    free(blob);
    if (rc)
        opt_answer_clear(a);
    return rc;
}

int sweep_checkmate_run_observed(store *s, const sim_trace *t, const char *trace_hash,
                                 const char *policy, uint64_t budget, const char *coarsen,
                                 uint32_t iteration, double time_limit, int no_improve,
                                 const char *seed_policies, sim_observer obs, void *obs_ctx,
                                 sim_result *res, int *cached, sweep_checkmate_how *how,
                                 char *note, size_t note_len, gms_error *err)
{
    double t0 = now_s();
    memset(res, 0, sizeof *res);
    if (note && note_len)
        note[0] = 0;
    *cached = 0;
    opt_coarsen c;
    if (opt_coarsen_parse(coarsen, &c))
        return gms_error_set(err, GMS_EINVAL, "coarsening '%s': give auto, layers, outputs "
                             "or none", coarsen ? coarsen : "");
    opt_graph *g = NULL;
    char why[512];
    int rc = c == OPT_COARSEN_AUTO
                 ? opt_graph_auto(t, iteration, budget, time_limit, &g, &c, why, sizeof why, err)
                 : opt_graph_from_trace(t, iteration, c, &g, NULL, err);
    if (rc)
        return rc;
    store_solution_key key = {trace_hash, iteration, opt_coarsen_name(c), budget,
                              strcmp(policy, "checkmate-approx") == 0 ? "approx" : "exact",
                              time_limit > 0 ? time_limit : 0,
                              sweep_checkmate_search(policy, time_limit, no_improve)};
    /* the runs seed an op-level solve, and are what the note compares any graph's answer
     * with (as sim's); without a note wanted a layer graph needs none */
    optimal_seeds sd = {.best = -1};
    if (!strcmp(key.mode, "exact") && opt_graph_peak(g) > budget &&
        (c == OPT_COARSEN_OUTPUTS || c == OPT_COARSEN_NONE || (note && note_len)) &&
        (rc = optimal_seeds_run(t, iteration, c, g, budget,
                                seed_policies ? seed_policies : OPTIMAL_SEEDS_DEFAULT, &sd,
                                err)) != 0) {
        opt_graph_free(g);
        return rc;
    }
    opt_answer a;
    rc = sweep_checkmate_solve(s, g, &key, time_limit, &sd, &a, cached, how, err);
    res->status = SIM_OOM;
    if (!rc && a.schedule) {
        opt_replay r = {0};
        rc = opt_replay_run(g, a.schedule, obs != NULL, &r, err);
        if (!rc) {
            double compute = opt_graph_compute(g);
            if (obs)
                checkmate_events_emit(g, &r, obs, obs_ctx, res);
            res->status = SIM_OOM;
            res->peak_memory = r.peak;
            res->remats = r.recomputes;
            if (r.peak <= budget) {
                res->status = SIM_OK;
                res->overhead = compute > 0 ? r.compute / compute : 1;
            }
        }
        opt_replay_clear(&r);
    }
    if (!rc && note && note_len)
        optimal_seeds_worse(&sd, &a, c, res->status == SIM_OK ? res->overhead : -1, note,
                            note_len);
    optimal_seeds_free(&sd);
    opt_answer_clear(&a);
    opt_graph_free(g);
    res->wall_s = now_s() - t0;
    return rc;
}

int sweep_checkmate_run(store *s, const sim_trace *t, const char *trace_hash,
                        const char *policy, uint64_t budget, const sweep_spec *sp,
                        sim_result *res, int *cached, char *note, size_t note_len,
                        gms_error *err)
{
    return sweep_checkmate_run_observed(s, t, trace_hash, policy, budget,
                                        sweep_checkmate_coarsen(sp), sp->ck_iteration,
                                        sp->ck_time_limit, sp->ck_no_improve,
                                        sp->ck_seed_policies, NULL, NULL, res, cached, NULL,
                                        note, note_len, err);
}
