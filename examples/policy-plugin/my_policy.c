/*
 * An eviction policy as a gpumemsim plugin: the score DTR uses without its neighbourhood
 * term, compute / (size x staleness); the lowest score is evicted first. Edit score() and
 * the name, run `make`, then `gpumemsim sim TRACE --policy ./my_policy.so --budget 0.5`.
 */
#include <policy.h>

static double score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    return sim_score_ratio((int64_t)sim_view_compute(v, s), sim_view_size(v, s),
                           sim_view_staleness(v, s));
}

static const sim_policy my_policy = {
    .name = "my-policy",
    .description = "example plugin: compute / (size x staleness)",
    .score = score,
};

const sim_policy *gpumemsim_policy(unsigned *abi_version)
{
    *abi_version = SIM_POLICY_ABI_VERSION;
    return &my_policy;
}
