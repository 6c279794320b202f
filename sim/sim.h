/*
 * sim: replay a trace under a memory budget, evicting and rematerializing tensors with the
 * semantics of Dynamic Tensor Rematerialization (../shared/spec/dtr-semantics.md).
 *
 * Two steps: load a trace once into an immutable sim_trace (the schedule of the spec's
 * section 1, plus its baseline figures), then run it any number of times, from any number of
 * threads at once, with different budgets and policies. A run never fails for a budget that
 * is too small: that is a result (status SIM_OOM), not an error.
 */
#ifndef SIM_H
#define SIM_H

#include <stdint.h>

#include "gms_error.h"

struct sim_policy;          /* sim/policy.h */
struct sim_memory_model;    /* sim/memory.h */
struct sim_memory_options;  /* sim/memory.h */
struct sim_mem_block;       /* sim/memory.h */
struct sim_planner;         /* sim/planner.h */
struct sim_iteration_report; /* sim/sim_plan_report.h */

typedef struct sim_trace sim_trace;

typedef struct sim_baseline {
    uint64_t memory;     /* peak bytes with an infinite budget (spec section 4) */
    uint64_t compute;    /* sum of all op costs (ns) */
    uint64_t constants;  /* bytes of CONSTANT tensors */
    uint64_t bottleneck; /* largest op footprint (spec section 4) */
    uint64_t ops;        /* ops in the schedule (constants included) */
    uint64_t constant_ops; /* of those, CONSTANT events: ops - constant_ops = info's "ops"
                            * (CALL + MUTATE); last, so the struct only grew */
} sim_baseline;

/* Loads a .gmt trace or DTR log (sniffed) into a replayable schedule. */
int sim_trace_load(const char *path, sim_trace **out, gms_error *err);
/* As sim_trace_load, with a PyTorch Execution Trace's Kineto trace (NULL: none) for measured
 * op costs (traces/import_et_kineto.h; force: join it even when the two files disagree on the
 * job); refused for a trace of another format. */
int sim_trace_load_kineto(const char *path, const char *kineto, int force, sim_trace **out,
                          gms_error *err);
void sim_trace_free(sim_trace *t);
const sim_baseline *sim_trace_baseline(const sim_trace *t);

/* ------------------------------------------------------------------------------------------
 * Building a trace from events (what sim_trace_load does with the events of a file; tests and
 * generators use it directly). Events are interpreted as the spec's section 1 says: everything
 * up to and including the first ANNOTATE START is dropped (a trace without START keeps all).
 */
struct gmt_event;
typedef struct sim_trace_builder sim_trace_builder;

int sim_trace_builder_new(sim_trace_builder **out, gms_error *err);
/* Adds one event (copied; the event's pointers may die right after). Errors name the event by
 * its 1-based position ("event 12: CALL add: input 7 is not a live tensor"). After an error
 * the builder is unusable except for _free. */
int sim_trace_builder_add(sim_trace_builder *b, const struct gmt_event *ev, gms_error *err);
/* Appends the end-of-trace PINs, freezes the schedule and frees b (also on failure). */
int sim_trace_builder_finish(sim_trace_builder *b, sim_trace **out, gms_error *err);
void sim_trace_builder_free(sim_trace_builder *b);

/* A synthetic training-like chain of n layers (forward, loss, backward; 2n + 2 ops) for
 * benchmarks and scaling tests (sim_chain.c). */
int sim_trace_chain(uint64_t n, sim_trace **out, gms_error *err);

/* Schedule size: storages (one per non-view output) and tensors (outputs) of the trace. */
uint64_t sim_trace_storages(const sim_trace *t);
uint64_t sim_trace_tensors(const sim_trace *t);
/* The smallest storage a swapping run could copy to the host (non-empty, produced by an op
 * with arguments: not a constant); 0 when there is none (streams.c). */
uint64_t sim_trace_smallest_storage(const sim_trace *t);

typedef enum sim_status { SIM_OK = 0, SIM_OOM = 1, SIM_REMAT_LIMIT = 2 } sim_status;

/* "ok", "oom", "remat-limit". */
const char *sim_status_name(sim_status s);

typedef enum sim_semantics { SIM_SEMANTICS_SIMRD = 0 } sim_semantics;

/* What a run reports as it goes, for memory timelines. */
typedef enum sim_event_kind {
    SIM_EV_COMPUTE = 1,     /* a model op ran */
    SIM_EV_REMAT = 2,       /* an op ran again to rematerialize an evicted tensor */
    SIM_EV_EVICT = 3,       /* the policy evicted a storage */
    SIM_EV_EVICT_EAGER = 4, /* a storage was freed because its last reference was released */
    SIM_EV_SWAP_OUT = 5,    /* a device-to-host copy was queued (copy_start/copy_end); the
                             * storage's device bytes are freed when it ends */
    SIM_EV_SWAP_IN = 6,     /* a host-to-device copy was queued (copy_start/copy_end) */
    SIM_EV_SWAP_DONE = 7,   /* a swap-out's copy has ended and its device bytes are freed:
                             * clock = copy_end = when the copy ended, memory = after the
                             * free. Reported at the next op boundary or wait, so its clock
                             * may be earlier than the previous event's (it ended during
                             * that op); not reported for a storage taken back before */
    SIM_EV_MATERIALIZE = 8, /* a storage became resident as an op's output (only with
                             * sim_config.storage_events): storage, size, addr, op, op_index,
                             * remat; reported before the op's COMPUTE/REMAT */
    SIM_EV_SEGMENTS = 9,    /* the memory model's segments changed (only with
                             * sim_config.storage_events and a model other than ideal):
                             * blocks/n_blocks list every block then, in address order (valid
                             * during the call); storage/op: the request that caused it, if
                             * any. Reported once more at the end of the run (final = 1) */
} sim_event_kind;

typedef struct sim_event {
    sim_event_kind kind;
    uint64_t clock;        /* simulated time after the event (ns, clock starts at 1) */
    uint64_t memory;       /* resident bytes after the event */
    uint64_t reserved;     /* bytes the memory model holds from the device (= memory when
                            * the model is ideal) */
    uint64_t allocated;    /* bytes of the model's allocated blocks, rounded (= memory when
                            * the model is ideal) */
    uint64_t size;         /* bytes evicted/produced */
    const char *op;        /* op name for COMPUTE/REMAT, else NULL */
    uint64_t op_index;     /* COMPUTE/REMAT: the op's position in the schedule (simrd's unique
                            * name is "<op>/<op_index>"); EVICT*: the storage's op */
    uint64_t storage;      /* EVICT*, SWAP_*: the storage index; else the first output's storage */
    uint64_t copy_start;   /* SWAP_*: when the copy starts and ends on its engine (ns) */
    uint64_t copy_end;
    uint64_t addr;         /* MATERIALIZE: the block's address in the memory model (0 with the
                            * ideal model, which has none) */
    int remat;             /* MATERIALIZE: 1 when the op runs again (a rematerialization) */
    const struct sim_mem_block *blocks; /* SEGMENTS: the model's blocks (memory.h) */
    uint64_t n_blocks;
    int final;             /* SEGMENTS: the layout at the end of the run */
} sim_event;

typedef void (*sim_observer)(void *ctx, const sim_event *ev);

typedef struct sim_config {
    const struct sim_policy *policy; /* from the heuristics registry; required */
    uint64_t budget;                 /* bytes; UINT64_MAX = unlimited */
    double remat_limit;              /* L: stop once remat cost > (L-1) x baseline compute; 2.0 */
    uint64_t seed;                   /* for randomized policies */
    sim_semantics semantics;
    sim_observer observer;           /* optional */
    void *observer_ctx;
    /* Victim choice for score policies: 0 = scan the whole pool (simrd, exact; default);
     * k > 0 = score k pool members drawn at random (with replacement, seeded by `seed`) and
     * evict the best; SIM_SAMPLE_SQRT = ceil(sqrt(pool size)) draws. This is not the DTR
     * prototype's sampling (about 2 sqrt(n) candidates at random strides, tensors under 1%
     * of the running mean size skipped), which picks better victims (issue 14 measured about
     * 4x the recomputation at Transformer 2 GB). Not simrd semantics: a fast mode for traces
     * with millions of ops. In
     * this mode DTR estimates the evicted neighbourhood with equivalence classes (its score
     * is DTR-eq's, as in the DTR prototype) instead of keeping simrd's regions, whose
     * upkeep grows quadratically with the trace. */
    uint32_t sample;
    /* The memory model (sim/memory.h): NULL = ideal, simrd's sum of resident bytes (the
     * default; exact). Any other model places storages in a simulated address space and the
     * budget caps the bytes it reserves. options NULL = the model's defaults. */
    const struct sim_memory_model *allocator;
    const struct sim_memory_options *allocator_options;
    /* Runtime costs the trace does not contain (sim_cost.h; docs/fidelity.md), added to the
     * simulated clock. All 0 by default: the replay is then simrd's, bit for bit.
     * op_overhead_ns: paid by every op run (first runs and rematerializations; CONSTANTs,
     * which run nothing, do not pay it); search_cost_ns: per candidate scored in an eviction
     * search; evict_cost_ns: per eviction chosen by the policy. */
    uint64_t op_overhead_ns;
    uint64_t search_cost_ns;
    uint64_t evict_cost_ns;
    /* A checkpoint planner (sim/planner.h; docs/planners.md) instead of an eviction policy:
     * when set, `policy` is ignored, the run never evicts (over the budget = SIM_OOM) and the
     * planner picks the layers to checkpoint before each iteration. planner_params: its
     * canonical parameter string (NULL = ""). iteration_observer (optional) gets one report
     * per iteration (sim/sim_plan_report.h). NULL planner: the replay is unchanged. */
    const struct sim_planner *planner;
    const char *planner_params;
    void (*iteration_observer)(void *ctx, const struct sim_iteration_report *r);
    void *iteration_ctx;
    /* Swapping to host memory (docs/swap.md), used only by policies with SIM_NEEDS_SWAP: the
     * link's bandwidth in GB/s per direction (0 = the default link, pcie4) and latency per
     * copy, and the host memory that can hold swapped storages (UINT64_MAX = unlimited, the
     * default). Without such a policy no copy is ever queued and these are ignored. */
    double link_gbps;
    uint64_t link_latency_ns;
    uint64_t host_memory;
    /* 1: the observer also gets one SIM_EV_MATERIALIZE per storage that becomes resident (the
     * memory-snapshot export needs each allocation); 0 (default): the events are as before */
    int storage_events;
} sim_config;

#define SIM_SAMPLE_SQRT UINT32_MAX

/* Fills cfg with the defaults (remat_limit 2.0, unlimited budget, seed 0, simrd semantics,
 * unlimited host memory). */
void sim_config_init(sim_config *cfg);

typedef struct sim_result {
    sim_status status;
    double overhead;          /* clock / baseline compute (only meaningful when SIM_OK) */
    uint64_t clock;           /* final simulated time (starts at 1) */
    uint64_t evictions;       /* chosen by the policy */
    uint64_t eager_evictions; /* freed on release */
    uint64_t remats;          /* ops recomputed */
    uint64_t remat_compute;   /* ns spent recomputing */
    uint64_t peak_memory;     /* bytes */
    double wall_s;            /* the simulator's own wall time for this run */
    /* Memory-model figures (with the ideal model: both peaks equal peak_memory, the rest 0). */
    uint64_t peak_reserved;   /* the most bytes the model held from the device */
    uint64_t peak_allocated;  /* the most bytes in allocated blocks (rounded sizes) */
    uint64_t largest_free;    /* the largest free block inside reserved memory when reserved
                               * memory peaked */
    uint64_t frag_allocs;     /* allocations that had to evict before they fit */
    double frag_ratio;        /* Coop's fragmentation: at each of those, the bytes free under
                               * the budget (budget - allocated) over the budget, averaged */
    /* Runtime-cost figures (always counted; the *_ns are 0 unless the config sets costs).
     * clock = 1 + model compute + remat_compute + op_overhead_ns + search_ns + evict_ns. */
    uint64_t ops_executed;    /* op runs that pay op_overhead (first runs + remats) */
    uint64_t candidates;      /* storages scored in eviction searches */
    uint64_t op_overhead_ns;  /* ops_executed x cfg.op_overhead_ns */
    uint64_t search_ns;       /* candidates x cfg.search_cost_ns */
    uint64_t evict_ns;        /* evictions x cfg.evict_cost_ns */
    /* Planner runs (cfg.planner; all 0 otherwise): */
    uint32_t plan_iterations; /* iterations planned */
    uint32_t plan_predicted;  /* of those that ended, how many had a predicted peak */
    double pred_err_mean;     /* |predicted - simulated peak| / simulated peak over those */
    double pred_err_max;
    uint32_t cache_hits, cache_misses; /* plans the planner said it took from / put in its cache */
    double plan_s;            /* wall time spent in the planner (plan and observe) */
    uint64_t checkpoints;     /* layer checkpoints carried out, over all iterations */
    /* Swapping figures (all 0 unless the policy swaps). clock = the sum above + stall_ns. */
    uint64_t swaps_out, swaps_in;         /* copies queued to the host / back to the device */
    uint64_t swap_out_bytes, swap_in_bytes; /* bytes of completed swap-outs / queued swap-ins */
    uint64_t prefetches;                  /* swap-ins queued ahead of use by the policy */
    uint64_t swap_fallbacks;              /* victims dropped because host memory was full */
    uint64_t stall_ns;        /* compute waited for copies (inputs arriving, memory freeing) */
    uint64_t d2h_busy_ns, h2d_busy_ns;    /* each copy engine's busy time */
    uint64_t host_peak;       /* the most bytes held in host memory */
} sim_result;

/* Runs one simulation. Returns 0 and fills *res (whatever the status); non-zero only for
 * caller errors (no policy, ...). Thread-safe for distinct sim_result/config on one trace. */
int sim_run(const sim_trace *t, const sim_config *cfg, sim_result *res, gms_error *err);

/* A reusable run context: keeps its (trace-sized) memory between runs, so sweeping many
 * budgets/policies over one trace allocates once. One runner per thread. */
typedef struct sim_runner sim_runner;
int sim_runner_new(const sim_trace *t, sim_runner **out, gms_error *err);
int sim_runner_run(sim_runner *r, const sim_config *cfg, sim_result *res, gms_error *err);
void sim_runner_free(sim_runner *r);

/* Budget for a ratio of baseline memory the way the reference computes it:
 * Python's int(baseline_memory * ratio) in double arithmetic. */
uint64_t sim_budget_for_ratio(const sim_trace *t, double ratio);

#endif
