/*
 * size: evict the largest storage (simrd's LargestStorage: score = 1 / size).
 */
#include "policies.h"

static double size_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    return sim_score_ratio(1, sim_view_size(v, s), 1);
}

const sim_policy pol_size = {
    .name = "size",
    .description = "largest storage first",
    .score = size_score,
    .score_kind = SIM_SCORE_SIZE,
};
