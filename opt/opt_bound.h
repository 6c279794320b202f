/*
 * opt_bound: the boundary bound, a valid lower bound on Checkmate's optimum that stays cheap
 * on graphs far too large for the program's LP relaxation (docs/optimal.md, "The boundary
 * bound", proves it valid).
 *
 * At node t's own event (stage t computes t, the stage's last event) memory holds t, all of
 * t's inputs and every value kept into stage t + 1. A value i is needed at its consumers' own
 * stages j_1 < j_2 < ...; between two needs (and between i's own stage and its first
 * consumer) it is either kept across every boundary or recomputed at least once in that gap,
 * and recomputations in different gaps are different ones. So: one variable D in [0, 1] per
 * gap (i dropped in it, costing cost_i), and per stage t the memory row
 *   m_t + m(inputs of t) + sum of m_i (1 - D) over gaps open at t  <=  budget.
 * Memory at recomputation events and the cost of a recomputation's own inputs are left out,
 * which is why it is a relaxation. Each gap's column has consecutive ones (an interval of
 * stages), so the LP is integral and the bound is also the optimum of that relaxed problem.
 * Size: at most one column per edge and one row per node.
 */
#ifndef OPT_BOUND_H
#define OPT_BOUND_H

#include <stdint.h>

#include "opt_graph.h"
#include "opt_solver.h"

typedef struct opt_bound_result {
    opt_solve_status status; /* OPTIMAL (value is the bound), INFEASIBLE, or UNKNOWN */
    double value;            /* ms, the base compute included */
    double seconds;
    uint32_t columns, rows;  /* the LP's size */
} opt_bound_result;

/* The boundary bound of g at an activation budget (bytes; constant_bytes already taken
 * off). INFEASIBLE proves no schedule fits. 0 or an error (out of memory). */
int opt_boundary_bound(const opt_graph *g, uint64_t budget, double time_limit,
                       opt_bound_result *r, gms_error *err);

#endif
