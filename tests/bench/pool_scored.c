/*
 * pool_scored: how many pool members the exact choice scored in one run, against the
 * candidates the plain scan counts (issue 26 goal 3, sim_pool_bound.h).
 *
 *   pool_scored TRACE POLICY BUDGET_RATIO
 *
 * Prints "ops_executed candidates scored": candidates is the run's result (every member the
 * plain scan visits: what it scored), scored the members the bounded scans of lru, size,
 * dtr-local and dtr actually scored (read from the view by an on_evict hook, which leaves the
 * choice as it is; "-" for other policies). Used by scripts/bench/real.sh, section 5.
 */
#include <stdio.h>
#include <stdlib.h>

#include "registry.h"
#include "sim.h"
#include "sim_internal.h" /* v->pkb_scored */

static uint64_t scored;

static void read_scored(const sim_view *v, uint32_t s, int eager, void *state)
{
    (void)s, (void)eager, (void)state;
    scored = v->pkb_scored;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: pool_scored TRACE POLICY BUDGET_RATIO\n");
        return 2;
    }
    const sim_policy *p = pol_find(argv[2]);
    char *end;
    double ratio = strtod(argv[3], &end);
    if (!p || *end || !(ratio > 0)) {
        fprintf(stderr, "pool_scored: unknown policy %s or bad ratio %s\n", argv[2], argv[3]);
        return 2;
    }
    sim_trace *t;
    gms_error err = {0};
    if (sim_trace_load(argv[1], &t, &err)) {
        fprintf(stderr, "pool_scored: %s\n", err.msg);
        return 1;
    }
    sim_policy pol = *p;
    int hooked = !pol.on_evict;
    if (hooked)
        pol.on_evict = read_scored;
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = &pol;
    cfg.budget = sim_budget_for_ratio(t, ratio);
    sim_result r;
    if (sim_run(t, &cfg, &r, &err)) {
        fprintf(stderr, "pool_scored: %s\n", err.msg);
        sim_trace_free(t);
        return 1;
    }
    int bounded = hooked && (p->score_kind == SIM_SCORE_LRU || p->score_kind == SIM_SCORE_SIZE ||
                             p->score_kind == SIM_SCORE_DTR_LOCAL ||
                             p->score_kind == SIM_SCORE_DTR) && !p->choose;
    if (bounded)
        printf("%llu %llu %llu\n", (unsigned long long)r.ops_executed,
               (unsigned long long)r.candidates, (unsigned long long)scored);
    else
        printf("%llu %llu -\n", (unsigned long long)r.ops_executed,
               (unsigned long long)r.candidates);
    sim_trace_free(t);
    return 0;
}
