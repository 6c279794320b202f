/*
 * ac_partition: choose_saved_values_set and solve_min_cut of torch/_functorch/partitioners.py
 * on an abstract joint graph (ac_partition.h). Config defaults are config.py's:
 * ban_recompute_used_far_apart, ban_recompute_long_fusible_chains,
 * ban_recompute_materialized_backward, ban_recompute_not_in_allowlist,
 * ban_recompute_reductions all True; recompute_views False; max_dist_from_bw 1000;
 * aggressive_recomputation False.
 */
#include "ac_partition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "knapsack.h"
#include "mincut.h"

#define DIST_INF 1000000000u /* int(1e9) */

/* ---- get_default_op_list ---- */

static int in_list(const char *op, const char *const *list)
{
    if (!op)
        return 0;
    for (; *list; list++)
        if (strcmp(op, *list) == 0)
            return 1;
    return 0;
}

/* recomputable_view_ops (squeeze, unsqueeze, alias, view, slice, t, broadcast_in_dim,
 * expand, as_strided, permute, select, split) */
static const char *const view_ops[] = {"squeeze", "unsqueeze", "alias", "view", "slice", "t",
                                       "broadcast_in_dim", "expand", "as_strided", "permute",
                                       "select", "split", NULL};

/* default_recomputable_ops, the second list, index/gather, zeros_like; pointwise_ops() is
 * approximated by the pointwise entries already listed plus the common pointwise ATen ops
 * below the marker (torch's set comes from native_functions.yaml tags) */
static const char *const recomputable_ops[] = {
    "add", "sub", "div", "atan2", "mul", "max", "min", "pow", "remainder", "fmod", "__and__",
    "__or__", "__xor__", "__lshift__", "__rshift__", "eq", "ne", "ge", "gt", "le", "lt", "abs",
    "bitwise_not", "ceil", "floor", "frac", "neg", "relu", "round", "silu", "trunc", "log",
    "log10", "log1p", "log2", "lgamma", "exp", "expm1", "erf", "erfc", "cos", "acos", "cosh",
    "sin", "asin", "sinh", "tan", "atan", "tanh", "atanh", "sqrt", "rsqrt", "reciprocal",
    "sigmoid", "softplus", "threshold", "threshold_backward", "clamp", "where", "lerp",
    "addcmul", "gelu", "gelu_backward", "sum", "mean", "_grad_sum_to_size", "sum_to_size",
    "amax", "to", "type_as", "getitem", "squeeze", "unsqueeze", "rsub", "_to_copy",
    /* second list */
    "convert_element_type", "clone", "full_like", "var", "std", "broadcast_in_dim", "select",
    "_unsafe_view", "view", "expand", "slice", "reshape", "broadcast_tensors", "scalar_tensor",
    "ones", "new_zeros", "lift_fresh_copy", "arange", "triu", "var_mean", "isinf", "any",
    "full", "as_strided", "zeros", "empty", "empty_like", "argmax", "maximum", "iota",
    "_low_memory_max_pool_offsets_to_indices", "index", "gather", "alias", "t", "permute",
    "split", "zeros_like",
    /* pointwise_ops() (approximation, see above) */
    "masked_fill", "sign", "clamp_min", "clamp_max", "hardtanh", "leaky_relu", "elu",
    "hardswish", "hardsigmoid", "mish", "logical_not", "logical_and", "logical_or",
    "bitwise_and", "bitwise_or", "bitwise_xor", "minimum", "fmax", "fmin", "addcdiv",
    "nan_to_num", "isnan", "copy", "fill", "square", "exp2", "digamma", NULL};

static const char *const random_ops[] = {"native_dropout", "rand_like", "randn_like", NULL};

static const char *const compute_intensive_ops[] = {
    "mm", "convolution", "convolution_backward", "bmm", "addmm",
    "_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention",
    "_flash_attention_forward", "_efficient_attention_forward", "upsample_bilinear2d",
    "_scaled_mm", NULL};

/* ops torch.utils.flop_counter registers a formula for (the common ones) */
static const char *const flop_ops[] = {
    "mm", "addmm", "bmm", "baddbmm", "matmul", "convolution", "convolution_backward",
    "_convolution", "cudnn_convolution", "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
    "_flash_attention_forward", "_efficient_attention_forward", "_scaled_mm", NULL};

int ac_op_view(const char *op) { return in_list(op, view_ops); }
int ac_op_recomputable(const char *op) { return in_list(op, recomputable_ops); }
int ac_op_random(const char *op) { return in_list(op, random_ops); }
int ac_op_compute_intensive(const char *op) { return in_list(op, compute_intensive_ops); }
int ac_op_has_flops(const char *op) { return in_list(op, flop_ops); }

/* ---- the partitioner's state ---- */

typedef struct min_cut_options {
    int used_far_apart, long_fusible_chains, materialized_backward, not_in_allowlist,
        reduction;
} min_cut_options;

typedef struct ctx {
    const ac_node *nd;
    uint32_t n;
    uint32_t *dist;      /* dist_from_bw */
    uint32_t *order;     /* get_fw_order (forward nodes) */
    uint8_t *fusible;    /* op_types.is_fusible: recomputable or random */
    uint8_t *view;       /* op_types.is_view */
} ctx;

/* is_fusible(a, b) in solve_min_cut: memory fusion into a cat; else both fusible ops */
static int is_fusible(const ctx *c, uint32_t a, uint32_t b)
{
    if (c->nd[b].op && strcmp(c->nd[b].op, "cat") == 0)
        return 1;
    return c->fusible[a] && c->fusible[b];
}

/* is_materialized_backwards: a user in backward that cannot fuse, looking through views */
static int materialized_backwards(const ctx *c, uint32_t node, uint32_t *stack)
{
    if (c->view[node])
        return 0;
    uint32_t top = 0;
    stack[top++] = node;
    while (top) {
        uint32_t cur = stack[--top];
        for (uint32_t k = 0; k < c->nd[cur].n_users; k++) {
            uint32_t u = c->nd[cur].users[k];
            if (c->nd[u].backward && !is_fusible(c, cur, u))
                return 1;
            if (c->view[u] && top < c->n)
                stack[top++] = u;
        }
    }
    return 0;
}

/* should_ban_recomputation */
static int should_ban(const ctx *c, const min_cut_options *o, uint32_t i, uint32_t *stack)
{
    const ac_node *x = &c->nd[i];
    if (x->must_save)
        return 1;
    /* config.recompute_views is False: views are judged like any op */
    if (x->op && (strcmp(x->op, "lift_fresh_copy") == 0 || strcmp(x->op, "lift_fresh") == 0))
        return 0;
    if (o->not_in_allowlist) {
        if (!ac_op_recomputable(x->op))
            return 1;
    } else if (ac_op_random(x->op) || ac_op_compute_intensive(x->op)) {
        return 1;
    }
    if (o->materialized_backward && materialized_backwards(c, i, stack))
        return 1;
    /* dist_from_bw < 1000 and > max_dist_from_bw (1000): never true with the default */
    if (o->reduction) {
        double in = 0;
        for (uint32_t k = 0; k < x->n_args; k++)
            in += c->nd[x->args[k]].size;
        return x->size * 4 < in;
    }
    return 0;
}

/* get_node_weight (no static-lifetime inputs: inputs are not nodes) */
static double node_weight(const ctx *c, uint32_t i)
{
    double d = c->dist[i] < 100 ? c->dist[i] : 100;
    if (d < 1)
        d = 1;
    double w = (double)(long long)(c->nd[i].size * pow(1.1, d));
    int materialized = 0; /* is_materialized: not all users fusible */
    for (uint32_t k = 0; k < c->nd[i].n_users && !materialized; k++)
        materialized = !is_fusible(c, i, c->nd[i].users[k]);
    return materialized ? w : w * 2;
}

typedef struct cut_state {
    const ctx *c;
    mc_graph *g;
    uint8_t *banned;
    uint32_t *ban_order; /* banned_nodes' insertion order */
    uint32_t n_banned;
    const uint8_t *dont_ban;
    int failed;
} cut_state;

#define V_IN(i) (2 * (i))
#define V_OUT(i) (2 * (i) + 1)

/* ban_recomputation_if_allowed */
static int ban_if_allowed(cut_state *s, uint32_t i)
{
    if (s->c->view[i])
        return 0;
    if (s->dont_ban && s->dont_ban[i])
        return 0;
    if (s->banned[i])
        return 1; /* an OrderedSet: added once; the source edge again changes nothing */
    s->banned[i] = 1;
    s->ban_order[s->n_banned++] = i;
    if (mc_add_edge(s->g, 2 * s->c->n, V_IN(i), INFINITY))
        s->failed = 1;
    return 1;
}

/* A tiny binary heap of (order, flag) keys for find_first_unfusible and the chains. */
typedef struct hitem {
    uint32_t order, node;
    uint8_t flag;
} hitem;

static int hless(hitem a, hitem b)
{
    return a.order != b.order ? a.order < b.order : a.flag < b.flag;
}

static void hpush(hitem *h, uint32_t *n, hitem x)
{
    uint32_t i = (*n)++;
    h[i] = x;
    while (i && hless(h[i], h[(i - 1) / 2])) {
        hitem t = h[i];
        h[i] = h[(i - 1) / 2], h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static hitem hpop(hitem *h, uint32_t *n)
{
    hitem top = h[0];
    h[0] = h[--*n];
    for (uint32_t i = 0;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && hless(h[l], h[m]))
            m = l;
        if (r < *n && hless(h[r], h[m]))
            m = r;
        if (m == i)
            break;
        hitem t = h[i];
        h[i] = h[m], h[m] = t;
        i = m;
    }
    return top;
}

static int hcontains(const hitem *h, uint32_t n, hitem x)
{
    for (uint32_t i = 0; i < n; i++)
        if (h[i].node == x.node && h[i].flag == x.flag)
            return 1;
    return 0;
}

/* find_first_unfusible(start_nodes, max_range) */
static uint32_t first_unfusible(const ctx *c, uint32_t used, uint32_t max_range, hitem *h,
                                size_t cap)
{
    uint32_t n = 0;
    const ac_node *x = &c->nd[used];
    for (uint32_t k = 0; k < x->n_users; k++)
        if (!c->nd[x->users[k]].backward)
            hpush(h, &n, (hitem){c->order[x->users[k]], x->users[k], 1});
    while (n) {
        hitem it = hpop(h, &n);
        if (!it.flag)
            return it.order;
        const ac_node *y = &c->nd[it.node];
        for (uint32_t k = 0; k < y->n_users; k++) {
            uint32_t u = y->users[k];
            if (c->nd[u].backward || c->order[u] > max_range)
                continue;
            hitem v = {c->order[u], u, (uint8_t)is_fusible(c, it.node, u)};
            if (!hcontains(h, n, v) && n < cap)
                hpush(h, &n, v);
        }
    }
    return max_range;
}

/* solve_min_cut(joint_graph, node_info, min_cut_options, dont_ban): saved[i] = 1 for the
 * cut nodes; s->banned / ban_order the banned nodes. */
static int solve_min_cut(const ctx *c, const min_cut_options *o, const uint8_t *dont_ban,
                         uint8_t *saved, cut_state *s, gms_error *err)
{
    uint32_t n = c->n, src = 2 * n, snk = 2 * n + 1;
    size_t hcap = (size_t)4 * n + 16;
    uint32_t *stack = malloc(((size_t)n + 1) * sizeof *stack);
    hitem *heap = malloc(hcap * sizeof *heap);
    uint8_t *visited = calloc((size_t)n + 1, 1);
    uint8_t *side = malloc((size_t)snk + 1);
    mc_graph *g = mc_new(snk + 1);
    memset(s->banned, 0, n);
    s->n_banned = 0, s->g = g, s->dont_ban = dont_ban, s->failed = 0;
    int rc = 0;
    if (!stack || !heap || !visited || !side || !g) {
        rc = gms_error_set(err, GMS_ENOMEM, "ac-budget: out of memory for the min cut");
        goto done;
    }
    for (uint32_t i = 0; i < n && !s->failed; i++) {
        const ac_node *x = &c->nd[i];
        if (x->backward) { /* required_bw_nodes, not an input: X_in -> sink */
            if (mc_add_edge(g, V_IN(i), snk, INFINITY))
                s->failed = 1;
            continue;
        }
        if (should_ban(c, o, i, stack))
            ban_if_allowed(s, i);
        if (mc_add_edge(g, V_IN(i), V_OUT(i), node_weight(c, i)))
            s->failed = 1;
        for (uint32_t k = 0; k < x->n_users; k++)
            if (mc_add_edge(g, V_OUT(i), V_IN(x->users[k]), INFINITY))
                s->failed = 1;
    }
    if (o->used_far_apart) /* ban_if_used_far_apart */
        for (uint32_t i = 0; i < n && !s->failed; i++) {
            const ac_node *x = &c->nd[i];
            if (x->backward)
                continue;
            uint32_t maxo = 0, any = 0;
            for (uint32_t k = 0; k < x->n_users; k++)
                if (!c->nd[x->users[k]].backward) {
                    any = 1;
                    maxo = c->order[x->users[k]] > maxo ? c->order[x->users[k]] : maxo;
                }
            if (!any)
                continue;
            uint32_t first = first_unfusible(c, i, maxo, heap, hcap);
            for (uint32_t k = 0; k < x->n_users; k++) {
                uint32_t u = x->users[k];
                if (!c->nd[u].backward && c->order[u] > first && is_fusible(c, i, u) &&
                    !s->banned[u])
                    ban_if_allowed(s, u);
            }
        }
    if (o->long_fusible_chains) /* ban_if_long_fusible_chains */
        for (uint32_t st = 0; st < n && !s->failed; st++) {
            if (c->nd[st].backward)
                continue;
            uint32_t hn = 0, start = c->order[st];
            hpush(heap, &hn, (hitem){start, st, 0});
            while (hn) {
                hitem it = hpop(heap, &hn);
                uint32_t cur = it.node;
                if (visited[cur])
                    continue;
                visited[cur] = 1;
                if (c->order[cur] > start + 100 && hn == 0) {
                    ban_if_allowed(s, cur);
                    break;
                }
                for (uint32_t k = 0; k < c->nd[cur].n_users; k++) {
                    uint32_t u = c->nd[cur].users[k];
                    if (!c->nd[u].backward && is_fusible(c, cur, u) && !s->banned[u] &&
                        hn < hcap)
                        hpush(heap, &hn, (hitem){c->order[u], u, 0});
                }
            }
        }
    if (s->failed) {
        rc = gms_error_set(err, GMS_ENOMEM, "ac-budget: out of memory for the min cut");
        goto done;
    }
    double flow;
    if ((rc = mc_solve(g, src, snk, &flow, side, err)) != 0)
        goto done;
    /* cut nodes: X_in on the source side, X_out on the sink side */
    for (uint32_t i = 0; i < n; i++)
        saved[i] = !c->nd[i].backward && side[V_IN(i)] && !side[V_OUT(i)];
done:
    mc_free(g);
    s->g = NULL;
    free(stack), free(heap), free(visited), free(side);
    return rc;
}

static double act_size(const ctx *c, const uint8_t *set)
{
    double s = 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (set[i])
            s += c->nd[i].size;
    return s / 1e9; /* estimate_activations_size */
}

typedef struct by_size {
    uint32_t node;
    double size;
    uint32_t pos;
} by_size;

/* sorted(..., key=_size_of, reverse=True): stable, so equal sizes keep the ban order */
static int size_desc(const void *a, const void *b)
{
    const by_size *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int ac_choose_saved(const ac_node *nodes, uint32_t n, double budget, ac_solver solver,
                    ac_choice *out, gms_error *err)
{
    if (!(budget >= 0 && budget <= 1))
        return gms_error_set(err, GMS_EINVAL, "ac-budget: budget=%g: the valid range is "
                             "0 <= budget <= 1 (as torch's activation_memory_budget)", budget);
    out->stage = AC_STAGE_INPUTS;
    out->ratio = 0;
    out->candidates = out->knap_saved = 0;
    memset(out->saved, 0, n);
    if (budget == 0) /* return node_info.inputs */
        return 0;
    ctx c = {nodes, n, NULL, NULL, NULL, NULL};
    cut_state s = {0};
    size_t nn = n ? n : 1;
    c.dist = malloc(nn * sizeof *c.dist);
    c.order = malloc(nn * sizeof *c.order);
    c.fusible = malloc(nn);
    c.view = malloc(nn);
    s.c = &c;
    s.banned = calloc(nn, 1);
    s.ban_order = malloc(nn * sizeof *s.ban_order);
    uint8_t *R = calloc(nn, 1), *T = calloc(nn, 1), *dont = calloc(nn, 1);
    by_size *items = malloc(nn * sizeof *items);
    double *mem = malloc(nn * sizeof *mem), *rt = malloc(nn * sizeof *rt);
    uint8_t *keep = malloc(nn);
    int rc = 0;
    if (!c.dist || !c.order || !c.fusible || !c.view || !s.banned || !s.ban_order || !R ||
        !T || !dont || !items || !mem || !rt || !keep) {
        rc = gms_error_set(err, GMS_ENOMEM, "ac-budget: out of memory");
        goto done;
    }
    /* dist_from_bw (min_cut_rematerialization_partition) and fw_order (classify_nodes) */
    uint32_t fw = 0;
    for (uint32_t i = 0; i < n; i++) {
        c.order[i] = nodes[i].backward ? UINT32_MAX : fw++;
        c.fusible[i] = (uint8_t)(ac_op_recomputable(nodes[i].op) || ac_op_random(nodes[i].op));
        c.view[i] = (uint8_t)ac_op_view(nodes[i].op);
    }
    for (uint32_t i = n; i-- > 0;) {
        if (nodes[i].backward) {
            c.dist[i] = 0;
            continue;
        }
        uint32_t d = DIST_INF;
        for (uint32_t k = 0; k < nodes[i].n_users; k++) {
            uint32_t u = c.dist[nodes[i].users[k]];
            if (u < DIST_INF && u + 1 < d)
                d = u + 1;
        }
        c.dist[i] = d;
    }
    min_cut_options def = {1, 1, 1, 1, 1};
    if ((rc = solve_min_cut(&c, &def, NULL, R, &s, err)) != 0)
        goto done;
    memcpy(out->saved, R, n);
    out->stage = AC_STAGE_DEFAULT;
    double min_act = 0, max_act = act_size(&c, R); /* inputs: not nodes, size 0 */
    out->ratio = 1;
    if (budget == 1 || max_act <= min_act)
        goto done;
#define RATIO(set) ((act_size(&c, (set)) - min_act) / (max_act - min_act))
    min_cut_options more = def;
    more.used_far_apart = more.long_fusible_chains = more.materialized_backward = 0;
    if ((rc = solve_min_cut(&c, &more, NULL, T, &s, err)) != 0)
        goto done;
    if (RATIO(T) < budget) {
        memcpy(out->saved, T, n);
        out->stage = AC_STAGE_MORE_AGGR, out->ratio = RATIO(T);
        goto done;
    }
    min_cut_options aggr = more;
    aggr.not_in_allowlist = 0;
    if ((rc = solve_min_cut(&c, &aggr, NULL, T, &s, err)) != 0)
        goto done;
    if (RATIO(T) < budget) {
        memcpy(out->saved, T, n);
        out->stage = AC_STAGE_AGGRESSIVE, out->ratio = RATIO(T);
        goto done;
    }
    /* get_recomputable_banned_nodes: required for backward (dist < 1e9), not an input's
     * storage (inputs are not nodes), not MUST_SAVE */
    uint32_t m = 0;
    memset(out->saved, 0, n);
    for (uint32_t k = 0; k < s.n_banned; k++) {
        uint32_t i = s.ban_order[k];
        if (c.dist[i] >= DIST_INF)
            continue;
        if (nodes[i].must_save) {
            out->saved[i] = 1; /* must_save_nodes */
            continue;
        }
        items[m] = (by_size){i, nodes[i].size, m};
        m++;
    }
    if (m == 0) { /* node_info.inputs + must_save_nodes */
        out->stage = AC_STAGE_NO_CANDIDATES;
        out->ratio = RATIO(out->saved);
        goto done;
    }
    qsort(items, m, sizeof *items, size_desc);
    for (uint32_t k = 0; k < m; k++) {
        mem[k] = (nodes[items[k].node].size / 1e9) / (max_act - min_act); /* normalized */
        rt[k] = nodes[items[k].node].runtime;
    }
    double value;
    double cap = budget > 0 ? budget : 0;
    if (solver == AC_SOLVER_GREEDY)
        rc = knap_greedy(mem, rt, m, cap, keep, &value, err);
    else if (solver == AC_SOLVER_ILP)
        rc = knap_exact(mem, rt, m, cap, keep, &value, err);
    else
        rc = knap_dp(mem, rt, m, cap, (size_t)1 << 28, keep, &value, err);
    if (rc)
        goto done;
    for (uint32_t k = 0; k < m; k++) {
        dont[items[k].node] = !keep[k]; /* recomputable: dont_ban */
        out->knap_saved += keep[k];
    }
    out->candidates = m;
    if ((rc = solve_min_cut(&c, &aggr, dont, out->saved, &s, err)) != 0)
        goto done;
    out->stage = AC_STAGE_KNAPSACK;
    out->ratio = RATIO(out->saved);
#undef RATIO
done:
    free(c.dist), free(c.order), free(c.fusible), free(c.view);
    free(s.banned), free(s.ban_order);
    free(R), free(T), free(dont), free(items), free(mem), free(rt), free(keep);
    return rc;
}
