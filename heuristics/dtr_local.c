/*
 * dtr-local: DTR without the neighbourhood term (simrd's DTRLocal):
 * compute / (size x staleness).
 */
#include "policies.h"

static double dtr_local_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    return sim_score_ratio((int64_t)sim_view_compute(v, s), sim_view_size(v, s),
                           sim_view_staleness(v, s));
}

const sim_policy pol_dtr_local = {
    .name = "dtr-local",
    .description = "DTR, local cost only: compute / (size x staleness)",
    .score = dtr_local_score,
    .score_kind = SIM_SCORE_DTR_LOCAL,
};
