/*
 * hybrid: a DELTA-inspired swap-or-recompute policy (docs/swap.md). DELTA's own filter and
 * director rules are not public, so this is our rule, not DELTA's. For every candidate it
 * prices both ways of freeing it:
 *   recompute = compute + evicted-neighbourhood compute (h_DTR's numerator);
 *   swap      = 2 x (the wait for the device-to-host engine's queue + one copy out + one
 *               copy back), the copy back on demand (no prefetch); never, for a storage that
 *               no model op reads again (the trace says so: sim_view_next_use).
 * The factor 2 is a risk premium, chosen on synthetic traces only (the DTR logs are for
 * validation; the procedure is in docs/swap.md): the copy out is paid at once (the op that
 * needs the room waits for it) while a recompute is paid only if the tensor is needed again, even by a recompute of a child.
 * It scores min(recompute, swap) / (size x staleness), as h_DTR scores the first, and swaps
 * the victim when swapping was the cheaper way (and host memory has room), else drops it.
 */
#include "policies.h"

#define SWAP_PREMIUM 2

static uint64_t recompute_cost(const sim_view *v, uint32_t s)
{
    return sim_view_compute(v, s) + sim_view_region_fwd_cost(v, s) +
           sim_view_region_rev_cost(v, s);
}

static uint64_t swap_cost(const sim_view *v, uint32_t s)
{
    if (sim_view_next_use(v, s) == SIM_NONE)
        return UINT64_MAX / 4; /* never read again: a copy would be wasted */
    uint64_t now = sim_view_clock(v), free_at = sim_view_d2h_free_at(v);
    uint64_t queue = free_at > now ? free_at - now : 0;
    return SWAP_PREMIUM * (queue + 2 * sim_view_copy_ns(v, sim_view_size(v, s)));
}

static double hybrid_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    uint64_t r = recompute_cost(v, s), w = swap_cost(v, s);
    return sim_score_ratio((int64_t)(w < r ? w : r), sim_view_size(v, s),
                           sim_view_staleness(v, s));
}

static unsigned hybrid_action(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    return swap_cost(v, s) < recompute_cost(v, s) ? SIM_ACTION_SWAP : SIM_ACTION_DROP;
}

const sim_policy pol_hybrid = {
    .name = "hybrid",
    .description = "DELTA-inspired: swap or recompute each victim, whichever costs less",
    .needs = SIM_NEEDS_REGIONS | SIM_NEEDS_SWAP,
    .score = hybrid_score,
    .action = hybrid_action,
};
