/* Unit tests of the solutions' search in the store (schema version 12): an answer found with
 * the window search and one found without it are told apart, where the answer came from goes
 * in and out, a version-11 store's solutions become "none" answers, and merge carries both. */
#include <check.h>
#include <sqlite3.h>
#include <string.h>

#include "check_run.h"
#include "store.h"
#include "store_internal.h"
#include "store_solution.h"
#include "test_sql.h"
#include "test_tmpdir.h"

static void setup(void)
{
    tmpdir_make("gms-store-search");
}

static void teardown(void)
{
    tmpdir_remove();
}

static const unsigned char sched_a[] = {1, 0, 1, 1}, sched_b[] = {1, 1, 0, 1};

static store_solution solution(const char *search, const unsigned char *sched, double obj)
{
    store_solution s = {.key = {"00000000000000e1", 0, "outputs", 4096, "exact", 20, search},
                        .status = "feasible", .objective = obj, .lower_bound = 10,
                        .bound_boundary = 1, .gap = 0.1, .solve_s = 20, .nodes = 2,
                        .compute = 9, .schedule = sched, .schedule_len = 4};
    return s;
}

/* Both searches of one key are stored side by side, each answers its own request only, and
 * answer_from comes back (NULL when not given). */
START_TEST(test_search_is_part_of_the_solution_key)
{
    store *s;
    gms_error err;
    const char *p = path_in("search.db"), *po = path_in("search-merged.db");
    ck_assert_msg(store_open(p, STORE_CREATE, &s, &err) == 0, "%s", err.msg);
    store_solution plain = solution("none", sched_a, 12), windows = solution("windows", sched_b, 11);
    windows.answer_from = "window-search";
    ck_assert_msg(store_put_solution(s, &plain, &err) == 0, "%s", err.msg);
    ck_assert_msg(store_put_solution(s, &windows, &err) == 0, "%s", err.msg);
    int64_t n;
    ck_assert_int_eq(store_count_solutions(s, &n, &err), 0);
    ck_assert_int_eq(n, 2);

    store_solution got = {0};
    int found;
    ck_assert_int_eq(store_get_solution(s, &windows.key, &got, &found, &err), 0);
    ck_assert_int_eq(found, 1);
    ck_assert(got.objective == 11);
    ck_assert_int_eq(memcmp(got.schedule, sched_b, 4), 0);
    ck_assert_str_eq(got.answer_from, "window-search");
    store_solution_clear(&got);
    /* NULL is "none" */
    store_solution_key k = plain.key;
    k.search = NULL;
    ck_assert_int_eq(store_get_solution(s, &k, &got, &found, &err), 0);
    ck_assert_int_eq(found, 1);
    ck_assert(got.objective == 12);
    ck_assert_ptr_null(got.answer_from);
    store_solution_clear(&got);
    store_close(s);

    const char *in[] = {p};
    ck_assert_msg(store_merge(in, 1, po, 0, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sql_int(po, "SELECT count(*) FROM solutions"), 2);
    ck_assert_int_eq(sql_int(po, "SELECT objective FROM solutions WHERE search = 'windows'"
                                 " AND answer_from = 'window-search'"), 11);
    ck_assert_int_eq(sql_int(po, "SELECT objective FROM solutions WHERE search = 'none'"), 12);
}
END_TEST

/* A store at version 11 (every step up to it, then a solution and a run as sim and sweep
 * stored them, without the window search): opened for writing it migrates to 12, its
 * solution kept as a "none" answer (served to a request without the search, not to one with
 * it), the yardstick's view still there, and a windows answer can be added beside it. */
START_TEST(test_v11_solutions_become_answers_without_the_search)
{
    const char *p = path_in("v11.db");
    sqlite3 *db;
    gms_error err;
    ck_assert_int_eq(sqlite3_open(p, &db), SQLITE_OK);
    for (int v = 0; v < 11; v++)
        ck_assert_msg(store_migrate_step(db, v, &err) == 0, "%d: %s", v, err.msg);
    ck_assert_int_eq(sqlite3_exec(db,
        "INSERT INTO traces (hash, name, path, ops, baseline_memory, baseline_compute) VALUES"
        " ('00000000000000e1', 't', 't.gmt', 5, 8192, 9);"
        "INSERT INTO solutions (trace_hash, iteration, coarsen, budget, mode, time_limit,"
        " status, objective, lower_bound, gap, solve_s, nodes, schedule, tool_version, compute,"
        " lower_bound_from) VALUES ('00000000000000e1', 0, 'outputs', 4096, 'exact', 20,"
        " 'feasible', 12, 10, 0.1, 20, 2, x'01000101', '0.0.1', 9, 'boundary');"
        "PRAGMA user_version = 11;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    store *s;
    /* read-only, a request with the search finds nothing, one without finds the answer */
    ck_assert_msg(store_open(p, STORE_READONLY, &s, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(store_schema_version(s), 11);
    store_solution got = {0};
    int found;
    store_solution with = solution("windows", sched_b, 11);
    ck_assert_int_eq(store_get_solution(s, &with.key, &got, &found, &err), 0);
    ck_assert_int_eq(found, 0);
    store_solution_key plain = with.key;
    plain.search = "none";
    ck_assert_int_eq(store_get_solution(s, &plain, &got, &found, &err), 0);
    ck_assert_int_eq(found, 1);
    store_solution_clear(&got);
    store_close(s);

    ck_assert_msg(store_open(p, 0, &s, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(store_schema_version(s), STORE_SCHEMA_VERSION);
    ck_assert_int_eq(store_get_solution(s, &with.key, &got, &found, &err), 0);
    ck_assert_int_eq(found, 0);
    ck_assert_int_eq(store_get_solution(s, &plain, &got, &found, &err), 0);
    ck_assert_int_eq(found, 1);
    ck_assert(got.objective == 12 && got.lower_bound == 10 && got.bound_boundary == 1);
    ck_assert_int_eq(memcmp(got.schedule, sched_a, 4), 0);
    ck_assert_ptr_null(got.answer_from);
    store_solution_clear(&got);
    with.answer_from = "window-search";
    ck_assert_msg(store_put_solution(s, &with, &err) == 0, "%s", err.msg);
    store_close(s);
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM solutions"), 2);
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM solutions WHERE search = 'none'"
                                " AND created_at IS NOT NULL AND compute = 9"), 1);
    /* the yardstick's view reads the new table */
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM run_gaps"), 0);
    ck_assert_int_eq(sql_int(p, "SELECT count(*) FROM sqlite_master WHERE name = 'run_gaps'"), 1);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("store_search");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_search_is_part_of_the_solution_key);
    tcase_add_test(tc, test_v11_solutions_become_answers_without_the_search);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
