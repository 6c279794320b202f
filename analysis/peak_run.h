/*
 * peak_run: one run with its peak followed (sim/sim_peak.h), wherever the run happens: in this
 * process, chained before the observer the caller set (perfetto's, say), or, for a plugin
 * policy run without one, in the child process that runs it (heuristics/plugin_isolate.h),
 * the peak coming back with the result. Without categories it is the plain run: a plugin
 * isolated unless an observer must see the run here.
 */
#ifndef PEAK_RUN_H
#define PEAK_RUN_H

#include "gms_error.h"
#include "sim.h"
#include "sim_peak.h"

/* Runs cfg on r (r's trace is t). With cats non-NULL also fills *peak with the run's peak (a
 * fresh tracker per run). 0 or the run's error. */
int peak_run(sim_runner *r, const sim_trace *t, const sim_config *cfg,
             const sim_categories *cats, sim_result *res, sim_peak *peak, gms_error *err);

#endif
