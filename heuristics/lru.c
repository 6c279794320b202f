/*
 * lru: evict the least recently used storage (simrd's LRU: score = last access time).
 */
#include "policies.h"

static double lru_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    return (double)sim_view_last_access(v, s);
}

const sim_policy pol_lru = {
    .name = "lru",
    .description = "least recently used storage first",
    .score = lru_score,
    .score_kind = SIM_SCORE_LRU,
};
