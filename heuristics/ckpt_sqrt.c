/*
 * ckpt-sqrt: Chen et al. 2016 ("Training Deep Nets with Sublinear Memory Cost") the way
 * torch.utils.checkpoint_sequential does it: an iteration's n layers are cut into
 * k = ceil(sqrt(n)) consecutive segments (sizes differ by at most one, longer ones first);
 * every segment but the last is checkpointed as ONE unit (only its output is kept, its layers
 * re-run together in backward), the last one runs normally because backward needs it first.
 * Peak activations are then about k segment outputs plus one segment's insides: O(sqrt(n)).
 */
#include <math.h>

#include "planners.h"

static int init(const struct sim_config *cfg, const struct sim_layers *layers,
                const char *params, void **state, gms_error *err)
{
    (void)cfg, (void)layers, (void)state;
    static const char *const known[] = {NULL};
    return planner_params_check("ckpt-sqrt", params, known, err);
}

static int plan(void *state, const sim_plan_request *req, sim_plan *out, gms_error *err)
{
    (void)state, (void)err;
    uint32_t n = req->n_layers;
    if (n == 0)
        return 0;
    uint32_t k = (uint32_t)ceil(sqrt((double)n));
    uint32_t base = n / k, extra = n % k, at = 0;
    for (uint32_t seg = 0; seg + 1 < k; seg++) {
        uint32_t len = base + (seg < extra ? 1 : 0);
        for (uint32_t j = 0; j < len; j++) {
            out->checkpoint[at + j] = 1;
            if (j > 0 && out->with_previous)
                out->with_previous[at + j] = 1;
        }
        at += len;
    }
    return 0;
}

const sim_planner planner_ckpt_sqrt = {
    .name = "ckpt-sqrt",
    .description = "planner: Chen et al. sqrt(n) segments, checkpointed as units (as "
                   "checkpoint_sequential)",
    .init = init,
    .plan = plan,
};
