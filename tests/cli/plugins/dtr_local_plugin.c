/* A policy plugin for the tests: DTR-local (compute / (size x staleness)) written the way a
 * researcher writes a plugin, with a plain score function (score_kind 0, so the simulator calls
 * it for every pool member). It must choose exactly what the built-in dtr-local chooses. */
#include "policy.h"

static double score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    return sim_score_ratio((int64_t)sim_view_compute(v, s), sim_view_size(v, s),
                           sim_view_staleness(v, s));
}

static const sim_policy policy = {
    .name = "test-dtr-local",
    .description = "test plugin: dtr-local through a plain score function",
    .score = score,
};

const sim_policy *gpumemsim_policy(unsigned *abi_version)
{
    *abi_version = SIM_POLICY_ABI_VERSION;
    return &policy;
}
