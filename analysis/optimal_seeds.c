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
        const struct sim_policy *pol = pol_find(name);
        if (!pol || pol_needs_addresses(pol) || pol_swaps(pol)) {
            rc = gms_error_set(err, GMS_EINVAL, "--seed-policies: '%s' is not an eviction "
                               "policy that runs on the ideal memory model (dtr, dtr-eq, msps, "
                               "lru, ...; gpumemsim sim --list-policies), or give 'none'", name);
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
