/*
 * opt_graph: the static dataflow graph the optimal planners work on (issue 19; docs/optimal.md
 * documents its JSON form). Nodes are in execution order and each node's inputs are earlier
 * nodes, so node index order is a topological order; node t is what stage t of Checkmate's
 * program computes.
 */
#ifndef OPT_GRAPH_H
#define OPT_GRAPH_H

#include <stdint.h>
#include <stdio.h>

#include "gms_error.h"

typedef struct opt_node {
    char *name;
    double cost;       /* compute, in milliseconds */
    double cost_host;  /* compute on the host (ms, the two-device program, opt_xengine.h);
                        * < 0: none given, the node runs on the GPU only */
    uint64_t bytes;    /* the size of its output */
    uint32_t *inputs;  /* indices of earlier nodes, ascending, no duplicates */
    uint32_t n_inputs;
} opt_node;

/* An edge (u, v): node v reads the output of node u (u < v). */
typedef struct opt_edge {
    uint32_t u, v;
} opt_edge;

typedef struct opt_graph {
    opt_node *nodes;
    uint32_t n;
    uint64_t constant_bytes; /* storage outliving the iteration: taken off the budget */
    /* Where the graph came from (0 and "" when unknown: a graph written by hand or by an older
     * gpumemsim): the trace's baseline peak (sim_trace_baseline's memory), which a budget
     * ratio is of everywhere (sim, optimal, sweep), and the trace's content hash
     * (store_hash_file), so a graph is never taken for another trace's. */
    uint64_t baseline_peak;
    char trace_hash[17];
    /* derived by opt_graph_finish: */
    opt_edge *edges;   /* ordered by v, then u */
    uint32_t n_edges;
    uint32_t *succ_off; /* n + 1 offsets into succ: each node's consumers, ascending */
    uint32_t *succ;
    uint32_t *pred_edge_off; /* n + 1 offsets into edges: node v's in-edges are
                              * edges[pred_edge_off[v] .. pred_edge_off[v + 1]) */
} opt_graph;

/* An empty graph of n nodes (names NULL, no inputs). NULL when out of memory. */
opt_graph *opt_graph_new(uint32_t n);
void opt_graph_free(opt_graph *g);

/* Sets node i's name (copied) and inputs (copied, sorted, de-duplicated). 0 or GMS_ENOMEM. */
int opt_graph_set_node(opt_graph *g, uint32_t i, const char *name, double cost, uint64_t bytes,
                       const uint32_t *inputs, uint32_t n_inputs, gms_error *err);

/* Checks every node (an input naming the node itself is a cycle, one naming a later node or
 * no node is refused; costs must be finite and >= 0) and derives edges and successors.
 * Errors name the node: "node 3 (\"relu\"): input 5 names a later node ...". 0 or an error. */
int opt_graph_finish(opt_graph *g, gms_error *err);

/* Sum of node costs (ms): the compute of a schedule that recomputes nothing. */
double opt_graph_compute(const opt_graph *g);

/* The graph's unconstrained peak (bytes, constant_bytes included): the program's memory of
 * the schedule that computes each node once and keeps every output until its last use. */
uint64_t opt_graph_peak(const opt_graph *g);

/* The least memory any schedule needs (bytes, constant_bytes included): the largest node
 * with all its inputs. A budget below it is infeasible. */
uint64_t opt_graph_floor(const opt_graph *g);

/* The bytes a budget ratio stands for: ratio x the trace's baseline peak when the graph
 * knows it (the same bytes as sim_budget_for_ratio), else ratio x opt_graph_peak. *of says
 * which ("baseline_peak" or "graph_peak"); may be NULL. */
uint64_t opt_graph_budget_for_ratio(const opt_graph *g, double ratio, const char **of);

/* The peak a ratio is of (opt_graph_budget_for_ratio's reference). */
uint64_t opt_graph_ratio_reference(const opt_graph *g);

/* The node whose footprint sets opt_graph_floor. */
uint32_t opt_graph_floor_node(const opt_graph *g);

#endif
