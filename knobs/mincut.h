/*
 * mincut: a minimum s-t cut with the partition networkx's minimum_cut returns (the max flow's
 * residual network without saturated edges; the sink side is every vertex with a residual
 * path to the sink, the source side all the others), which is the partition
 * torch._functorch.partitioners.solve_min_cut reads its saved values from. That sink side is
 * the smallest of all minimum cuts' sink sides, so the answer does not depend on which
 * maximum flow was found. Capacities are doubles; INFINITY is an edge that cannot be cut.
 */
#ifndef KNOBS_MINCUT_H
#define KNOBS_MINCUT_H

#include <stdint.h>

#include "gms_error.h"

typedef struct mc_graph mc_graph;

mc_graph *mc_new(uint32_t n_vertices);
void mc_free(mc_graph *g);
/* A directed edge u -> v (parallel edges add up). 0 or GMS_ENOMEM. */
int mc_add_edge(mc_graph *g, uint32_t u, uint32_t v, double capacity);
/* Max flow from s to t; side[v] = 1 for the source side, 0 for the sink side. GMS_EINVAL
 * when a path of infinite capacity joins s to t (networkx raises NetworkXUnbounded). */
int mc_solve(mc_graph *g, uint32_t s, uint32_t t, double *flow, uint8_t *side, gms_error *err);

#endif
