/*
 * py_run_opts: the options of gpumemsim.sim() beyond eviction policies (the link and host
 * memory of swapping policies, docs/swap.md; checkpoint planners and their parameters,
 * docs/planners.md) and the figures they add to its result, key for key as `sim --json`
 * writes them ("swap"; "policy_args", "planner", "iterations").
 */
#ifndef PY_RUN_OPTS_H
#define PY_RUN_OPTS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "gpumemsim.h"

/* The per-iteration reports of a planner run, kept in C while the run holds no GIL. */
typedef struct py_iter {
    sim_iteration_report r; /* layers and checkpoint are not kept (see plan) */
    char *plan;             /* checkpointed layers' names, comma-separated */
} py_iter;

typedef struct py_iters {
    py_iter *v;
    size_t n, cap;
    int failed; /* out of memory: the list is incomplete */
} py_iters;

/* sim_config.iteration_observer for a py_iters. */
void py_iters_observe(void *ctx, const sim_iteration_report *r);
void py_iters_free(py_iters *it);

/* Sets cfg's planner and canonical parameters (written into params[len], which must outlive
 * the run) when `policy` names a planner: 1 = it does, 0 = it does not (policy_args must then
 * be NULL), -1 = a Python error is set. */
int py_opts_planner(const char *policy, const char *policy_args, sim_config *cfg, char *params,
                    size_t len);

/* Sets cfg's link and host memory from link= (a preset or "GBPS[,LATENCY_US]") and
 * host_memory= (bytes, an int; None = unlimited), refusing them for a policy that does not
 * swap and host memory smaller than the smallest tensor t could swap. 0, or -1 with a Python
 * error set. */
int py_opts_swap(const char *link, PyObject *host_memory, const sim_trace *t, sim_config *cfg);

/* Adds "swap" (swapping policies) and "policy_args", "planner", "iterations" (planners) to
 * the result dictionary d. 0, or -1 with a Python error set. */
int py_opts_put(PyObject *d, const sim_config *cfg, const sim_result *r, const py_iters *it);

#endif
