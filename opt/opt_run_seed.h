/*
 * opt_run_seed: a heuristic's run as a schedule of the op-level graph (issue 28, item 3), so
 * the MILP starts from the best heuristic's run and never answers worse than it.
 *
 * A sim_observer records which ops of the iteration ran and ran again, in order; a remat
 * belongs to the stage of the next op computed for the first time. From those recomputations
 * (R) the schedule keeps exactly what they need (S by liveness: a node is kept into a stage
 * when a later computation reads it before it is computed again), and R is then the cheapest
 * that S allows (opt_schedule_solve_r): never more compute than the run's. The program's
 * memory accounting is not the replay's, so the caller checks the schedule's peak under the
 * budget before using it (opt_solve does).
 */
#ifndef OPT_RUN_SEED_H
#define OPT_RUN_SEED_H

#include "opt_extract.h"
#include "opt_schedule.h"
#include "sim.h"

typedef struct opt_run_seed opt_run_seed;

/* For the graph opt_graph_from_trace(t, iteration, coarsen) builds; coarsen must be none or
 * outputs (op level). 0, GMS_EINVAL (another coarsening, no such iteration) or GMS_ENOMEM. */
int opt_run_seed_new(const sim_trace *t, uint32_t iteration, opt_coarsen coarsen,
                     opt_run_seed **out, gms_error *err);
void opt_run_seed_free(opt_run_seed *r);

/* Forgets the events recorded, for another run. */
void opt_run_seed_reset(opt_run_seed *r);

/* A sim_observer (sim_config.observer, ctx = the opt_run_seed). */
void opt_run_seed_observe(void *ctx, const sim_event *ev);

/* The recorded run as a schedule of g (the graph named at _new; s->n == g->n). 0, or -1 when
 * the run did not compute every node of the iteration (it stopped: oom, remat limit) or
 * recorded more than fits (out of memory while observing). */
int opt_run_seed_schedule(const opt_run_seed *r, const opt_graph *g, opt_schedule *s);

#endif
