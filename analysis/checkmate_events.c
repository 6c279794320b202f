/* checkmate_events: a replayed schedule as sim events (see checkmate_events.h). */
#include "checkmate_events.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t cost_ns(double ms)
{
    double ns = ms * 1e6;
    return ns > 0 ? (uint64_t)llround(ns) : 0;
}

void checkmate_events_emit(const opt_graph *g, const opt_replay *r, sim_observer obs, void *ctx,
                           sim_result *res)
{
    memset(res, 0, sizeof *res);
    res->clock = 1;
    /* later[s]: the node freed at step s is computed again after it (walk backwards) */
    uint8_t *seen = calloc((size_t)g->n + 1, 1), *done = calloc((size_t)g->n + 1, 1);
    uint8_t *later = calloc(r->n_steps + 1, 1);
    if (seen && later)
        for (size_t s = r->n_steps; s-- > 0;) {
            const opt_step *st = &r->steps[s];
            if (st->kind == OPT_STEP_COMPUTE)
                seen[st->node] = 1;
            else
                later[s] = seen[st->node];
        }
    for (size_t s = 0; s < r->n_steps; s++) {
        const opt_step *st = &r->steps[s];
        const opt_node *nd = &g->nodes[st->node];
        sim_event ev = {.memory = st->resident, .reserved = st->resident,
                        .allocated = st->resident, .size = nd->bytes, .op_index = st->node,
                        .storage = st->node};
        if (st->kind == OPT_STEP_COMPUTE) {
            uint64_t ns = cost_ns(nd->cost);
            res->clock += ns;
            res->ops_executed++;
            int again = done ? done[st->node] : 0;
            if (done)
                done[st->node] = 1;
            ev.kind = again ? SIM_EV_REMAT : SIM_EV_COMPUTE;
            ev.op = nd->name;
            if (again) {
                res->remats++;
                res->remat_compute += ns;
            }
        } else if (later && later[s]) {
            ev.kind = SIM_EV_EVICT;
            res->evictions++;
        } else {
            ev.kind = SIM_EV_EVICT_EAGER;
            res->eager_evictions++;
        }
        if (st->resident > res->peak_memory)
            res->peak_memory = st->resident;
        ev.clock = res->clock;
        if (obs)
            obs(ctx, &ev);
    }
    res->peak_reserved = res->peak_allocated = res->peak_memory;
    free(seen);
    free(done);
    free(later);
}
