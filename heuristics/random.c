/*
 * random: evict a uniformly random pool member (simrd's RandomStorage):
 * pool[random.randrange(0, len(pool))] with a generator seeded like Python's random.seed(seed)
 * at the start of every run, so trial k equals the reference's trial k choice for choice.
 */
#include <stdlib.h>

#include "mt19937.h"
#include "policies.h"
#include "sim.h"

static int random_init(const sim_config *cfg, void **state, gms_error *err)
{
    pol_mt *m = malloc(sizeof *m);
    if (!m)
        return gms_error_set(err, GMS_ENOMEM, "random policy: out of memory");
    pol_mt_seed(m, cfg->seed);
    *state = m;
    return 0;
}

static void random_free(void *state)
{
    free(state);
}

static uint32_t random_choose(const sim_view *v, void *state)
{
    return sim_view_pool_at(v, pol_mt_below(state, sim_view_pool_size(v)));
}

const sim_policy pol_random = {
    .name = "random",
    .description = "a uniformly random evictable storage (seeded like Python's random.seed)",
    .choose = random_choose,
    .init = random_init,
    .free = random_free,
};
