/*
 * sim_peak: where a trace's memory peaks, and what is resident there, by category
 * (docs/memory.md, "Where the peak is"). Nothing here changes a replay: the categories are
 * read from the trace (its ops, their phases from the ANNOTATE iteration / BACKWARD /
 * optimizer marks, who reads what), and a run's peak is followed through its observer events.
 *
 * Phases: an iteration starts at its "iteration" mark (the whole trace is one without marks);
 * its forward runs to its BACKWARD mark, its backward to its "optimizer" mark, the rest is the
 * optimizer step. Ops before the first model op (constants) have no phase.
 *
 * Categories of a storage, the first rule that applies:
 *   pre-existing   made before the trace (a CONSTANT): parameters, buffers, and gradients or
 *                  optimizer state that existed before it
 *   optimizer state  made in an optimizer step and written in place there (a view output of
 *                  an op that reads a gradient)
 *   gradients      made in a backward pass and read by the optimizer step of its iteration
 *   unknown        read in a later iteration (state kept across steps, say: no rule tells)
 *   saved activations  made in a forward pass and read by the backward of its iteration
 *   temporaries    read only in the phase that made it (or never)
 *   unknown        everything else
 */
#ifndef SIM_PEAK_H
#define SIM_PEAK_H

#include <stdint.h>

#include "sim.h"

typedef enum sim_category {
    SIM_CAT_PREEXISTING = 0,
    SIM_CAT_GRADIENTS,
    SIM_CAT_OPT_STATE,
    SIM_CAT_ACTIVATIONS,
    SIM_CAT_TEMPORARIES,
    SIM_CAT_UNKNOWN,
    SIM_CAT_COUNT
} sim_category;

typedef enum sim_phase {
    SIM_PHASE_NONE = 0,
    SIM_PHASE_FORWARD,
    SIM_PHASE_BACKWARD,
    SIM_PHASE_OPTIMIZER
} sim_phase;

/* "pre-existing", "gradients", "optimizer state", "saved activations", "temporaries",
 * "unknown"; and a key for JSON ("preexisting", "gradients", "optimizer_state",
 * "saved_activations", "temporaries", "unknown"). */
const char *sim_category_name(sim_category c);
const char *sim_category_key(sim_category c);
/* "none", "forward", "backward", "optimizer". */
const char *sim_phase_name(sim_phase p);

typedef struct sim_categories sim_categories;

/* Classifies every storage and op of t. 0, or GMS_ENOMEM. */
int sim_categories_build(const sim_trace *t, sim_categories **out, gms_error *err);
void sim_categories_free(sim_categories *c);
sim_category sim_categories_of(const sim_categories *c, uint32_t storage);
sim_phase sim_categories_phase(const sim_categories *c, uint32_t op);
/* Adds the sizes of storages st[0..n) into out by their categories (an index past the
 * trace's storages is skipped); returns the bytes added. */
uint64_t sim_categories_add(const sim_categories *c, const uint32_t *st, uint32_t n,
                            uint64_t out[SIM_CAT_COUNT]);

/* A peak and what was resident there. */
typedef struct sim_peak {
    uint64_t memory;                 /* bytes at the peak */
    uint64_t op_index;               /* the op that reached it (the first time) */
    const char *op;                  /* its name (owned by the trace) */
    sim_phase phase;
    uint64_t by_category[SIM_CAT_COUNT]; /* resident bytes there; they sum to memory */
    uint64_t largest_op_bytes;       /* the largest op's footprint: outputs + own inputs */
    uint64_t largest_op_index;
    const char *largest_op;
} sim_peak;

/* The baseline's peak (no budget, the figures of sim_trace_baseline): its memory equals
 * sim_trace_baseline(t)->memory. */
void sim_peak_baseline(const sim_trace *t, const sim_categories *c, sim_peak *out);

/* Follows a run: feed it every observer event of the run (sim_peak_observe is an observer;
 * pass the tracker as its context), then read the run's peak. Resident bytes are rebuilt
 * from the events (an op's outputs become resident when it runs or is recomputed, a storage
 * leaves when evicted or swapped out); what they cannot place (a memory model's rounding, a
 * swap in flight) is counted as unknown, so the categories always sum to the peak. */
typedef struct sim_peak_tracker sim_peak_tracker;
int sim_peak_tracker_new(const sim_trace *t, const sim_categories *c, sim_peak_tracker **out,
                         gms_error *err);
void sim_peak_observe(void *tracker, const sim_event *ev);
void sim_peak_tracker_result(const sim_peak_tracker *k, sim_peak *out);
/* The bytes resident now (after the last event fed), by category. */
void sim_peak_tracker_now(const sim_peak_tracker *k, uint64_t out[SIM_CAT_COUNT]);
void sim_peak_tracker_free(sim_peak_tracker *k);

/* For trackers of runs on other units than the trace's storages (a solved schedule's graph
 * nodes, analysis/checkmate_peak.h): p's memory, op (index o, its name and phase) and
 * by_category set from by_category, the difference to memory made up as unknown (or taken
 * off the last categories), so they sum to memory; and p's largest op, the trace's. */
void sim_peak_at(sim_peak *p, const sim_trace *t, const sim_categories *c, uint64_t memory,
                 uint32_t o, const uint64_t by_category[SIM_CAT_COUNT]);
void sim_peak_largest_op(const sim_trace *t, sim_peak *p);

/* Sets p's op and largest_op names from their indices in t, as the tracker does: for a peak
 * that was followed in another process (a plugin's run, analysis/peak_run.h). */
void sim_peak_name_ops(const sim_trace *t, sim_peak *p);

#endif
