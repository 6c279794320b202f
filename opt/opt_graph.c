/*
 * opt_graph: construction, validation and the derived edge and successor lists.
 */
#include "opt_graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opt_schedule.h"

opt_graph *opt_graph_new(uint32_t n)
{
    opt_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->n = n;
    g->nodes = calloc((size_t)n + 1, sizeof *g->nodes);
    if (!g->nodes) {
        free(g);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        g->nodes[i].cost_host = -1; /* none: GPU only */
    return g;
}

void opt_graph_free(opt_graph *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; i < g->n; i++) {
        free(g->nodes[i].name);
        free(g->nodes[i].inputs);
    }
    free(g->nodes);
    free(g->edges);
    free(g->succ_off);
    free(g->succ);
    free(g->pred_edge_off);
    free(g);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int opt_graph_set_node(opt_graph *g, uint32_t i, const char *name, double cost, uint64_t bytes,
                       const uint32_t *inputs, uint32_t n_inputs, gms_error *err)
{
    opt_node *nd = &g->nodes[i];
    free(nd->name);
    free(nd->inputs);
    nd->name = strdup(name ? name : "");
    nd->inputs = malloc(((size_t)n_inputs + 1) * sizeof *nd->inputs);
    if (!nd->name || !nd->inputs)
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the graph");
    if (n_inputs)
        memcpy(nd->inputs, inputs, (size_t)n_inputs * sizeof *inputs);
    qsort(nd->inputs, n_inputs, sizeof *nd->inputs, cmp_u32);
    uint32_t w = 0;
    for (uint32_t r = 0; r < n_inputs; r++)
        if (w == 0 || nd->inputs[w - 1] != nd->inputs[r])
            nd->inputs[w++] = nd->inputs[r];
    nd->n_inputs = w;
    nd->cost = cost;
    nd->bytes = bytes;
    return 0;
}

int opt_graph_finish(opt_graph *g, gms_error *err)
{
    uint64_t n_edges = 0;
    for (uint32_t v = 0; v < g->n; v++) {
        const opt_node *nd = &g->nodes[v];
        const char *name = nd->name ? nd->name : "";
        if (!isfinite(nd->cost) || nd->cost < 0)
            return gms_error_set(err, GMS_EFORMAT,
                                 "node %u (\"%s\"): cost %g: give a finite cost >= 0 (ms)", v,
                                 name, nd->cost);
        for (uint32_t k = 0; k < nd->n_inputs; k++) {
            uint32_t u = nd->inputs[k];
            if (u == v)
                return gms_error_set(err, GMS_EFORMAT,
                                     "node %u (\"%s\"): input %u is the node itself: a cycle; "
                                     "inputs name earlier nodes (nodes are in execution order)",
                                     v, name, u);
            if (u > v)
                return gms_error_set(err, GMS_EFORMAT,
                                     "node %u (\"%s\"): input %u names a %s: a cycle or nodes "
                                     "out of order; list nodes in execution order, each after "
                                     "its inputs",
                                     v, name, u, u < g->n ? "later node" : "node that does not exist");
        }
        n_edges += nd->n_inputs;
    }
    if (n_edges > UINT32_MAX / 2)
        return gms_error_set(err, GMS_EFORMAT, "the graph has too many edges (%llu)",
                             (unsigned long long)n_edges);
    free(g->edges);
    free(g->succ_off);
    free(g->succ);
    free(g->pred_edge_off);
    g->n_edges = (uint32_t)n_edges;
    g->edges = malloc((n_edges + 1) * sizeof *g->edges);
    g->succ = malloc((n_edges + 1) * sizeof *g->succ);
    g->succ_off = calloc((size_t)g->n + 2, sizeof *g->succ_off);
    g->pred_edge_off = calloc((size_t)g->n + 1, sizeof *g->pred_edge_off);
    if (!g->edges || !g->succ || !g->succ_off || !g->pred_edge_off)
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the graph's edges");
    uint32_t e = 0;
    for (uint32_t v = 0; v < g->n; v++) {
        g->pred_edge_off[v] = e;
        for (uint32_t k = 0; k < g->nodes[v].n_inputs; k++) {
            g->edges[e++] = (opt_edge){g->nodes[v].inputs[k], v};
            g->succ_off[g->nodes[v].inputs[k] + 2]++;
        }
    }
    g->pred_edge_off[g->n] = e;
    for (uint32_t i = 0; i < g->n; i++)
        g->succ_off[i + 2] += g->succ_off[i + 1];
    /* edges are ordered by v, so each successor list fills in ascending order */
    for (uint32_t k = 0; k < e; k++)
        g->succ[g->succ_off[g->edges[k].u + 1]++] = g->edges[k].v;
    return 0;
}

double opt_graph_compute(const opt_graph *g)
{
    double sum = 0;
    for (uint32_t i = 0; i < g->n; i++)
        sum += g->nodes[i].cost;
    return sum;
}

uint64_t opt_graph_peak(const opt_graph *g)
{
    opt_schedule *s = opt_schedule_new(g->n);
    if (!s)
        return UINT64_MAX;
    opt_schedule_checkpoint_all(g, s);
    uint64_t peak = opt_schedule_peak(g, s);
    opt_schedule_free(s);
    return peak + g->constant_bytes;
}

uint32_t opt_graph_floor_node(const opt_graph *g)
{
    uint64_t best = 0;
    uint32_t arg = 0;
    for (uint32_t v = 0; v < g->n; v++) {
        uint64_t sum = g->nodes[v].bytes;
        for (uint32_t k = 0; k < g->nodes[v].n_inputs; k++)
            sum += g->nodes[g->nodes[v].inputs[k]].bytes;
        if (sum > best)
            best = sum, arg = v;
    }
    return arg;
}

uint64_t opt_graph_floor(const opt_graph *g)
{
    if (g->n == 0)
        return g->constant_bytes;
    uint32_t v = opt_graph_floor_node(g);
    uint64_t sum = g->nodes[v].bytes;
    for (uint32_t k = 0; k < g->nodes[v].n_inputs; k++)
        sum += g->nodes[g->nodes[v].inputs[k]].bytes;
    return sum + g->constant_bytes;
}

uint64_t opt_graph_ratio_reference(const opt_graph *g)
{
    return g->baseline_peak ? g->baseline_peak : opt_graph_peak(g);
}

uint64_t opt_graph_budget_for_ratio(const opt_graph *g, double ratio, const char **of)
{
    if (of)
        *of = g->baseline_peak ? "baseline_peak" : "graph_peak";
    /* the same arithmetic as sim_budget_for_ratio, so both give the same bytes */
    double b = (double)opt_graph_ratio_reference(g) * ratio;
    if (!(b > 0))
        return 0;
    if (b >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)b;
}
