/*
 * store: the SQLite result store of gpumemsim sweeps.
 *
 * Three tables (docs/sweeps.md shows the full schema):
 *   traces     one row per trace content (64-bit FNV-1a of the file bytes, hex), its name, path,
 *              op count and baseline memory/compute;
 *   runs       one row per simulation: the run key (trace hash, policy, params, budget bytes,
 *              remat limit, semantics; UNIQUE, so a repeated run is never stored twice) and
 *              its outcome (status, overhead (NULL unless ok), counters, wall time, version);
 *   timelines  optional memory-over-time samples of a run (schema version 2 and later);
 *   iterations per-iteration figures of checkpoint-planner runs (schema version 6 and later).
 *
 * The schema is versioned with PRAGMA user_version; opening an older store migrates it one
 * version step at a time, each step in its own transaction. The database runs in WAL mode with
 * synchronous=NORMAL and a busy timeout, so a process killed at any moment loses only what it
 * had not committed, and readers never block the writer.
 *
 * A file that is not a SQLite database, is corrupt, was written by a newer gpumemsim or holds
 * somebody else's tables is refused with a clear message and never modified.
 *
 * A store handle is used by one thread at a time.
 */
#ifndef STORE_H
#define STORE_H

#include <stdint.h>
#include <stdio.h>

#include "gms_error.h"

#define STORE_SCHEMA_VERSION 12

typedef struct store store;

enum {
    STORE_CREATE = 1,   /* create the file when it does not exist */
    STORE_READONLY = 2, /* never write (older schema versions are read as they are) */
};

/* Opens (and with STORE_CREATE creates) the store at path; migrates an older schema unless
 * STORE_READONLY. Fails with GMS_EIO (missing file), GMS_EFORMAT (not SQLite, corrupt,
 * foreign tables), GMS_EVERSION (newer schema) or GMS_EDB. */
int store_open(const char *path, int flags, store **out, gms_error *err);
void store_close(store *s);

/* The schema version of the open file (after migration unless read-only). */
int store_schema_version(const store *s);

/* Content hash of a file: 64-bit FNV-1a of its bytes as 16 lowercase hex digits + NUL. */
int store_hash_file(const char *path, char hex[17], gms_error *err);

/* 64-bit FNV-1a: folds n bytes into h; start a fresh hash with h = STORE_FNV_OFFSET. */
#define STORE_FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t store_fnv1a(uint64_t h, const void *bytes, size_t n);

typedef struct store_trace {
    char hash[17];
    const char *name; /* display name, e.g. the file's base name */
    const char *path;
    uint64_t ops;
    uint64_t baseline_memory;
    uint64_t baseline_compute;
    uint64_t constants;  /* bytes of CONSTANT tensors; 0 = unknown (schema v3) */
    uint64_t bottleneck; /* largest op footprint (sim_baseline); 0 = unknown (schema v3) */
} store_trace;

/* Records a trace; a trace already stored (same hash) keeps its first name and path, and
 * gets constants/bottleneck where it had none (a store from before schema v3). */
int store_put_trace(store *s, const store_trace *t, gms_error *err);

/* What identifies a run: a second run with the same key is the same experiment. */
typedef struct store_key {
    const char *trace_hash;
    const char *policy;
    const char *params;   /* policy parameters, "" or e.g. "seed=3" */
    uint64_t budget;      /* bytes */
    double remat_limit;
    const char *semantics; /* "simrd" */
    const char *allocator; /* memory model with its settings (sim_memory_parse_conf's
                            * canonical name); NULL = "ideal" */
} store_key;

typedef struct store_run {
    store_key key;
    double ratio;          /* budget / baseline memory as requested (the decimal literal) */
    const char *status;    /* "ok", "oom", "remat-limit" */
    double overhead;       /* stored only when status is "ok" */
    uint64_t evictions;
    uint64_t eager_evictions;
    uint64_t remats;
    uint64_t remat_compute;
    uint64_t peak_memory;
    double wall_s;
    /* memory-model figures (sim_result); ignored for ideal runs, whose peaks are peak_memory */
    uint64_t peak_reserved;
    uint64_t peak_allocated;
    uint64_t largest_free;
    uint64_t frag_allocs;
    double frag_ratio;
    /* runtime-cost totals (sim_result; 0 without the cost model). The costs themselves are in
     * the key's params ("op_overhead=20000ns", ...). */
    uint64_t op_overhead_ns;
    uint64_t search_ns;
    uint64_t evict_ns;
    /* checkpoint-planner figures (sim_result; 0 for eviction policies). The planner's
     * parameters are in the key's params. */
    uint32_t plan_iterations, plan_predicted;
    double pred_err_mean, pred_err_max; /* stored only when plan_predicted > 0 */
    uint32_t cache_hits, cache_misses;
    double plan_s;
    uint64_t checkpoints;
    /* swapping figures (sim_result; 0 for runs that do not swap, and in stores before
     * version 7). The link and host memory are in the key's params ("link=...,host=..."). */
    uint64_t swap_out_bytes;
    uint64_t swap_in_bytes;
    uint64_t stall_ns;
    uint64_t d2h_busy_ns;
    uint64_t h2d_busy_ns;
    /* a checkmate run's note: its answer is worse than a heuristic's run at the same bytes,
     * or has no schedule where that run fits (optimal_seeds_worse); NULL or "": none */
    const char *note;
} store_run;

/* Sets *found to 1 when a run with this key is stored. */
int store_has_run(store *s, const store_key *k, int *found, gms_error *err);

/* Transactions around a batch of store_put_run calls (BEGIN IMMEDIATE ... COMMIT). Outside a
 * transaction each put commits on its own. */
int store_begin(store *s, gms_error *err);
int store_commit(store *s, gms_error *err);
void store_rollback(store *s);

/* Inserts a run unless its key is stored already (INSERT OR IGNORE). *run_id (may be NULL)
 * gets the new row id, or 0 when the run was already there. The trace must be stored. */
int store_put_run(store *s, const store_run *r, int64_t *run_id, gms_error *err);

/* Appends one timeline sample (seq = 0, 1, ...) to a run. kind: "compute", "remat", "evict",
 * "evict-eager". */
int store_put_timeline(store *s, int64_t run_id, int64_t seq, uint64_t clock, uint64_t memory,
                       const char *kind, gms_error *err);

/* One iteration of a planner run (analysis/iter_log.h's record, as stored). */
typedef struct store_iteration {
    uint32_t iteration;
    int64_t input_size;    /* -1 = unknown (NULL) */
    const char *status;
    uint64_t start_memory, peak_memory;
    double predicted_peak; /* < 0 = none (NULL) */
    int cache_hit;         /* -1 = no cache (NULL), 0, 1 */
    uint64_t plan_ns, clock_ns, compute_ns, recompute_ns;
    uint32_t n_layers, n_checkpointed;
    const char *plan;      /* checkpointed layer names, comma-separated */
} store_iteration;

/* Appends one iteration to a run (schema version 6). */
int store_put_iteration(store *s, int64_t run_id, const store_iteration *it, gms_error *err);

/* Calls fn for each stored iteration of run_id in order (none for a store before version 6);
 * fn returns non-zero to stop. (store_query.c) */
typedef int (*store_iteration_fn)(void *ctx, const store_iteration *it);
int store_query_iterations(store *s, int64_t run_id, store_iteration_fn fn, void *ctx,
                           gms_error *err);

/* One stored run joined with its trace, as the query functions hand it out. Strings stay
 * valid for the duration of the callback only. has_overhead is 0 for failed runs. */
typedef struct store_row {
    int64_t id;
    const char *trace_name;
    const char *trace_hash;
    uint64_t baseline_memory;
    uint64_t baseline_compute;
    uint64_t trace_constants;  /* 0 = unknown */
    uint64_t trace_bottleneck; /* 0 = unknown */
    const char *policy;
    const char *params;
    double ratio;
    uint64_t budget;
    double remat_limit;
    const char *semantics;
    const char *allocator;
    const char *status;
    int has_overhead;
    double overhead;
    uint64_t evictions;
    uint64_t eager_evictions;
    uint64_t remats;
    uint64_t remat_compute;
    uint64_t peak_memory;
    double wall_s;
    const char *tool_version;
    const char *created_at;
    uint64_t peak_reserved;
    uint64_t peak_allocated;
    uint64_t largest_free;
    uint64_t frag_allocs;
    double frag_ratio;
    uint64_t op_overhead_ns; /* the runtime-cost totals (0 in stores before version 5) */
    uint64_t search_ns;
    uint64_t evict_ns;
    /* planner figures (0 / has_pred_err 0 before version 6 and for eviction policies) */
    uint32_t plan_iterations, plan_predicted;
    int has_pred_err;
    double pred_err_mean, pred_err_max;
    uint32_t cache_hits, cache_misses;
    double plan_s;
    uint64_t checkpoints;
    uint64_t swap_out_bytes; /* the swapping figures (0 in stores before version 7) */
    uint64_t swap_in_bytes;
    uint64_t stall_ns;
    uint64_t d2h_busy_ns;
    uint64_t h2d_busy_ns;
    const char *note;        /* store_run.note; "" when none (and in stores before version 11) */
} store_row;

/* Which rows a query returns: NULL/0 fields mean "any". policies is a NULL-free array.
 * The fields after n_policies select by the rest of the run key (and the outcome). */
typedef struct store_filter {
    const char *trace_name;
    const char *const *policies;
    size_t n_policies;
    double remat_limit;     /* > 0: only runs at this remat limit */
    const char *semantics;  /* only runs with these replay semantics ("simrd") */
    const char *params;     /* only runs with these policy parameters (exact, or a glob) */
    const char *status;     /* only runs with this outcome (ok, oom, remat-limit) */
    const char *allocator;  /* only runs with this memory model ("ideal", "caching{...}") */
} store_filter;

/* Checks that every name a filter gives matches something stored: a trace name (or glob or
 * hash) that matches no trace, a policy, remat limit, semantics, parameters or status that
 * no run has is GMS_EINVAL with a message naming what the store does hold. 0 when the
 * filter can match. (store_filter.c) */
int store_check_filter(store *s, const store_filter *f, gms_error *err);

/* Calls fn for every matching run in a stable order (trace name, policy, ratio, budget,
 * params). fn returns 0 to go on, non-zero to stop (that value is returned). */
typedef int (*store_row_fn)(void *ctx, const store_row *row);
int store_query_runs(store *s, const store_filter *f, store_row_fn fn, void *ctx,
                     gms_error *err);

/* Writes the matching runs as CSV (header line, RFC 4180 quoting) or as a JSON array. */
int store_export_csv(store *s, const store_filter *f, FILE *out, gms_error *err);
int store_export_json(store *s, const store_filter *f, FILE *out, gms_error *err);

/* Merges the stores inputs[0..n) into a new store at out_path: the union of their traces,
 * runs and timelines, without duplicates (the run key decides). Refuses an existing out_path
 * unless force. Built in a temporary file beside out_path and renamed into place, so out_path
 * is either untouched or complete. Every input is validated first. A run key that two inputs
 * hold with different results (status, overhead, evictions, remats, peak memory) is refused,
 * naming the first such run and both results (GMS_EINVAL); equal results merge silently. */
int store_merge(const char *const *inputs, size_t n, const char *out_path, int force,
                gms_error *err);

/* What store_merge_prefer does with a run two inputs hold with different results. */
typedef enum store_merge_prefer {
    STORE_MERGE_REFUSE, /* fail, as store_merge does */
    STORE_MERGE_FIRST,  /* keep the first input's (in the order given) */
    STORE_MERGE_LAST,   /* keep the last input's */
    STORE_MERGE_NEWER,  /* keep the one created later (created_at; the first on a tie) */
} store_merge_prefer;

/* store_merge with a rule for conflicting results; *resolved (may be NULL) gets the number
 * of runs whose result was replaced by a later input's. */
int store_merge_prefer_rule(const char *const *inputs, size_t n, const char *out_path,
                            int force, store_merge_prefer prefer, size_t *resolved,
                            gms_error *err);

#endif
