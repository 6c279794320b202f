/*
 * sim_measure: a whole replay of the running simulation's trace and configuration under
 * another policy, for a policy that measures before it decides (policy.h, sim_view_measure).
 * Capuchin and DELTA measure a first training iteration and decide for the steady state from
 * what it cost; a trace here is such an iteration, so the measurement is a replay of it.
 */
#include "sim.h"
#include "sim_internal.h"

int sim_view_measure(const sim_view *v, const sim_policy *p, sim_result *res, gms_error *err)
{
    if (!p || p == v->pol)
        return gms_error_set(err, GMS_EINVAL,
                             "sim_view_measure: policy %s cannot measure itself",
                             p && p->name ? p->name : "(none)");
    sim_config c = *v->cfg;
    c.policy = p;
    c.planner = NULL; /* the running policy's replay, not a planner's */
    c.planner_params = NULL;
    c.observer = NULL; /* observers see the run itself, not what it measured */
    c.observer_ctx = NULL;
    c.iteration_observer = NULL;
    c.iteration_ctx = NULL;
    c.storage_events = 0;
    return sim_run(v->tr, &c, res, err);
}
