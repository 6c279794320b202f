/*
 * opt_hostcost: where a graph's cost_host comes from (the two-device program, opt_xengine.h;
 * docs/optimal.md, "Two devices"): the same job traced on the host, matched node for node, or
 * an estimate the user states with `gpumemsim graph --host-estimate SPEC`.
 *
 * The estimate, per op (a coarse node's is its members' total):
 *   slowdown=K         cost_host = K x the op's GPU duration
 *   roofline=GBPS      cost_host = bytes touched / GBPS (1 GB = 1e9 bytes), bytes touched =
 *                      the distinct storages the op reads plus the bytes it writes
 *   slowdown=K,roofline=GBPS   the larger of the two
 * Traces record no FLOPs per op, so there is no compute roof: a bandwidth roofline alone
 * under-estimates compute-bound ops (convolutions, matmuls); slowdown covers them.
 */
#ifndef OPT_HOSTCOST_H
#define OPT_HOSTCOST_H

#include <stdint.h>

#include "gms_error.h"
#include "opt_graph.h"

typedef struct opt_host_estimate {
    double slowdown; /* K > 0, or 0 when not given */
    double gbps;     /* the host's memory bandwidth in GB/s > 0, or 0 when not given */
} opt_host_estimate;

/* Parses "slowdown=K", "roofline=GBPS" or both, comma-separated, in either order. K in
 * (0, 1e6], GBPS in [1e-6, 1e6]. 0, or GMS_EINVAL with a message saying what is wrong. */
int opt_host_estimate_parse(const char *spec, opt_host_estimate *out, gms_error *err);

/* The estimated host time of one op, in ms: cost_ns its GPU duration, touched its bytes read
 * plus written (sim_flow_op.touched). */
double opt_host_estimate_op(const opt_host_estimate *e, uint64_t cost_ns, uint64_t touched);

/* Gives each node of g the cost of the same node of host (a graph of the same job traced on
 * the host) as its cost_host. The graphs must match node for node: same count, and per node
 * the same name, bytes and inputs. 0, or GMS_EFORMAT naming the first node that differs and
 * how (g is then unchanged). */
int opt_graph_take_host(opt_graph *g, const opt_graph *host, gms_error *err);

#endif
