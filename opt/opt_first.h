/*
 * opt_first: whether a time-limited MILP hands CBC the whole program before the window search
 * (opt_lns.h), and for how long (issue 28's leftover).
 *
 * The window search is for programs CBC cannot solve whole in the time given: it re-solves
 * small parts of them. On a program no larger than its widest window it ends by handing CBC
 * that very program (its widest window is the whole program), and every narrower window
 * before that is time CBC alone might not have needed: a 20-node layer graph took 1.8 s with
 * the search and 0.3 s without. So such a program gets CBC first, for a short slice: a proof
 * (optimal, or infeasible) is the answer and no window is solved; otherwise the search starts
 * from CBC's best schedule with the time left, as before.
 *
 * The rule, from what each part costs (not tuned to a trace):
 *  - the program has at most the search's widest window's nonzeros (OPT_LNS_MAX_NONZEROS, or
 *    what the memory cap allows when that is less): CBC first only reorders what the search
 *    would solve anyway;
 *  - the slice is OPT_FIRST_SHARE of the limit, at most the time the search gives one window
 *    (OPT_LNS_WINDOW_SECONDS): where CBC does not prove, the search loses at most that share
 *    of its time;
 *  - twice the program's estimated LP time (opt_size.h: our LP, then CBC's root solves it
 *    again) fits in the slice: CBC proves nothing before its root LP, so a program whose LP
 *    alone fills the slice is not tried.
 */
#ifndef OPT_FIRST_H
#define OPT_FIRST_H

#include <stdint.h>

#include "opt_size.h"

#define OPT_FIRST_SHARE 0.1

/* The seed name of CBC's best schedule when its slice proved nothing (opt_solve.c). */
#define OPT_FIRST_SEED_NAME "solver-first"

typedef struct opt_first_plan {
    int first;           /* CBC on the whole program first */
    double seconds;      /* for this long (its LP included) */
    uint64_t nonzeros;   /* the program's, as opt_size_program counts them */
    double max_nonzeros; /* the largest program that goes first */
} opt_first_plan;

/* The largest program CBC gets first: window_nonzeros (the search's widest window), or the
 * environment's GMS_OPT_SOLVER_FIRST_NONZEROS (a number >= 0; 0: never, for the tests that
 * pin the window search itself on a small graph; ignored when not a number). */
double opt_first_max_nonzeros(double window_nonzeros);

/* The plan for a program of size sz under time_limit seconds (> 0) with at most max_nonzeros
 * going first (opt_first_max_nonzeros). */
void opt_first_plan_for(const opt_size *sz, double time_limit, double max_nonzeros,
                        opt_first_plan *out);

#endif
