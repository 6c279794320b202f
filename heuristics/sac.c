/*
 * sac: selective activation checkpointing as users write it (docs/planners.md, "sac"):
 * torch.utils.checkpoint with create_selective_checkpoint_contexts on each checkpointed layer,
 * whose policy saves the outputs of the listed ops (MUST_SAVE) and recomputes the rest
 * (PREFER_RECOMPUTE), and torchtitan's two modes (torchtitan/distributed/activation_checkpoint.py
 * at cfb9326): op SAC (_apply_op_sac, its save list and "every second mm is recomputed") and
 * layer SAC (_apply_layer_sac: every N-th layer checkpointed whole).
 *
 *   save=OP+OP+...   op SAC with these ops saved, in every checkpointed layer ('+' separates
 *                    them: ',' separates --policy-args). aten::mm, mm and aten::mm.default
 *                    name the same op.
 *   preset=torchtitan  torchtitan's llama3 _op_sac_save_list and its mm rule (the default
 *                    when neither save= nor every= is given)
 *   every=N          checkpoint every N-th layer (the N-th, 2N-th, ...: torchtitan's
 *                    _layer_sac_count % N == 0); alone: layer SAC, whole layers recomputed;
 *                    with save= or preset=: op SAC on those layers only (an extension)
 * torchtitan's two modes wrap the transformer blocks only (apply_ac over
 * model.layers.named_children(): not the embeddings, the final norm or the head): where the
 * iteration's layers tell blocks (block_layers), the preset and every=N wrap those, counting
 * blocks; where they cannot (segments, a single top-level module), every layer is wrapped, as
 * a save= list always does. The engine carries it out (sim/planner.h save_op): saved outputs
 * are held from the layer's forward until its re-run, the re-run skips the saved ops. No
 * prediction, no cache.
 */
#include <stdlib.h>
#include <string.h>

#include "knob_params.h"
#include "planners.h"
#include "sim_dataflow.h"
#include "sim_layers.h"

typedef struct sac_state {
    const sim_layers *layers;
    knob_sac_params p;
} sac_state;

static int init(const struct sim_config *cfg, const struct sim_layers *layers,
                const char *params, void **state, gms_error *err)
{
    (void)cfg;
    sac_state *s = calloc(1, sizeof *s);
    if (!s)
        return gms_error_set(err, GMS_ENOMEM, "sac: out of memory");
    int rc = knob_sac_params_parse(params, &s->p, err);
    if (rc) {
        free(s);
        return rc;
    }
    s->layers = layers;
    *state = s;
    return 0;
}

static void state_free(void *state)
{
    free(state);
}

static int listed(const knob_sac_params *p, const char *base)
{
    for (uint32_t i = 0; i < p->n_ops; i++)
        if (strcmp(p->ops[i], base) == 0)
            return 1;
    return 0;
}

/* Name "<prefix>.<digits>": the length of the prefix, else 0. */
static size_t indexed_prefix(const char *name)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    return k < n && k > 1 && name[k - 1] == '.' ? k - 1 : 0;
}

/* The blocks of a ModuleList among the request's layers: layers from scopes named
 * "<prefix>.<index>" whose prefix another such layer shares (h.0 .. h.5, layers.0 ..
 * layers.31). block[i] = 1 for those; returns how many (0: the layers tell no blocks). */
static uint32_t block_layers(const sim_layers *ly, const sim_plan_request *req, uint8_t *block)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < req->n_layers; i++) {
        const sim_layer *a = sim_layers_at(ly, req->first_layer + i);
        size_t k = indexed_prefix(a->name);
        block[i] = 0;
        for (uint32_t j = 0; k && a->source == SIM_LAYERS_SCOPES && j < req->n_layers; j++) {
            const sim_layer *b = sim_layers_at(ly, req->first_layer + j);
            if (j != i && b->source == SIM_LAYERS_SCOPES && indexed_prefix(b->name) == k &&
                strncmp(a->name, b->name, k) == 0) {
                block[i] = 1;
                n++;
                break;
            }
        }
    }
    return n;
}

static int plan(void *state, const sim_plan_request *req, sim_plan *out, gms_error *err)
{
    sac_state *s = state;
    /* torchtitan's modes (the preset, every=N) wrap its blocks when the layers tell them;
     * out->checkpoint holds the block flags meanwhile */
    int blocks = (s->p.mm_rule || s->p.every) && block_layers(s->layers, req, out->checkpoint);
    for (uint32_t i = 0, count = 0; i < req->n_layers; i++) { /* _apply_layer_sac: from 1 */
        int wrap = !blocks || out->checkpoint[i];
        count += (uint32_t)wrap;
        out->checkpoint[i] = wrap && (s->p.every == 0 || count % s->p.every == 0);
    }
    if (!s->p.op_sac || req->n_layers == 0 || !out->save_op)
        return 0;
    const sim_iteration_span *sp = sim_layers_iteration(s->layers, req->iteration);
    sim_flow *f = NULL;
    int rc = sim_flow_build(sim_layers_trace(s->layers), sp->first_op, sp->backward_op, &f, err);
    if (rc)
        return rc;
    uint32_t cur = UINT32_MAX, mm = 0;
    for (uint32_t k = 0; k < f->n_ops; k++) {
        uint32_t op = f->ops[k].op, ly = sim_layers_of_op(s->layers, op);
        if (ly == SIM_LAYER_NONE || ly < req->first_layer ||
            ly >= req->first_layer + req->n_layers || !out->checkpoint[ly - req->first_layer])
            continue;
        if (ly != cur) /* each checkpoint call gets its own policy state (meta) */
            cur = ly, mm = 0;
        char b[KNOB_OP_NAME];
        knob_op_base(f->ops[k].name, b, sizeof b);
        if (!listed(&s->p, b))
            continue;
        int save = 1;
        if (s->p.mm_rule && strcmp(b, "mm") == 0) /* "except every second mm" */
            save = ++mm % 2 != 0;
        out->save_op[op - sp->first_op] = (uint8_t)save;
    }
    sim_flow_free(f);
    return 0;
}

const sim_planner planner_sac = {
    .name = "sac",
    .description = "planner: selective activation checkpointing (save=OP+OP, "
                   "preset=torchtitan, every=N)",
    .init = init,
    .free = state_free,
    .plan = plan,
};
