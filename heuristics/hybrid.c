/*
 * hybrid: a DELTA-inspired swap-or-recompute policy (docs/swap.md). DELTA's own filter and
 * director rules are not public, so this is our rule, not DELTA's.
 *   - Filter (which storage leaves): dtr's victim, h_DTR's score (compute + evicted-
 *     neighbourhood compute) / (size x staleness). Where every victim is dropped, hybrid is
 *     dtr exactly.
 *   - Director (how it leaves): swapped when a swap costs less than a recomputation of it,
 *     else dropped. A swap, with the copy back on demand (no prefetch), costs the wait for the
 *     device-to-host engine's queue, the copy out (the op that needs the room waits for it)
 *     and the copy back (the op that needs the storage waits for it). A recomputation costs
 *     the storage's own compute and that of its evicted ancestors (its chain, what the engine
 *     reruns to bring it back); a storage that no model op reads again is always dropped
 *     (copying it out would be wasted). A plain comparison of expected costs: no premium.
 * Issue 30 (chosen on synthetic traces, then judged once on the DTR logs; docs/swap.md):
 * before, the filter itself scored min(recompute, swap) and the director added the
 * neighbours' compute to the recompute price with a premium of 2 on swaps; the victims then
 * drifted from dtr's wherever swapping looked cheaper, and the choices compounded.
 */
#include "policies.h"

static uint64_t chain_cost(const sim_view *v, uint32_t s)
{
    return sim_view_compute(v, s) + sim_view_region_rev_cost(v, s);
}

static uint64_t swap_cost(const sim_view *v, uint32_t s)
{
    uint64_t now = sim_view_clock(v), free_at = sim_view_d2h_free_at(v);
    uint64_t queue = free_at > now ? free_at - now : 0;
    return queue + 2 * sim_view_copy_ns(v, sim_view_size(v, s));
}

static double hybrid_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    uint64_t num = sim_view_compute(v, s) + sim_view_region_fwd_cost(v, s) +
                   sim_view_region_rev_cost(v, s);
    return sim_score_ratio((int64_t)num, sim_view_size(v, s), sim_view_staleness(v, s));
}

static unsigned hybrid_action(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    if (sim_view_next_use(v, s) == SIM_NONE)
        return SIM_ACTION_DROP; /* never read again by a model op */
    return swap_cost(v, s) < chain_cost(v, s) ? SIM_ACTION_SWAP : SIM_ACTION_DROP;
}

const sim_policy pol_hybrid = {
    .name = "hybrid",
    .description = "DELTA-inspired: dtr's victim, swapped when a swap costs less than "
                   "recomputing it",
    .needs = SIM_NEEDS_REGIONS | SIM_NEEDS_SWAP,
    .score = hybrid_score,
    .action = hybrid_action,
};
