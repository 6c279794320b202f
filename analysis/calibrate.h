/*
 * calibrate: runs of one configuration over several seeds, and the solver that finds the
 * per-op overhead (sim_config.op_overhead_ns) with which a simulation reproduces a slowdown
 * measured on a real runtime (docs/fidelity.md).
 *
 * The simulated slowdown is clock / baseline compute. For a fixed schedule it is linear in
 * the op overhead (clock = clock_0 + ops_executed x overhead), but the schedule is not fixed:
 * the overhead advances the clock, the clock sets staleness, and staleness picks victims. So
 * the solver does not trust the line: it brackets the answer and narrows the bracket by
 * interpolation (regula falsi, Illinois variant) with bisection steps as a fallback, each
 * step a full simulation, down to a tolerance or a 1 ns bracket.
 */
#ifndef CALIBRATE_H
#define CALIBRATE_H

#include <stdint.h>

#include "gms_error.h"
#include "sim.h"
#include "sim_peak.h"

/* One configuration run with seeds cfg->seed, cfg->seed + 1, ...: the distribution of the
 * overhead, never one seed's result taken for all of them. A run that stopped (oom, remat
 * limit) has no overhead; it ranks above every finished run, as a cost too high to count. */
typedef struct cal_summary {
    unsigned runs;       /* seeds run */
    unsigned ok;         /* runs with status ok */
    unsigned oom;        /* runs that ran out of memory */
    unsigned limit;      /* runs stopped at the remat limit */
    sim_status status;   /* SIM_OK when every run finished, else the first failure's status */
    /* The median run: the lower median of the runs ranked by overhead, stopped runs last
     * (ties by seed), so that it is a real run whose figures agree with each other. When more
     * than half of the runs stopped it is a stopped run and median is NAN. */
    double median;
    uint64_t median_seed;
    sim_result median_run; /* every figure of that run */
    double min, max;     /* overhead over the finished runs (0 when none finished) */
    /* Only when every run finished (ok == runs), else NAN: an average over the survivors
     * would hide the runs that stopped. sd is the population deviation. */
    double mean, sd;
    /* means over all runs */
    double remat_compute, evictions, remats, ops_executed, candidates;
    double op_overhead_ns, search_ns, evict_ns;
    double wall_s;       /* summed */
} cal_summary;

/* Runs cfg with `seeds` seeds (>= 1) on r. 0, or a sim_run error (or out of memory). */
int cal_run_seeds(sim_runner *r, const sim_config *cfg, unsigned seeds, cal_summary *out,
                  gms_error *err);
/* The same, also writing each seed's overhead (NAN for a stopped run) to each[0 .. seeds-1]
 * when each is not NULL. */
int cal_run_seeds_each(sim_runner *r, const sim_config *cfg, unsigned seeds, cal_summary *out,
                       double *each, gms_error *err);
/* The same, and with cats non-NULL each run's peak followed (analysis/peak_run.h; r's trace is
 * t), the median run's written to *median_peak. */
int cal_run_seeds_peak(sim_runner *r, const sim_trace *t, const sim_config *cfg, unsigned seeds,
                       cal_summary *out, double *each, const sim_categories *cats,
                       sim_peak *median_peak, gms_error *err);

typedef struct cal_result {
    uint64_t op_overhead_ns; /* the calibrated per-op overhead */
    cal_summary at;          /* the runs with it */
    double ideal;            /* the mean overhead with no op overhead (the ideal replay plus
                              * the config's other costs) */
    double error;            /* at.mean - measured */
    unsigned simulations;    /* configurations simulated (each over all seeds) */
    int converged;           /* |error| <= tol, or the bracket closed to 1 ns */
    int below_ideal;         /* measured < ideal: no overhead >= 0 can reach it; 0 returned */
} cal_result;

/* The largest measured slowdown taken: a run 1000 times slower than with unlimited memory
 * is no measurement of a memory budget, and larger ones overflow the op overhead (ns). */
#define CAL_MAX_SLOWDOWN 1000.0
/* The largest op overhead tried (10 s per op, what sim --op-overhead takes). */
#define CAL_MAX_OP_OVERHEAD_NS 1e10

/* Finds the op overhead with which base (its op_overhead_ns ignored) averaged over `seeds`
 * seeds reproduces `measured` (a slowdown, time / baseline time) within tol. 0 with *out
 * filled (check converged and below_ideal), or an error: a run that does not finish ok
 * (the budget is too small for this trace and policy), a bad argument. */
int cal_solve_op_overhead(sim_runner *r, const sim_trace *t, const sim_config *base,
                          unsigned seeds, double measured, double tol, cal_result *out,
                          gms_error *err);

#endif
