/*
 * optimal_xengine: `gpumemsim optimal` in two-device mode (opt_xengine.h; docs/optimal.md,
 * "Two devices"): solves the program and prints where each node ran, the copies and the total
 * time, as text or JSON.
 */
#ifndef CLI_OPTIMAL_XENGINE_H
#define CLI_OPTIMAL_XENGINE_H

#include <stdint.h>

#include "link.h"
#include "opt_graph.h"

typedef struct optimal_xe_opts {
    const char *path;
    uint64_t budget, peak0;  /* GPU budget (constants included), unconstrained peak */
    uint64_t ref;            /* what a budget ratio is of (opt_graph_ratio_reference) */
    uint64_t host_memory;    /* UINT64_MAX: unlimited */
    sim_link link;
    int relax, json, log, no_seed;
    double time_limit;
    const char *write_model;
} optimal_xe_opts;

/* 1 when any node of g has a cost_host. */
int optimal_xe_any_host_cost(const opt_graph *g);

/* Solves and reports; the exit code (0 optimal or feasible, 1 otherwise or on error). */
int optimal_xe_run(const char *cmd, const opt_graph *g, const optimal_xe_opts *o);

#endif
