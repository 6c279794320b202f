/*
 * store_solution: the solver's answers cached in a result store (schema version 8; each graph's
 * compute since version 9, for the yardstick, store_gaps.h), so that a Checkmate run (sim or
 * sweep with --policy checkmate|checkmate-approx) at a budget already solved replays the
 * stored schedule instead of solving again (issue 19, item 3).
 *
 * Keyed like runs: the trace's content hash, the iteration, the coarsening, the budget in
 * bytes, the mode ("exact" or "approx"), the solve's time limit (0 = none) and, since version
 * 12, the search ("windows" when the time-limited exact solve ran the window search,
 * opt/opt_lns.h; "none" otherwise and for every solution stored before). The schedule
 * is opaque here (analysis does not depend on opt/): the caller encodes it.
 */
#ifndef STORE_SOLUTION_H
#define STORE_SOLUTION_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

typedef struct store_solution_key {
    const char *trace_hash;
    uint32_t iteration;
    const char *coarsen; /* "layers" or "none" */
    uint64_t budget;     /* bytes */
    const char *mode;    /* "exact" or "approx" */
    double time_limit;   /* seconds; 0 = none */
    const char *search;  /* "windows" or "none" (NULL = "none"); stores before version 12
                          * hold "none" only */
} store_solution_key;

typedef struct store_solution {
    store_solution_key key;
    const char *status;   /* the solver's status name (opt_status_name) */
    double objective;     /* ms; meaningful only with a schedule */
    double lower_bound;   /* ms; < 0 when not known */
    int bound_boundary;   /* lower_bound is the boundary bound (opt_bound.h), not the LP's */
    double gap;           /* < 0 when not known (no bound: the time limit stopped the LP) */
    double solve_s;
    uint32_t nodes;       /* the graph's node count */
    double compute;       /* ms: the graph's compute without recomputation (the yardstick's
                           * denominator); <= 0 = not known (solutions stored before
                           * schema version 9) */
    const char *answer_from; /* "solver", "window-search" or "seed" (optimal_answer_from);
                              * NULL = not known (stored before version 12, or no schedule) */
    const void *schedule; /* the encoded schedule; NULL when the solver found none */
    size_t schedule_len;
} store_solution;

/* Stores a solution unless its key is stored already (INSERT OR IGNORE). */
int store_put_solution(store *s, const store_solution *sol, gms_error *err);

/* The key's search as stored: "none" for NULL. */
const char *store_solution_search(const store_solution_key *k);

/* Looks a solution up: *found = 1 and *out filled (out->status, out->answer_from and
 * out->schedule malloc'ed,
 * freed by store_solution_clear; out->key left as it was) or *found = 0. Stores before
 * version 8 have no solutions: *found = 0. */
int store_get_solution(store *s, const store_solution_key *k, store_solution *out, int *found,
                       gms_error *err);
void store_solution_clear(store_solution *sol);

/* Sets a stored solution's graph compute where it is not known (a solution stored before
 * schema version 9). Nothing for older stores. */
int store_solution_fill_compute(store *s, const store_solution_key *k, double compute,
                                gms_error *err);

/* Calls fn for every exact ("exact" mode) solution of trace_hash at budget, in the order
 * coarsen, iteration, time limit (the yardstick's candidates; several programs may have
 * solved one budget). sol->schedule is NULL and sol->objective NAN when the solver found no
 * schedule; strings live for the call. fn returns non-zero
 * to stop. None before version 8. */
typedef int (*store_solution_fn)(void *ctx, const store_solution *sol);
int store_solutions_at(store *s, const char *trace_hash, uint64_t budget, store_solution_fn fn,
                       void *ctx, gms_error *err);

/* Number of solutions stored (0 before version 8). */
int store_count_solutions(store *s, int64_t *n, gms_error *err);

#endif
