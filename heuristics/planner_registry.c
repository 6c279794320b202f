/* planner_registry: CLI name -> checkpoint planner (see planners.h). One line per planner. */
#include <string.h>

#include "planners.h"

static const sim_planner *const planners[] = {
    &planner_ckpt_all,
    &planner_ckpt_sqrt,
    &planner_mimose,
    &planner_mimose_static,
    &planner_rotor,
    &planner_sac,
    &planner_ac_budget,
};
#define N_PLANNERS (sizeof planners / sizeof planners[0])

const sim_planner *planner_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < N_PLANNERS; i++)
        if (strcmp(planners[i]->name, name) == 0)
            return planners[i];
    return NULL;
}

size_t planner_count(void)
{
    return N_PLANNERS;
}

const sim_planner *planner_at(size_t i)
{
    return i < N_PLANNERS ? planners[i] : NULL;
}
