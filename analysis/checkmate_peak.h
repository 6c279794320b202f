/*
 * checkmate_peak: where a replayed solved schedule peaks, and what is resident there by
 * category (issue 26 for `sim --policy checkmate`; docs/memory.md, "Where the peak is"), as
 * sim_peak_tracker does for the policies' runs. The schedule's events
 * (checkmate_events.h) name graph nodes; the node map (opt/opt_node_map.h) says which trace
 * storages each node's bytes are, so each node's bytes are split by the categories of its
 * storages (sim_peak.h's rules), and the graph's constant bytes by those of its constant
 * storages. A peak is at the last trace op of the node computed last before it.
 */
#ifndef CHECKMATE_PEAK_H
#define CHECKMATE_PEAK_H

#include "opt_graph.h"
#include "opt_node_map.h"
#include "sim.h"
#include "sim_peak.h"

typedef struct checkmate_peak checkmate_peak;

/* For g, built from t with map m (opt_graph_from_trace_map; m->n == g->n, else GMS_EINVAL).
 * 0, GMS_EINVAL or GMS_ENOMEM. */
int checkmate_peak_new(const sim_trace *t, const sim_categories *c, const opt_graph *g,
                       const opt_node_map *m, checkmate_peak **out, gms_error *err);
/* The same for the graph sweep_checkmate_run_observed replays for t's iteration at
 * coarsening ("auto" resolved for budget and time_limit as opt_graph_auto does, "layers",
 * "outputs" or "none"): it builds that graph and its map again (the extraction is
 * deterministic) and keeps them. 0 or an error (no such iteration, ...). */
int checkmate_peak_for_trace(const sim_trace *t, const sim_categories *c, uint32_t iteration,
                             const char *coarsen, uint64_t budget, double time_limit,
                             checkmate_peak **out, gms_error *err);

/* A sim_observer over checkmate_events_emit's events (ctx = the checkmate_peak). */
void checkmate_peak_observe(void *ctx, const sim_event *ev);
/* The bytes resident now, by category (they sum to the last event's memory). */
void checkmate_peak_now(const checkmate_peak *k, uint64_t out[SIM_CAT_COUNT]);
/* The run's peak: the first event of the most memory. */
void checkmate_peak_result(const checkmate_peak *k, sim_peak *out);
void checkmate_peak_free(checkmate_peak *k);

#endif
