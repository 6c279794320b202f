/*
 * checkmate_events: a replayed Checkmate schedule (opt/opt_replay.h) as the simulator's event
 * stream (sim_event), so the observers written for sim runs draw it too: `sim --policy
 * checkmate --perfetto` (analysis/perfetto.h) and `plot timeline --policy checkmate`
 * (plot_timeline.c). Issue 28, item 5.
 *
 * One event per replay step, in order, on a sequential clock that starts at 1 ns:
 *   - a compute step is SIM_EV_COMPUTE the first time its node runs and SIM_EV_REMAT after
 *     that; the clock advances by the node's cost (ms -> ns, rounded) before the event;
 *   - a free step is SIM_EV_EVICT when the schedule computes that node again later (the
 *     solver dropped it to save memory: the counterpart of a policy's eviction) and
 *     SIM_EV_EVICT_EAGER otherwise (its last use is past).
 * memory, reserved and allocated are the bytes resident after the step, constant_bytes
 * included, so the largest is the replay's peak; op is the node's name, op_index and storage
 * the node's index, size its bytes.
 */
#ifndef CHECKMATE_EVENTS_H
#define CHECKMATE_EVENTS_H

#include "opt_graph.h"
#include "opt_replay.h"
#include "sim.h"

/* Sends r's steps (r replayed with keep_steps) to obs as events, and fills res as a sim run
 * would: clock, evictions, eager_evictions, remats, remat_compute (ns), ops_executed and
 * peak_memory (status, overhead and wall_s are the caller's). obs may be NULL (res only). */
void checkmate_events_emit(const opt_graph *g, const opt_replay *r, sim_observer obs, void *ctx,
                           sim_result *res);

#endif
