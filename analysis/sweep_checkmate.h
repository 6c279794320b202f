/*
 * sweep_checkmate: a sweep's runs of the optimal schedule (policies checkmate and
 * checkmate-approx, as `sim --policy checkmate`, cli/sim_checkmate.c): the trace's iteration
 * as a graph, Checkmate's program solved (or its answer taken from the store's solutions
 * cache, store_solution.h) and the schedule replayed (opt/opt_replay.h). The sweep runs them
 * on its writing thread, one at a time (the solver is the expensive part and the cache lives
 * in the store), and stores each as a normal run row.
 */
#ifndef SWEEP_CHECKMATE_H
#define SWEEP_CHECKMATE_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"
#include "opt_solve.h"
#include "optimal_seeds.h"
#include "sim.h"
#include "store.h"
#include "store_solution.h"
#include "sweep.h"

/* The sweep's coarsening for these runs: sp->ck_coarsen, or "auto" when unset. */
const char *sweep_checkmate_coarsen(const sweep_spec *sp);

/* The solved policies for listings (`sim --list-policies`): the i-th name and a one-line
 * description saying it is solved, not a heuristic; NULL past the last. */
const char *sweep_checkmate_name(size_t i, const char **description);

/* 1 for "checkmate" and "checkmate-approx". */
int sweep_checkmate_is(const char *policy);

/* How policy's solve under time_limit (seconds, <= 0: none) searches, as its solution is
 * keyed (store_solution_key.search): "windows" for checkmate with a time limit (the window
 * search improves its seed first, as in `optimal`; opt_request.improve) unless no_improve,
 * else "none" (no limit: the solve runs to the optimum; checkmate-approx: a rounding). */
const char *sweep_checkmate_search(const char *policy, double time_limit, int no_improve);

/* The runs' params: "coarsen=layers,iteration=0,time_limit=60" (time_limit=0: none), and
 * ",search=windows" when policy's solve runs the window search, so that runs at different
 * settings never share a key (runs stored before it had no search: they keep their key);
 * coarsening auto is written as what it picks for t at budget (opt_graph_auto), the name its
 * solution is stored under. */
void sweep_checkmate_params(const sweep_spec *sp, const char *policy, const sim_trace *t,
                            uint64_t budget, char *buf, size_t len);

/* How an answer was found: where from (opt_answer_from; a cached one's as stored, NULL when
 * not known), and whether this call ran the window search, with its window solves (0 for a
 * cached answer: the store does not keep them). */
typedef struct sweep_checkmate_how {
    const char *from;
    int searched;
    uint32_t windows;
} sweep_checkmate_how;

/* The solver's answer for g at key (key->mode "exact" or "approx"; key->search "windows":
 * the window search first, sweep_checkmate_search): from the store's solutions (*cached = 1;
 * a->seconds is then the stored solve time, a->floor unknown, the search's figures not
 * kept), or solved under time_limit (seconds, <= 0: none) and stored. *how (may be NULL)
 * says how it was found. s may be NULL: always solve.
 * sd (may be NULL) holds the heuristics' runs at key's budget (optimal_seeds.h): an exact
 * solve starts from them, and a cached answer worse than one of them that fits is replaced
 * by it, so the answer is never worse than the best that fits the program.
 * Clear *a with opt_answer_clear. */
int sweep_checkmate_solve(store *s, const opt_graph *g, const store_solution_key *key,
                          double time_limit, const optimal_seeds *sd, opt_answer *a,
                          int *cached, sweep_checkmate_how *how, gms_error *err);

/* One run: fills res (status SIM_OK or SIM_OOM, overhead = replayed compute / the graph's
 * compute, peak_memory, remats = recomputations, wall_s); *cached = 1 when the solver's answer
 * came from the store. Stores a new answer in the store (its own statement, committed at
 * once outside a transaction). note (may be NULL) gets optimal_seeds_worse's sentence when
 * the answer is worse than the best heuristic's run at the budget, or has no schedule that
 * fits where that run fits (issue 28, item 2); "" otherwise. Asking for it runs the seed
 * policies beside a layer graph too. 0 or an error (trace without that iteration, ...). */
int sweep_checkmate_run(store *s, const sim_trace *t, const char *trace_hash,
                        const char *policy, uint64_t budget, const sweep_spec *sp,
                        sim_result *res, int *cached, char *note, size_t note_len,
                        gms_error *err);

/* The same run with its settings given one by one, and the replayed schedule sent to obs (may
 * be NULL) as sim events (checkmate_events.h); with obs, res also gets the event counts
 * (evictions, remats, clock). coarsen: "auto" (opt_graph_auto), "layers", "outputs" or
 * "none". no_improve: no window search (sweep_checkmate_search). seed_policies: the
 * heuristics run at the budget to seed an exact solve (optimal_seeds.h; NULL:
 * OPTIMAL_SEEDS_DEFAULT, "none": none). s may be NULL (no cache). note, note_len: as
 * sweep_checkmate_run's (NULL, 0: none wanted). *how (may be NULL): as
 * sweep_checkmate_solve's. */
int sweep_checkmate_run_observed(store *s, const sim_trace *t, const char *trace_hash,
                                 const char *policy, uint64_t budget, const char *coarsen,
                                 uint32_t iteration, double time_limit, int no_improve,
                                 const char *seed_policies, sim_observer obs, void *obs_ctx,
                                 sim_result *res, int *cached, sweep_checkmate_how *how,
                                 char *note,
                                 size_t note_len, gms_error *err);

#endif
