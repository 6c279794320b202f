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
    if (!f || !rel || !node_of || !f->ops || !f->inputs) {
        free(rel);
        free(node_of);
        sim_flow_free(f);
        return gms_error_set(err, GMS_ENOMEM, "out of memory extracting the dataflow graph");
    }
    /* live at the start: storages made before the range, released at or after its first op */
    for (uint32_t s = 0; s < t->n_storages; s++) {
        uint32_t root_op = t->tensors[t->storages[s].root].op;
        if (root_op < first_op && rel[s] > first_op)
            f->constant_bytes += t->storages[s].size;
    }
    uint32_t n_in = 0;
    for (uint32_t o = first_op; o < end_op; o++) {
        const sim_op *op = &t->ops[o];
        if (is_constant(t, o)) {
            node_of[o - first_op] = NOT_NODE;
            f->constant_bytes += op->total_size;
            continue;
        }
        node_of[o - first_op] = f->n_ops;
        sim_flow_op *fo = &f->ops[f->n_ops++];
        fo->op = o;
        fo->name = t->strings + op->name;
        fo->cost = op->cost;
        fo->bytes = 0;
        fo->touched = op->total_size;
        for (uint32_t a = 0; a < op->n_args; a++) {
            uint32_t st = t->tensors[t->args[op->args_off + a]].storage, b = 0;
            while (b < a && t->tensors[t->args[op->args_off + b]].storage != st)
                b++;
            if (b == a) /* first argument on this storage */
                fo->touched += t->storages[st].size;
        }
        for (uint32_t k = 0; k < op->n_out; k++) {
            const sim_tensor *te = &t->tensors[op->out_first + k];
            if (te->is_view || t->storages[te->storage].root != op->out_first + k)
                continue;
            uint64_t size = t->storages[te->storage].size;
            if (rel[te->storage] != NEVER && rel[te->storage] <= end_op)
                fo->bytes += size;
            else
                f->constant_bytes += size;
        }
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

void sim_flow_free(sim_flow *f)
{
    if (!f)
        return;
    free(f->ops);
    free(f->inputs);
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
