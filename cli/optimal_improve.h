/*
 * optimal_improve: how `gpumemsim optimal` says where its schedule came from (issue 28, item
 * 3): the seed as it was, the seed improved by the window search (opt_lns.h), or the solver.
 */
#ifndef OPTIMAL_IMPROVE_H
#define OPTIMAL_IMPROVE_H

#include <jansson.h>

#include "opt_solve.h"

/* "solver" (cheaper than every seed), "window-search" (the seed improved by it), "seed", or
 * NULL without a schedule. */
const char *optimal_answer_from(const opt_answer *a);

/* The text's `search:` line for the window search (nothing when it did not run). */
void optimal_improve_print(const opt_answer *a);

/* --json's "improvement": what the window search did, or null when it did not run. */
json_t *optimal_improve_json(const opt_answer *a);

#endif
