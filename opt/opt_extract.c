/*
 * opt_extract: trace -> graph, at op level or coarsened by layers (opt_extract.h).
 *
 * Coarsening keeps nodes contiguous op ranges in op order, so the coarse graph is acyclic and
 * in execution order as the program needs: forward layers come from sim_layers (scopes or
 * segments), backward layers from the top-level scopes that begin after the BACKWARD marker,
 * or, without scopes, from cutting the backward pass into as many segments of about equal
 * compute as the forward pass has layers (the rule of docs/layers.md applied to the backward
 * ops). Ops outside every layer form one node per consecutive run.
 */
#include "opt_extract.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt_node_map.h"
#include "sim_dataflow.h"
#include "sim_layers.h"

#define NONE UINT32_MAX

typedef struct group {
    uint32_t first, end; /* op range */
    char name[160];
} group;

typedef struct groups {
    group *g;
    uint32_t n, cap;
} groups;

static int push(groups *gs, uint32_t first, uint32_t end, const char *name, const char *suffix)
{
    if (gs->n == gs->cap) {
        uint32_t cap = gs->cap ? gs->cap * 2 : 64;
        group *ng = realloc(gs->g, (size_t)cap * sizeof *ng);
        if (!ng)
            return -1;
        gs->g = ng;
        gs->cap = cap;
    }
    group *x = &gs->g[gs->n++];
    x->first = first;
    x->end = end;
    snprintf(x->name, sizeof x->name, "%s%s", name, suffix);
    return 0;
}

/* Backward segments: [bwd, end) cut into k parts of about equal compute. */
static int backward_segments(groups *gs, const sim_flow *f, uint32_t bwd, uint32_t end,
                             uint32_t k)
{
    uint64_t total = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->n_ops; i++)
        if (f->ops[i].op >= bwd && f->ops[i].op < end)
            total += f->ops[i].cost, n++;
    if (n == 0)
        return 0;
    if (k == 0)
        k = 1;
    uint64_t run = 0;
    uint32_t seen = 0, j = 0, start = bwd;
    for (uint32_t i = 0; i < f->n_ops; i++) {
        const sim_flow_op *o = &f->ops[i];
        if (o->op < bwd || o->op >= end)
            continue;
        run += o->cost;
        seen++;
        int cut = total ? (double)run >= (double)(j + 1) / k * (double)total
                        : (double)seen >= (double)(j + 1) / k * (double)n;
        if (cut || seen == n) {
            char name[48];
            snprintf(name, sizeof name, "backward.segment.%u", j);
            uint32_t stop = seen == n ? end : o->op + 1;
            if (push(gs, start, stop, name, ""))
                return -1;
            start = stop;
            j++;
        }
    }
    return 0;
}

static int layer_groups(const sim_trace *t, const sim_layers *L, const sim_iteration_span *sp,
                        const sim_flow *f, groups *gs)
{
    for (uint32_t l = sp->first_layer; l < sp->first_layer + sp->n_layers; l++) {
        const sim_layer *ly = sim_layers_at(L, l);
        if (push(gs, ly->first_op, ly->last_op + 1, ly->name, ""))
            return -1;
    }
    if (sp->source == SIM_LAYERS_SCOPES) {
        uint32_t n = sim_trace_scope_count(t);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t first, end, depth;
            const char *name;
            sim_trace_scope_at(t, i, &first, &end, &depth, &name);
            if (depth != 0 || first < sp->backward_op || first >= sp->end_op)
                continue;
            if (end > sp->end_op)
                end = sp->end_op;
            if (end > first && push(gs, first, end, name, ".backward"))
                return -1;
        }
        return 0;
    }
    return backward_segments(gs, f, sp->backward_op, sp->end_op, sp->n_layers);
}

static int cmp_group(const void *a, const void *b)
{
    const group *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* Nodes for op-range groups: sorted, overlaps clipped, gaps filled with runs of their own. */
static int normalize(groups *gs, uint32_t first, uint32_t end, const sim_trace *t,
                     const sim_flow *f, groups *out)
{
    qsort(gs->g, gs->n, sizeof *gs->g, cmp_group);
    uint32_t at = first;
    (void)t;
    for (uint32_t i = 0; i <= gs->n; i++) {
        uint32_t gfirst = i < gs->n ? gs->g[i].first : end;
        if (gfirst < at)
            gfirst = at;
        if (gfirst > at) {
            /* a run of ops outside every layer: named after its first model op */
            const char *nm = "ops";
            for (uint32_t k = 0; k < f->n_ops; k++)
                if (f->ops[k].op >= at && f->ops[k].op < gfirst) {
                    nm = f->ops[k].name;
                    break;
                }
            char name[120];
            snprintf(name, sizeof name, "%.80s+%u", nm, gfirst - at - 1);
            if (push(out, at, gfirst, name, ""))
                return -1;
            at = gfirst;
        }
        if (i == gs->n)
            break;
        uint32_t gend = gs->g[i].end > end ? end : gs->g[i].end;
        if (gend > at) {
            if (push(out, at, gend, gs->g[i].name, ""))
                return -1;
            at = gend;
        }
    }
    return 0;
}

static int build_op_level(const sim_flow *f, const opt_host_estimate *host, opt_graph *g,
                          gms_error *err)
{
    for (uint32_t i = 0; i < f->n_ops; i++) {
        const sim_flow_op *o = &f->ops[i];
        char name[200];
        if (o->part)
            snprintf(name, sizeof name, "%.160s:out%u", o->name, o->part);
        if (opt_graph_set_node(g, i, o->part ? name : o->name, (double)o->cost / 1e6, o->bytes,
                               f->inputs + o->inputs_off, o->n_inputs, err))
            return -1;
        if (host)
            g->nodes[i].cost_host = opt_host_estimate_op(host, o->cost, o->touched);
    }
    return 0;
}

static int build_coarse(const sim_flow *f, const groups *gs, const opt_host_estimate *host,
                        opt_graph **gout, opt_node_map **map, gms_error *err)
{
    uint32_t *grp = malloc(((size_t)f->n_ops + 1) * sizeof *grp);
    uint32_t *node_of_group = malloc(((size_t)gs->n + 1) * sizeof *node_of_group);
    uint32_t *members = calloc((size_t)gs->n + 1, sizeof *members);
    if (!grp || !node_of_group || !members)
        goto oom;
    /* group of each flow op (groups are sorted contiguous ranges) */
    uint32_t gi = 0;
    for (uint32_t i = 0; i < f->n_ops; i++) {
        while (gi < gs->n && f->ops[i].op >= gs->g[gi].end)
            gi++;
        grp[i] = gi;
        members[gi]++;
    }
    uint32_t n_nodes = 0;
    for (uint32_t k = 0; k < gs->n; k++)
        node_of_group[k] = members[k] ? n_nodes++ : NONE;
    opt_graph *g = opt_graph_new(n_nodes);
    double *cost = calloc((size_t)n_nodes + 1, sizeof *cost);
    double *hcost = calloc((size_t)n_nodes + 1, sizeof *hcost);
    uint64_t *bytes = calloc((size_t)n_nodes + 1, sizeof *bytes);
    uint8_t *external = calloc((size_t)f->n_ops + 1, 1);
    uint32_t *in = malloc(((size_t)f->n_ops + 1) * sizeof *in);
    if (!g || !cost || !hcost || !bytes || !external || !in) {
        opt_graph_free(g);
        free(cost), free(hcost), free(bytes), free(external), free(in);
        goto oom;
    }
    for (uint32_t i = 0; i < f->n_ops; i++) {
        cost[node_of_group[grp[i]]] += (double)f->ops[i].cost / 1e6;
        if (host)
            hcost[node_of_group[grp[i]]] +=
                opt_host_estimate_op(host, f->ops[i].cost, f->ops[i].touched);
        for (uint32_t k = 0; k < f->ops[i].n_inputs; k++) {
            uint32_t u = f->inputs[f->ops[i].inputs_off + k];
            if (grp[u] != grp[i])
                external[u] = 1;
        }
    }
    for (uint32_t i = 0; i < f->n_ops; i++)
        if (external[i])
            bytes[node_of_group[grp[i]]] += f->ops[i].bytes;
    int rc = 0;
    if (map) { /* each flow op's node (in[] is free until the nodes are set) */
        for (uint32_t i = 0; i < f->n_ops; i++)
            in[i] = node_of_group[grp[i]];
        if (!(*map = opt_node_map_build(f, in, external, n_nodes)))
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory mapping the graph's nodes");
    }
    uint32_t i = 0;
    for (uint32_t k = 0; k < gs->n && rc == 0; k++) {
        if (node_of_group[k] == NONE)
            continue;
        uint32_t n_in = 0;
        for (; i < f->n_ops && grp[i] == k; i++)
            for (uint32_t e = 0; e < f->ops[i].n_inputs; e++) {
                uint32_t u = f->inputs[f->ops[i].inputs_off + e];
                if (grp[u] != k)
                    in[n_in++] = node_of_group[grp[u]];
            }
        uint32_t v = node_of_group[k];
        rc = opt_graph_set_node(g, v, gs->g[k].name, cost[v], bytes[v], in, n_in, err);
        if (host)
            g->nodes[v].cost_host = hcost[v];
    }
    free(cost), free(hcost), free(bytes), free(external), free(in);
    free(grp), free(node_of_group), free(members);
    if (rc) {
        opt_graph_free(g);
        if (map) {
            opt_node_map_free(*map);
            *map = NULL;
        }
        return rc;
    }
    *gout = g;
    return 0;
oom:
    free(grp), free(node_of_group), free(members);
    return gms_error_set(err, GMS_ENOMEM, "out of memory coarsening the graph");
}

int opt_graph_from_trace(const sim_trace *t, uint32_t iteration, opt_coarsen coarsen,
                         opt_graph **out, opt_extract_info *info, gms_error *err)
{
    return opt_graph_from_trace_host(t, iteration, coarsen, NULL, out, info, err);
}

static int extract(const sim_trace *t, uint32_t iteration, opt_coarsen coarsen,
                   const opt_host_estimate *host, opt_graph **out, opt_node_map **map,
                   opt_extract_info *info, gms_error *err);

int opt_graph_from_trace_host(const sim_trace *t, uint32_t iteration, opt_coarsen coarsen,
                              const opt_host_estimate *host, opt_graph **out,
                              opt_extract_info *info, gms_error *err)
{
    return extract(t, iteration, coarsen, host, out, NULL, info, err);
}

int opt_graph_from_trace_map(const sim_trace *t, uint32_t iteration, opt_coarsen coarsen,
                             opt_graph **out, opt_node_map **map, gms_error *err)
{
    *map = NULL;
    return extract(t, iteration, coarsen, NULL, out, map, NULL, err);
}

static int extract(const sim_trace *t, uint32_t iteration, opt_coarsen coarsen,
                   const opt_host_estimate *host, opt_graph **out, opt_node_map **map,
                   opt_extract_info *info, gms_error *err)
{
    *out = NULL;
    opt_node_map *nm = NULL;
    if (coarsen == OPT_COARSEN_AUTO) /* a choice, made by opt_graph_auto */
        return gms_error_set(err, GMS_EINVAL, "coarsening 'auto' is resolved to outputs or "
                             "layers before a graph is built (opt_graph_auto)");
    sim_layers *L = NULL;
    sim_flow *f = NULL;
    opt_graph *g = NULL;
    groups raw = {0}, gs = {0};
    int rc = sim_layers_build(t, &L, err);
    if (rc)
        return rc;
    uint32_t n_it = sim_layers_iterations(L);
    if (info)
        info->iterations = n_it;
    if (iteration >= n_it) {
        rc = gms_error_set(err, GMS_EINVAL,
                           "iteration %u: the trace has %u iteration%s (numbered from 0)",
                           iteration, n_it, n_it == 1 ? "" : "s");
        goto done;
    }
    const sim_iteration_span *sp = sim_layers_iteration(L, iteration);
    if (info) {
        info->ops = sp->end_op - sp->first_op;
        info->layers = "none";
    }
    rc = coarsen == OPT_COARSEN_OUTPUTS ? sim_flow_build_outputs(t, sp->first_op, sp->end_op, &f, err)
                                        : sim_flow_build(t, sp->first_op, sp->end_op, &f, err);
    if (rc)
        goto done;
    if (coarsen == OPT_COARSEN_NONE || coarsen == OPT_COARSEN_OUTPUTS) {
        if (!(g = opt_graph_new(f->n_ops))) {
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory building the graph");
            goto done;
        }
        if (build_op_level(f, host, g, err)) {
            rc = err ? err->code : GMS_ENOMEM;
            goto done;
        }
        if (map && !(nm = opt_node_map_build(f, NULL, NULL, f->n_ops))) {
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory mapping the graph's nodes");
            goto done;
        }
    } else {
        if (info)
            info->layers = sp->source == SIM_LAYERS_SCOPES     ? "scopes"
                           : sp->source == SIM_LAYERS_SEGMENTS ? "segments"
                                                               : "mixed";
        if (layer_groups(t, L, sp, f, &raw) || normalize(&raw, sp->first_op, sp->end_op, t, f, &gs)) {
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory coarsening the graph");
            goto done;
        }
        if ((rc = build_coarse(f, &gs, host, &g, map ? &nm : NULL, err)))
            goto done;
    }
    g->constant_bytes = f->constant_bytes;
    g->baseline_peak = sim_trace_baseline(t)->memory; /* what a budget ratio is of */
    if ((rc = opt_graph_finish(g, err)))
        goto done;
    *out = g;
    g = NULL;
    if (map)
        *map = nm, nm = NULL;
done:
    opt_graph_free(g);
    opt_node_map_free(nm);
    sim_flow_free(f);
    sim_layers_free(L);
    free(raw.g);
    free(gs.g);
    return rc;
}

const char *opt_coarsen_name(opt_coarsen c)
{
    return c == OPT_COARSEN_LAYERS ? "layers" : c == OPT_COARSEN_OUTPUTS ? "outputs"
           : c == OPT_COARSEN_AUTO ? "auto" : "none";
}

int opt_coarsen_parse(const char *name, opt_coarsen *out)
{
    if (!name)
        return -1;
    if (strcmp(name, "layers") == 0)
        *out = OPT_COARSEN_LAYERS;
    else if (strcmp(name, "none") == 0 || strcmp(name, "ops") == 0)
        *out = OPT_COARSEN_NONE;
    else if (strcmp(name, "outputs") == 0)
        *out = OPT_COARSEN_OUTPUTS;
    else if (strcmp(name, "auto") == 0)
        *out = OPT_COARSEN_AUTO;
    else
        return -1;
    return 0;
}
