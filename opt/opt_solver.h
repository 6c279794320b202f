/*
 * opt_solver: the MILP solver behind the optimal planners. opt_cbc.c (COIN-OR CBC through its
 * C API) is the one file that talks to a solver; another solver is another file behind this
 * header.
 */
#ifndef OPT_SOLVER_H
#define OPT_SOLVER_H

#include "opt_graph.h"
#include "opt_program.h"

typedef enum opt_solve_status {
    OPT_STATUS_OPTIMAL = 0,    /* proven optimal */
    OPT_STATUS_FEASIBLE = 1,   /* a solution, search stopped by the time limit */
    OPT_STATUS_INFEASIBLE = 2, /* proven: no schedule fits */
    OPT_STATUS_UNKNOWN = 3,    /* stopped by the time limit before any solution */
} opt_solve_status;

const char *opt_status_name(opt_solve_status s); /* "optimal", "feasible", ... */

typedef struct opt_solver_opts {
    double time_limit;       /* seconds; <= 0: none */
    const double *start;     /* a feasible solution to start from (n_cols values), or NULL */
    int log;                 /* solver log on stderr */
    int threads;             /* 0 or 1: one thread */
    int has_cutoff;          /* look only for solutions of objective below cutoff: with
                              * none, the answer is INFEASIBLE (issue 28's rounds, opt_solve.c) */
    double cutoff;
    /* A primal heuristic on the search's LP solutions (issue 28, item 3). CBC 2.10 hands its
     * own incumbents to no callback, and a search killed at the limit loses them; so the
     * solver gives round every LP solution its search sees (each cut pass at the root, each
     * node), in the program's columns (columns its presolve removed read 0). round returns 1
     * when it made a feasible solution of it: x_out (n_cols values) and *obj. The solver
     * answers with the best such when it beats its own (opt_solver_result.rounded), and
     * opt_child.c keeps it across a kill. NULL: none. */
    int (*round)(void *ctx, const double *lp_x, double *x_out, double *obj);
    void *round_ctx;
} opt_solver_opts;

typedef struct opt_solver_result {
    opt_solve_status status;
    double objective;  /* of the best solution (when OPTIMAL or FEASIBLE) */
    double bound;      /* the solver's best bound on the optimum */
    double seconds;    /* wall time of the solve */
    double *x;         /* the best solution (n_cols values, malloc'd) or NULL */
    long nodes;        /* branch-and-bound nodes */
    int rounded;       /* x is round's (opt_solver_opts), better than any the solver found */
    long round_calls;  /* LP solutions given to round */
} opt_solver_result;

/* Solves p (its columns' integrality decides MILP or LP). 0, or an error (out of memory). */
int opt_solver_solve(const opt_program *p, const opt_graph *g, const opt_solver_opts *o,
                     opt_solver_result *r, gms_error *err);

/* "CBC 2.10.8" */
const char *opt_solver_name(void);

/* What the solver needs per nonzero of a program, in bytes (measured; opt_size.h sizes
 * programs before they are built with it). */
double opt_solver_bytes_per_nonzero(void);

#endif
