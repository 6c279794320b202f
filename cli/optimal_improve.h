/*
 * optimal_improve: how `gpumemsim optimal` says where its schedule came from (issue 28, item
 * 3): the seed as it was, the seed improved by the window search (opt_lns.h), or the solver.
 */
#ifndef OPTIMAL_IMPROVE_H
#define OPTIMAL_IMPROVE_H

#include <jansson.h>

#include "opt_solve.h"

/* The text's lines for CBC's first slice (opt_first.h; nothing when not tried) and the window
 * search (nothing when it did not run): what they did, and where the answer came from
 * (when either ran); labels padded to width, with a colon when colons is set (optimal's
 * style; sim's has none). */
void optimal_improve_print(const opt_answer *a, int width, int colons);

/* --json's "improvement": what the window search did, or null when it did not run. */
json_t *optimal_improve_json(const opt_answer *a);

/* --json's "solver_first": CBC on the whole program before the window search (opt_first.h):
 * {proved, seconds, slice, program_nonzeros}, or null when not tried. */
json_t *optimal_first_json(const opt_answer *a);

#endif
