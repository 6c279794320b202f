/*
 * sim_dataflow: an iteration of a trace as a dataflow graph (sim_dataflow.h states the rules).
 * One pass over the schedule finds when each storage's last reference dies; one pass over the
 * iteration's ops links each to its producers.
 */
#include "sim_dataflow.h"

#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

#define NOT_NODE UINT32_MAX
#define NEVER UINT32_MAX

/* A CONSTANT as the builder records it: an op named "constant" with no argument and no cost. */
static int is_constant(const sim_trace *t, uint32_t o)
{
    const sim_op *op = &t->ops[o];
    return op->n_args == 0 && op->cost == 0 && strcmp(t->strings + op->name, "constant") == 0;
}

/* Per storage: the index of the next op to run when its last reference died (NEVER when it
 * survives the trace). */
static uint32_t *release_points(const sim_trace *t)
{
    uint32_t *rel = malloc(((size_t)t->n_storages + 1) * sizeof *rel);
    if (!rel)
        return NULL;
    for (uint32_t s = 0; s < t->n_storages; s++)
        rel[s] = NEVER;
    uint32_t next_op = 0;
    for (uint32_t i = 0; i < t->n_schedule; i++) {
        uint32_t e = t->schedule[i];
        if (SCH_KIND(e) == SCH_COMPUTE)
            next_op = SCH_INDEX(e) + 1;
        else if (SCH_KIND(e) == SCH_RELEASE_LAST && SCH_INDEX(e) < t->n_storages)
            rel[SCH_INDEX(e)] = next_op;
    }
    return rel;
}

/* The node-to-storage map's arrays: every storage is held or constant at most once. */
static int alloc_map(sim_flow *f, const sim_trace *t)
{
    f->held = malloc(((size_t)t->n_storages + 1) * sizeof *f->held);
    f->constants = malloc(((size_t)t->n_storages + 1) * sizeof *f->constants);
    return f->held && f->constants ? 0 : -1;
}

/* A CONSTANT op's new storages, into the constants. */
static void constant_storages(sim_flow *f, const sim_trace *t, const sim_op *op)
{
    for (uint32_t k = 0; k < op->n_out; k++) {
        const sim_tensor *te = &t->tensors[op->out_first + k];
        if (!te->is_view && t->storages[te->storage].root == op->out_first + k)
            f->constants[f->n_constants++] = te->storage;
    }
}

/* Bytes an op reads and writes: each distinct argument storage, whole, plus its outputs. */
static uint64_t bytes_touched(const sim_trace *t, const sim_op *op)
{
    uint64_t n = op->total_size;
    for (uint32_t a = 0; a < op->n_args; a++) {
        uint32_t st = t->tensors[t->args[op->args_off + a]].storage, b = 0;
        while (b < a && t->tensors[t->args[op->args_off + b]].storage != st)
            b++;
        if (b == a) /* first argument on this storage */
            n += t->storages[st].size;
    }
    return n;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int sim_flow_build(const sim_trace *t, uint32_t first_op, uint32_t end_op, sim_flow **out,
                   gms_error *err)
{
    *out = NULL;
    if (first_op > end_op || end_op > t->n_ops)
        return gms_error_set(err, GMS_EINVAL, "op range [%u, %u) is outside the trace's %u ops",
                             first_op, end_op, t->n_ops);
    sim_flow *f = calloc(1, sizeof *f);
    uint32_t *rel = release_points(t);
    uint32_t n = end_op - first_op;
    uint32_t *node_of = malloc(((size_t)n + 1) * sizeof *node_of);
    size_t cap_in = 2 * (size_t)(t->n_args_total + 1);
    if (f)
        f->ops = malloc(((size_t)n + 1) * sizeof *f->ops), f->inputs = malloc(cap_in * sizeof *f->inputs);
    if (!f || !rel || !node_of || !f->ops || !f->inputs || alloc_map(f, t)) {
        free(rel);
        free(node_of);
        sim_flow_free(f);
        return gms_error_set(err, GMS_ENOMEM, "out of memory extracting the dataflow graph");
    }
    /* live at the start: storages made before the range, released at or after its first op */
    for (uint32_t s = 0; s < t->n_storages; s++) {
        uint32_t root_op = t->tensors[t->storages[s].root].op;
        if (root_op < first_op && rel[s] > first_op) {
            f->constant_bytes += t->storages[s].size;
            f->constants[f->n_constants++] = s;
        }
    }
    uint32_t n_in = 0, n_held = 0;
    for (uint32_t o = first_op; o < end_op; o++) {
        const sim_op *op = &t->ops[o];
        if (is_constant(t, o)) {
            node_of[o - first_op] = NOT_NODE;
            f->constant_bytes += op->total_size;
            constant_storages(f, t, op);
            continue;
        }
        node_of[o - first_op] = f->n_ops;
        sim_flow_op *fo = &f->ops[f->n_ops++];
        fo->op = o;
        fo->name = t->strings + op->name;
        fo->cost = op->cost;
        fo->bytes = 0;
        fo->touched = bytes_touched(t, op);
        fo->part = 0;
        fo->held_off = n_held;
        for (uint32_t k = 0; k < op->n_out; k++) {
            const sim_tensor *te = &t->tensors[op->out_first + k];
            if (te->is_view || t->storages[te->storage].root != op->out_first + k)
                continue;
            uint64_t size = t->storages[te->storage].size;
            if (rel[te->storage] != NEVER && rel[te->storage] <= end_op) {
                fo->bytes += size;
                f->held[n_held++] = te->storage;
            } else {
                f->constant_bytes += size;
                f->constants[f->n_constants++] = te->storage;
            }
        }
        fo->n_held = n_held - fo->held_off;
        fo->inputs_off = n_in;
        for (uint32_t a = 0; a < op->n_args; a++) {
            const sim_tensor *te = &t->tensors[t->args[op->args_off + a]];
            uint32_t prod[2] = {te->op, t->tensors[t->storages[te->storage].root].op};
            for (int p = 0; p < 2; p++)
                if (prod[p] >= first_op && prod[p] < o && node_of[prod[p] - first_op] != NOT_NODE)
                    f->inputs[n_in++] = node_of[prod[p] - first_op];
        }
        qsort(f->inputs + fo->inputs_off, n_in - fo->inputs_off, sizeof *f->inputs, cmp_u32);
        uint32_t w = fo->inputs_off;
        for (uint32_t r = fo->inputs_off; r < n_in; r++)
            if (w == fo->inputs_off || f->inputs[w - 1] != f->inputs[r])
                f->inputs[w++] = f->inputs[r];
        n_in = w;
        fo->n_inputs = n_in - fo->inputs_off;
    }
    free(rel);
    free(node_of);
    *out = f;
    return 0;
}

/* Sorts and de-duplicates inputs[off, *n) in place. */
static void sort_unique(uint32_t *inputs, uint32_t off, uint32_t *n)
{
    qsort(inputs + off, *n - off, sizeof *inputs, cmp_u32);
    uint32_t w = off;
    for (uint32_t r = off; r < *n; r++)
        if (w == off || inputs[w - 1] != inputs[r])
            inputs[w++] = inputs[r];
    *n = w;
}

/* 1 when output tensor `tensor` is a new storage's root (not a view). */
static int makes_storage(const sim_trace *t, uint32_t tensor)
{
    const sim_tensor *te = &t->tensors[tensor];
    return !te->is_view && t->storages[te->storage].root == tensor;
}

/* An op's parts: one per storage it makes, plus one of 0 bytes for its views when it makes
 * storages too (a view's reader needs the view op, not the op's other outputs); at least one. */
static uint32_t parts_of(const sim_trace *t, uint32_t o, uint32_t *storages, int *views)
{
    uint32_t m = 0;
    *views = 0;
    for (uint32_t k = 0; k < t->ops[o].n_out; k++) {
        int st = makes_storage(t, t->ops[o].out_first + k);
        m += (uint32_t)st;
        *views |= !st;
    }
    *storages = m;
    return m == 0 ? 1 : m + (uint32_t)*views;
}

int sim_flow_build_outputs(const sim_trace *t, uint32_t first_op, uint32_t end_op,
                           sim_flow **out, gms_error *err)
{
    *out = NULL;
    if (first_op > end_op || end_op > t->n_ops)
        return gms_error_set(err, GMS_EINVAL, "op range [%u, %u) is outside the trace's %u ops",
                             first_op, end_op, t->n_ops);
    /* each part reads the op's producers (2 per argument) and its earlier parts; the last
     * flow op reads every outliving part */
    size_t n_nodes = 0, cap_in = 1;
    for (uint32_t o = first_op; o < end_op; o++) {
        uint32_t m;
        int views;
        if (is_constant(t, o))
            continue;
        uint32_t p = parts_of(t, o, &m, &views);
        n_nodes += p;
        cap_in += (size_t)p * (2 * (size_t)t->ops[o].n_args + p);
    }
    cap_in += n_nodes;
    sim_flow *f = calloc(1, sizeof *f);
    uint32_t *rel = release_points(t);
    size_t n_range = (size_t)(end_op - first_op) + 1;
    uint32_t *first_part = malloc(n_range * sizeof *first_part);
    uint32_t *view_part = malloc(n_range * sizeof *view_part);
    uint32_t *node_of_st = malloc(((size_t)t->n_storages + 1) * sizeof *node_of_st);
    uint8_t *outlives = calloc(n_nodes + 1, 1);
    if (f)
        f->ops = malloc((n_nodes + 1) * sizeof *f->ops), f->inputs = malloc(cap_in * sizeof *f->inputs);
    if (!f || !rel || !first_part || !view_part || !node_of_st || !outlives || !f->ops ||
        !f->inputs || alloc_map(f, t)) {
        free(rel), free(first_part), free(view_part), free(node_of_st), free(outlives);
        sim_flow_free(f);
        return gms_error_set(err, GMS_ENOMEM, "out of memory extracting the dataflow graph");
    }
    for (uint32_t s = 0; s < t->n_storages; s++) {
        node_of_st[s] = NOT_NODE;
        uint32_t root_op = t->tensors[t->storages[s].root].op;
        if (root_op < first_op && rel[s] > first_op) {
            f->constant_bytes += t->storages[s].size;
            f->constants[f->n_constants++] = s;
        }
    }
    uint32_t n_in = 0, n_held = 0;
    for (uint32_t o = first_op; o < end_op; o++) {
        const sim_op *op = &t->ops[o];
        if (is_constant(t, o)) {
            first_part[o - first_op] = view_part[o - first_op] = NOT_NODE;
            f->constant_bytes += op->total_size;
            constant_storages(f, t, op);
            continue;
        }
        uint32_t m;
        int views;
        uint32_t n_parts = parts_of(t, o, &m, &views);
        uint32_t first = f->n_ops, k = 0;
        first_part[o - first_op] = first;
        view_part[o - first_op] = first + n_parts - 1;
        for (uint32_t part = 0; part < n_parts; part++) {
            uint32_t v = f->n_ops++;
            sim_flow_op *fo = &f->ops[v];
            fo->op = o;
            fo->name = t->strings + op->name;
            fo->cost = part == 0 ? op->cost : 0;
            fo->touched = part == 0 ? bytes_touched(t, op) : 0; /* the op's, once */
            fo->bytes = 0;
            fo->part = part;
            fo->held_off = n_held;
            fo->n_held = 0;
            while (k < op->n_out && !makes_storage(t, op->out_first + k))
                k++;
            if (part < m) {
                uint32_t st = t->tensors[op->out_first + k++].storage;
                fo->bytes = t->storages[st].size;
                f->held[n_held++] = st;
                fo->n_held = 1;
                node_of_st[st] = v;
                outlives[v] = rel[st] == NEVER || rel[st] > end_op;
            }
            fo->inputs_off = n_in;
            for (uint32_t a = 0; a < op->n_args; a++) {
                uint32_t arg = t->args[op->args_off + a];
                const sim_tensor *te = &t->tensors[arg];
                if (node_of_st[te->storage] != NOT_NODE)
                    f->inputs[n_in++] = node_of_st[te->storage];
                if (!makes_storage(t, arg) && te->op >= first_op && te->op < o &&
                    view_part[te->op - first_op] != NOT_NODE)
                    f->inputs[n_in++] = view_part[te->op - first_op];
            }
            for (uint32_t q = first; q < v; q++)
                f->inputs[n_in++] = q;
            sort_unique(f->inputs, fo->inputs_off, &n_in);
            fo->n_inputs = n_in - fo->inputs_off;
        }
    }
    /* the last flow op reads every outliving part, which holds it to the end */
    if (f->n_ops > 0) {
        sim_flow_op *last = &f->ops[f->n_ops - 1];
        for (uint32_t v = 0; v + 1 < f->n_ops; v++)
            if (outlives[v])
                f->inputs[n_in++] = v;
        sort_unique(f->inputs, last->inputs_off, &n_in);
        last->n_inputs = n_in - last->inputs_off;
    }
    free(rel), free(first_part), free(view_part), free(node_of_st), free(outlives);
    *out = f;
    return 0;
}

void sim_flow_free(sim_flow *f)
{
    if (!f)
        return;
    free(f->ops);
    free(f->inputs);
    free(f->held);
    free(f->constants);
    free(f);
}

void sim_trace_scope_at(const sim_trace *t, uint32_t i, uint32_t *first, uint32_t *end,
                        uint32_t *depth, const char **name)
{
    const sim_scope_span *sp = &t->scopes[i];
    *first = sp->first_op;
    *end = sp->end_op;
    *depth = sp->depth;
    *name = t->strings + sp->name;
}
