/* Unit tests of the result store: schema, migrations, refusal of foreign files, the unique
 * run key, export and merge. */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "test_sql.h"
#include "test_tmpdir.h"
#include "store.h"
#include "store_solution.h"

static void setup(void)
{
    tmpdir_make("gms-store");
}

static void teardown(void)
{
    tmpdir_remove();
}

static void put_trace(store *s, const char *hash, const char *name)
{
    store_trace t = {.name = name, .path = name, .ops = 10, .baseline_memory = 1000,
                     .baseline_compute = 500};
    snprintf(t.hash, sizeof t.hash, "%s", hash);
    gms_error err;
    ck_assert_msg(store_put_trace(s, &t, &err) == 0, "%s", err.msg);
}

static store_run make_run(const char *hash, const char *policy, uint64_t budget, int ok)
{
    store_run r = {.key = {hash, policy, "", budget, 2.0, "simrd", NULL},
                   .ratio = (double)budget / 1000.0,
                   .status = ok ? "ok" : "oom",
                   .overhead = 1.25,
                   .evictions = 3,
                   .peak_memory = budget};
    return r;
}

static int counter(void *ctx, const store_row *r)
{
    (void)r;
    (*(size_t *)ctx)++;
    return 0;
}

static size_t count_rows(store *s, const store_filter *f)
{
    size_t n = 0;
    gms_error err;
    ck_assert_msg(store_query_runs(s, f, counter, &n, &err) == 0, "%s", err.msg);
    return n;
}

static const char *journal_mode(const char *p, char *buf, size_t len)
{
    sqlite3 *db;
    sqlite3_open(p, &db);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return buf;
}

/* WAL while a writer has the store open (readers never block it); one self-contained file
 * again once it is closed, so read-only commands leave no -wal/-shm beside it. */
START_TEST(test_new_store_has_current_schema_and_wal_while_open)
{
    store *s;
    gms_error err;
    char mode[16];
    const char *p = path_in("new.db");
    ck_assert_msg(store_open(p, STORE_CREATE, &s, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(store_schema_version(s), STORE_SCHEMA_VERSION);
    ck_assert_str_eq(journal_mode(p, mode, sizeof mode), "wal");
    store_close(s);
    ck_assert_str_eq(journal_mode(p, mode, sizeof mode), "delete");
    ck_assert_int_eq(sql_int(p, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM sqlite_master WHERE name IN "
                                   "('traces','runs','timelines')"),
                     3);
}
END_TEST

/* The v1 schema exactly as gpumemsim wrote it (frozen here on purpose: it is history). */
static const char v1_schema[] =
    "CREATE TABLE traces (hash TEXT PRIMARY KEY, name TEXT NOT NULL, path TEXT NOT NULL,"
    " ops INTEGER NOT NULL, baseline_memory INTEGER NOT NULL, baseline_compute INTEGER NOT NULL,"
    " added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));"
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, trace_hash TEXT NOT NULL REFERENCES traces(hash),"
    " policy TEXT NOT NULL, params TEXT NOT NULL DEFAULT '', budget INTEGER NOT NULL, ratio REAL,"
    " remat_limit REAL NOT NULL, semantics TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN"
    " ('ok','oom','remat-limit')), overhead REAL CHECK ((status = 'ok') = (overhead IS NOT NULL)),"
    " evictions INTEGER NOT NULL, eager_evictions INTEGER NOT NULL, remats INTEGER NOT NULL,"
    " remat_compute INTEGER NOT NULL, peak_memory INTEGER NOT NULL, wall_s REAL NOT NULL,"
    " tool_version TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT"
    " (strftime('%Y-%m-%dT%H:%M:%fZ','now')), UNIQUE (trace_hash, policy, params, budget,"
    " remat_limit, semantics));"
    "INSERT INTO traces (hash, name, path, ops, baseline_memory, baseline_compute) VALUES"
    " ('00000000000000aa', 'old', 'old.gmt', 5, 1000, 100);"
    "INSERT INTO runs (trace_hash, policy, budget, ratio, remat_limit, semantics, status,"
    " overhead, evictions, eager_evictions, remats, remat_compute, peak_memory, wall_s,"
    " tool_version) VALUES ('00000000000000aa', 'dtr', 500, 0.5, 2.0, 'simrd', 'ok', 1.5, 1, 0,"
    " 1, 50, 500, 0.01, '0.0.1');"
    "INSERT INTO runs (trace_hash, policy, budget, ratio, remat_limit, semantics, status,"
    " overhead, evictions, eager_evictions, remats, remat_compute, peak_memory, wall_s,"
    " tool_version) VALUES ('00000000000000aa', 'hybrid', 500, 0.5, 2.0, 'simrd', 'ok', 1.7, 1,"
    " 0, 1, 70, 500, 0.01, '0.0.1');"
    "PRAGMA user_version = 1;";

START_TEST(test_v1_store_is_migrated_keeping_its_runs)
{
    const char *p = path_in("v1.db");
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(p, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, v1_schema, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    store *s;
    gms_error err;
    /* read-only opens read v1 as it is */
    ck_assert_msg(store_open(p, STORE_READONLY, &s, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(store_schema_version(s), 1);
    ck_assert_uint_eq(count_rows(s, NULL), 2);
    /* and refuse to write, saying why */
    store_run r = make_run("0123456789abcdef", "dtr", 500, 1);
    ck_assert_int_eq(store_put_run(s, &r, NULL, &err), GMS_ESTATE);
    ck_assert_ptr_nonnull(strstr(err.msg, "opened read-only"));
    store_close(s);
    ck_assert_int_eq(sql_int(p, "PRAGMA user_version"), 1);

    ck_assert_msg(store_open(p, 0, &s, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(store_schema_version(s), STORE_SCHEMA_VERSION);
    ck_assert_uint_eq(count_rows(s, NULL), 2);
    ck_assert_msg(store_put_timeline(s, 1, 0, 10, 400, "compute", &err) == 0, "%s", err.msg);
    store_close(s);
    ck_assert_int_eq(sql_int(p, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM timelines"), 1);
    /* v5: old runs had no runtime costs */
    ck_assert_int_eq(sql_int(p, "SELECT op_overhead_ns + search_ns + evict_ns + 1 FROM runs"), 1);
    /* v6: no planner figures, no iterations */
    ck_assert_int_eq(sql_int(p, "SELECT plan_iterations + checkpoints + cache_hits + 1 FROM runs"),
                     1);
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM runs WHERE pred_err_mean IS NULL"), 2);
    /* v8: no solutions yet */
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM solutions"), 0);
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM iterations"), 0);
    /* v7: no swapping */
    ck_assert_int_eq(sql_int(p, "SELECT swap_out_bytes + swap_in_bytes + stall_ns + d2h_busy_ns"
                                   " + h2d_busy_ns + 1 FROM runs"), 1);
    /* v11: runs stored before have no note */
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM runs WHERE note IS NULL"), 2);
    /* v10: what was hybrid then is hybrid-mix now (the name hybrid is the measured director) */
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM runs WHERE policy = 'hybrid'"), 0);
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM runs WHERE policy = 'hybrid-mix'"
                                   " AND overhead = 1.7"), 1);
    /* and so in a merge of a store not migrated */
    const char *p1 = path_in("v1-again.db"), *pm = path_in("v1-merged.db");
    ck_assert_int_eq(sqlite3_open(p1, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, v1_schema, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    const char *in[] = {p1};
    ck_assert_msg(store_merge(in, 1, pm, 0, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sql_int(pm, "SELECT count(*) FROM runs WHERE policy = 'hybrid'"), 0);
    ck_assert_int_eq(sql_int(pm, "SELECT count(*) FROM runs WHERE policy = 'hybrid-mix'"), 1);
}
END_TEST

typedef struct iters_seen {
    store_iteration it[4];
    char plan[4][32], status[4][8];
    size_t n;
} iters_seen;

static int keep_iteration(void *ctx, const store_iteration *it)
{
    iters_seen *x = ctx;
    ck_assert_uint_lt(x->n, 4);
    x->it[x->n] = *it;
    snprintf(x->plan[x->n], sizeof x->plan[0], "%s", it->plan);
    snprintf(x->status[x->n], sizeof x->status[0], "%s", it->status);
    x->n++;
    return 0;
}

static int planner_row(void *ctx, const store_row *r)
{
    *(store_row *)ctx = *r;
    ((store_row *)ctx)->policy = NULL; /* strings die with the callback */
    return 0;
}

/* Checkpoint-planner runs: their figures and iterations go in and come back (NULLs for no
 * prediction, no cache, no input size), and a merge keeps the iterations with their run. */
/* v8: the solver's answers, keyed like runs: each key field tells solutions apart, a second
 * put of a key keeps the first, a missing schedule stays missing, and merge carries them. */
START_TEST(test_solutions_round_trip_and_merge)
{
    store *s;
    gms_error err;
    const char *p = path_in("sol.db"), *po = path_in("sol-merged.db");
    ck_assert_int_eq(store_open(p, STORE_CREATE, &s, &err), 0);
    int64_t n;
    ck_assert_int_eq(store_count_solutions(s, &n, &err), 0);
    ck_assert_int_eq(n, 0);
    const unsigned char sched[] = {3, 0, 1, 0, 1, 1, 0, 0, 2};
    store_solution a = {.key = {"00000000000000d4", 0, "layers", 4096, "exact", 0, NULL},
                        .status = "optimal", .objective = 12.5, .lower_bound = 11.0,
                        .gap = 0, .solve_s = 0.75, .nodes = 3, .schedule = sched,
                        .schedule_len = sizeof sched};
    ck_assert_msg(store_put_solution(s, &a, &err) == 0, "%s", err.msg);
    store_solution none = {.key = {"00000000000000d4", 0, "layers", 1024, "exact", 0, NULL},
                           .status = "infeasible", .lower_bound = -1, .solve_s = 0.1,
                           .nodes = 3};
    ck_assert_msg(store_put_solution(s, &none, &err) == 0, "%s", err.msg);
    store_solution again = a;
    again.objective = 99;
    ck_assert_int_eq(store_put_solution(s, &again, &err), 0);
    ck_assert_int_eq(store_count_solutions(s, &n, &err), 0);
    ck_assert_int_eq(n, 2);

    store_solution got = {0};
    int found;
    ck_assert_int_eq(store_get_solution(s, &a.key, &got, &found, &err), 0);
    ck_assert_int_eq(found, 1);
    ck_assert_str_eq(got.status, "optimal");
    ck_assert(got.objective == 12.5 && got.lower_bound == 11.0 && got.solve_s == 0.75);
    ck_assert_uint_eq(got.nodes, 3);
    ck_assert_uint_eq(got.schedule_len, sizeof sched);
    ck_assert_int_eq(memcmp(got.schedule, sched, sizeof sched), 0);
    store_solution_clear(&got);
    ck_assert_int_eq(store_get_solution(s, &none.key, &got, &found, &err), 0);
    ck_assert_int_eq(found, 1);
    ck_assert_str_eq(got.status, "infeasible");
    ck_assert_ptr_null(got.schedule);
    ck_assert(got.lower_bound < 0);
    store_solution_clear(&got);
    /* v10: which bound lower_bound is comes back (a's is the LP's) */
    ck_assert_int_eq(store_get_solution(s, &a.key, &got, &found, &err), 0);
    ck_assert_int_eq(got.bound_boundary, 0);
    store_solution_clear(&got);
    store_solution by_boundary = a;
    by_boundary.key.budget = 8192;
    by_boundary.status = "feasible";
    by_boundary.bound_boundary = 1;
    ck_assert_msg(store_put_solution(s, &by_boundary, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(store_get_solution(s, &by_boundary.key, &got, &found, &err), 0);
    ck_assert(found == 1 && got.bound_boundary == 1 && got.lower_bound == 11.0);
    store_solution_clear(&got);
    /* any field of the key differing: not found */
    store_solution_key other[] = {
        {"00000000000000d5", 0, "layers", 4096, "exact", 0, NULL},
        {"00000000000000d4", 1, "layers", 4096, "exact", 0, NULL},
        {"00000000000000d4", 0, "none", 4096, "exact", 0, NULL},
        {"00000000000000d4", 0, "layers", 4097, "exact", 0, NULL},
        {"00000000000000d4", 0, "layers", 4096, "approx", 0, NULL},
        {"00000000000000d4", 0, "layers", 4096, "exact", 30, NULL},
        /* v12: an answer found without the window search is not one found with it */
        {"00000000000000d4", 0, "layers", 4096, "exact", 0, "windows"},
    };
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        ck_assert_int_eq(store_get_solution(s, &other[i], &got, &found, &err), 0);
        ck_assert_msg(found == 0, "key %zu found", i);
    }
    store_close(s);

    const char *in[] = {p};
    ck_assert_msg(store_merge(in, 1, po, 0, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sql_int(po, "SELECT count(*) FROM solutions"), 3);
    ck_assert_int_eq(sql_int(po, "SELECT count(*) FROM solutions"
                                    " WHERE lower_bound_from = 'boundary'"), 1);
    ck_assert_int_eq(sql_int(po, "SELECT length(schedule) FROM solutions WHERE budget = 4096"),
                     (int)sizeof sched);
}
END_TEST

START_TEST(test_planner_figures_and_iterations_round_trip)
{
    store *s;
    gms_error err;
    const char *p = path_in("plan.db"), *po = path_in("plan-merged.db");
    ck_assert_int_eq(store_open(p, STORE_CREATE, &s, &err), 0);
    put_trace(s, "00000000000000c3", "t3");
    store_run r = make_run("00000000000000c3", "mimose", 700, 1);
    r.key.params = "bucket=5";
    r.plan_iterations = 2;
    r.plan_predicted = 1;
    r.pred_err_mean = r.pred_err_max = 0.25;
    r.cache_hits = 1;
    r.cache_misses = 1;
    r.plan_s = 0.5;
    r.checkpoints = 3;
    int64_t id;
    ck_assert_int_eq(store_put_run(s, &r, &id, &err), 0);
    ck_assert_int_gt(id, 0);
    store_iteration a = {.iteration = 0, .input_size = 128, .status = "ok", .start_memory = 10,
                         .peak_memory = 600, .predicted_peak = -1, .cache_hit = -1,
                         .plan_ns = 7, .clock_ns = 120, .compute_ns = 100, .recompute_ns = 20,
                         .n_layers = 4, .n_checkpointed = 2, .plan = "h.0,h.1"};
    store_iteration b = {.iteration = 1, .input_size = -1, .status = "oom", .start_memory = 10,
                         .peak_memory = 700, .predicted_peak = 650.5, .cache_hit = 1,
                         .n_layers = 4, .n_checkpointed = 1, .plan = "h.3"};
    ck_assert_msg(store_put_iteration(s, id, &a, &err) == 0, "%s", err.msg);
    ck_assert_msg(store_put_iteration(s, id, &b, &err) == 0, "%s", err.msg);
    store_row row;
    ck_assert_int_eq(store_query_runs(s, NULL, planner_row, &row, &err), 0);
    ck_assert_uint_eq(row.plan_iterations, 2);
    ck_assert_uint_eq(row.plan_predicted, 1);
    ck_assert_int_eq(row.has_pred_err, 1);
    ck_assert(row.pred_err_max == 0.25);
    ck_assert_uint_eq(row.cache_hits + row.cache_misses, 2);
    ck_assert(row.plan_s == 0.5);
    ck_assert_uint_eq(row.checkpoints, 3);
    iters_seen x = {0};
    ck_assert_int_eq(store_query_iterations(s, id, keep_iteration, &x, &err), 0);
    ck_assert_uint_eq(x.n, 2);
    ck_assert_int_eq(x.it[0].input_size, 128);
    ck_assert(x.it[0].predicted_peak < 0);
    ck_assert_int_eq(x.it[0].cache_hit, -1);
    ck_assert_uint_eq(x.it[0].recompute_ns, 20);
    ck_assert_str_eq(x.plan[0], "h.0,h.1");
    ck_assert_int_eq(x.it[1].input_size, -1);
    ck_assert(x.it[1].predicted_peak == 650.5);
    ck_assert_int_eq(x.it[1].cache_hit, 1);
    ck_assert_str_eq(x.status[1], "oom");
    store_close(s);

    const char *in[] = {p};
    ck_assert_msg(store_merge(in, 1, po, 0, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sql_int(po, "SELECT count(*) FROM iterations"), 2);
    ck_assert_int_eq(sql_int(po, "SELECT checkpoints FROM runs"), 3);
    ck_assert_int_eq(sql_int(po, "SELECT count(*) FROM iterations i JOIN runs r ON"
                                    " r.id = i.run_id WHERE r.params = 'bucket=5'"), 2);
}
END_TEST

START_TEST(test_newer_schema_is_refused)
{
    const char *p = path_in("future.db");
    sqlite3 *db;
    sqlite3_open(p, &db);
    ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE runs(x); PRAGMA user_version = 99;", NULL,
                                  NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    store *s;
    gms_error err;
    ck_assert_int_eq(store_open(p, STORE_CREATE, &s, &err), GMS_EVERSION);
    ck_assert_ptr_nonnull(strstr(err.msg, "newer"));
    ck_assert_int_eq(sql_int(p, "PRAGMA user_version"), 99);
}
END_TEST

/* Bytes of a file, to show that a refused file was not modified. */
static char *slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    ck_assert_ptr_nonnull(f);
    char *buf = malloc(1 << 16);
    *n = fread(buf, 1, 1 << 16, f);
    fclose(f);
    return buf;
}

START_TEST(test_non_sqlite_and_corrupt_files_are_refused_untouched)
{
    const char *texts[] = {"hello, I am a CSV file\n1,2,3\n", NULL};
    const char *p = path_in("notdb.db");
    FILE *f = fopen(p, "wb");
    fputs(texts[0], f);
    fclose(f);
    store *s;
    gms_error err;
    ck_assert_int_eq(store_open(p, STORE_CREATE, &s, &err), GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "not a SQLite database"));
    size_t n;
    char *b = slurp(p, &n);
    ck_assert_uint_eq(n, strlen(texts[0]));
    ck_assert_int_eq(memcmp(b, texts[0], n), 0);
    free(b);

    /* a real store with its pages scrambled after the header */
    const char *c = path_in("corrupt.db");
    ck_assert_int_eq(store_open(c, STORE_CREATE, &s, &err), 0);
    store_close(s);
    f = fopen(c, "r+b");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    for (long off = 100; off < size; off += 7) {
        fseek(f, off, SEEK_SET);
        fputc((int)(off * 31) & 0xff, f);
    }
    fclose(f);
    size_t n1, n2;
    char *before = slurp(c, &n1);
    int rc = store_open(c, STORE_CREATE, &s, &err);
    ck_assert_int_ne(rc, 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "corrupt"));
    char *after = slurp(c, &n2);
    ck_assert_uint_eq(n1, n2);
    ck_assert_int_eq(memcmp(before, after, n1), 0);
    free(before);
    free(after);
}
END_TEST

START_TEST(test_foreign_database_and_missing_file_are_refused)
{
    const char *p = path_in("other.db");
    sqlite3 *db;
    sqlite3_open(p, &db);
    sqlite3_exec(db, "CREATE TABLE customers(name)", NULL, NULL, NULL);
    sqlite3_close(db);
    store *s;
    gms_error err;
    ck_assert_int_eq(store_open(p, STORE_CREATE, &s, &err), GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "not a gpumemsim result store"));
    ck_assert_int_eq(store_open(path_in("absent.db"), 0, &s, &err), GMS_EIO);
    ck_assert_int_eq(store_open(path_in("absent.db"), STORE_READONLY, &s, &err), GMS_EIO);
    ck_assert_int_ne(access(path_in("absent.db"), F_OK), 0);
}
END_TEST

START_TEST(test_repeated_run_key_is_stored_once)
{
    store *s;
    gms_error err;
    ck_assert_int_eq(store_open(path_in("dup.db"), STORE_CREATE, &s, &err), 0);
    put_trace(s, "0123456789abcdef", "t");
    store_run r = make_run("0123456789abcdef", "dtr", 500, 1);
    int64_t id1, id2;
    ck_assert_int_eq(store_put_run(s, &r, &id1, &err), 0);
    ck_assert_int_gt(id1, 0);
    r.overhead = 9.0; /* same key, other outcome: still the first row */
    ck_assert_int_eq(store_put_run(s, &r, &id2, &err), 0);
    ck_assert_int_eq(id2, 0);
    store_key other = r.key;
    other.params = "seed=1";
    int found;
    ck_assert_int_eq(store_has_run(s, &r.key, &found, &err), 0);
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(store_has_run(s, &other, &found, &err), 0);
    ck_assert_int_eq(found, 0);
    ck_assert_uint_eq(count_rows(s, NULL), 1);
    store_close(s);
}
END_TEST

static int grab_overhead(void *ctx, const store_row *r)
{
    ((int *)ctx)[0] = r->has_overhead;
    return 0;
}

START_TEST(test_failed_run_has_no_overhead_and_filters_apply)
{
    store *s;
    gms_error err;
    ck_assert_int_eq(store_open(path_in("f.db"), STORE_CREATE, &s, &err), 0);
    put_trace(s, "00000000000000a1", "alpha");
    put_trace(s, "00000000000000b2", "beta");
    store_run r = make_run("00000000000000a1", "dtr", 100, 0);
    ck_assert_int_eq(store_put_run(s, &r, NULL, &err), 0);
    r = make_run("00000000000000b2", "lru", 900, 1);
    ck_assert_int_eq(store_put_run(s, &r, NULL, &err), 0);
    int has = -1;
    store_filter fa = {.trace_name = "alpha"};
    ck_assert_int_eq(store_query_runs(s, &fa, grab_overhead, &has, &err), 0);
    ck_assert_int_eq(has, 0);
    const char *pols[] = {"lru"};
    store_filter fp = {.policies = pols, .n_policies = 1};
    ck_assert_uint_eq(count_rows(s, &fp), 1);
    store_filter fg = {.trace_name = "b*"};
    ck_assert_uint_eq(count_rows(s, &fg), 1);
    store_close(s);
}
END_TEST

START_TEST(test_export_csv_and_json)
{
    store *s;
    gms_error err;
    ck_assert_int_eq(store_open(path_in("e.db"), STORE_CREATE, &s, &err), 0);
    put_trace(s, "00000000000000a1", "we,ird\"name");
    store_run r = make_run("00000000000000a1", "dtr", 300, 1);
    ck_assert_int_eq(store_put_run(s, &r, NULL, &err), 0);
    r = make_run("00000000000000a1", "lru", 100, 0);
    ck_assert_int_eq(store_put_run(s, &r, NULL, &err), 0);
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(store_export_csv(s, NULL, f, &err), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "trace,trace_hash,policy,params,ratio,budget"));
    ck_assert_ptr_nonnull(strstr(buf, "\"we,ird\"\"name\",00000000000000a1,dtr,,0.3,300,2,simrd,"
                                      "ok,1.25,3,"));
    ck_assert_ptr_nonnull(strstr(buf, ",lru,,0.1,100,2,simrd,oom,,3,"));
    free(buf);
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(store_export_json(s, NULL, f, &err), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "\"trace\": \"we,ird\\\"name\""));
    ck_assert_ptr_nonnull(strstr(buf, "\"status\": \"oom\", \"overhead\": null"));
    ck_assert_int_eq(buf[0], '[');
    free(buf);
    store_close(s);
}
END_TEST

typedef struct notes_seen {
    char note[3][128];
    size_t n;
} notes_seen;

static int keep_note(void *ctx, const store_row *r)
{
    notes_seen *x = ctx;
    ck_assert_uint_lt(x->n, 3);
    snprintf(x->note[x->n++], sizeof x->note[0], "%s", r->note);
    return 0;
}

/* v11: a checkmate run's note (worse than a heuristic's run) is stored, read back, exported
 * and merged; a run without one reads "" and exports null / an empty field. */
START_TEST(test_run_note_round_trip_export_and_merge)
{
    store *s;
    gms_error err;
    const char *p = path_in("note.db"), *pm = path_in("note-merged.db");
    ck_assert_int_eq(store_open(p, STORE_CREATE, &s, &err), 0);
    put_trace(s, "00000000000000a1", "t1");
    store_run r = make_run("00000000000000a1", "checkmate", 300, 1);
    r.note = "the layers graph's answer is worse, \"quoted\"";
    ck_assert_int_eq(store_put_run(s, &r, NULL, &err), 0);
    r = make_run("00000000000000a1", "dtr", 300, 1);
    r.note = ""; /* "" is none, as NULL */
    ck_assert_int_eq(store_put_run(s, &r, NULL, &err), 0);
    notes_seen seen = {0};
    ck_assert_int_eq(store_query_runs(s, NULL, keep_note, &seen, &err), 0);
    ck_assert_uint_eq(seen.n, 2);
    ck_assert_str_eq(seen.note[0], "the layers graph's answer is worse, \"quoted\"");
    ck_assert_str_eq(seen.note[1], "");
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(store_export_csv(s, NULL, f, &err), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, ",h2d_busy_ns,note,tool_version,wall_s,created_at\n"));
    ck_assert_ptr_nonnull(strstr(buf, ",\"the layers graph's answer is worse, \"\"quoted\"\"\","
                                      GMS_VERSION ","));
    ck_assert_ptr_nonnull(strstr(buf, ",0,," GMS_VERSION ",")); /* dtr: no note */
    free(buf);
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(store_export_json(s, NULL, f, &err), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "\"note\": \"the layers graph's answer is worse, "
                                      "\\\"quoted\\\"\"}"));
    ck_assert_ptr_nonnull(strstr(buf, "\"note\": null}"));
    free(buf);
    store_close(s);
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM runs WHERE note IS NULL"), 1);
    const char *in[] = {p};
    ck_assert_msg(store_merge(in, 1, pm, 0, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sql_int(pm, "SELECT count(*) FROM runs WHERE policy = 'checkmate'"
                                    " AND note LIKE 'the layers graph%'"), 1);
    ck_assert_int_eq(sql_int(pm, "SELECT count(*) FROM runs WHERE note IS NULL"), 1);
}
END_TEST

START_TEST(test_merge_is_a_union_without_duplicates)
{
    store *a, *b;
    gms_error err;
    const char *pa = path_in("a.db"), *pb = path_in("b.db"), *po = path_in("out.db");
    ck_assert_int_eq(store_open(pa, STORE_CREATE, &a, &err), 0);
    ck_assert_int_eq(store_open(pb, STORE_CREATE, &b, &err), 0);
    put_trace(a, "00000000000000a1", "t1");
    put_trace(b, "00000000000000a1", "t1");
    put_trace(b, "00000000000000b2", "t2");
    int64_t id;
    store_run r = make_run("00000000000000a1", "dtr", 100, 1);
    ck_assert_int_eq(store_put_run(a, &r, &id, &err), 0);
    ck_assert_int_eq(store_put_timeline(a, id, 0, 5, 50, "compute", &err), 0);
    ck_assert_int_eq(store_put_run(b, &r, NULL, &err), 0); /* in both */
    r = make_run("00000000000000a1", "lru", 200, 1);
    ck_assert_int_eq(store_put_run(a, &r, NULL, &err), 0);
    r = make_run("00000000000000b2", "lru", 300, 0);
    ck_assert_int_eq(store_put_run(b, &r, NULL, &err), 0);
    store_close(a);
    store_close(b);

    const char *in[] = {pa, pb};
    ck_assert_msg(store_merge(in, 2, po, 0, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sql_int(po, "SELECT count(*) FROM runs"), 3);
    ck_assert_int_eq(sql_int(po, "SELECT count(*) FROM traces"), 2);
    ck_assert_int_eq(sql_int(po, "SELECT count(*) FROM timelines"), 1);
    /* an existing output is kept unless forced */
    ck_assert_int_eq(store_merge(in, 1, po, 0, &err), GMS_EIO);
    ck_assert_ptr_nonnull(strstr(err.msg, "--force"));
    ck_assert_int_eq(sql_int(po, "SELECT count(*) FROM runs"), 3);
    ck_assert_int_eq(store_merge(in, 1, po, 1, &err), 0);
    ck_assert_int_eq(sql_int(po, "SELECT count(*) FROM runs"), 2);
    /* a bad input leaves no output and no temporary file */
    const char *bad = path_in("bad.db");
    FILE *f = fopen(bad, "w");
    fputs("not a database at all, really\n", f);
    fclose(f);
    const char *in2[] = {pa, bad};
    const char *po2 = path_in("out2.db");
    ck_assert_int_eq(store_merge(in2, 2, po2, 0, &err), GMS_EFORMAT);
    ck_assert_int_ne(access(po2, F_OK), 0);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q tmp", tmp_dir);
    ck_assert_int_ne(system(cmd), 0);
}
END_TEST

START_TEST(test_hash_depends_on_content_only)
{
    const char *p1 = path_in("h1"), *p2 = path_in("h2"), *p3 = path_in("h3");
    FILE *f = fopen(p1, "w");
    fputs("abc", f);
    fclose(f);
    f = fopen(p2, "w");
    fputs("abc", f);
    fclose(f);
    f = fopen(p3, "w");
    fputs("abd", f);
    fclose(f);
    char h1[17], h2[17], h3[17];
    gms_error err;
    ck_assert_int_eq(store_hash_file(p1, h1, &err), 0);
    ck_assert_int_eq(store_hash_file(p2, h2, &err), 0);
    ck_assert_int_eq(store_hash_file(p3, h3, &err), 0);
    ck_assert_str_eq(h1, h2);
    ck_assert_str_ne(h1, h3);
    ck_assert_str_eq(h1, "e71fa2190541574b"); /* FNV-1a 64 of "abc" */
    /* the file hash is store_fnv1a over the bytes, however they are split */
    ck_assert_uint_eq(store_fnv1a(store_fnv1a(STORE_FNV_OFFSET, "ab", 2), "c", 1),
                      0xe71fa2190541574bULL);
    ck_assert_int_eq(store_hash_file(path_in("nope"), h1, &err), GMS_EIO);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("store");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_new_store_has_current_schema_and_wal_while_open);
    tcase_add_test(tc, test_v1_store_is_migrated_keeping_its_runs);
    tcase_add_test(tc, test_newer_schema_is_refused);
    tcase_add_test(tc, test_non_sqlite_and_corrupt_files_are_refused_untouched);
    tcase_add_test(tc, test_foreign_database_and_missing_file_are_refused);
    tcase_add_test(tc, test_repeated_run_key_is_stored_once);
    tcase_add_test(tc, test_failed_run_has_no_overhead_and_filters_apply);
    tcase_add_test(tc, test_export_csv_and_json);
    tcase_add_test(tc, test_run_note_round_trip_export_and_merge);
    tcase_add_test(tc, test_merge_is_a_union_without_duplicates);
    tcase_add_test(tc, test_planner_figures_and_iterations_round_trip);
    tcase_add_test(tc, test_hash_depends_on_content_only);
    tcase_add_test(tc, test_solutions_round_trip_and_merge);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
