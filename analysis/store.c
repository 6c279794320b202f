/* store: opening, schema migrations and writing runs (see store.h). */
#include "store_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef GMS_VERSION
#define GMS_VERSION "unknown"
#endif

#define STORE_BUSY_TIMEOUT_MS 30000

int store_db_error(sqlite3 *db, gms_error *err, const char *what)
{
    return gms_error_set(err, GMS_EDB, "%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
}

int store_exec(sqlite3 *db, const char *sql, const char *what, gms_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        gms_error_set(err, GMS_EDB, "%s: %s", what, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return GMS_EDB;
    }
    return 0;
}

int store_check_header(const char *path, gms_error *err)
{
    static const char magic[16] = "SQLite format 3";
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        return gms_error_set(err, GMS_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    char head[16];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n == 0)
        return 0; /* an empty file is an empty database */
    if (n < sizeof head || memcmp(head, magic, sizeof magic) != 0)
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: not a SQLite database (not a gpumemsim result store); "
                             "check the path, or pass a new file name",
                             path);
    return 0;
}

/* ---- schema versions ---- */

/* v1: the traces and runs tables. */
static const char schema_v1[] =
    "CREATE TABLE traces ("
    "  hash TEXT PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  path TEXT NOT NULL,"
    "  ops INTEGER NOT NULL,"
    "  baseline_memory INTEGER NOT NULL,"
    "  baseline_compute INTEGER NOT NULL,"
    "  added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));"
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  trace_hash TEXT NOT NULL REFERENCES traces(hash),"
    "  policy TEXT NOT NULL,"
    "  params TEXT NOT NULL DEFAULT '',"
    "  budget INTEGER NOT NULL,"
    "  ratio REAL,"
    "  remat_limit REAL NOT NULL,"
    "  semantics TEXT NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('ok','oom','remat-limit')),"
    "  overhead REAL CHECK ((status = 'ok') = (overhead IS NOT NULL)),"
    "  evictions INTEGER NOT NULL,"
    "  eager_evictions INTEGER NOT NULL,"
    "  remats INTEGER NOT NULL,"
    "  remat_compute INTEGER NOT NULL,"
    "  peak_memory INTEGER NOT NULL,"
    "  wall_s REAL NOT NULL,"
    "  tool_version TEXT NOT NULL,"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
    "  UNIQUE (trace_hash, policy, params, budget, remat_limit, semantics));";

/* v2: memory timelines of runs, and an index for per-policy queries. */
static const char schema_v2[] =
    "CREATE TABLE timelines ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  seq INTEGER NOT NULL,"
    "  clock INTEGER NOT NULL,"
    "  memory INTEGER NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;"
    "CREATE INDEX runs_by_policy ON runs (policy, trace_hash);";

/* v3: per trace, the memory no policy can free: the pinned constants and the largest op's
 * footprint (sim_baseline), for the charts' infeasible band. NULL in traces stored before. */
static const char schema_v3[] =
    "ALTER TABLE traces ADD COLUMN constants INTEGER;"
    "ALTER TABLE traces ADD COLUMN bottleneck INTEGER;";

/* v4: the memory model joins the run key (the UNIQUE constraint, so the table is rebuilt:
 * SQLite cannot alter a constraint), and runs get the memory model's figures. Old rows are
 * ideal runs; their reserved and allocated peaks are their peak memory. */
static const char schema_v4[] =
    "CREATE TABLE runs_v4 ("
    "  id INTEGER PRIMARY KEY,"
    "  trace_hash TEXT NOT NULL REFERENCES traces(hash),"
    "  policy TEXT NOT NULL,"
    "  params TEXT NOT NULL DEFAULT '',"
    "  budget INTEGER NOT NULL,"
    "  ratio REAL,"
    "  remat_limit REAL NOT NULL,"
    "  semantics TEXT NOT NULL,"
    "  allocator TEXT NOT NULL DEFAULT 'ideal',"
    "  status TEXT NOT NULL CHECK (status IN ('ok','oom','remat-limit')),"
    "  overhead REAL CHECK ((status = 'ok') = (overhead IS NOT NULL)),"
    "  evictions INTEGER NOT NULL,"
    "  eager_evictions INTEGER NOT NULL,"
    "  remats INTEGER NOT NULL,"
    "  remat_compute INTEGER NOT NULL,"
    "  peak_memory INTEGER NOT NULL,"
    "  peak_reserved INTEGER,"
    "  peak_allocated INTEGER,"
    "  largest_free INTEGER,"
    "  frag_allocs INTEGER,"
    "  frag_ratio REAL,"
    "  wall_s REAL NOT NULL,"
    "  tool_version TEXT NOT NULL,"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
    "  UNIQUE (trace_hash, policy, params, budget, remat_limit, semantics, allocator));"
    "INSERT INTO runs_v4 (id, trace_hash, policy, params, budget, ratio, remat_limit,"
    "  semantics, status, overhead, evictions, eager_evictions, remats, remat_compute,"
    "  peak_memory, peak_reserved, peak_allocated, largest_free, frag_allocs, frag_ratio,"
    "  wall_s, tool_version, created_at)"
    " SELECT id, trace_hash, policy, params, budget, ratio, remat_limit, semantics, status,"
    "  overhead, evictions, eager_evictions, remats, remat_compute, peak_memory, peak_memory,"
    "  peak_memory, 0, 0, 0, wall_s, tool_version, created_at FROM runs;"
    "DROP TABLE runs;"
    "ALTER TABLE runs_v4 RENAME TO runs;"
    "CREATE INDEX runs_by_policy ON runs (policy, trace_hash);";

/* v5: the runtime-cost model's totals (sim_result). Runs stored before it had no costs: 0. */
static const char schema_v5[] =
    "ALTER TABLE runs ADD COLUMN op_overhead_ns INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN search_ns INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN evict_ns INTEGER NOT NULL DEFAULT 0;";

/* v6: checkpoint planners (docs/planners.md): the run's planning figures (0 / NULL for runs
 * of eviction policies and runs stored before), and each planner run's iterations. */
static const char schema_v6[] =
    "ALTER TABLE runs ADD COLUMN plan_iterations INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN plan_predicted INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN pred_err_mean REAL;"
    "ALTER TABLE runs ADD COLUMN pred_err_max REAL;"
    "ALTER TABLE runs ADD COLUMN cache_hits INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN cache_misses INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN plan_s REAL NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN checkpoints INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE iterations ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  iteration INTEGER NOT NULL,"
    "  input_size INTEGER,"
    "  status TEXT NOT NULL,"
    "  start_memory INTEGER NOT NULL,"
    "  peak_memory INTEGER NOT NULL,"
    "  predicted_peak REAL,"
    "  cache_hit INTEGER,"
    "  plan_ns INTEGER NOT NULL,"
    "  clock_ns INTEGER NOT NULL,"
    "  compute_ns INTEGER NOT NULL,"
    "  recompute_ns INTEGER NOT NULL,"
    "  layers INTEGER NOT NULL,"
    "  checkpointed INTEGER NOT NULL,"
    "  plan TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, iteration)) WITHOUT ROWID;";
/* v7: swapping to host memory (docs/swap.md). Runs stored before it never swapped: 0. */
static const char schema_v7[] =
    "ALTER TABLE runs ADD COLUMN swap_out_bytes INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN swap_in_bytes INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN stall_ns INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN d2h_busy_ns INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN h2d_busy_ns INTEGER NOT NULL DEFAULT 0;";
/* v8: the Checkmate solver's answers (store_solution.h), keyed like runs, so that a run at a
 * budget already solved replays the stored schedule instead of solving again. */
static const char schema_v8[] =
    "CREATE TABLE solutions ("
    "  trace_hash TEXT NOT NULL,"
    "  iteration INTEGER NOT NULL,"
    "  coarsen TEXT NOT NULL,"
    "  budget INTEGER NOT NULL,"
    "  mode TEXT NOT NULL,"
    "  time_limit REAL NOT NULL,"
    "  status TEXT NOT NULL,"
    "  objective REAL,"
    "  lower_bound REAL,"
    "  gap REAL,"
    "  solve_s REAL NOT NULL,"
    "  nodes INTEGER NOT NULL,"
    "  schedule BLOB,"
    "  tool_version TEXT NOT NULL,"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
    "  PRIMARY KEY (trace_hash, iteration, coarsen, budget, mode, time_limit)) WITHOUT ROWID;";

/* v9: the yardstick (docs/optimal.md, "The yardstick"): each solution's graph compute
 * without recomputation (ms; NULL for solutions stored before, filled in when one is next
 * read from the cache), and the view run_gaps: every run beside every exact solution at its
 * trace and budget, with the gaps as analysis/yardstick.h defines them. */
#define RUN_GAPS_VIEW \
    "CREATE VIEW run_gaps AS SELECT r.id AS run_id, t.name AS trace, r.trace_hash," \
    "  r.policy, r.params, r.ratio, r.budget, r.remat_limit, r.allocator," \
    "  r.status, r.overhead, s.iteration, s.coarsen, s.time_limit," \
    "  s.status AS solver_status," \
    "  CASE WHEN s.status IN ('optimal', 'feasible') AND s.compute > 0" \
    "    THEN s.objective / s.compute END AS opt_overhead," \
    "  CASE WHEN s.compute > 0 THEN s.lower_bound / s.compute END AS bound_overhead," \
    "  CASE WHEN r.status = 'ok' AND s.status IN ('optimal', 'feasible') AND s.compute > 0" \
    "    AND s.objective > 0 THEN r.overhead * s.compute / s.objective - 1 END AS gap_optimum," \
    "  CASE WHEN r.status = 'ok' AND s.compute > 0 AND s.lower_bound > 0" \
    "    THEN r.overhead * s.compute / s.lower_bound - 1 END AS gap_bound" \
    " FROM runs r JOIN traces t ON t.hash = r.trace_hash" \
    " JOIN solutions s ON s.trace_hash = r.trace_hash AND s.budget = r.budget" \
    "  AND s.mode = 'exact'" \
    /* a checkmate run beside its own program's answer only (store_gaps.h) */ \
    "  AND (r.policy NOT LIKE 'checkmate%'" \
    "   OR r.params LIKE 'coarsen=' || s.coarsen || ',iteration=' || s.iteration || ',%');"
static const char schema_v9[] = "ALTER TABLE solutions ADD COLUMN compute REAL;" RUN_GAPS_VIEW;

/* v10: the policy named hybrid became a measured director that runs the cheapest of three
 * candidates (issue 30, docs/swap.md); the per-victim director that wrote the rows named
 * hybrid before is hybrid-mix now, so those rows take its name and a resumed sweep does not
 * mix both under one key. And each solution says which bound its lower_bound is ('lp', or
 * 'boundary' when the time limit stopped the LP or the program was too big to build; NULL
 * in solutions stored before, which had only the LP's). */
static const char schema_v10[] = "UPDATE runs SET policy = 'hybrid-mix' WHERE policy = 'hybrid';"
                                 "ALTER TABLE solutions ADD COLUMN lower_bound_from TEXT;";

/* v11: a run's note (issue 28, item 2): for a checkmate run whose graph's answer is worse than
 * a heuristic's run at the same bytes, or has no schedule where that run fits, the sentence
 * sim prints (optimal_seeds_worse); NULL for every other run and for runs stored before. */
static const char schema_v11[] = "ALTER TABLE runs ADD COLUMN note TEXT;";

/* v12: how a solution was searched for is part of its key (search: 'windows' when a
 * time-limited exact solve improved its seed by the window search, opt/opt_lns.h; 'none'
 * otherwise, as every solution stored before was: sim, sweep and fit did not run it), so an
 * answer found with the search is never served to a request without it, nor the reverse;
 * answer_from says where the answer came from ('solver', 'window-search', 'seed'; NULL
 * before). A column of the primary key cannot be added in place: the table is copied (the
 * view that reads it dropped and made again around it). */
static const char schema_v12[] =
    "DROP VIEW run_gaps;"
    "CREATE TABLE solutions_v12 ("
    "  trace_hash TEXT NOT NULL,"
    "  iteration INTEGER NOT NULL,"
    "  coarsen TEXT NOT NULL,"
    "  budget INTEGER NOT NULL,"
    "  mode TEXT NOT NULL,"
    "  time_limit REAL NOT NULL,"
    "  search TEXT NOT NULL DEFAULT 'none',"
    "  status TEXT NOT NULL,"
    "  objective REAL,"
    "  lower_bound REAL,"
    "  gap REAL,"
    "  solve_s REAL NOT NULL,"
    "  nodes INTEGER NOT NULL,"
    "  schedule BLOB,"
    "  tool_version TEXT NOT NULL,"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
    "  compute REAL,"
    "  lower_bound_from TEXT,"
    "  answer_from TEXT,"
    "  PRIMARY KEY (trace_hash, iteration, coarsen, budget, mode, time_limit, search))"
    "  WITHOUT ROWID;"
    "INSERT INTO solutions_v12 (trace_hash, iteration, coarsen, budget, mode, time_limit,"
    "  status, objective, lower_bound, gap, solve_s, nodes, schedule, tool_version,"
    "  created_at, compute, lower_bound_from)"
    " SELECT trace_hash, iteration, coarsen, budget, mode, time_limit, status, objective,"
    "  lower_bound, gap, solve_s, nodes, schedule, tool_version, created_at, compute,"
    "  lower_bound_from FROM solutions;"
    "DROP TABLE solutions;"
    "ALTER TABLE solutions_v12 RENAME TO solutions;" RUN_GAPS_VIEW;

/* One function per version step: migrations[v] takes a store from version v to v + 1 inside
 * the caller's transaction. A step that must rewrite data (not only add tables or columns)
 * does it here too. */
typedef int (*store_migration)(sqlite3 *db, gms_error *err);

static int migrate_0_to_1(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v1, "creating the schema (version 1)", err);
}

static int migrate_1_to_2(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v2, "migrating the schema from version 1 to 2", err);
}

static int migrate_2_to_3(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v3, "migrating the schema from version 2 to 3", err);
}

/* Runs with foreign keys off (store_open turns them on afterwards), so dropping the old
 * runs table leaves the timelines that reference its ids alone. */
static int migrate_3_to_4(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v4, "migrating the schema from version 3 to 4", err);
}

static int migrate_4_to_5(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v5, "migrating the schema from version 4 to 5", err);
}

static int migrate_5_to_6(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v6, "migrating the schema from version 5 to 6", err);
}

static int migrate_6_to_7(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v7, "migrating the schema from version 6 to 7", err);
}

static int migrate_7_to_8(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v8, "migrating the schema from version 7 to 8", err);
}

static int migrate_8_to_9(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v9, "migrating the schema from version 8 to 9", err);
}

static int migrate_9_to_10(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v10, "migrating the schema from version 9 to 10", err);
}

static int migrate_10_to_11(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v11, "migrating the schema from version 10 to 11", err);
}

static int migrate_11_to_12(sqlite3 *db, gms_error *err)
{
    return store_exec(db, schema_v12, "migrating the schema from version 11 to 12", err);
}

static const store_migration migrations[STORE_SCHEMA_VERSION] = {
    migrate_0_to_1, migrate_1_to_2, migrate_2_to_3, migrate_3_to_4, migrate_4_to_5,
    migrate_5_to_6, migrate_6_to_7, migrate_7_to_8, migrate_8_to_9, migrate_9_to_10,
    migrate_10_to_11, migrate_11_to_12};

int store_migrate_step(sqlite3 *db, int from, gms_error *err)
{
    if (from < 0 || from >= STORE_SCHEMA_VERSION)
        return gms_error_set(err, GMS_EINVAL, "no schema migration from version %d", from);
    return migrations[from](db, err);
}

static int read_user_version(sqlite3 *db, int *version, gms_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        return store_db_error(db, err, "reading the schema version");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return store_db_error(db, err, "reading the schema version");
    return 0;
}

/* Runs PRAGMA quick_check and the table inventory: a corrupt file or one holding foreign
 * tables fails here, before anything is written. */
static int validate(sqlite3 *db, const char *path, int version, gms_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL) != SQLITE_OK)
        goto corrupt;
    int rc = sqlite3_step(st);
    int ok = rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
    sqlite3_finalize(st);
    if (!ok)
        goto corrupt;
    if (version == 0) {
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) !=
            SQLITE_OK)
            goto corrupt;
        int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
        sqlite3_finalize(st);
        if (n != 0)
            return gms_error_set(err, GMS_EFORMAT,
                                 "%s: a SQLite database but not a gpumemsim result store "
                                 "(it has other tables); pass a new file name",
                                 path);
    }
    return 0;
corrupt:
    return gms_error_set(err, GMS_EFORMAT,
                         "%s: corrupt or not a SQLite database (%s); restore it from a copy or "
                         "pass a new file name",
                         path, sqlite3_errmsg(db));
}

/* Takes the schema from its current version to STORE_SCHEMA_VERSION, one step per
 * transaction. The version is re-read inside each transaction, so two processes opening the
 * same new store at once migrate it exactly once. */
static int migrate(store *s, gms_error *err)
{
    for (;;) {
        if (store_exec(s->db, "BEGIN IMMEDIATE", "starting a schema migration", err))
            return GMS_EDB;
        int v;
        if (read_user_version(s->db, &v, err))
            goto fail;
        if (v >= STORE_SCHEMA_VERSION) {
            s->version = v;
            return store_exec(s->db, "COMMIT", "finishing a schema migration", err);
        }
        char what[64];
        snprintf(what, sizeof what, "migrating the schema from version %d to %d", v, v + 1);
        if (migrations[v](s->db, err))
            goto fail;
        char pragma[48];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", v + 1);
        if (store_exec(s->db, pragma, what, err) || store_exec(s->db, "COMMIT", what, err))
            goto fail;
    }
fail:
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return GMS_EDB;
}

int store_open(const char *path, int flags, store **out, gms_error *err)
{
    *out = NULL;
    int readonly = (flags & STORE_READONLY) != 0;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (errno != ENOENT || readonly || !(flags & STORE_CREATE))
            return gms_error_set(err, GMS_EIO, "%s: cannot open the result store: %s", path,
                                 strerror(errno));
    } else if (!S_ISREG(sb.st_mode)) {
        return gms_error_set(err, GMS_EFORMAT, "%s: not a regular file", path);
    }
    int rc = store_check_header(path, err);
    if (rc)
        return rc;

    store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return gms_error_set(err, GMS_ENOMEM, "out of memory opening %s", path);
    }
    s->readonly = readonly;
    int oflags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path, &s->db, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        rc = gms_error_set(err, GMS_EDB, "%s: cannot open: %s", path,
                           s->db ? sqlite3_errmsg(s->db) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(s->db, 0);
    int v = 0;
    if (read_user_version(s->db, &v, NULL) != 0) {
        rc = gms_error_set(err, GMS_EFORMAT, "%s: corrupt or not a SQLite database (%s)", path,
                           sqlite3_errmsg(s->db));
        goto fail;
    }
    if ((rc = validate(s->db, path, v, err)) != 0)
        goto fail;
    if (v > STORE_SCHEMA_VERSION) {
        rc = gms_error_set(err, GMS_EVERSION,
                           "%s: written by a newer gpumemsim (schema version %d, this build "
                           "reads up to %d); upgrade gpumemsim",
                           path, v, STORE_SCHEMA_VERSION);
        goto fail;
    }
    /* before anything writes (WAL, migrations): a refused store stays byte-identical */
    if ((rc = store_check_schema(s->db, path, v, err)) != 0)
        goto fail;
    s->version = v;
    if (readonly) {
        if (v == 0) {
            rc = gms_error_set(err, GMS_EFORMAT,
                               "%s: an empty database, not a result store yet; fill it with "
                               "'gpumemsim sweep ... --db %s'",
                               path, path);
            goto fail;
        }
        *out = s;
        return 0;
    }
    if ((rc = store_exec(s->db, "PRAGMA journal_mode = WAL", "enabling WAL", err)) ||
        (rc = store_exec(s->db, "PRAGMA synchronous = NORMAL", "setting synchronous", err)) ||
        (rc = migrate(s, err)) ||
        (rc = store_exec(s->db, "PRAGMA foreign_keys = ON", "enabling foreign keys", err)))
        goto fail;
    *out = s;
    return 0;
fail:
    sqlite3_close(s->db);
    free(s->path);
    free(s);
    return rc;
}

void store_close(store *s)
{
    if (!s)
        return;
    sqlite3_finalize(s->put_run);
    sqlite3_finalize(s->has_run);
    sqlite3_finalize(s->put_timeline);
    sqlite3_finalize(s->put_iteration);
    /* A writer leaves the store as one file: back in rollback-journal mode, so that read-only
     * commands later (db runs, plot) neither need nor leave -wal and -shm files beside it.
     * Fails harmlessly (SQLITE_BUSY) while another process still has the store open; the
     * next writer switches to WAL again. */
    if (!s->readonly)
        sqlite3_exec(s->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
    sqlite3_close(s->db);
    free(s->path);
    free(s);
}

int store_schema_version(const store *s)
{
    return s->version;
}

/* Prepares *st from sql once; later calls reuse it (reset and unbound). */
static int prepared(store *s, sqlite3_stmt **st, const char *sql, gms_error *err)
{
    if (s->readonly)
        return gms_error_set(err, GMS_ESTATE, "%s: opened read-only", s->path);
    if (*st) {
        sqlite3_reset(*st);
        sqlite3_clear_bindings(*st);
        return 0;
    }
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
        return store_db_error(s->db, err, "preparing a statement");
    return 0;
}

int store_put_trace(store *s, const store_trace *t, gms_error *err)
{
    if (s->readonly)
        return gms_error_set(err, GMS_ESTATE, "%s: opened read-only", s->path);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT INTO traces (hash, name, path, ops, baseline_memory,"
                           " baseline_compute, constants, bottleneck)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (hash) DO UPDATE"
                           " SET constants = coalesce(constants, excluded.constants),"
                           " bottleneck = coalesce(bottleneck, excluded.bottleneck)",
                           -1, &st, NULL) != SQLITE_OK)
        return store_db_error(s->db, err, "recording a trace");
    sqlite3_bind_text(st, 1, t->hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, t->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, t->path, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)t->ops);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)t->baseline_memory);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)t->baseline_compute);
    if (t->constants || t->bottleneck) {
        sqlite3_bind_int64(st, 7, (sqlite3_int64)t->constants);
        sqlite3_bind_int64(st, 8, (sqlite3_int64)t->bottleneck);
    }
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_db_error(s->db, err, "recording a trace");
    return 0;
}

static void bind_key(sqlite3_stmt *st, const store_key *k)
{
    sqlite3_bind_text(st, 1, k->trace_hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, k->policy, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, k->params ? k->params : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)k->budget);
    sqlite3_bind_double(st, 5, k->remat_limit);
    sqlite3_bind_text(st, 6, k->semantics, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, k->allocator ? k->allocator : "ideal", -1, SQLITE_STATIC);
}

int store_has_run(store *s, const store_key *k, int *found, gms_error *err)
{
    *found = 0;
    int rc = prepared(s, &s->has_run,
                      "SELECT 1 FROM runs WHERE trace_hash = ?1 AND policy = ?2 AND params = ?3"
                      " AND budget = ?4 AND remat_limit = ?5 AND semantics = ?6 AND allocator = ?7",
                      err);
    if (rc)
        return rc;
    bind_key(s->has_run, k);
    rc = sqlite3_step(s->has_run);
    if (rc == SQLITE_ROW)
        *found = 1;
    else if (rc != SQLITE_DONE)
        return store_db_error(s->db, err, "looking up a run");
    sqlite3_reset(s->has_run);
    return 0;
}

int store_begin(store *s, gms_error *err)
{
    return store_exec(s->db, "BEGIN IMMEDIATE", "starting a transaction", err);
}

int store_commit(store *s, gms_error *err)
{
    return store_exec(s->db, "COMMIT", "committing", err);
}

void store_rollback(store *s)
{
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_put_run(store *s, const store_run *r, int64_t *run_id, gms_error *err)
{
    if (run_id)
        *run_id = 0;
    int rc = prepared(s, &s->put_run,
                      "INSERT OR IGNORE INTO runs (trace_hash, policy, params, budget,"
                      " remat_limit, semantics, allocator, ratio, status, overhead, evictions,"
                      " eager_evictions, remats, remat_compute, peak_memory, wall_s,"
                      " tool_version, peak_reserved, peak_allocated, largest_free,"
                      " frag_allocs, frag_ratio, op_overhead_ns, search_ns, evict_ns,"
                      " plan_iterations, plan_predicted, pred_err_mean, pred_err_max,"
                      " cache_hits, cache_misses, plan_s, checkpoints,"
                      " swap_out_bytes, swap_in_bytes, stall_ns, d2h_busy_ns, h2d_busy_ns, note)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
                      " ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28,"
                      " ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, ?39)",
                      err);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->put_run;
    bind_key(st, &r->key);
    sqlite3_bind_double(st, 8, r->ratio);
    sqlite3_bind_text(st, 9, r->status, -1, SQLITE_STATIC);
    if (strcmp(r->status, "ok") == 0)
        sqlite3_bind_double(st, 10, r->overhead);
    else
        sqlite3_bind_null(st, 10);
    sqlite3_bind_int64(st, 11, (sqlite3_int64)r->evictions);
    sqlite3_bind_int64(st, 12, (sqlite3_int64)r->eager_evictions);
    sqlite3_bind_int64(st, 13, (sqlite3_int64)r->remats);
    sqlite3_bind_int64(st, 14, (sqlite3_int64)r->remat_compute);
    sqlite3_bind_int64(st, 15, (sqlite3_int64)r->peak_memory);
    sqlite3_bind_double(st, 16, r->wall_s);
    sqlite3_bind_text(st, 17, GMS_VERSION, -1, SQLITE_STATIC);
    /* an ideal run's reserved and allocated peaks are its peak memory */
    int ideal = !r->key.allocator || strcmp(r->key.allocator, "ideal") == 0;
    sqlite3_bind_int64(st, 18, (sqlite3_int64)(ideal ? r->peak_memory : r->peak_reserved));
    sqlite3_bind_int64(st, 19, (sqlite3_int64)(ideal ? r->peak_memory : r->peak_allocated));
    sqlite3_bind_int64(st, 20, (sqlite3_int64)r->largest_free);
    sqlite3_bind_int64(st, 21, (sqlite3_int64)r->frag_allocs);
    sqlite3_bind_double(st, 22, r->frag_ratio);
    sqlite3_bind_int64(st, 23, (sqlite3_int64)r->op_overhead_ns);
    sqlite3_bind_int64(st, 24, (sqlite3_int64)r->search_ns);
    sqlite3_bind_int64(st, 25, (sqlite3_int64)r->evict_ns);
    sqlite3_bind_int64(st, 26, (sqlite3_int64)r->plan_iterations);
    sqlite3_bind_int64(st, 27, (sqlite3_int64)r->plan_predicted);
    if (r->plan_predicted) {
        sqlite3_bind_double(st, 28, r->pred_err_mean);
        sqlite3_bind_double(st, 29, r->pred_err_max);
    }
    sqlite3_bind_int64(st, 30, (sqlite3_int64)r->cache_hits);
    sqlite3_bind_int64(st, 31, (sqlite3_int64)r->cache_misses);
    sqlite3_bind_double(st, 32, r->plan_s);
    sqlite3_bind_int64(st, 33, (sqlite3_int64)r->checkpoints);
    sqlite3_bind_int64(st, 34, (sqlite3_int64)r->swap_out_bytes);
    sqlite3_bind_int64(st, 35, (sqlite3_int64)r->swap_in_bytes);
    sqlite3_bind_int64(st, 36, (sqlite3_int64)r->stall_ns);
    sqlite3_bind_int64(st, 37, (sqlite3_int64)r->d2h_busy_ns);
    sqlite3_bind_int64(st, 38, (sqlite3_int64)r->h2d_busy_ns);
    if (r->note && *r->note)
        sqlite3_bind_text(st, 39, r->note, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return store_db_error(s->db, err, "recording a run");
    if (run_id && sqlite3_changes(s->db) == 1)
        *run_id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

int store_put_timeline(store *s, int64_t run_id, int64_t seq, uint64_t clock, uint64_t memory,
                       const char *kind, gms_error *err)
{
    if (s->version < 2)
        return gms_error_set(err, GMS_ESTATE, "%s: schema too old for timelines", s->path);
    int rc = prepared(s, &s->put_timeline,
                      "INSERT OR IGNORE INTO timelines (run_id, seq, clock, memory, kind)"
                      " VALUES (?1, ?2, ?3, ?4, ?5)",
                      err);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->put_timeline;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, seq);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)clock);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)memory);
    sqlite3_bind_text(st, 5, kind, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return store_db_error(s->db, err, "recording a timeline sample");
    return 0;
}

int store_put_iteration(store *s, int64_t run_id, const store_iteration *it, gms_error *err)
{
    if (s->version < 6)
        return gms_error_set(err, GMS_ESTATE, "%s: schema too old for iterations", s->path);
    int rc = prepared(s, &s->put_iteration,
                      "INSERT OR IGNORE INTO iterations (run_id, iteration, input_size, status,"
                      " start_memory, peak_memory, predicted_peak, cache_hit, plan_ns,"
                      " clock_ns, compute_ns, recompute_ns, layers, checkpointed, plan)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
                      " ?15)",
                      err);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->put_iteration;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, it->iteration);
    if (it->input_size >= 0)
        sqlite3_bind_int64(st, 3, it->input_size);
    sqlite3_bind_text(st, 4, it->status, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)it->start_memory);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)it->peak_memory);
    if (it->predicted_peak >= 0)
        sqlite3_bind_double(st, 7, it->predicted_peak);
    if (it->cache_hit >= 0)
        sqlite3_bind_int(st, 8, it->cache_hit);
    sqlite3_bind_int64(st, 9, (sqlite3_int64)it->plan_ns);
    sqlite3_bind_int64(st, 10, (sqlite3_int64)it->clock_ns);
    sqlite3_bind_int64(st, 11, (sqlite3_int64)it->compute_ns);
    sqlite3_bind_int64(st, 12, (sqlite3_int64)it->recompute_ns);
    sqlite3_bind_int64(st, 13, it->n_layers);
    sqlite3_bind_int64(st, 14, it->n_checkpointed);
    sqlite3_bind_text(st, 15, it->plan ? it->plan : "", -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return store_db_error(s->db, err, "recording an iteration");
    return 0;
}
