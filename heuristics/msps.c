/*
 * msps: simrd's MSPS (after Peng et al.'s "memory saving per second"):
 * (compute + reverse evicted-neighbourhood compute) / size, no staleness.
 */
#include "policies.h"

static double msps_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    uint64_t num = sim_view_compute(v, s) + sim_view_region_rev_cost(v, s);
    return sim_score_ratio((int64_t)num, sim_view_size(v, s), 1);
}

const sim_policy pol_msps = {
    .name = "msps",
    .description = "MSPS: (compute + evicted-ancestor compute) / size",
    .needs = SIM_NEEDS_REGIONS,
    .score = msps_score,
    .score_kind = SIM_SCORE_MSPS,
};
