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
 * The engine carries it out (sim/planner.h save_op): saved outputs are held from the layer's
 * forward until its re-run, the re-run skips the saved ops. No prediction, no cache.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planners.h"
#include "sim_dataflow.h"
#include "sim_layers.h"

#define SAC_MAX_OPS 64
#define SAC_NAME 96

/* torchtitan/models/llama3/infra/parallelize.py, _op_sac_save_list (the ops' base names) */
static const char *const torchtitan_ops[] = {
    "mm",
    "_scaled_dot_product_efficient_attention",
    "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_cudnn_attention",
    "_scaled_dot_product_attention_math",
    "_scaled_dot_product_fused_attention_overrideable",
    "reduce_scatter_tensor",
    "max",
    "flex_attention",
    NULL,
};

typedef struct sac_state {
    const sim_layers *layers;
    char ops[SAC_MAX_OPS][SAC_NAME];
    uint32_t n_ops;
    int op_sac;     /* save the listed ops (else: whole layers) */
    int mm_rule;    /* torchtitan: every second mm of a layer is recomputed */
    uint32_t every; /* 0: every layer */
} sac_state;

/* The op's base name: after the last "::" (aten::mm -> mm), without ".default". */
static void base_name(const char *name, char *out, size_t len)
{
    const char *p = name, *q;
    while ((q = strstr(p, "::")))
        p = q + 2;
    size_t n = strlen(p);
    if (n > 8 && strcmp(p + n - 8, ".default") == 0)
        n -= 8;
    if (n >= len)
        n = len - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* The value of key in the canonical params ("k=v,k=v"), copied into out; 1 found, 0 not. */
static int param_str(const char *params, const char *key, char *out, size_t len)
{
    size_t kl = strlen(key);
    for (const char *p = params; p && *p;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        if ((size_t)(end - p) > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t n = (size_t)(end - p) - kl - 1;
            if (n >= len)
                n = len - 1;
            memcpy(out, p + kl + 1, n);
            out[n] = '\0';
            return 1;
        }
        p = comma ? comma + 1 : end;
    }
    return 0;
}

static int add_op(sac_state *s, const char *name, size_t n, gms_error *err)
{
    char buf[SAC_NAME];
    if (n == 0)
        return gms_error_set(err, GMS_EINVAL,
                             "sac: save= has an empty op name; give ops separated by '+' "
                             "(save=aten::mm+aten::_scaled_dot_product_flash_attention)");
    if (n >= sizeof buf || s->n_ops == SAC_MAX_OPS)
        return gms_error_set(err, GMS_EINVAL, "sac: save= lists too many or too long op "
                             "names (at most %d, of %d characters)", SAC_MAX_OPS, SAC_NAME - 1);
    memcpy(buf, name, n);
    buf[n] = '\0';
    base_name(buf, s->ops[s->n_ops++], SAC_NAME);
    return 0;
}

static int init(const struct sim_config *cfg, const struct sim_layers *layers,
                const char *params, void **state, gms_error *err)
{
    (void)cfg;
    static const char *const known[] = {"every", "preset", "save", NULL};
    if (planner_params_check("sac", params, known, err))
        return -1;
    sac_state *s = calloc(1, sizeof *s);
    if (!s)
        return gms_error_set(err, GMS_ENOMEM, "sac: out of memory");
    s->layers = layers;
    char val[4096];
    double every = 0;
    int has_every = planner_param_double("sac", params, "every", &every, err);
    int has_save = param_str(params, "save", val, sizeof val);
    char preset[64] = "";
    int has_preset = param_str(params, "preset", preset, sizeof preset);
    int rc = 0;
    if (has_every < 0) {
        rc = -1;
    } else if (has_every && (every < 1 || every > 1e6 || every != floor(every))) {
        rc = gms_error_set(err, GMS_EINVAL, "sac: every=%g: give a whole number of layers "
                           "from 1 (checkpoint every N-th layer)", every);
    } else if (has_preset && strcmp(preset, "torchtitan") != 0) {
        rc = gms_error_set(err, GMS_EINVAL, "sac: preset=%s: unknown; the preset is "
                           "'torchtitan' (or list ops with save=A+B)", preset);
    } else if (has_preset && has_save) {
        rc = gms_error_set(err, GMS_EINVAL, "sac: give preset= or save=, not both");
    }
    if (rc == 0 && has_save) {
        for (const char *p = val;;) {
            const char *plus = strchr(p, '+');
            size_t n = plus ? (size_t)(plus - p) : strlen(p);
            if ((rc = add_op(s, p, n, err)) != 0 || !plus)
                break;
            p = plus + 1;
        }
        s->op_sac = 1;
    } else if (rc == 0 && (has_preset || !has_every)) {
        for (const char *const *o = torchtitan_ops; *o; o++)
            add_op(s, *o, strlen(*o), err);
        s->op_sac = s->mm_rule = 1;
    }
    if (rc) {
        free(s);
        return rc;
    }
    s->every = has_every ? (uint32_t)every : 0;
    *state = s;
    return 0;
}

static void state_free(void *state)
{
    free(state);
}

static int listed(const sac_state *s, const char *name)
{
    char b[SAC_NAME];
    base_name(name, b, sizeof b);
    for (uint32_t i = 0; i < s->n_ops; i++)
        if (strcmp(s->ops[i], b) == 0)
            return 1;
    return 0;
}

static int plan(void *state, const sim_plan_request *req, sim_plan *out, gms_error *err)
{
    sac_state *s = state;
    for (uint32_t i = 0; i < req->n_layers; i++) /* _apply_layer_sac: counter from 1 */
        out->checkpoint[i] = s->every == 0 || (i + 1) % s->every == 0;
    if (!s->op_sac || req->n_layers == 0 || !out->save_op)
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
        if (!listed(s, f->ops[k].name))
            continue;
        char b[SAC_NAME];
        base_name(f->ops[k].name, b, sizeof b);
        int save = 1;
        if (s->mm_rule && strcmp(b, "mm") == 0) /* "except every second mm" */
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
