/*
 * swap-lru: the vDNN-like swapping baseline (docs/swap.md). The least recently used storage
 * is the victim, as in lru, but it is copied to host memory instead of dropped; it comes
 * back on demand (the op that needs it waits for the copy), with no prefetching. When host
 * memory is full the engine drops the victim instead (recomputed when needed).
 */
#include "policies.h"

static double swap_lru_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    return (double)sim_view_last_access(v, s);
}

const sim_policy pol_swap_lru = {
    .name = "swap-lru",
    .description = "swap the least recently used storage to host memory (vDNN-like baseline)",
    .needs = SIM_NEEDS_SWAP,
    .score = swap_lru_score,
    .score_kind = SIM_SCORE_LRU,
    /* .action NULL: always swap */
};
