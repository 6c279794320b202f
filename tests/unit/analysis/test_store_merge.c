/* Unit tests of db merge on conflicting results (issue 31): two inputs holding one run key
 * with different results are refused naming the run and both results, unless a rule says which
 * to keep; equal results merge silently. */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "store.h"
#include "test_sql.h"
#include "test_tmpdir.h"

static void setup(void)
{
    tmpdir_make("gms-merge");
}

static void teardown(void)
{
    tmpdir_remove();
}

/* A store with trace t1 and runs dtr@100 (overhead dtr_overhead, with a timeline sample)
 * and lru@200 (overhead 1.5, wall time wall: not a result, so never a conflict). */
static void make_store(const char *path, double dtr_overhead, double wall, const char *created)
{
    store *s;
    gms_error err;
    ck_assert_msg(store_open(path, STORE_CREATE, &s, &err) == 0, "%s", err.msg);
    store_trace t = {.name = "t1", .path = "t1", .ops = 10, .baseline_memory = 1000,
                     .baseline_compute = 500};
    snprintf(t.hash, sizeof t.hash, "%s", "00000000000000a1");
    ck_assert_msg(store_put_trace(s, &t, &err) == 0, "%s", err.msg);
    store_run r = {.key = {"00000000000000a1", "dtr", "", 100, 2.0, "simrd", NULL},
                   .ratio = 0.1, .status = "ok", .overhead = dtr_overhead, .evictions = 3,
                   .peak_memory = 100, .wall_s = wall};
    int64_t id;
    ck_assert_msg(store_put_run(s, &r, &id, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(store_put_timeline(s, id, 0, 5, (uint64_t)(dtr_overhead * 10), "compute",
                                        &err), 0);
    r.key.policy = "lru";
    r.key.budget = 200;
    r.overhead = 1.5;
    ck_assert_msg(store_put_run(s, &r, NULL, &err) == 0, "%s", err.msg);
    store_close(s);
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE runs SET created_at = '%s'", created);
    sql_exec(path, sql);
}

START_TEST(test_merge_refuses_conflicting_results_naming_the_run_and_both_values)
{
    const char *pa = path_in("a.db"), *pb = path_in("b.db"), *po = path_in("out.db");
    make_store(pa, 1.25, 0.1, "2026-01-01T00:00:00.000Z");
    make_store(pb, 2.5, 0.7, "2026-02-01T00:00:00.000Z");
    const char *in[] = {pa, pb};
    gms_error err;
    ck_assert_int_eq(store_merge(in, 2, po, 0, &err), GMS_EINVAL);
    const char *want[] = {"1 run(s) of", pb, "policy dtr", "budget 100 B", "trace t1",
                          "overhead 1.25", "overhead 2.5", pa, "--prefer first, last or newer"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(strstr(err.msg, want[i]), "'%s' not in: %s", want[i], err.msg);
    ck_assert_int_ne(access(po, F_OK), 0); /* nothing written */
    /* the same store twice: equal results (other wall times) merge silently */
    const char *pc = path_in("c.db");
    make_store(pc, 1.25, 0.9, "2026-03-01T00:00:00.000Z");
    const char *same[] = {pa, pc};
    ck_assert_msg(store_merge(same, 2, po, 0, &err) == 0, "%s", err.msg);
    ck_assert_int_eq((int)sql_double(po, "SELECT count(*) FROM runs"), 2);
}
END_TEST

START_TEST(test_merge_prefer_first_last_newer)
{
    const char *pa = path_in("a.db"), *pb = path_in("b.db"), *po = path_in("out.db");
    make_store(pa, 1.25, 0.1, "2026-01-01T00:00:00.000Z");
    make_store(pb, 2.5, 0.7, "2026-02-01T00:00:00.000Z");
    const char *in[] = {pa, pb};
    gms_error err;
    size_t resolved = 99;
    const char *dtr = "SELECT overhead FROM runs WHERE policy = 'dtr'";
    const char *tl = "SELECT memory FROM timelines t JOIN runs r ON r.id = t.run_id"
                     " WHERE r.policy = 'dtr'";
    ck_assert_msg(store_merge_prefer_rule(in, 2, po, 1, STORE_MERGE_FIRST, &resolved, &err) == 0,
                  "%s", err.msg);
    ck_assert_double_eq(sql_double(po, dtr), 1.25);
    ck_assert_uint_eq(resolved, 0);
    ck_assert_msg(store_merge_prefer_rule(in, 2, po, 1, STORE_MERGE_LAST, &resolved, &err) == 0,
                  "%s", err.msg);
    ck_assert_double_eq(sql_double(po, dtr), 2.5);
    ck_assert_double_eq(sql_double(po, tl), 25); /* the timeline follows its run */
    /* one sample: a's went with its run, no stale copy stayed */
    ck_assert_int_eq((int)sql_double(po, "SELECT count(*) FROM timelines"), 1);
    ck_assert_int_eq((int)sql_double(po, "SELECT count(*) FROM runs"), 2);
    ck_assert_uint_eq(resolved, 1);
    ck_assert_msg(store_merge_prefer_rule(in, 2, po, 1, STORE_MERGE_NEWER, &resolved, &err) == 0,
                  "%s", err.msg);
    ck_assert_double_eq(sql_double(po, dtr), 2.5);
    ck_assert_uint_eq(resolved, 1);
    /* newer is by creation time, not by position */
    const char *rev[] = {pb, pa};
    ck_assert_msg(store_merge_prefer_rule(rev, 2, po, 1, STORE_MERGE_NEWER, &resolved, &err) ==
                      0, "%s", err.msg);
    ck_assert_double_eq(sql_double(po, dtr), 2.5);
    ck_assert_uint_eq(resolved, 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("store_merge");
    TCase *tc = tcase_create("store_merge");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_merge_refuses_conflicting_results_naming_the_run_and_both_values);
    tcase_add_test(tc, test_merge_prefer_first_last_newer);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
