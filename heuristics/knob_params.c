/*
 * knob_params: the knob replicas' parameters (knob_params.h).
 */
#include "knob_params.h"

#include <math.h>
#include <string.h>

#include "planners.h"

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

void knob_op_base(const char *name, char *out, size_t len)
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

/* The value of key in canonical params ("k=v,k=v"), copied into out: 1 found, 0 absent, -1
 * longer than out. */
static int param_str(const char *params, const char *key, char *out, size_t len)
{
    size_t kl = strlen(key);
    for (const char *p = params; p && *p;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        if ((size_t)(end - p) > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t n = (size_t)(end - p) - kl - 1;
            if (n >= len)
                return -1;
            memcpy(out, p + kl + 1, n);
            out[n] = '\0';
            return 1;
        }
        p = comma ? comma + 1 : end;
    }
    return 0;
}

int knob_rotor_params(const char *params, uint32_t *slots, gms_error *err)
{
    static const char *const known[] = {"slots", NULL};
    if (planner_params_check("rotor", params, known, err))
        return GMS_EINVAL;
    double v = KNOB_ROTOR_SLOTS_DEFAULT;
    int got = planner_param_double("rotor", params, "slots", &v, err);
    if (got < 0)
        return GMS_EINVAL;
    if (got && !(v >= 1 && v <= KNOB_ROTOR_SLOTS_MAX && v == floor(v)))
        return gms_error_set(err, GMS_EINVAL,
                             "rotor: slots=%g: give a whole number of memory slots from 1 to "
                             "%d (Rotor's default: %d)", v, KNOB_ROTOR_SLOTS_MAX,
                             KNOB_ROTOR_SLOTS_DEFAULT);
    *slots = (uint32_t)v;
    return 0;
}

static int add_op(knob_sac_params *s, const char *name, size_t n, gms_error *err)
{
    char buf[KNOB_OP_NAME];
    if (n == 0)
        return gms_error_set(err, GMS_EINVAL,
                             "sac: save= has an empty op name; give ops separated by '+' "
                             "(save=aten::mm+aten::_scaled_dot_product_flash_attention)");
    if (n >= sizeof buf || s->n_ops == KNOB_SAC_MAX_OPS)
        return gms_error_set(err, GMS_EINVAL, "sac: save= lists too many or too long op "
                             "names (at most %d, of %d characters)", KNOB_SAC_MAX_OPS,
                             KNOB_OP_NAME - 1);
    memcpy(buf, name, n);
    buf[n] = '\0';
    knob_op_base(buf, s->ops[s->n_ops++], KNOB_OP_NAME);
    return 0;
}

int knob_sac_params_parse(const char *params, knob_sac_params *out, gms_error *err)
{
    static const char *const known[] = {"every", "preset", "save", NULL};
    memset(out, 0, sizeof *out);
    if (planner_params_check("sac", params, known, err))
        return GMS_EINVAL;
    char val[KNOB_SAC_MAX_OPS * KNOB_OP_NAME], preset[64];
    double every = 0;
    int has_every = planner_param_double("sac", params, "every", &every, err);
    int has_save = param_str(params, "save", val, sizeof val);
    int has_preset = param_str(params, "preset", preset, sizeof preset);
    if (has_every < 0)
        return GMS_EINVAL;
    if (has_save < 0)
        return gms_error_set(err, GMS_EINVAL, "sac: save= is too long (at most %d ops)",
                             KNOB_SAC_MAX_OPS);
    if (has_every && !(every >= 1 && every <= 1e6 && every == floor(every)))
        return gms_error_set(err, GMS_EINVAL, "sac: every=%g: give a whole number of layers "
                             "from 1 (checkpoint every N-th layer)", every);
    if (has_preset && (has_preset < 0 || strcmp(preset, "torchtitan") != 0))
        return gms_error_set(err, GMS_EINVAL, "sac: preset=%s: unknown; the preset is "
                             "'torchtitan' (or list ops with save=A+B)",
                             has_preset < 0 ? "(too long)" : preset);
    if (has_preset && has_save)
        return gms_error_set(err, GMS_EINVAL, "sac: give preset= or save=, not both");
    if (has_save) {
        for (const char *p = val;;) {
            const char *plus = strchr(p, '+');
            size_t n = plus ? (size_t)(plus - p) : strlen(p);
            int rc = add_op(out, p, n, err);
            if (rc)
                return rc;
            if (!plus)
                break;
            p = plus + 1;
        }
        out->op_sac = 1;
    } else if (has_preset || !has_every) {
        for (const char *const *o = torchtitan_ops; *o; o++)
            add_op(out, *o, strlen(*o), err);
        out->op_sac = out->mm_rule = 1;
    }
    out->every = has_every ? (uint32_t)every : 0;
    return 0;
}

int knob_acb_params_parse(const char *params, knob_acb_params *out, gms_error *err)
{
    static const char *const known[] = {"budget", "estimator", "solver", NULL};
    if (planner_params_check("ac-budget", params, known, err))
        return GMS_EINVAL;
    double budget = 1;
    if (planner_param_double("ac-budget", params, "budget", &budget, err) < 0)
        return GMS_EINVAL;
    if (!(budget >= 0 && budget <= 1))
        return gms_error_set(err, GMS_EINVAL, "ac-budget: budget=%g: give a fraction from 0 "
                             "(save only the inputs) to 1 (torch's default min cut)", budget);
    char solver[32] = "dp", est[32] = "flops";
    if (param_str(params, "solver", solver, sizeof solver) < 0)
        strcpy(solver, "(too long)");
    if (param_str(params, "estimator", est, sizeof est) < 0)
        strcpy(est, "(too long)");
    if (strcmp(solver, "dp") == 0)
        out->solver = 0;
    else if (strcmp(solver, "greedy") == 0)
        out->solver = 1;
    else if (strcmp(solver, "ilp") == 0)
        out->solver = 2;
    else
        return gms_error_set(err, GMS_EINVAL, "ac-budget: solver=%s: unknown; give dp "
                             "(torch's default), greedy or ilp", solver);
    if (strcmp(est, "flops") && strcmp(est, "trace"))
        return gms_error_set(err, GMS_EINVAL, "ac-budget: estimator=%s: unknown; give flops "
                             "(torch's default) or trace (the trace's op costs)", est);
    out->budget = budget;
    out->trace_costs = strcmp(est, "trace") == 0;
    return 0;
}
