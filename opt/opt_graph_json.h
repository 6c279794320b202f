/*
 * opt_graph_json: the graph's JSON form (docs/optimal.md), read and written.
 *
 *   {"nodes": [{"name": "conv1", "cost": 1.5, "bytes": 4096, "inputs": [0, 2]}, ...],
 *    "constant_bytes": 1048576}
 *
 * Nodes in execution order; cost in milliseconds (a number >= 0); bytes an integer >= 0 (the
 * size of the node's output); inputs indices of earlier nodes (optional, default none); name
 * optional (default "nI"); constant_bytes optional (default 0). Unknown keys are ignored, so
 * files may carry more (a "source" object, per-node "op" indices).
 */
#ifndef OPT_GRAPH_JSON_H
#define OPT_GRAPH_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "opt_graph.h"

/* Parses a graph from text (len bytes, not NUL-terminated necessarily). what names the source
 * in messages ("g.json"). 0 and a finished graph, or GMS_EFORMAT / GMS_ENOMEM with a message
 * naming the line or node. */
int opt_graph_parse(const char *text, size_t len, const char *what, opt_graph **out,
                    gms_error *err);

/* Reads path. 0, GMS_EIO or as opt_graph_parse. */
int opt_graph_read(const char *path, opt_graph **out, gms_error *err);

/* Writes g as JSON to f (one node a line). 0 or GMS_EIO. */
int opt_graph_write(const opt_graph *g, FILE *f, gms_error *err);

#endif
