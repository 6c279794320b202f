/*
 * opt_moccasin: MOCCASIN's program (Bartan, Li, Teague, Lott, Dilkina, "Moccasin: Efficient
 * Tensor Rematerialization for Neural Networks", ICML 2023, arXiv 2304.14463; code
 * haoming-codes/moccasin, src/moccasin/cp.py) as a MILP that CBC can take (docs/optimal.md,
 * "MOCCASIN's formulation").
 *
 * MOCCASIN is a constraint program: each node v has C optional retention intervals
 * [start, end) (the first present, starting at v's own event), starts restricted to the
 * stage events of the fixed topological order (their use_stage: event (t, v) for t >= v, the
 * same events as Checkmate's R[t,v]), a cumulative constraint (memory at every event at most
 * the budget) and reservoir constraints (every interval of v starts while some interval of
 * each input is open). Its O(n C) integer variables need CP-SAT's global constraints: a MILP
 * has no cumulative constraint, and linearising one needs an indicator per interval and
 * event. Summed over copies those indicators are Checkmate's R (an interval starts at (t, v))
 * and S (an interval spans the boundary into stage t), and the end of an interval after its
 * last use is the tightened FREE_E; copies are interchangeable, so the copy index only adds
 * symmetry. What remains of MOCCASIN is its limit C: node v is computed at most C times,
 * sum over t of R[t,v] <= C. With C >= n the program's optimum is Checkmate's; with smaller
 * C it is at least Checkmate's, equal whenever some Checkmate optimum computes no node more
 * than C times (tests/unit/opt/test_opt_moccasin.c checks both against a brute force).
 */
#ifndef OPT_MOCCASIN_H
#define OPT_MOCCASIN_H

#include <stdint.h>

#include "opt_graph.h"
#include "opt_program.h"
#include "opt_schedule.h"

#define OPT_MOCCASIN_COPIES_DEFAULT 2 /* the authors' C (cp.py, and their paper's runs) */

/* The program for g under an activation budget (bytes), every node computed at most copies
 * times (copies >= 1; >= g->n: no limit). integral 0: its LP relaxation. 0 or an error, as
 * opt_program_build. */
int opt_moccasin_build(const opt_graph *g, uint64_t budget, int integral, uint32_t copies,
                       opt_program **out, gms_error *err);

/* 1 when s computes no node more than copies times. */
int opt_moccasin_fits(const opt_schedule *s, uint32_t copies);

#endif
