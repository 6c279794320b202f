/*
 * opt_solve: what `gpumemsim optimal` asks of a graph and a budget: the optimum (Checkmate's
 * MILP seeded with a heuristic schedule, as the authors seed theirs), the LP relaxation's bound,
 * or the authors' two-phase deterministic rounding of the LP (strategy_approx_lp.py:
 * solve_approx_lp_deterministic_sweep).
 */
#ifndef OPT_SOLVE_H
#define OPT_SOLVE_H

#include "opt_graph.h"
#include "opt_schedule.h"
#include "opt_solver.h"

typedef enum opt_mode {
    OPT_MODE_MILP = 0,
    OPT_MODE_RELAX = 1,  /* the LP bound alone */
    OPT_MODE_APPROX = 2, /* LP at 0.9 x budget, S rounded at 0.1 .. 0.9, cheapest that fits */
    OPT_MODE_BOUND = 3,  /* the boundary bound alone (opt_bound.h): cheap on large graphs */
} opt_mode;

typedef enum opt_formulation {
    OPT_FORM_CHECKMATE = 0, /* opt_program.h (tighten: our tightened variant) */
    OPT_FORM_MOCCASIN = 1,  /* opt_moccasin.h, every node computed at most copies times */
} opt_formulation;

typedef struct opt_request {
    uint64_t budget;         /* bytes, constant_bytes included */
    opt_mode mode;
    double time_limit;       /* seconds for the whole request; <= 0: none */
    const char *write_model; /* LP file of the program solved (MILP, or the LP) */
    int log;                 /* solver log on stderr */
    int no_seed;             /* do not seed the MILP (for measuring what seeding does) */
    int tighten;             /* our tightened program (opt_program.h), not the authors' */
    opt_formulation formulation;
    uint32_t copies;         /* MOCCASIN's C (0: OPT_MOCCASIN_COPIES_DEFAULT) */
    /* More schedules to seed the MILP from (heuristics' runs, opt_run_seed.h), named: the
     * seed is the cheapest of all that fit, so the answer is never worse than any of them */
    const opt_schedule *const *seeds;
    const char *const *seed_names;
    uint32_t n_seeds;
    int round;               /* round the search's LP solutions (opt_solve.c): opt-in, CBC
                              * 2.10.8's preprocessing crashed on a program with the hook */
    int improve;             /* a time-limited MILP (Checkmate's program) gives CBC the whole
                              * program first when it is small (opt_first.h: a proof is the
                              * answer), else improves its
                              * seed by the window search (opt_lns.h) for up to improve_share
                              * of the limit, less when it converges; then (with time left)
                              * the LP gets half the time left, and when it is stopped the
                              * search goes on with the rest; when the LP finishes, the MILP
                              * starts from the improved seed. A program over the memory
                              * cap: the search has the whole limit */
    double improve_share;    /* (0, 1]; 0: OPT_IMPROVE_SHARE */
} opt_request;

#define OPT_IMPROVE_SHARE 1.0

typedef struct opt_answer {
    opt_solve_status status;
    double objective;       /* the schedule's total compute (ms), or the LP value for RELAX */
    double lower_bound;     /* the LP relaxation's value (ms); < 0 when not known */
    double solver_bound;    /* the best bound the MILP search proved (ms); < 0 when none */
    double gap;             /* (objective - best bound) / objective; 0 when optimal; -1 when
                             * no bound is known (the time limit stopped the LP) */
    double seconds;         /* wall time of everything */
    double lp_seconds;      /* of the LP relaxation */
    double compute;         /* the graph's compute without recomputation (ms) */
    opt_schedule *schedule; /* OPTIMAL / FEASIBLE (not RELAX): the schedule */
    uint64_t peak;          /* its peak under the program (bytes, constants included) */
    int seeded;             /* the MILP started from a heuristic schedule */
    double seed_objective;  /* that schedule's compute (ms) */
    const char *seed_from;  /* which: "checkpoint-all", "greedy", "lp-rounding" or one of
                             * the request's seed_names (lives as long as they do) */
    double threshold;       /* APPROX: the rounding threshold chosen */
    long nodes;             /* branch-and-bound nodes */
    int skipped_search;     /* the time left after the LP was too short for CBC's root LP:
                             * the seed is the answer (opt_solve.c) */
    int rounds;             /* time-limited MILP: solver rounds run (opt_solve.c) */
    int improved_rounds;    /* of those, how many found a better schedule */
    int no_solver;          /* the budget holds the graph's unconstrained peak: checkpoint-
                             * all is optimal, answered without a solver (opt_solve.c) */
    int rounded;            /* the schedule is the search's LP rounded (opt_solve.c's hook),
                             * cheaper than the seed and than any CBC found itself */
    long round_calls;       /* LP solutions of the search that hook rounded */
    int killed_at_limit;    /* CBC overran the limit and its process was killed: the seed is
                             * the answer (opt_child.h) */
    double too_big_bytes;   /* MILP: what the program would need when over the memory cap
                             * (opt_size_memory_cap); it was not built, the answer is the seed
                             * and lower_bound the boundary bound (0: the program was solved) */
    int bound_boundary;     /* lower_bound is the boundary bound (opt_bound.h), not the LP:
                             * the LP did not finish, or its bound (lp_bound) is lower */
    double lp_bound;        /* the LP relaxation's value when it finished, else -1 */
    /* the window search (opt_request.improve): ran, from which seed and its objective, the
     * windows it solved and those that improved, its time, and whether it converged (its
     * widest windows improved nothing); its schedule is a seed named "window-search" */
    int improve_ran;
    const char *improve_from;
    double improve_start;
    uint32_t improve_windows, improve_improved, improve_failed;
    double improve_seconds;
    int improve_converged;
    /* CBC on the whole program before the window search (opt_first.h): tried, under which
     * slice (s), for how long, on a program of how many nonzeros, and whether it proved the
     * answer (optimal or infeasible; then no window search ran). Not proved: the search went
     * on, its seeds including CBC's best schedule (OPT_FIRST_SEED_NAME) */
    int first_tried, first_proved;
    double first_slice, first_seconds;
    uint64_t first_nonzeros;
    /* INFEASIBLE: what the smallest feasible budget needs */
    uint64_t floor;         /* no budget below this can work (largest node with its inputs) */
    uint32_t floor_node;
    uint64_t heuristic_fit; /* a budget the greedy heuristic fits in (UINT64_MAX: none) */
} opt_answer;

int opt_solve(const opt_graph *g, const opt_request *rq, opt_answer *a, gms_error *err);

/* Where a's schedule came from: "solver" (cheaper than every seed, or CBC's own schedule from
 * its first slice, opt_first.h), "window-search" (the seed improved by the window search,
 * opt_lns.h), "seed", or NULL without a schedule. A static string. */
const char *opt_answer_from(const opt_answer *a);
void opt_answer_clear(opt_answer *a);

/* The smallest activation budget (bytes) the greedy heuristic fits in, by bisection between
 * lo and hi (hi must fit). */
uint64_t opt_greedy_min_budget(const opt_graph *g, uint64_t lo, uint64_t hi);

#endif
