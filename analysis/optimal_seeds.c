/* optimal_seeds: the heuristics' runs beside an optimal solve (optimal_seeds.h). */
#include "optimal_seeds.h"

#include <stdlib.h>
#include <string.h>

#include "opt_run_seed.h"
#include "registry.h"

void optimal_seeds_free(optimal_seeds *s)
{
    for (uint32_t k = 0; k < s->n; k++)
        opt_schedule_free(s->run[k].schedule);
    free(s->run), free(s->seeds), free(s->names);
    memset(s, 0, sizeof *s);
    s->best = -1;
}

/* The eviction policy named, or NULL with err said. */
static const struct sim_policy *seed_policy(const char *name, gms_error *err)
{
    const struct sim_policy *pol = pol_find(name);
    if (!pol || pol_needs_addresses(pol) || pol_swaps(pol)) {
        gms_error_set(err, GMS_EINVAL, "--seed-policies: '%s' is not an eviction policy that "
                      "runs on the ideal memory model (dtr, dtr-eq, msps, lru, ...; gpumemsim "
                      "sim --list-policies), or give 'none'", name);
        return NULL;
    }
    return pol;
}

int optimal_seeds_check(const char *list, gms_error *err)
{
    if (!list || !strcmp(list, "none"))
        return 0;
    if (!*list)
        return gms_error_set(err, GMS_EINVAL, "--seed-policies '': give policies "
                             "(dtr,msps) or 'none'");
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    int rc = 0;
    for (char *name = strtok_r(copy, ",", &save); name && !rc;
         name = strtok_r(NULL, ",", &save))
        rc = seed_policy(name, err) ? 0 : GMS_EINVAL;
    free(copy);
    return rc;
}

/* One policy's run into r (and, with m, its schedule of g). */
static int run_one(const sim_trace *t, const struct sim_policy *pol, opt_run_seed *m,
                   const opt_graph *g, uint64_t budget, optimal_seed_run *r, gms_error *err)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol;
    cfg.budget = budget;
    if (m) {
        opt_run_seed_reset(m);
        cfg.observer = opt_run_seed_observe;
        cfg.observer_ctx = m;
    }
    sim_result res;
    memset(&res, 0, sizeof res);
    int rc = sim_run(t, &cfg, &res, err);
    if (rc)
        return rc;
    r->status = sim_status_name(res.status);
    r->overhead = res.overhead;
    if (!m || res.status != SIM_OK)
        return 0;
    opt_schedule *s = opt_schedule_new(g->n);
    if (!s)
        return gms_error_set(err, GMS_ENOMEM, "out of memory for a run's schedule");
    if (opt_run_seed_schedule(m, g, s) != 0) {
        opt_schedule_free(s);
        return 0;
    }
    double compute = opt_graph_compute(g);
    r->schedule = s;
    r->program_overhead = compute > 0 ? opt_schedule_cost(g, s) / compute : 1;
    uint64_t act = budget > g->constant_bytes ? budget - g->constant_bytes : 0;
    r->fits = opt_schedule_peak(g, s) <= act && opt_schedule_check(g, s, NULL, 0) == 0;
    return 0;
}

int optimal_seeds_run(const sim_trace *t, uint32_t iteration, opt_coarsen c, const opt_graph *g,
                      uint64_t budget, const char *list, optimal_seeds *out, gms_error *err)
{
    memset(out, 0, sizeof *out);
    out->best = -1;
    if (!list || !*list || !strcmp(list, "none"))
        return 0;
    char *copy = strdup(list);
    size_t cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    out->run = calloc(cap, sizeof *out->run);
    out->seeds = calloc(cap, sizeof *out->seeds);
    out->names = calloc(cap, sizeof *out->names);
    opt_run_seed *m = NULL;
    int rc = 0;
    if (!copy || !out->run || !out->seeds || !out->names) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory for the heuristics' runs");
        goto done;
    }
    if ((c == OPT_COARSEN_NONE || c == OPT_COARSEN_OUTPUTS) &&
        (rc = opt_run_seed_new(t, iteration, c, &m, err)) != 0)
        goto done;
    char *save = NULL;
    for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        const struct sim_policy *pol = seed_policy(name, err);
        if (!pol) {
            rc = GMS_EINVAL;
            goto done;
        }
        optimal_seed_run *r = &out->run[out->n];
        snprintf(r->policy, sizeof r->policy, "%s", name);
        if ((rc = run_one(t, pol, m, g, budget, r, err)) != 0)
            goto done;
        if (!strcmp(r->status, "ok") && (out->best < 0 || r->overhead < out->run[out->best].overhead))
            out->best = (int)out->n;
        if (r->schedule) {
            out->seeds[out->n_seeds] = r->schedule;
            out->names[out->n_seeds++] = r->policy;
        }
        out->n++;
    }
done:
    free(copy);
    opt_run_seed_free(m);
    if (rc)
        optimal_seeds_free(out);
    return rc;
}

void optimal_seeds_worse(const optimal_seeds *sd, const opt_answer *a, opt_coarsen c,
                         double overhead, char *buf, size_t len)
{
    buf[0] = 0;
    if (sd->best < 0)
        return;
    const optimal_seed_run *b = &sd->run[sd->best];
    if (overhead >= 0 && overhead <= b->overhead)
        return;
    if (c == OPT_COARSEN_LAYERS) {
        if (overhead >= 0)
            snprintf(buf, len, "the layers graph's answer (overhead %.4f) is worse than %s's "
                     "run (%.4f) at this budget: layer granularity cannot express it; "
                     "--coarsen outputs can (each run seeds the MILP there, so it never "
                     "answers worse than one that fits)", overhead, b->policy, b->overhead);
        else
            snprintf(buf, len, "the layers graph has %s at this budget, but %s's run fits "
                     "(overhead %.4f): a layer node is too coarse; --coarsen outputs can "
                     "express that run (it seeds the MILP there)",
                     a->status == OPT_STATUS_INFEASIBLE ? "no schedule"
                     : a->schedule ? "no schedule that fits when replayed"
                                   : "no schedule found in the time limit",
                     b->policy, b->overhead);
        return;
    }
    /* op level: a run that maps onto the graph and fits the program seeds the solve, so the
     * answer is at most its schedule's (whose baseline is the graph's, not the trace's: not
     * compared here); only a run that could not seed is worth a note */
    if (b->schedule && b->fits)
        return;
    const char *level = c == OPT_COARSEN_OUTPUTS ? "outputs" : "op-level (none)";
    const char *why = !b->schedule ? "its run did not map onto the graph"
                                   : "its run, as a schedule of the graph, is over the "
                                     "program's memory accounting (docs/optimal.md)";
    if (overhead >= 0)
        snprintf(buf, len, "the %s graph's answer (overhead %.4f) is worse than %s's run "
                 "(%.4f) at this budget: %s, so it could not seed the MILP", level, overhead,
                 b->policy, b->overhead, why);
    else
        snprintf(buf, len, "the %s graph's answer has no schedule that fits at this budget, "
                 "but %s's run fits (overhead %.4f): %s, so it could not seed the MILP", level,
                 b->policy, b->overhead, why);
}

int optimal_seeds_improve(const optimal_seeds *sd, const opt_graph *g, opt_answer *a)
{
    int pick = -1;
    double best = a->schedule ? a->objective : 0;
    for (uint32_t k = 0; k < sd->n; k++) {
        const optimal_seed_run *r = &sd->run[k];
        if (!r->schedule || !r->fits)
            continue;
        double cost = opt_schedule_cost(g, r->schedule);
        if ((pick < 0 && !a->schedule) || cost < best)
            pick = (int)k, best = cost;
    }
    if (pick < 0)
        return 0;
    const optimal_seed_run *r = &sd->run[pick];
    opt_schedule *s = opt_schedule_new(g->n);
    if (!s)
        return -1;
    size_t nn = (size_t)g->n * g->n;
    memcpy(s->R, r->schedule->R, nn);
    memcpy(s->S, r->schedule->S, nn);
    opt_schedule_free(a->schedule);
    a->schedule = s;
    a->objective = best;
    a->peak = opt_schedule_peak(g, s) + g->constant_bytes;
    a->status = OPT_STATUS_FEASIBLE;
    a->seeded = 1;
    a->seed_objective = best;
    a->seed_from = r->policy;
    double lb = a->lower_bound > a->solver_bound ? a->lower_bound : a->solver_bound;
    a->gap = lb >= 0 && best > 0 ? (best - lb) / best : -1;
    return 1;
}

json_t *optimal_seeds_json(const optimal_seeds *sd)
{
    json_t *arr = json_array();
    for (uint32_t k = 0; arr && k < sd->n; k++) {
        const optimal_seed_run *r = &sd->run[k];
        json_t *o = json_pack("{s:s, s:s}", "policy", r->policy, "status", r->status);
        if (!o)
            continue;
        json_object_set_new(o, "overhead", !strcmp(r->status, "ok") ? json_real(r->overhead)
                                                                     : json_null());
        json_object_set_new(o, "schedule_overhead", r->schedule ?
                            json_real(r->program_overhead) : json_null());
        json_object_set_new(o, "fits_program", r->schedule ? json_boolean(r->fits)
                                                            : json_null());
        json_array_append_new(arr, o);
    }
    return arr;
}
