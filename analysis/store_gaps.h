/*
 * store_gaps: the yardstick over a result store (issue 19, item 4): every stored run beside
 * every exact solver answer at its trace and budget, with its gap to the optimum and to the
 * LP bound (yardstick.h). Several answers may share a budget (coarsened by layers or not,
 * other iterations or time limits): each gives its own row, labelled, since their gaps refer
 * to different programs. The SQL view run_gaps (schema version 9) holds the same figures.
 */
#ifndef STORE_GAPS_H
#define STORE_GAPS_H

#include "store.h"
#include "store_solution.h"
#include "yardstick.h"

typedef struct store_gap_row {
    const store_row *run;
    const store_solution *sol; /* NULL: no solution is stored at the run's trace and budget */
    yardstick_gap gap;
} store_gap_row;

/* fn returns non-zero to stop (that value is returned). */
typedef int (*store_gap_fn)(void *ctx, const store_gap_row *g);

/* For each run f matches (store_query_runs' order): one row per exact solution at its trace
 * and budget (for a checkmate or checkmate-approx run, of its own coarsening and iteration
 * only), or, with unsolved set, one row with sol NULL when there is none. */
int store_query_gaps(store *s, const store_filter *f, int unsolved, store_gap_fn fn, void *ctx,
                     gms_error *err);

#endif
