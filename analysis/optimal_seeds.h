/*
 * optimal_seeds: the heuristics' runs beside an optimal solve (issue 28, items 2 and 3), for
 * `optimal`, `sim --policy checkmate` and sweep's (and fit's, plot's) checkmate rows alike.
 * Each named policy runs on the trace at the solve's budget in bytes; on an op-level graph
 * (--coarsen outputs or none) its run becomes a schedule of the graph (opt/opt_run_seed.h)
 * that seeds the MILP, so the answer is never worse than the best of them that fits the
 * program's memory; on any graph the best run is what a coarser graph's answer is compared
 * with ("worse than a heuristic's run").
 */
#ifndef OPTIMAL_SEEDS_H
#define OPTIMAL_SEEDS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "opt_extract.h"
#include "opt_schedule.h"
#include "opt_solve.h"
#include "sim.h"

/* The policies run beside a solve when none are named (--seed-policies). */
#define OPTIMAL_SEEDS_DEFAULT "dtr,dtr-eq,msps,lru"

typedef struct optimal_seed_run {
    char policy[32];
    const char *status;      /* the run's: "ok", "oom", "remat-limit" */
    double overhead;         /* the run's (sim's figure; ok runs) */
    opt_schedule *schedule;  /* op level, ok runs: the run as a schedule of the graph, or NULL */
    double program_overhead; /* its compute / the graph's (schedule only) */
    int fits;                /* its peak under the program is within the budget */
} optimal_seed_run;

typedef struct optimal_seeds {
    optimal_seed_run *run;
    uint32_t n;
    int best;                /* index of the ok run of least overhead, or -1 */
    /* for opt_request.seeds: the schedules that exist, and their policies' names */
    const opt_schedule **seeds;
    const char **names;
    uint32_t n_seeds;
} optimal_seeds;

/* Runs each policy of the comma-separated list on iteration's trace t at budget bytes; with an
 * op-level coarsening (none, outputs), maps each ok run onto g. "none" or "": no runs. 0, or
 * GMS_EINVAL (a name that is no eviction policy, said so) or GMS_ENOMEM. */
int optimal_seeds_run(const sim_trace *t, uint32_t iteration, opt_coarsen c, const opt_graph *g,
                      uint64_t budget, const char *list, optimal_seeds *out, gms_error *err);
void optimal_seeds_free(optimal_seeds *s);

/* 0 when every name of list ("none", or comma-separated) is a policy optimal_seeds_run takes;
 * else GMS_EINVAL with the name said (for checking an option before any work). */
int optimal_seeds_check(const char *list, gms_error *err);

/* A solved answer a (of the graph coarsened c) against the best heuristic's run at the same
 * bytes (issue 28, item 2): a sentence in buf when the answer is worse than that run or has
 * no schedule where the run fits; "" when it is not worse or no run fits. overhead is the
 * answer's (its replay's in sim), < 0 when no schedule of it fits. */
void optimal_seeds_worse(const optimal_seeds *sd, const opt_answer *a, opt_coarsen c,
                         double overhead, char *buf, size_t len);

/* For an answer that did not come from a solve seeded with sd (the store's cache holds
 * answers of earlier, unseeded solves): the cheapest seed that fits the program replaces a's
 * schedule when it is cheaper, or when a has none (a->seeded, seed_from, objective, status
 * feasible). 1 when it did, 0 when not, -1 out of memory. */
int optimal_seeds_improve(const optimal_seeds *sd, const opt_graph *g, opt_answer *a);

/* The runs as a JSON array: policy, status, overhead, schedule_overhead, fits_program. */
json_t *optimal_seeds_json(const optimal_seeds *sd);

#endif
