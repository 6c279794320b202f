/*
 * dtr-eq: DTR with the equivalence-class approximation of the evicted neighbourhood
 * (simrd's DTREqClass): (compute + values of the distinct classes of the evicted neighbours)
 * / (size x staleness) (spec sections 5, 7).
 */
#include "policies.h"

static double dtr_eq_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    int64_t num = (int64_t)sim_view_compute(v, s) + sim_view_eqclass_cost(v, s);
    return sim_score_ratio(num, sim_view_size(v, s), sim_view_staleness(v, s));
}

const sim_policy pol_dtr_eq = {
    .name = "dtr-eq",
    .description = "DTR with equivalence classes: (compute + evicted-class compute) / (size x staleness)",
    .needs = SIM_NEEDS_EQCLASS,
    .score = dtr_eq_score,
    .score_kind = SIM_SCORE_DTR_EQ,
};
