/*
 * opt_node_map: which of a trace's ops and storages each node of a graph built from it stands
 * for (issue 26: where a solved schedule peaks). A node's bytes are the sizes of its storages
 * (at op level the op's new storages that die inside the iteration, with --coarsen outputs one
 * of them; coarsened by layers those of its members that a node outside it reads), and the
 * graph's constant_bytes those of the constant storages (live at the iteration's start,
 * CONSTANTs, and at op level (none) the storages that outlive the iteration). A node is
 * complete when the last of its ops has run, so that op is where a peak at the node is.
 */
#ifndef OPT_NODE_MAP_H
#define OPT_NODE_MAP_H

#include <stdint.h>

#include "gms_error.h"
#include "sim_dataflow.h"

typedef struct opt_node_map {
    uint32_t n;          /* nodes */
    uint32_t *last_op;   /* per node: the trace op whose compute completes it */
    uint32_t *st_off;    /* n + 1 offsets into st */
    uint32_t *st;        /* each node's storages */
    uint32_t *constants; /* the storages in constant_bytes */
    uint32_t n_constants;
} opt_node_map;

/* The map of a graph of n_nodes built from f: node_of[i] is flow op i's node (NULL: node i is
 * flow op i, op level) and, with node_of, external[i] says whether flow op i's storages count
 * in its node's bytes (read outside the node). NULL when out of memory. */
opt_node_map *opt_node_map_build(const sim_flow *f, const uint32_t *node_of,
                                 const uint8_t *external, uint32_t n_nodes);
void opt_node_map_free(opt_node_map *m);

#endif
