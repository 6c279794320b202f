/*
 * rotor: Rotor's optimal persistent schedule for the chain of an iteration's layers
 * (knobs/rotor.h; docs/planners.md, "rotor"). Before each iteration: the chain from the trace
 * (rotor_trace.h), the activation budget = budget - what the chain does not model (memory
 * live at the iteration's start, storages outliving it, the ops before the first layer),
 * discretized into `slots` slots as Rotor does, the table, the sequence (rotor_trace.h). The
 * engine carries out the whole sequence: a ForwardEnable layer runs normally, a ForwardCheck
 * layer and the ForwardNograd layers after it form one checkpointed unit (what
 * torch.utils.checkpoint on that segment does); the units after the loss, which Rotor runs
 * inside a re-run, are nested intervals the engine checkpoints within that re-run
 * (sim_plan.nested), so every layer runs forward as many times as in Rotor's sequence.
 * When no persistent schedule fits the chain model (Rotor raises an error), every layer is
 * checkpointed: the least this engine can carry out; the run says whether it fits.
 * No predicted peak, no cache: the plan is made again for each iteration.
 */
#include <stdlib.h>
#include <string.h>

#include "knob_params.h"
#include "planners.h"
#include "rotor.h"
#include "rotor_trace.h"

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

/* The sequence as a plan: each ForwardCheck with the ForwardNograd layers after it is a
 * checkpointed unit; those before the loss are the forward pass's units (flags, joined by
 * with_previous), those after it run inside a re-run: nested intervals (sim_plan.nested),
 * which the engine checkpoints within the re-run of the unit around them. */
static void to_plan(const rotor_sequence *q, uint32_t n_layers, sim_plan *out)
{
    int after_loss = 0;
    for (size_t k = 0; k < q->n; k++) {
        const rotor_op *o = &q->ops[k];
        if (o->kind == ROTOR_LOSS)
            after_loss = 1;
        if (o->kind != ROTOR_FWD_CHECK || o->index >= n_layers)
            continue;
        uint32_t a = o->index, b = a;
        while (k + 1 < q->n && q->ops[k + 1].kind == ROTOR_FWD_NOGRAD &&
               q->ops[k + 1].index == b + 1 && b + 1 < n_layers)
            k++, b++;
        if (!after_loss) {
            for (uint32_t i = a; i <= b; i++) {
                out->checkpoint[i] = 1;
                if (i > a && out->with_previous)
                    out->with_previous[i] = 1;
            }
        } else if (out->nested && out->n_nested < 2 * n_layers) {
            out->nested[2 * out->n_nested] = a;
            out->nested[2 * out->n_nested + 1] = b;
            out->n_nested++;
        }
    }
}

static int plan(void *state, const sim_plan_request *req, sim_plan *out, gms_error *err)
{
    rotor_state *s = state;
    rotor_sequence q;
    int fits = 1;
    if (req->n_layers == 0)
        return 0;
    int rc = rotor_trace_sequence(s->layers, req->iteration, req->budget, s->slots, NULL, &q,
                                  &fits, err);
    if (rc)
        return rc;
    if (!fits) {
        /* no persistent schedule fits the chain model (or nothing is left for activations):
         * checkpoint every layer, the least this planner can do; the run shows whether it
         * fits */
        for (uint32_t i = 0; i < req->n_layers; i++)
            out->checkpoint[i] = 1;
    }
    to_plan(&q, req->n_layers, out);
    out->by_layer = 1; /* ForwardNograd keeps nothing of a layer but its output */
    rotor_sequence_clear(&q);
    return 0;
}

const sim_planner planner_rotor = {
    .name = "rotor",
    .description = "planner: Rotor's optimal persistent schedule of the layer chain "
                   "(slots=500)",
    .init = init,
    .free = state_free,
    .plan = plan,
};
