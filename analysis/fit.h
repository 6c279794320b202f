/*
 * fit: the smallest memory budget at which a policy runs a trace within an overhead limit
 * (gpumemsim fit, docs/fit.md).
 *
 * The search probes budgets on a coarse grid from a floor (below which nothing can run) up to
 * the baseline peak memory, then bisects between the highest failing grid point and the grid
 * point above it. Overhead is not monotone in the budget for every policy (a smaller budget
 * can make a policy pick better victims by chance), so the answer is defined to be honest
 * about it: the smallest passing budget B found by bisection such that every grid point above
 * B passes as well. A passing budget below B that the grid saw (an isolated pass under a
 * failing point) is reported as non-monotone, not taken as the answer.
 *
 * fit_search is the search alone, over any probe function (the unit test gives it synthetic
 * ones); fit_policy runs it on a trace with a sim_runner.
 */
#ifndef FIT_H
#define FIT_H

#include <stdint.h>

#include "gms_error.h"
#include "sim.h"

/* One probed budget. */
typedef struct fit_probe {
    int pass;         /* the run succeeded within the overhead limit */
    int status;       /* sim_status of the run */
    double overhead;  /* its overhead (meaningful when status is SIM_OK) */
} fit_probe;

/* Probes one budget: fills *out; returns 0, or an error code with err set (the search stops
 * and returns it). */
typedef int (*fit_probe_fn)(void *ctx, uint64_t budget, fit_probe *out, gms_error *err);

typedef struct fit_search_opts {
    uint64_t floor;      /* the lowest budget tried: the grid's first point */
    uint64_t top;        /* the grid's last point (the baseline peak memory) */
    unsigned grid;       /* grid points from floor to top, 2 to 1000 (fit uses 20) */
    uint64_t tolerance;  /* bisection stops once the bracket is at most this many bytes
                          * wide (>= 1; fit uses 0.5% of the baseline peak) */
    /* optional: called after each probe with the probes done so far */
    void (*on_probe)(void *ctx, unsigned runs);
    void *on_probe_ctx;
} fit_search_opts;

typedef struct fit_answer {
    int found;              /* some budget <= top passes and every grid point above it too */
    uint64_t budget;        /* the answer (when found) */
    fit_probe at;           /* the run at budget */
    int at_floor;           /* the answer is the floor: nothing below it was tried */
    uint64_t failed_below;  /* the failing budget at most `tolerance` below the answer (when
                             * found and not at the floor) */
    fit_probe below;        /* its run */
    int non_monotone;       /* a budget below the answer passed as well (an isolated pass) */
    uint64_t lowest_pass;   /* the lowest passing budget seen (= budget unless non_monotone;
                             * when not found, the lowest grid point that passed, or 0) */
    unsigned runs;          /* probes made */
} fit_answer;

/* The most probes fit_search makes for o (grid plus bisection), for progress totals. */
unsigned fit_search_max_runs(const fit_search_opts *o);

/* Searches as the header comment says. Returns 0 (whatever was found: see ans->found),
 * GMS_EINVAL for bad options, or the probe's error. */
int fit_search(const fit_search_opts *o, fit_probe_fn probe, void *ctx, fit_answer *ans,
               gms_error *err);

/* The floor of a trace: no budget below it can run any policy. The largest op footprint
 * (its outputs and its arguments at once, sim_baseline.bottleneck) and the constants, which
 * stay pinned once computed, must each fit; the larger of the two. */
uint64_t fit_floor(const sim_baseline *bl);

/* Runs fit_search for one policy on r's trace: base gives the policy, allocator, remat limit,
 * seed and sample (its budget and observer are ignored); a run passes when its status is ok
 * and its overhead <= max_overhead. */
int fit_policy(sim_runner *r, const sim_config *base, double max_overhead,
               const fit_search_opts *o, fit_answer *ans, gms_error *err);

#endif
