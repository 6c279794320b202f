/*
 * opt_child: a MILP solve (opt_solver_solve) in a child process under a hard wall-clock limit.
 *
 * CBC 2.10's root processing (cuts, heuristics, Clp's primal simplex re-solving the LP) checks
 * no clock, and its C API cannot stop a solve from outside (it offers message and cut
 * callbacks only; the incumbent callback came after 2.10). So the solve runs in a forked
 * child with CBC's own limit set as before, and the parent waits at most the limit plus
 * opt_child_grace(); then it kills the child (SIGKILL), reaps it and says so. Whatever CBC
 * found itself until then dies with the child (2.10's message callback gives a new
 * incumbent's objective but not its values); what the caller's rounding hook
 * (opt_solver_opts.round) made of CBC's LP solutions does not: the child keeps the best in
 * memory shared with the parent, and a killed solve answers with it (r->rounded).
 *
 * The child's answer comes back over a pipe (both ends are the same binary, so native byte
 * order and layout): one opt_child_msg, then n_x doubles, the solution (p->n_cols values, or
 * none). The solution rather than the schedule, so that the parent reads the schedule out of
 * it exactly as an in-process solve does, and a solve that ends within the limit answers
 * exactly the same.
 */
#ifndef OPT_CHILD_H
#define OPT_CHILD_H

#include <stdint.h>

#include "opt_solver.h"

typedef struct opt_child_msg {
    char magic[4];      /* "GMSC" */
    int32_t rc;         /* opt_solver_solve's return: 0, or a GMS_E* code with err */
    int32_t status;     /* opt_solve_status */
    uint32_t n_x;       /* doubles that follow: p->n_cols, or 0 when there is no solution */
    double objective;
    double bound;
    double seconds;     /* the solve's wall time, measured in the child */
    int64_t nodes;
    int32_t rounded;    /* opt_solver_result's */
    int64_t round_calls;
    gms_error err;
} opt_child_msg;

/* The wait past the limit before the kill (seconds): CBC stops itself at its limit between
 * branch-and-bound nodes, a little late; the grace lets that ordinary overrun end normally.
 * 1 s + 5% of the limit, at most 10 s. */
double opt_child_grace(double limit);

/* Solves p as opt_solver_solve does. With o->time_limit > 0 in a child process, killed after
 * o->time_limit + opt_child_grace(): then *killed = 1 and r says OPT_STATUS_UNKNOWN with no
 * solution, bound -1 and the wall time waited (or, when o->round made a solution before the
 * kill, OPT_STATUS_FEASIBLE with the best of them, r->rounded = 1); that is an answer, not an
 * error. With no limit in this process (nothing to enforce). Errors: the child's own (passed
 * on), a pipe or fork that fails, a child that dies (a signal, or an exit without an answer),
 * GMS_ENOMEM. */
int opt_child_solve(const opt_program *p, const opt_graph *g, const opt_solver_opts *o,
                    opt_solver_result *r, int *killed, gms_error *err);

/* The same with another solve function in the child (tests: one that hangs or crashes). */
typedef int (*opt_child_solver)(const opt_program *p, const opt_graph *g,
                                const opt_solver_opts *o, opt_solver_result *r, gms_error *err);
int opt_child_solve_with(opt_child_solver solve, const opt_program *p, const opt_graph *g,
                         const opt_solver_opts *o, opt_solver_result *r, int *killed,
                         gms_error *err);

#endif
