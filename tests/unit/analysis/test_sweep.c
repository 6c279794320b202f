/* Unit tests of the sweep runner against a fake simulator (fake_sim.c): ratio parsing, the
 * work list, skipping stored runs, shards, and refusing bad input before writing anything. */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "test_sql.h"
#include "test_tmpdir.h"
#include "store.h"
#include "sweep.h"

static void setup(void)
{
    tmpdir_make("gms-sweep");
}

static void teardown(void)
{
    tmpdir_remove();
}

static const char *fake_trace(const char *name, unsigned ops, unsigned mem)
{
    const char *p = path_in(name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%u %u %u\n", ops, mem, mem / 2);
    fclose(f);
    return p;
}

START_TEST(test_ratio_range_gives_the_decimal_literals)
{
    double *r;
    size_t n;
    gms_error err;
    ck_assert_int_eq(sweep_parse_ratios("0.1:1.0:0.1", &r, &n, &err), 0);
    ck_assert_uint_eq(n, 10);
    const char *lit[] = {"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"};
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(r[i] == strtod(lit[i], NULL), "ratio %zu is %.17g, not %s", i, r[i],
                      lit[i]);
    free(r);
    ck_assert_int_eq(sweep_parse_ratios("0.1:1.0:0.05", &r, &n, &err), 0);
    ck_assert_uint_eq(n, 19);
    ck_assert(r[4] == 0.3 && r[5] == 0.35 && r[18] == 1.0);
    free(r);
    ck_assert_int_eq(sweep_parse_ratios("0.2,0.5,0.2", &r, &n, &err), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert(r[0] == 0.2 && r[1] == 0.5);
    free(r);
    ck_assert_int_eq(sweep_parse_ratios("10", &r, &n, &err), 0);
    free(r);
}
END_TEST

START_TEST(test_bad_ratios_are_rejected)
{
    const char *bad[] = {"0:1:0.1", "0.1:11:1", "abc",     "0.5,",  "1:0.5:0.1",
                         "-0.1",    "10.5",     "0.1:1:0", "0.1:1", "0.1:1:0.1:2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double *r = NULL;
        size_t n;
        gms_error err;
        ck_assert_msg(sweep_parse_ratios(bad[i], &r, &n, &err) == GMS_EINVAL, "'%s' accepted",
                      bad[i]);
        ck_assert_ptr_null(r);
    }
}
END_TEST

START_TEST(test_shard_spec_is_parsed)
{
    unsigned k, n;
    gms_error err;
    ck_assert_int_eq(sweep_parse_shard("2/3", &k, &n, &err), 0);
    ck_assert(k == 2 && n == 3);
    const char *bad[] = {"0/3", "4/3", "1", "a/b", "1/0", "1/3x", "-1/3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(sweep_parse_shard(bad[i], &k, &n, &err) == GMS_EINVAL, "'%s' accepted",
                      bad[i]);
}
END_TEST

static const char *policies[] = {"dtr", "lru", "random"};
static const double ratios[] = {0.2, 0.5, 1.0};

static sweep_spec spec_for(const char **traces, size_t n)
{
    sweep_spec sp = {.traces = traces, .n_traces = n, .policies = policies, .n_policies = 3,
                     .ratios = ratios, .n_ratios = 3, .seeds = 3, .remat_limit = 2.0,
                     .shard_k = 1, .shard_n = 1, .jobs = 4};
    return sp;
}

/* The store's runs as CSV without the columns that differ between sweeps (wall time and
 * creation time are the last two). */
static char *stable_export(const char *db)
{
    store *s;
    gms_error err;
    ck_assert_msg(store_open(db, STORE_READONLY, &s, &err) == 0, "%s", err.msg);
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(store_export_csv(s, NULL, f, &err), 0);
    fclose(f);
    store_close(s);
    char *out = malloc(len + 1), *o = out;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *cut = strrchr(line, ',');
        *cut = '\0';
        cut = strrchr(line, ',');
        *cut = '\0';
        o += sprintf(o, "%s\n", line);
    }
    free(buf);
    return out;
}

static size_t run_count(const char *db)
{
    return (size_t)sql_int(db, "SELECT count(*) FROM runs");
}

START_TEST(test_sweep_records_every_combination_once)
{
    const char *traces[] = {fake_trace("a.gmt", 10, 1000), fake_trace("b.gmt", 50, 4000)};
    sweep_spec sp = spec_for(traces, 2);
    sweep_progress sum;
    gms_error err;
    const char *db = path_in("r.db");
    ck_assert_msg(sweep_run(&sp, db, &sum, &err) == 0, "%s", err.msg);
    /* 2 traces x (dtr + lru + 3 random seeds) x 3 ratios */
    ck_assert_uint_eq(sum.total, 30);
    ck_assert_uint_eq(sum.done, 30);
    ck_assert_uint_eq(sum.skipped, 0);
    ck_assert_uint_eq(sum.failed, 10); /* ratio 0.2 < the fake's 1/4 */
    ck_assert_uint_eq(run_count(db), 30);
    char *csv = stable_export(db);
    ck_assert_ptr_nonnull(strstr(csv, "\nb,")); /* names drop directory and extension */
    ck_assert_ptr_nonnull(strstr(csv, ",random,seed=2,0.5,2000,2,simrd,ok,1.502,"));
    ck_assert_ptr_nonnull(strstr(csv, ",dtr,,0.2,200,2,simrd,oom,,"));
    free(csv);
    /* a second identical sweep does nothing */
    ck_assert_int_eq(sweep_run(&sp, db, &sum, &err), 0);
    ck_assert_uint_eq(sum.total, 0);
    ck_assert_uint_eq(sum.skipped, 30);
    ck_assert_uint_eq(run_count(db), 30);
}
END_TEST

START_TEST(test_partial_store_resumes_to_the_full_result)
{
    const char *traces[] = {fake_trace("a.gmt", 10, 1000), fake_trace("b.gmt", 50, 4000)};
    sweep_spec sp = spec_for(traces, 2);
    sweep_progress sum;
    gms_error err;
    const char *full = path_in("full.db"), *part = path_in("part.db");
    ck_assert_int_eq(sweep_run(&sp, full, &sum, &err), 0);
    /* a store holding some of the runs, as an interrupted sweep leaves it */
    sweep_spec first = sp;
    first.n_traces = 1;
    first.jobs = 1;
    ck_assert_int_eq(sweep_run(&first, part, &sum, &err), 0);
    size_t before = run_count(part);
    ck_assert_uint_eq(sp.jobs, 4);
    ck_assert_int_eq(sweep_run(&sp, part, &sum, &err), 0);
    ck_assert_uint_eq(sum.skipped, before);
    ck_assert_uint_eq(sum.done, 30 - before);
    char *a = stable_export(full), *b = stable_export(part);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
}
END_TEST

START_TEST(test_union_of_shards_is_the_full_sweep)
{
    const char *traces[] = {fake_trace("a.gmt", 10, 1000), fake_trace("b.gmt", 50, 4000)};
    sweep_spec sp = spec_for(traces, 2);
    sweep_progress sum;
    gms_error err;
    const char *full = path_in("full.db");
    ck_assert_int_eq(sweep_run(&sp, full, &sum, &err), 0);
    const char *shards[3] = {path_in("s1.db"), path_in("s2.db"), path_in("s3.db")};
    size_t total = 0;
    for (unsigned k = 1; k <= 3; k++) {
        sweep_spec s = sp;
        s.shard_k = k;
        s.shard_n = 3;
        ck_assert_int_eq(sweep_run(&s, shards[k - 1], &sum, &err), 0);
        ck_assert_uint_gt(sum.done, 0);
        ck_assert_uint_lt(sum.done, 30);
        total += run_count(shards[k - 1]);
    }
    ck_assert_uint_eq(total, 30); /* disjoint */
    const char *merged = path_in("merged.db");
    ck_assert_msg(store_merge(shards, 3, merged, 0, &err) == 0, "%s", err.msg);
    char *a = stable_export(full), *b = stable_export(merged);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
}
END_TEST

START_TEST(test_bad_input_writes_nothing)
{
    const char *good = fake_trace("a.gmt", 10, 1000);
    const char *missing[] = {good, path_in("missing.gmt")};
    sweep_spec sp = spec_for(missing, 2);
    gms_error err;
    const char *db = path_in("never.db");
    ck_assert_int_eq(sweep_run(&sp, db, NULL, &err), GMS_EIO);
    ck_assert_ptr_nonnull(strstr(err.msg, "missing.gmt"));
    ck_assert_int_ne(access(db, F_OK), 0);

    const char *one[] = {good};
    sp = spec_for(one, 1);
    const char *unknown[] = {"dtr", "no-such-policy"};
    sp.policies = unknown;
    sp.n_policies = 2;
    ck_assert_int_eq(sweep_run(&sp, db, NULL, &err), GMS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "no-such-policy"));
    ck_assert_int_ne(access(db, F_OK), 0);

    sp = spec_for(one, 1);
    const double big[] = {0.5, 11.0};
    sp.ratios = big;
    sp.n_ratios = 2;
    ck_assert_int_eq(sweep_run(&sp, db, NULL, &err), GMS_EINVAL);
    ck_assert_int_ne(access(db, F_OK), 0);

    sp = spec_for(one, 1);
    const char *bad = path_in("bad.db");
    FILE *f = fopen(bad, "w");
    fputs("this is not a database\n", f);
    fclose(f);
    ck_assert_int_eq(sweep_run(&sp, bad, NULL, &err), GMS_EFORMAT);
    ck_assert_int_ne(access(path_in("bad.db-wal"), F_OK), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("sweep");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_ratio_range_gives_the_decimal_literals);
    tcase_add_test(tc, test_bad_ratios_are_rejected);
    tcase_add_test(tc, test_shard_spec_is_parsed);
    tcase_add_test(tc, test_sweep_records_every_combination_once);
    tcase_add_test(tc, test_partial_store_resumes_to_the_full_result);
    tcase_add_test(tc, test_union_of_shards_is_the_full_sweep);
    tcase_add_test(tc, test_bad_input_writes_nothing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
