/*
 * planner: the interface a checkpoint planner implements (issue 11; ARCHITECTURE.md, "Engine,
 * wave 2": planners). heuristics/ holds the concrete ones (ckpt-all, ckpt-sqrt, mimose,
 * mimose-static); they are selected with --policy like eviction policies.
 *
 * A planner does not choose victims. Before each training iteration the engine asks it for a
 * plan: which of the iteration's top-level layers (sim_layers.h) to checkpoint, as
 * torch.utils.checkpoint does: inside a checkpointed layer the forward keeps only the layer's
 * inputs and outputs, the tensors produced inside it are freed when its forward ends, and when
 * backward first needs one of them the layer's forward ops run again (accounted as
 * rematerializations). A run with a planner never evicts: when memory would pass the budget the
 * run ends with SIM_OOM, and the remat limit still applies, so a wrong plan shows up in the
 * result and is never patched up.
 *
 * After each iteration the engine reports what it measured (per layer: activation bytes and
 * forward time; the iteration's peak), which is all an online planner such as Mimose learns
 * from. The engine's own figures never depend on what the planner predicts.
 */
#ifndef SIM_PLANNER_H
#define SIM_PLANNER_H

#include <stdint.h>

#include "gms_error.h"

struct sim_config;
struct sim_layers;

/* What the planner is asked before iteration `iteration` starts. */
typedef struct sim_plan_request {
    uint32_t iteration;       /* 0-based (sim_layers_iteration) */
    uint32_t n_iterations;    /* iterations in the trace */
    int64_t input_size;       /* the iteration's ANNOTATE iteration value; -1 when it has none */
    const struct sim_layers *layers;
    uint32_t first_layer;     /* this iteration's layers: first_layer .. first_layer+n_layers-1 */
    uint32_t n_layers;
    uint64_t budget;          /* bytes; UINT64_MAX = unlimited */
    uint64_t start_memory;    /* resident bytes when the iteration starts (before its forward) */
} sim_plan_request;

/* The planner's answer. The engine zeroes it before the call, then sets the two pointers and
 * predicted_peak = -1 and cache_hit = -1, so that a planner that leaves those alone says
 * "no prediction, no cache" rather than "0 bytes, a miss". */
typedef struct sim_plan {
    uint8_t *checkpoint;      /* n_layers flags (engine-owned): 1 = checkpoint that layer */
    double predicted_peak;    /* bytes the planner expects the iteration to peak at with this
                               * plan (resident, start_memory included); < 0 = no prediction */
    int cache_hit;            /* -1 = the planner has no cache, 0 = miss, 1 = hit */
    /* Optional (added for ckpt-sqrt; planners that leave it zeroed checkpoint layer by
     * layer): n_layers flags (engine-owned): 1 = checkpoint layer i and layer i-1 (both
     * flagged in checkpoint) as ONE unit, as torch.utils.checkpoint_sequential does with a
     * segment: the ops from the unit's first layer to its last are re-run together, and
     * only what the unit passes to later forward ops is kept at its end. */
    uint8_t *with_previous;
    /* Optional (added for selective checkpointing, issue 29; planners that leave it zeroed
     * save nothing): one flag per op of the iteration (index = op - the iteration's first_op,
     * sim_layers_iteration), engine-owned: 1 = inside a checkpointed unit, this op's outputs
     * are saved, as torch.utils.checkpoint's selective policy MUST_SAVE does: they are held
     * from the unit's start until it is re-run (or its iteration ends), never freed at the
     * unit's end, and the op is not run again when the unit is re-run. Flags on ops outside
     * every checkpointed unit mean nothing. */
    uint8_t *save_op;
    /* Optional (added for ac-budget, issue 29): 1 = this iteration's units hold nothing: not
     * their inputs, not their saved outputs (torch.compile's partitioned graphs keep a value
     * only while a later op needs it), and a value freed at a unit's end is recomputed
     * alone when an op needs it: its producer op runs again (its missing inputs first, the
     * same way), not the whole unit; what that read or made and the trace has let go is
     * freed right after. 0 (default): torch.utils.checkpoint's holds and whole re-runs. */
    int no_hold;
    /* Optional (added for Rotor's persistent schedules, issue 29; planners that leave
     * n_nested 0 nest nothing): n_nested intervals of layers, pairs (first, last) indexed as
     * `checkpoint`, in an engine-owned buffer of room for 2 x n_layers pairs. Each lies
     * strictly inside one checkpointed unit, and any two are disjoint or one holds the other.
     * When a unit (or an interval) is re-run in backward, the intervals directly inside it are
     * checkpointed within that re-run: such an interval holds what it reads from before it,
     * frees what it made and does not pass on at its last op, and is re-run the same way
     * when backward first needs what it freed (sim/sim_ckpt_nest.h). An interval that breaks
     * these rules fails the run, naming it. */
    uint32_t *nested;
    uint32_t n_nested;
    /* Optional (added with `nested`): 1 = a checkpointed unit's forward (and a nested
     * interval's part of a re-run) frees at the end of each of its layers what it made so
     * far that no later forward op reads, as torch's no_grad forward and Rotor's
     * ForwardNograd do; 0 (default): all of it at the unit's end. */
    int by_layer;
} sim_plan;

/* What the engine measured for one layer in the iteration that just ended. */
typedef struct sim_layer_sample {
    /* Bytes of storages produced by the layer's forward ops that were still live when its
     * forward ended, minus those it keeps as outputs (used after the layer in the forward pass):
     * what checkpointing the layer frees. Measured whether or not it was checkpointed. */
    uint64_t activation_bytes;
    uint64_t output_bytes;    /* the kept outputs' bytes */
    uint64_t forward_ns;      /* the layer's forward compute (its first run, not recomputes) */
    uint8_t checkpointed;
} sim_layer_sample;

/* The iteration that just ended. */
typedef struct sim_iteration_outcome {
    uint32_t iteration;
    int64_t input_size;
    uint64_t start_memory;    /* resident bytes when it started */
    uint64_t peak_memory;     /* its peak resident bytes */
    uint64_t recompute_ns;    /* compute spent re-running checkpointed layers */
    const sim_layer_sample *layers; /* n_layers samples, in the request's layer order */
    uint32_t n_layers;
} sim_iteration_outcome;

typedef struct sim_planner {
    const char *name;         /* CLI name: "mimose" */
    const char *description;  /* one line */
    /* Optional. Per-run state from cfg and the trace's layers; *state may stay NULL. `params`
     * is the run's canonical parameter string ("" or "bucket=5,reserve=0,warmup=10"); an
     * unknown or malformed parameter is an error naming it. */
    int (*init)(const struct sim_config *cfg, const struct sim_layers *layers, const char *params,
                void **state, gms_error *err);
    void (*free)(void *state);
    /* Required. Fills out->checkpoint for the request's layers. Non-zero = the run fails with
     * err (planner bugs only; a plan that does not fit is not an error). */
    int (*plan)(void *state, const sim_plan_request *req, sim_plan *out, gms_error *err);
    /* Optional. Called once per iteration after it ends. */
    void (*observe)(void *state, const sim_iteration_outcome *outcome);
} sim_planner;

#endif
