/*
 * yardstick: a heuristic run's gap to the optimum and to the LP bound (issue 19, item 4;
 * docs/optimal.md, "The yardstick").
 *
 * Both sides as overheads, total compute over compute without recomputation:
 *   h = the heuristic run's overhead (sim's: simulated time / the trace's baseline compute);
 *   o = the program's objective / the graph's compute (one iteration, as solved);
 *   b = the LP bound / the graph's compute.
 *   gap_optimum = h / o - 1,  gap_bound = h / b - 1.
 * Comparable when the trace holds one iteration (the DTR logs, synth's default); the graph
 * may be coarsened by layer, and a layer-coarsened optimum is not a lower bound for an
 * op-level heuristic: a negative gap is a finding to report, never clamped.
 */
#ifndef YARDSTICK_H
#define YARDSTICK_H

/* A stored solver answer, as far as the gap needs it. */
typedef struct yardstick_solution {
    const char *status;  /* "optimal", "feasible", "infeasible", "unknown" */
    int has_objective;   /* a schedule was found: objective is its total compute */
    double objective;    /* ms */
    double lower_bound;  /* ms; < 0 = not known */
    double compute;      /* ms: the graph's compute without recomputation; <= 0 = not known */
    const char *coarsen; /* "layers" or "none": which program the gap refers to */
} yardstick_solution;

typedef struct yardstick_gap {
    double opt_overhead;   /* o; NAN when not known */
    double bound_overhead; /* b; NAN when not known */
    double gap_optimum;    /* h / o - 1; NAN when the run failed or o is not known */
    double gap_bound;      /* h / b - 1; NAN likewise */
    int proven;            /* o is a proven optimum (status "optimal"), not a best-found */
    const char *finding;   /* NULL, or a sentence where the heuristic beats the program,
                            * fits where the program finds nothing, or fails where the
                            * program has a schedule */
} yardstick_gap;

/* The gap of a run (run_ok: its status is ok; overhead: h) to s (NULL = no solution known:
 * every figure NAN, no finding). */
void yardstick_gap_of(int run_ok, double overhead, const yardstick_solution *s,
                      yardstick_gap *g);

#endif
