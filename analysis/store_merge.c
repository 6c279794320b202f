/* store_merge: the union of several result stores in a new file (see store.h). */
#include "store_internal.h"
#include "gms_tmpfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char copy_traces[] =
    "INSERT OR IGNORE INTO main.traces (hash, name, path, ops, baseline_memory, baseline_compute,"
    " added_at) SELECT hash, name, path, ops, baseline_memory, baseline_compute, added_at"
    " FROM src.traces ORDER BY rowid";

/* Inputs at schema v3 or later also carry the traces' constants and bottleneck. */
static const char copy_traces_v3[] =
    "INSERT INTO main.traces (hash, name, path, ops, baseline_memory, baseline_compute,"
    " added_at, constants, bottleneck) SELECT hash, name, path, ops, baseline_memory,"
    " baseline_compute, added_at, constants, bottleneck FROM src.traces WHERE true ORDER BY rowid"
    " ON CONFLICT (hash) DO UPDATE SET constants = coalesce(constants, excluded.constants),"
    " bottleneck = coalesce(bottleneck, excluded.bottleneck)";

/* Inputs at schema v5 or later also carry the runtime-cost totals. */
static const char copy_runs_v5[] =
    "INSERT OR IGNORE INTO main.runs (trace_hash, policy, params, budget, ratio, remat_limit,"
    " semantics, allocator, status, overhead, evictions, eager_evictions, remats, remat_compute,"
    " peak_memory, peak_reserved, peak_allocated, largest_free, frag_allocs, frag_ratio, wall_s,"
    " tool_version, created_at, op_overhead_ns, search_ns, evict_ns) SELECT trace_hash, policy,"
    " params, budget, ratio, remat_limit, semantics, allocator, status, overhead, evictions,"
    " eager_evictions, remats, remat_compute, peak_memory, peak_reserved, peak_allocated,"
    " largest_free, frag_allocs, frag_ratio, wall_s, tool_version, created_at, op_overhead_ns,"
    " search_ns, evict_ns FROM src.runs ORDER BY id";

/* Inputs at schema v6 or later also carry the checkpoint-planner figures. */
static const char copy_runs_v6[] =
    "INSERT OR IGNORE INTO main.runs (trace_hash, policy, params, budget, ratio, remat_limit,"
    " semantics, allocator, status, overhead, evictions, eager_evictions, remats, remat_compute,"
    " peak_memory, peak_reserved, peak_allocated, largest_free, frag_allocs, frag_ratio, wall_s,"
    " tool_version, created_at, op_overhead_ns, search_ns, evict_ns, plan_iterations,"
    " plan_predicted, pred_err_mean, pred_err_max, cache_hits, cache_misses, plan_s,"
    " checkpoints) SELECT trace_hash, policy,"
    " params, budget, ratio, remat_limit, semantics, allocator, status, overhead, evictions,"
    " eager_evictions, remats, remat_compute, peak_memory, peak_reserved, peak_allocated,"
    " largest_free, frag_allocs, frag_ratio, wall_s, tool_version, created_at, op_overhead_ns,"
    " search_ns, evict_ns, plan_iterations, plan_predicted, pred_err_mean, pred_err_max,"
    " cache_hits, cache_misses, plan_s, checkpoints FROM src.runs ORDER BY id";

/* Inputs at schema v7 or later also carry the swapping figures. */
static const char copy_runs_v7[] =
    "INSERT OR IGNORE INTO main.runs (trace_hash, policy, params, budget, ratio, remat_limit,"
    " semantics, allocator, status, overhead, evictions, eager_evictions, remats, remat_compute,"
    " peak_memory, peak_reserved, peak_allocated, largest_free, frag_allocs, frag_ratio, wall_s,"
    " tool_version, created_at, op_overhead_ns, search_ns, evict_ns, plan_iterations,"
    " plan_predicted, pred_err_mean, pred_err_max, cache_hits, cache_misses, plan_s,"
    " checkpoints, swap_out_bytes, swap_in_bytes, stall_ns, d2h_busy_ns, h2d_busy_ns)"
    " SELECT trace_hash, policy,"
    " params, budget, ratio, remat_limit, semantics, allocator, status, overhead, evictions,"
    " eager_evictions, remats, remat_compute, peak_memory, peak_reserved, peak_allocated,"
    " largest_free, frag_allocs, frag_ratio, wall_s, tool_version, created_at, op_overhead_ns,"
    " search_ns, evict_ns, plan_iterations, plan_predicted, pred_err_mean, pred_err_max,"
    " cache_hits, cache_misses, plan_s, checkpoints, swap_out_bytes, swap_in_bytes, stall_ns,"
    " d2h_busy_ns, h2d_busy_ns FROM src.runs ORDER BY id";

/* Inputs at schema v11 or later also carry the checkmate runs' notes. */
static const char copy_runs_v11[] =
    "INSERT OR IGNORE INTO main.runs (trace_hash, policy, params, budget, ratio, remat_limit,"
    " semantics, allocator, status, overhead, evictions, eager_evictions, remats, remat_compute,"
    " peak_memory, peak_reserved, peak_allocated, largest_free, frag_allocs, frag_ratio, wall_s,"
    " tool_version, created_at, op_overhead_ns, search_ns, evict_ns, plan_iterations,"
    " plan_predicted, pred_err_mean, pred_err_max, cache_hits, cache_misses, plan_s,"
    " checkpoints, swap_out_bytes, swap_in_bytes, stall_ns, d2h_busy_ns, h2d_busy_ns, note)"
    " SELECT trace_hash, policy,"
    " params, budget, ratio, remat_limit, semantics, allocator, status, overhead, evictions,"
    " eager_evictions, remats, remat_compute, peak_memory, peak_reserved, peak_allocated,"
    " largest_free, frag_allocs, frag_ratio, wall_s, tool_version, created_at, op_overhead_ns,"
    " search_ns, evict_ns, plan_iterations, plan_predicted, pred_err_mean, pred_err_max,"
    " cache_hits, cache_misses, plan_s, checkpoints, swap_out_bytes, swap_in_bytes, stall_ns,"
    " d2h_busy_ns, h2d_busy_ns, note FROM src.runs ORDER BY id";

static const char copy_runs[] =
    "INSERT OR IGNORE INTO main.runs (trace_hash, policy, params, budget, ratio, remat_limit,"
    " semantics, allocator, status, overhead, evictions, eager_evictions, remats, remat_compute,"
    " peak_memory, peak_reserved, peak_allocated, largest_free, frag_allocs, frag_ratio, wall_s,"
    " tool_version, created_at) SELECT trace_hash, policy, params, budget,"
    " ratio, remat_limit, semantics, allocator, status, overhead, evictions, eager_evictions,"
    " remats, remat_compute, peak_memory, peak_reserved, peak_allocated, largest_free,"
    " frag_allocs, frag_ratio, wall_s, tool_version, created_at FROM src.runs ORDER BY id";

/* Inputs older than schema version 4 hold ideal runs only. */
static const char copy_runs_v3[] =
    "INSERT OR IGNORE INTO main.runs (trace_hash, policy, params, budget, ratio, remat_limit,"
    " semantics, status, overhead, evictions, eager_evictions, remats, remat_compute,"
    " peak_memory, peak_reserved, peak_allocated, largest_free, frag_allocs, frag_ratio, wall_s,"
    " tool_version, created_at) SELECT trace_hash, policy, params, budget,"
    " ratio, remat_limit, semantics, status, overhead, evictions, eager_evictions, remats,"
    " remat_compute, peak_memory, peak_memory, peak_memory, 0, 0, 0, wall_s, tool_version,"
    " created_at FROM src.runs ORDER BY id";

/* Timeline samples follow their run by key (row ids differ between stores); the primary key
 * (run_id, seq) drops samples of a run that is already there. */
static const char copy_timelines[] =
    "INSERT OR IGNORE INTO main.timelines (run_id, seq, clock, memory, kind)"
    " SELECT m.id, t.seq, t.clock, t.memory, t.kind FROM src.timelines t"
    " JOIN src.runs r ON r.id = t.run_id"
    " JOIN main.runs m ON m.trace_hash = r.trace_hash AND m.policy = r.policy"
    "  AND m.params = r.params AND m.budget = r.budget AND m.remat_limit = r.remat_limit"
    "  AND m.semantics = r.semantics AND m.allocator = %s";

/* Iterations follow their run by key, as timeline samples do (schema v6 inputs). */
static const char copy_iterations[] =
    "INSERT OR IGNORE INTO main.iterations (run_id, iteration, input_size, status, start_memory,"
    " peak_memory, predicted_peak, cache_hit, plan_ns, clock_ns, compute_ns, recompute_ns,"
    " layers, checkpointed, plan)"
    " SELECT m.id, i.iteration, i.input_size, i.status, i.start_memory, i.peak_memory,"
    " i.predicted_peak, i.cache_hit, i.plan_ns, i.clock_ns, i.compute_ns, i.recompute_ns,"
    " i.layers, i.checkpointed, i.plan FROM src.iterations i"
    " JOIN src.runs r ON r.id = i.run_id"
    " JOIN main.runs m ON m.trace_hash = r.trace_hash AND m.policy = r.policy"
    "  AND m.params = r.params AND m.budget = r.budget AND m.remat_limit = r.remat_limit"
    "  AND m.semantics = r.semantics AND m.allocator = r.allocator";

static const char copy_solutions[] =
    "INSERT OR IGNORE INTO main.solutions (trace_hash, iteration, coarsen, budget, mode,"
    " time_limit, status, objective, lower_bound, gap, solve_s, nodes, schedule, tool_version,"
    " created_at) SELECT trace_hash, iteration, coarsen, budget, mode, time_limit, status,"
    " objective, lower_bound, gap, solve_s, nodes, schedule, tool_version, created_at"
    " FROM src.solutions";

/* Version 9 added each solution's graph compute (the yardstick's denominator). */
static const char copy_solutions_v9[] =
    "INSERT OR IGNORE INTO main.solutions (trace_hash, iteration, coarsen, budget, mode,"
    " time_limit, status, objective, lower_bound, gap, solve_s, nodes, schedule, tool_version,"
    " created_at, compute) SELECT trace_hash, iteration, coarsen, budget, mode, time_limit,"
    " status, objective, lower_bound, gap, solve_s, nodes, schedule, tool_version, created_at,"
    " compute FROM src.solutions";

/* Version 10 added which bound lower_bound is. */
static const char copy_solutions_v10[] =
    "INSERT OR IGNORE INTO main.solutions (trace_hash, iteration, coarsen, budget, mode,"
    " time_limit, status, objective, lower_bound, gap, solve_s, nodes, schedule, tool_version,"
    " created_at, compute, lower_bound_from) SELECT trace_hash, iteration, coarsen, budget,"
    " mode, time_limit, status, objective, lower_bound, gap, solve_s, nodes, schedule,"
    " tool_version, created_at, compute, lower_bound_from FROM src.solutions";

/* Version 12 added the search to the key and where the answer came from. */
static const char copy_solutions_v12[] =
    "INSERT OR IGNORE INTO main.solutions (trace_hash, iteration, coarsen, budget, mode,"
    " time_limit, search, status, objective, lower_bound, gap, solve_s, nodes, schedule,"
    " tool_version, created_at, compute, lower_bound_from, answer_from) SELECT trace_hash,"
    " iteration, coarsen, budget, mode, time_limit, search, status, objective, lower_bound,"
    " gap, solve_s, nodes, schedule, tool_version, created_at, compute, lower_bound_from,"
    " answer_from FROM src.solutions";

/* Copies one validated input store, inputs[i], into the open output. */
static int merge_one(store *outs, const char *const *inputs, size_t i, int version,
                     store_merge_prefer prefer, size_t *resolved, gms_error *err)
{
    const char *path = inputs[i];
    sqlite3 *db = outs->db;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "ATTACH DATABASE ?1 AS src", -1, &st, NULL) != SQLITE_OK)
        return store_db_error(db, err, "attaching an input");
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return gms_error_set(err, GMS_EDB, "%s: cannot attach: %s", path, sqlite3_errmsg(db));
    char what[512];
    snprintf(what, sizeof what, "merging %s", path);
    rc = store_exec(db, "BEGIN", what, err);
    if (!rc)
        rc = store_exec(db, version >= 3 ? copy_traces_v3 : copy_traces, what, err);
    if (!rc)
        rc = store_merge_conflicts(db, version, inputs, i, prefer, resolved, err);
    sqlite3_int64 last_id = 0; /* runs above it come from this input */
    if (!rc && sqlite3_prepare_v2(db, "SELECT coalesce(max(id), 0) FROM main.runs", -1, &st,
                                  NULL) != SQLITE_OK)
        rc = store_db_error(db, err, what);
    else if (!rc) {
        if (sqlite3_step(st) == SQLITE_ROW)
            last_id = sqlite3_column_int64(st, 0);
        else
            rc = store_db_error(db, err, what);
        sqlite3_finalize(st);
    }
    if (!rc)
        rc = store_exec(db, version >= 11  ? copy_runs_v11
                             : version >= 7 ? copy_runs_v7
                             : version >= 6 ? copy_runs_v6
                             : version >= 5 ? copy_runs_v5
                             : version >= 4 ? copy_runs
                                            : copy_runs_v3,
                         what, err);
    if (!rc && version >= 2) {
        char sql[sizeof copy_timelines + 16];
        snprintf(sql, sizeof sql, copy_timelines, version >= 4 ? "r.allocator" : "'ideal'");
        rc = store_exec(db, sql, what, err);
    }
    if (!rc && version >= 6)
        rc = store_exec(db, copy_iterations, what, err);
    if (!rc && version >= 8)
        rc = store_exec(db, version >= 12  ? copy_solutions_v12
                             : version >= 10 ? copy_solutions_v10
                             : version >= 9 ? copy_solutions_v9
                                            : copy_solutions,
                        what, err);
    if (!rc && version < 10) { /* as migration v10 does: its hybrid was today's hybrid-mix */
        char sql[160];
        snprintf(sql, sizeof sql, "UPDATE main.runs SET policy = 'hybrid-mix' WHERE"
                 " policy = 'hybrid' AND id > %lld", (long long)last_id);
        rc = store_exec(db, sql, what, err);
    }
    if (!rc)
        rc = store_merge_origin_note(db, i, err);
    if (!rc)
        rc = store_exec(db, "COMMIT", what, err);
    if (rc)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_exec(db, "DETACH DATABASE src", NULL, NULL, NULL);
    return rc;
}

static void remove_with_sidecars(const char *path)
{
    char side[4096];
    unlink(path);
    snprintf(side, sizeof side, "%s-journal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

int store_merge(const char *const *inputs, size_t n, const char *out_path, int force,
                gms_error *err)
{
    return store_merge_prefer_rule(inputs, n, out_path, force, STORE_MERGE_REFUSE, NULL, err);
}

int store_merge_prefer_rule(const char *const *inputs, size_t n, const char *out_path,
                            int force, store_merge_prefer prefer, size_t *resolved,
                            gms_error *err)
{
    if (resolved)
        *resolved = 0;
    if (n == 0)
        return gms_error_set(err, GMS_EINVAL, "nothing to merge: name at least one input store");
    int *versions = calloc(n, sizeof *versions);
    if (!versions)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        store *in;
        if ((rc = store_open(inputs[i], STORE_READONLY, &in, err)) == 0) {
            versions[i] = in->version;
            store_close(in);
        }
    }
    struct stat sb;
    if (!rc && !force && stat(out_path, &sb) == 0)
        rc = gms_error_set(err, GMS_EIO, "%s: exists; pass --force to replace it", out_path);
    if (rc) {
        free(versions);
        return rc;
    }

    size_t len = strlen(out_path) + 16;
    char *tmp = malloc(len);
    if (!tmp) {
        free(versions);
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
    snprintf(tmp, len, "%s.tmp-XXXXXX", out_path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        rc = gms_error_set(err, GMS_EIO, "%s: cannot create a temporary file: %s", tmp,
                           strerror(errno));
        free(tmp);
        free(versions);
        return rc;
    }
    gms_tmp_umask_mode(fd);
    gms_tmp_track(tmp);
    close(fd);
    store *out = NULL;
    rc = store_open(tmp, STORE_CREATE, &out, err);
    /* the output is built with a rollback journal so it is one self-contained file to rename */
    if (!rc)
        rc = store_exec(out->db, "PRAGMA journal_mode = DELETE", "preparing the output", err);
    if (!rc)
        rc = store_exec(out->db, "PRAGMA synchronous = FULL", "preparing the output", err);
    if (!rc)
        rc = store_merge_origin_init(out->db, err);
    for (size_t i = 0; i < n && !rc; i++)
        rc = merge_one(out, inputs, i, versions[i], prefer, resolved, err);
    store_close(out);
    if (!rc) {
        if (force) {
            char side[4096];
            snprintf(side, sizeof side, "%s-wal", out_path);
            unlink(side);
            snprintf(side, sizeof side, "%s-shm", out_path);
            unlink(side);
        }
        if (rename(tmp, out_path) != 0)
            rc = gms_error_set(err, GMS_EIO, "%s: cannot rename into place: %s", out_path,
                               strerror(errno));
    }
    if (rc)
        remove_with_sidecars(tmp);
    gms_tmp_done(tmp);
    free(tmp);
    free(versions);
    return rc;
}
