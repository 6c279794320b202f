/*
 * sim_layers: the layers of a trace's forward passes, from its scopes or by segmentation
 * (sim_layers.h states the rules). Reads only what the builder recorded beside the schedule
 * (scope spans, iteration and backward markers) and the op costs; never a run's state.
 */
#include "sim_layers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "sim_plan_report.h"

struct sim_layers {
    sim_layer *layers;
    uint32_t n_layers, cap_layers;
    sim_iteration_span *iters;
    uint32_t n_iters;
    uint32_t *of_op;   /* per op: layer index or SIM_LAYER_NONE */
    uint32_t n_ops;
    char *seg_names;   /* "segment.J" texts, SEG_NAME bytes each, indexed by J (never moved) */
    uint32_t n_seg_names;
    sim_layer_source source;
    const sim_trace *trace; /* what they were built from (sim_layers_trace) */
};

#define SEG_NAME 24

uint32_t sim_trace_scope_count(const sim_trace *t)
{
    return t->n_scopes;
}

uint32_t sim_trace_scope_depth(const sim_trace *t)
{
    return t->max_scope_depth;
}

uint32_t sim_trace_op_count(const sim_trace *t)
{
    return t->n_ops;
}

static int add_layer(sim_layers *l, const sim_trace *t, uint32_t first, uint32_t last,
                     uint32_t it, sim_layer_source src, const char *name)
{
    if (sim_grow((void **)&l->layers, &l->cap_layers, l->n_layers + 1, sizeof *l->layers))
        return -1;
    uint64_t compute = 0;
    for (uint32_t o = first; o <= last; o++) {
        compute += t->ops[o].cost;
        l->of_op[o] = l->n_layers;
    }
    l->layers[l->n_layers++] = (sim_layer){first, last, it, src, name, compute};
    return 0;
}

/* The top-level scopes beginning in [first, bwd) that hold an op, clipped at bwd. Scopes are
 * in begin order and iterations in op order, so *cursor (the first scope not yet passed)
 * carries over from one iteration to the next: one pass over the scopes in all. */
static int layers_from_scopes(sim_layers *l, const sim_trace *t, uint32_t it, uint32_t first,
                              uint32_t bwd, uint32_t end, uint32_t *cursor)
{
    uint32_t i = *cursor;
    while (i < t->n_scopes && t->scopes[i].first_op < first)
        i++;
    *cursor = i;
    for (; i < t->n_scopes && t->scopes[i].first_op < end; i++) {
        const sim_scope_span *sp = &t->scopes[i];
        *cursor = i + 1;
        if (sp->depth != 0 || sp->first_op >= bwd || sp->end_op <= sp->first_op)
            continue;
        uint32_t stop = sp->end_op < bwd ? sp->end_op : bwd;
        if (add_layer(l, t, sp->first_op, stop - 1, it, SIM_LAYERS_SCOPES, t->strings + sp->name))
            return -1;
    }
    return 0;
}

/* The names "segment.0" .. "segment.(n-1)", made once for the longest forward pass any
 * iteration can have (k <= ceil(sqrt(n_ops))), so layers may point into them. */
static int segment_names(sim_layers *l, uint32_t n)
{
    if (l->seg_names)
        return 0;
    l->seg_names = malloc((size_t)n * SEG_NAME);
    if (!l->seg_names)
        return -1;
    for (uint32_t j = 0; j < n; j++)
        snprintf(l->seg_names + (size_t)j * SEG_NAME, SEG_NAME, "segment.%u", j);
    l->n_seg_names = n;
    return 0;
}

/* k = ceil(sqrt(n)) segments of about equal compute over the forward ops [first, bwd). */
static int layers_from_segments(sim_layers *l, const sim_trace *t, uint32_t it, uint32_t first,
                                uint32_t bwd)
{
    uint32_t n = bwd - first;
    if (n == 0)
        return 0;
    uint32_t k = (uint32_t)ceil(sqrt((double)n));
    while ((uint64_t)k * k < n)
        k++;
    if (segment_names(l, (uint32_t)ceil(sqrt((double)t->n_ops)) + 2) || k > l->n_seg_names)
        return -1;
    uint64_t total = 0;
    for (uint32_t o = first; o < bwd; o++)
        total += t->ops[o].cost;
    int by_count = total == 0;
    if (by_count)
        total = n;
    uint32_t start = first, j = 0;
    uint64_t run = 0;
    for (uint32_t o = first; o < bwd; o++) {
        run += by_count ? 1 : t->ops[o].cost;
        /* segment j is done once the running cost reaches (j+1)/k of the total; the last op
         * always closes the last segment */
        int reached = (long double)run * k >= (long double)total * (j + 1);
        if ((reached && j + 1 < k) || o + 1 == bwd) {
            if (add_layer(l, t, start, o, it, SIM_LAYERS_SEGMENTS,
                          l->seg_names + (size_t)j * SEG_NAME))
                return -1;
            j++;
            start = o + 1;
        }
    }
    return 0;
}

int sim_layers_build(const sim_trace *t, sim_layers **out, gms_error *err)
{
    *out = NULL;
    sim_layers *l = calloc(1, sizeof *l);
    uint32_t n_iters = t->n_iter ? t->n_iter : (t->first_model_op < t->n_ops ? 1 : 0);
    if (!l || !(l->of_op = malloc(((size_t)t->n_ops + 1) * sizeof *l->of_op)) ||
        !(l->iters = calloc(n_iters ? n_iters : 1, sizeof *l->iters))) {
        sim_layers_free(l);
        return gms_error_set(err, GMS_ENOMEM, "out of memory finding the trace's layers");
    }
    l->n_ops = t->n_ops;
    l->trace = t;
    for (uint32_t o = 0; o < t->n_ops; o++)
        l->of_op[o] = SIM_LAYER_NONE;
    l->n_iters = n_iters;
    int scopes = 0, segments = 0;
    uint32_t cursor = 0, bwd = 0;
    for (uint32_t it = 0; it < n_iters; it++) {
        sim_iteration_span *sp = &l->iters[it];
        sp->first_op = t->n_iter ? t->iter_op[it] : t->first_model_op;
        sp->end_op = t->n_iter && it + 1 < t->n_iter ? t->iter_op[it + 1] : t->n_ops;
        sp->input_size = t->n_iter && t->iter_val ? t->iter_val[it] : -1;
        /* markers are in op order: the first one at or after first_op, if inside */
        while (bwd < t->n_bwd && t->bwd_op[bwd] < sp->first_op)
            bwd++;
        sp->backward_op = bwd < t->n_bwd && t->bwd_op[bwd] < sp->end_op ? t->bwd_op[bwd]
                                                                        : sp->end_op;
        sp->first_layer = l->n_layers;
        if (layers_from_scopes(l, t, it, sp->first_op, sp->backward_op, sp->end_op, &cursor))
            goto nomem;
        sp->source = SIM_LAYERS_SCOPES;
        if (l->n_layers == sp->first_layer) {
            if (layers_from_segments(l, t, it, sp->first_op, sp->backward_op))
                goto nomem;
            sp->source = SIM_LAYERS_SEGMENTS;
        }
        sp->n_layers = l->n_layers - sp->first_layer;
        if (sp->n_layers)
            *(sp->source == SIM_LAYERS_SCOPES ? &scopes : &segments) += 1;
    }
    l->source = scopes && !segments ? SIM_LAYERS_SCOPES
                : segments && !scopes ? SIM_LAYERS_SEGMENTS : (sim_layer_source)0;
    *out = l;
    return 0;
nomem:
    sim_layers_free(l);
    return gms_error_set(err, GMS_ENOMEM, "out of memory finding the trace's layers");
}

void sim_layers_free(sim_layers *l)
{
    if (!l)
        return;
    free(l->layers);
    free(l->iters);
    free(l->of_op);
    free(l->seg_names);
    free(l);
}

uint32_t sim_layers_count(const sim_layers *l)
{
    return l->n_layers;
}

const sim_layer *sim_layers_at(const sim_layers *l, uint32_t i)
{
    return i < l->n_layers ? &l->layers[i] : NULL;
}

const char *sim_iteration_report_layer(const sim_iteration_report *r, uint32_t i)
{
    const sim_layer *x = i < r->n_layers ? sim_layers_at(r->layers, r->first_layer + i) : NULL;
    return x ? x->name : "";
}

uint32_t sim_layers_iterations(const sim_layers *l)
{
    return l->n_iters;
}

const sim_iteration_span *sim_layers_iteration(const sim_layers *l, uint32_t it)
{
    return it < l->n_iters ? &l->iters[it] : NULL;
}

uint32_t sim_layers_of_op(const sim_layers *l, uint32_t op)
{
    return op < l->n_ops ? l->of_op[op] : SIM_LAYER_NONE;
}

const sim_trace *sim_layers_trace(const sim_layers *l)
{
    return l->trace;
}

sim_layer_source sim_layers_source(const sim_layers *l)
{
    return l->source;
}
