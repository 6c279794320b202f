/*
 * fit_checkmate: `gpumemsim fit --policies checkmate[,checkmate-approx]`: the smallest budget
 * at which the solved schedule (sweep_checkmate.h: one iteration's graph, solved, replayed)
 * runs within the overhead limit, by fit_search's grid and bisection over solves (issue 28,
 * item 5). With --db every solve goes through the store's solutions cache, so a second fit
 * (or a sweep over the same budgets) solves nothing again.
 */
#ifndef FIT_CHECKMATE_H
#define FIT_CHECKMATE_H

#include <stdint.h>

#include "fit.h"
#include "sim.h"

typedef struct fit_checkmate_opts {
    const char *db;          /* the store to cache solutions in (created if missing); NULL */
    const char *coarsen;     /* "auto" (NULL), "layers", "outputs" or "none" */
    uint32_t iteration;
    double time_limit;       /* seconds per solve; 0 = none */
    int no_improve;          /* no window search with the time limit (--no-improve) */
    const char *seed_policies; /* seeds of an exact solve (optimal_seeds.h); NULL: default */
} fit_checkmate_opts;

/* The static name of a checkmate policy ("checkmate", "checkmate-approx"), NULL for others. */
const char *fit_checkmate_policy(const char *name);

/* Where a probe's answer was worse than the best heuristic's run at its budget, or had no
 * schedule that fits where that run fits (issue 28, item 2; sweep_checkmate_run's note). */
typedef struct fit_checkmate_note {
    uint64_t budget; /* the probe's budget; 0 with text "": no probe said so */
    char text[400];
} fit_checkmate_note;

/* Searches for policy (a fit_checkmate_policy name) on t (read from trace_path, for the
 * store's content hash). *solved and *cached count the probes solved and taken from the
 * store, *searched (may be NULL) the probes whose solve ran the window search, *by_windows
 * (may be NULL) the probes whose answer it found (cached ones by what the store says). *note gets the note of the failing budget just below the answer, else of the
 * answer's budget, else (no answer) of the highest budget probed that has one.
 * 0 or an error (unreadable store, a trace without that iteration, ...). */
int fit_checkmate(const sim_trace *t, const char *trace_path, const char *policy,
                  const fit_checkmate_opts *o, double max_overhead, const fit_search_opts *so,
                  fit_answer *ans, unsigned *solved, unsigned *cached, unsigned *searched,
                  unsigned *by_windows, fit_checkmate_note *note, gms_error *err);

#endif
