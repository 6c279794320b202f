/*
 * opt_extract: the graph of one iteration of a trace (gpumemsim graph; docs/optimal.md, "From
 * a trace"). Op level by default: one node per op (sim/sim_dataflow.h states which storage is
 * a node's output and which is constant). Coarsened by layers: each layer's forward ops form
 * one node, each layer's backward ops another, and each run of ops outside every layer one
 * more; a node's bytes are then its members' outputs that a node outside it reads.
 */
#ifndef OPT_EXTRACT_H
#define OPT_EXTRACT_H

#include "opt_graph.h"
#include "opt_hostcost.h"
#include "opt_node_map.h"
#include "sim.h"

typedef enum opt_coarsen {
    OPT_COARSEN_NONE = 0,
    OPT_COARSEN_LAYERS = 1,
    /* op level, one node per output storage, each held until its own last reader and the
     * storages that outlive the iteration held from their op on (sim_flow_build_outputs): an
     * extension of the authors' graph whose unconstrained peak is the trace's baseline */
    OPT_COARSEN_OUTPUTS = 2,
    /* not a graph: the CLI's default, resolved per trace and budget by opt_graph_auto
     * (opt_size.h) to outputs or layers; opt_graph_from_trace refuses it */
    OPT_COARSEN_AUTO = 3,
} opt_coarsen;

/* "none", "layers", "outputs" or "auto": the name the CLI takes and the store keys solutions by. */
const char *opt_coarsen_name(opt_coarsen c);

/* The coarsening named (as opt_coarsen_name, or "ops" for none). 0, or -1 for another name. */
int opt_coarsen_parse(const char *name, opt_coarsen *out);

/* What opt_graph_from_trace did, for messages. */
typedef struct opt_extract_info {
    uint32_t iterations;  /* in the trace */
    uint32_t ops;         /* ops in the iteration (constants included) */
    const char *layers;   /* "scopes", "segments", "mixed" or "none" (not coarsened) */
} opt_extract_info;

/* The graph of t's iteration (0-based). 0, GMS_EINVAL (no such iteration, said with how many
 * there are) or GMS_ENOMEM. */
int opt_graph_from_trace(const sim_trace *t, uint32_t iteration, opt_coarsen coarsen,
                         opt_graph **out, opt_extract_info *info, gms_error *err);

/* The same, and with host non-NULL each node's cost_host estimated from its ops
 * (opt_host_estimate_op summed over a coarse node's members). */
int opt_graph_from_trace_host(const sim_trace *t, uint32_t iteration, opt_coarsen coarsen,
                              const opt_host_estimate *host, opt_graph **out,
                              opt_extract_info *info, gms_error *err);

/* The same without host costs, and with each node's trace ops and storages (opt_node_map.h):
 * *map for the graph *out (free both). */
int opt_graph_from_trace_map(const sim_trace *t, uint32_t iteration, opt_coarsen coarsen,
                             opt_graph **out, opt_node_map **map, gms_error *err);

#endif
