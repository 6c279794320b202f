/*
 * dtr: the DTR paper's heuristic h_DTR (simrd's DTR): evict the storage with the smallest
 * (compute + evicted-neighbourhood compute) / (size x staleness), where the neighbourhood is
 * the forward and reverse regions the simulator caches (spec sections 5, 6).
 */
#include "policies.h"

static double dtr_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    uint64_t num = sim_view_compute(v, s) + sim_view_region_fwd_cost(v, s) +
                   sim_view_region_rev_cost(v, s);
    return sim_score_ratio((int64_t)num, sim_view_size(v, s), sim_view_staleness(v, s));
}

const sim_policy pol_dtr = {
    .name = "dtr",
    .description = "DTR: (compute + evicted-neighbourhood compute) / (size x staleness)",
    .needs = SIM_NEEDS_REGIONS,
    .score = dtr_score,
    .score_kind = SIM_SCORE_DTR,
};
