/*
 * dtr-frag: DTR whose size term counts the free bytes next to a storage's block, after
 * MegEngine's fragmentation-aware DTR: evicting a block that borders free memory makes a
 * larger contiguous hole, which an allocator with addresses needs more than the bytes alone.
 * (compute + evicted-neighbourhood compute) / ((size + free bytes around) x staleness).
 * Needs a memory model with addresses (--allocator caching or lifetime).
 */
#include "policies.h"

static double dtr_frag_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    uint64_t cost = sim_view_compute(v, s) + sim_view_region_fwd_cost(v, s) +
                    sim_view_region_rev_cost(v, s);
    return sim_score_ratio((int64_t)cost, sim_view_size(v, s) + sim_view_free_around(v, s),
                           sim_view_staleness(v, s));
}

const sim_policy pol_dtr_frag = {
    .name = "dtr-frag",
    .description = "DTR counting the free bytes around a block in its size (MegEngine); "
                   "needs --allocator",
    .needs = SIM_NEEDS_REGIONS | SIM_NEEDS_ADDRESSES,
    .score = dtr_frag_score,
};
