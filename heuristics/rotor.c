/*
 * rotor: Rotor's optimal persistent schedule for the chain of an iteration's layers
 * (knobs/rotor.h; docs/planners.md, "rotor"). Before each iteration: the chain from the trace
 * (rotor_trace.h), the activation budget = budget - what the chain does not model (memory
 * live at the iteration's start, storages outliving it, the ops before the first layer),
 * discretized into `slots` slots as Rotor does, the table, the sequence. The engine carries
 * out the sequence's forward pass: a ForwardEnable layer runs normally, a ForwardCheck layer
 * and the ForwardNograd layers after it form one checkpointed unit (what
 * torch.utils.checkpoint on that segment does). In backward the engine re-runs a unit whole,
 * keeping everything: where Rotor's sequence checkpoints again inside a re-run (a nested
 * ForwardCheck after the loss), the engine holds more than Rotor planned, and the run's peak
 * shows it. When no persistent schedule fits the chain model (Rotor raises an error), every
 * layer is checkpointed: the least this engine can carry out; the run says whether it fits.
 * No predicted peak, no cache: the plan is made again for each iteration.
 */
#include <stdlib.h>
#include <string.h>

#include "knob_params.h"
#include "planners.h"
#include "rotor.h"
#include "rotor_trace.h"

#define ROTOR_TABLE_MAX ((size_t)2 << 30) /* 2 GiB: about 300 layers at 500 slots */

typedef struct rotor_state {
    const sim_layers *layers;
    uint32_t slots;
} rotor_state;

static int init(const struct sim_config *cfg, const struct sim_layers *layers,
                const char *params, void **state, gms_error *err)
{
    (void)cfg;
    uint32_t slots;
    int rc = knob_rotor_params(params, &slots, err);
    if (rc)
        return rc;
    rotor_state *s = calloc(1, sizeof *s);
    if (!s)
        return gms_error_set(err, GMS_ENOMEM, "rotor: out of memory");
    s->layers = layers, s->slots = slots;
    *state = s;
    return 0;
}

static void state_free(void *state)
{
    free(state);
}

/* The forward pass of the sequence (everything before the loss) as layer flags. */
static void top_level(const rotor_sequence *q, uint32_t n_layers, sim_plan *out)
{
    for (size_t k = 0; k < q->n && q->ops[k].kind != ROTOR_LOSS; k++) {
        uint32_t i = q->ops[k].index;
        if (i >= n_layers)
            continue;
        if (q->ops[k].kind == ROTOR_FWD_CHECK) {
            out->checkpoint[i] = 1;
        } else if (q->ops[k].kind == ROTOR_FWD_NOGRAD) {
            out->checkpoint[i] = 1;
            if (out->with_previous)
                out->with_previous[i] = 1;
        }
    }
}

static int plan(void *state, const sim_plan_request *req, sim_plan *out, gms_error *err)
{
    rotor_state *s = state;
    rotor_chain *c = NULL, *d = NULL;
    rotor_table *t = NULL;
    rotor_sequence q = {0};
    uint64_t constant = 0, unit = 1;
    if (req->n_layers == 0)
        return 0;
    int rc = rotor_chain_from_trace(s->layers, req->iteration, &c, &constant, err);
    if (rc)
        return rc;
    if (req->budget == UINT64_MAX || req->budget <= constant) {
        /* unlimited: nothing to checkpoint; nothing left for activations: checkpoint all,
         * the least this planner can do, and let the run show it does not fit */
        if (req->budget != UINT64_MAX)
            for (uint32_t i = 0; i < req->n_layers; i++)
                out->checkpoint[i] = 1;
        rotor_chain_free(c);
        return 0;
    }
    uint64_t act = req->budget - constant;
    if (!(d = rotor_discretize(c, act, s->slots, &unit))) {
        rotor_chain_free(c);
        return gms_error_set(err, GMS_ENOMEM, "rotor: out of memory");
    }
    rc = rotor_table_build(d, s->slots, ROTOR_TABLE_MAX, &t, err);
    if (rc == 0) {
        gms_error why = {0};
        if (rotor_persistent(d, t, s->slots, &q, &why) == 0) {
            top_level(&q, req->n_layers, out);
        } else {
            /* no persistent schedule fits the chain model: checkpoint every layer (the
             * least memory the engine can carry out); the run shows whether it fits */
            for (uint32_t i = 0; i < req->n_layers; i++)
                out->checkpoint[i] = 1;
        }
    }
    rotor_sequence_clear(&q);
    rotor_table_free(t);
    rotor_chain_free(d);
    rotor_chain_free(c);
    return rc;
}

const sim_planner planner_rotor = {
    .name = "rotor",
    .description = "planner: Rotor's optimal persistent schedule of the layer chain "
                   "(slots=500)",
    .init = init,
    .free = state_free,
    .plan = plan,
};
