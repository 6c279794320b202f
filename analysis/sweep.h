/*
 * sweep: simulate every (trace, policy, allocator, budget ratio, seed) combination on a pool of threads
 * and record each run in a result store (store.h).
 *
 * Resumable: combinations whose run key is already stored are skipped, and every stored row is
 * a complete run committed in its own (batched) transaction, so a sweep killed at any moment
 * and started again ends with exactly the rows of an uninterrupted sweep.
 * Sharded: shard K of N takes the combinations whose stable key hash is K-1 modulo N, so N
 * machines can split one sweep and `store_merge` their stores into the full result.
 *
 * Each trace is loaded once and shared read-only by the worker threads; the calling thread is
 * the only one that writes to the store.
 */
#ifndef SWEEP_H
#define SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

/* The largest budget ratio a sweep accepts (ratios are in (0, SWEEP_MAX_RATIO]). */
#define SWEEP_MAX_RATIO 10.0

/* Parses budget ratios: "start:stop:step" (inclusive; each value is start + i*step rounded to
 * the decimals written in start and step and read back with strtod, so "0.1:1:0.1" gives
 * exactly the doubles of the literals 0.1, 0.2, ..., 1.0) or a list "0.2,0.5". Every ratio
 * must lie in (0, SWEEP_MAX_RATIO]. *ratios is malloc'ed. */
int sweep_parse_ratios(const char *text, double **ratios, size_t *n, gms_error *err);

/* Parses "K/N" (1 <= K <= N). */
int sweep_parse_shard(const char *text, unsigned *k, unsigned *n, gms_error *err);

/* 1 for randomized policies: a sweep runs them once per seed and stores params "seed=K"
 * (other policies run once, with params ""). */
int sweep_policy_is_random(const char *policy);

typedef struct sweep_progress {
    size_t total;    /* runs this invocation has to do (already stored ones excluded) */
    size_t done;     /* committed so far */
    size_t ok;       /* of them, status ok */
    size_t failed;   /* oom or remat-limit: oom + remat_limit */
    size_t oom;      /* of them, out of memory */
    size_t remat_limit; /* of them, over the remat limit */
    size_t skipped;  /* combinations already in the store */
    size_t solved;   /* Checkmate runs whose schedule was solved now */
    size_t cached;   /* Checkmate runs whose schedule came from the store's solutions */
    double elapsed_s;
    int finished;    /* 1 on the last call */
} sweep_progress;

/* Called on the sweep's calling thread after each commit and about twice a second. */
typedef void (*sweep_progress_fn)(void *ctx, const sweep_progress *p);

typedef struct sweep_spec {
    const char *const *traces; /* trace files (.gmt or DTR logs) */
    size_t n_traces;
    const char *const *policies; /* registry names (heuristics/registry.h) or checkpoint
                                  * planners (heuristics/planners.h) */
    size_t n_policies;
    const double *ratios;
    size_t n_ratios;
    /* NULL, or one per ratio: a budget in bytes (that ratios[i] is then ignored and the run's
     * stored ratio is bytes / the trace's baseline memory), 0 = ratios[i] */
    const uint64_t *budget_bytes;
    unsigned seeds;        /* runs per randomized policy (seeds 0..seeds-1); >= 1 */
    uint64_t seed0;        /* the first seed (sim --seed when sim --db stores its run): seeds
                            * seed0..seed0+seeds-1; 0 for a sweep */
    double remat_limit;    /* sim_config.remat_limit */
    unsigned shard_k;      /* 1-based shard index; shard_n = 1 means everything */
    unsigned shard_n;
    unsigned jobs;         /* worker threads, >= 1 */
    const char *const *allocators; /* memory models (sim/memory.h names); NULL/0 = ideal */
    size_t n_allocators;
    const char *alloc_conf; /* settings for every non-ideal model (sim_memory_parse_conf) */
    uint32_t sample;        /* sim_config.sample: 0 = exact (every policy's full scan); K or
                             * SIM_SAMPLE_SQRT (UINT32_MAX) = approximate, stored in params */
    uint64_t op_overhead_ns; /* sim_config's runtime costs (0 = none), stored in params */
    uint64_t search_cost_ns;
    uint64_t evict_cost_ns;
    const char *policy_args; /* the planners' canonical parameters (planner_params_canon),
                              * first in their runs' params; NULL or "" = none */
    /* Swapping policies' link (sim_config.link_*; 0 = the default link) and host memory
     * (0 = unlimited), stored in their runs' params (link=...,host=...). */
    double link_gbps;
    uint64_t link_latency_ns;
    uint64_t host_memory;
    /* Checkmate runs (policies checkmate, checkmate-approx; sweep_checkmate.h), stored in
     * their params: the trace's iteration, the graph's coarsening ("layers", "none" or
     * "outputs", opt_coarsen_name; NULL = layers) and the solve's time limit (seconds, 0 =
     * none). */
    uint32_t ck_iteration;
    const char *ck_coarsen;
    double ck_time_limit;
    /* with a time limit, checkmate's solves improve their seed by the window search
     * (opt/opt_lns.h) as `optimal` does, unless this is set (--no-improve); runs with the
     * search say so in their params (",search=windows") */
    int ck_no_improve;
    /* the heuristics that seed an exact solve (optimal_seeds.h): NULL = OPTIMAL_SEEDS_DEFAULT,
     * "none" = none; a list other than the default is part of the runs' params */
    const char *ck_seed_policies;
    sweep_progress_fn progress; /* optional */
    void *progress_ctx;
} sweep_spec;

/* Runs the sweep into the store at db_path (created if missing). Validates everything (trace
 * files, policy names, ratios, the store) before writing anything. On success *summary (may be
 * NULL) holds the final counts. */
int sweep_run(const sweep_spec *spec, const char *db_path, sweep_progress *summary,
              gms_error *err);

#endif
