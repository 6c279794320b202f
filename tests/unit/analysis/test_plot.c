/* Unit tests of the chart helpers and of the overhead chart's data (through a stand-in
 * gnuplot that keeps what it is given). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_tmpdir.h"
#include "plot.h"
#include "store.h"

static void setup(void)
{
    tmpdir_make("gms-plot");
}

static void teardown(void)
{
    tmpdir_remove();
    unsetenv("GMS_GNUPLOT");
}

START_TEST(test_format_follows_the_extension)
{
    plot_format f;
    gms_error err;
    ck_assert_int_eq(plot_format_for_path("a/b.png", &f, &err), 0);
    ck_assert_int_eq(f, PLOT_PNG);
    ck_assert_int_eq(plot_format_for_path("B.SVG", &f, &err), 0);
    ck_assert_int_eq(f, PLOT_SVG);
    ck_assert_int_eq(plot_format_for_path("c.pdf", &f, &err), 0);
    ck_assert_int_eq(f, PLOT_PDF);
    ck_assert_int_eq(plot_format_for_path("c.jpg", &f, &err), GMS_EINVAL);
    ck_assert_int_eq(plot_format_for_path("dir.png/chart", &f, &err), GMS_EINVAL);
}
END_TEST

START_TEST(test_short_names_and_quoting)
{
    char b[128];
    plot_short_name("unet-6-8000000000.0-2020-10-1-10-57-18-default", b, sizeof b);
    ck_assert_str_eq(b, "unet-6");
    plot_short_name("my-model", b, sizeof b);
    ck_assert_str_eq(b, "my-model");
    plot_quote("it's", b, sizeof b);
    ck_assert_str_eq(b, "'it''s'");
}
END_TEST

static void run(store *s, const char *policy, const char *params, uint64_t budget, int ok,
                double overhead)
{
    store_run r = {.key = {"00000000000000a1", policy, params, budget, 2.0, "simrd"},
                   .ratio = (double)budget / 10.0,
                   .status = ok ? "ok" : "remat-limit",
                   .overhead = overhead};
    gms_error err;
    ck_assert_msg(store_put_run(s, &r, NULL, &err) == 0, "%s", err.msg);
}

/* The block of policy `name` in a data file written by plot_overhead. */
static char *block(const char *data, const char *name)
{
    char head[64];
    snprintf(head, sizeof head, "# %s\n", name);
    const char *p = strstr(data, head);
    ck_assert_ptr_nonnull(p);
    p += strlen(head);
    const char *end = strstr(p, "\n\n\n");
    ck_assert_ptr_nonnull(end);
    return strndup(p, (size_t)(end - p) + 1);
}

START_TEST(test_failures_break_lines_and_seeds_are_averaged)
{
    char path[512], fake[512], saved[512];
    snprintf(path, sizeof path, "%s/r.db", tmp_dir);
    snprintf(fake, sizeof fake, "%s/gnuplot", tmp_dir);
    snprintf(saved, sizeof saved, "%s/data", tmp_dir);
    FILE *f = fopen(fake, "w");
    fprintf(f, "#!/bin/sh\n"
               "for d in $(grep -o \"'[^']*gpumemsim-plot-[^']*'\" \"$1\" | tr -d \"'\"); do "
               "cp \"$d\" '%s'; done\n"
               "out=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\")\n"
               "echo chart > \"$out\"\n",
            saved);
    fclose(f);
    ck_assert_int_eq(chmod(fake, 0755), 0);
    setenv("GMS_GNUPLOT", fake, 1);

    store *s;
    gms_error err;
    ck_assert_int_eq(store_open(path, STORE_CREATE, &s, &err), 0);
    store_trace t = {.hash = "00000000000000a1", .name = "t", .path = "t.gmt", .ops = 1,
                     .baseline_memory = 10, .baseline_compute = 10};
    ck_assert_int_eq(store_put_trace(s, &t, &err), 0);
    run(s, "dtr", "", 2, 0, 0);
    run(s, "dtr", "", 3, 1, 1.5);
    run(s, "dtr", "", 4, 0, 0);
    run(s, "dtr", "", 5, 1, 1.25);
    run(s, "dtr", "", 6, 1, 1.125);
    run(s, "random", "seed=0", 5, 1, 1.5);
    run(s, "random", "seed=1", 5, 1, 1.25);
    run(s, "random", "seed=0", 6, 1, 1.25);
    run(s, "random", "seed=1", 6, 0, 0); /* one seed failed: no point */
    run(s, "random", "seed=0", 7, 1, 1.0);
    run(s, "random", "seed=1", 7, 1, 1.5);
    run(s, "lru", "", 5, 0, 0); /* nothing ok: not drawn at all */

    char out[512];
    snprintf(out, sizeof out, "%s/chart.svg", tmp_dir);
    plot_overhead_opts o = {.out = out};
    size_t panels;
    ck_assert_msg(plot_overhead(s, &o, &panels, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(panels, 1);
    store_close(s);

    f = fopen(saved, "r");
    ck_assert_ptr_nonnull(f);
    char data[4096];
    size_t n = fread(data, 1, sizeof data - 1, f);
    data[n] = '\0';
    fclose(f);
    char *dtr = block(data, "dtr"), *rnd = block(data, "random"), *lru = block(data, "lru");
    ck_assert_str_eq(dtr, "0.3 1.5\n\n0.5 1.25\n0.6 1.125\n");
    ck_assert_str_eq(rnd, "0.5 1.375\n\n0.7 1.25\n");
    ck_assert_str_eq(lru, "NaN NaN\n");
    free(dtr);
    free(rnd);
    free(lru);
    ck_assert_int_eq(access(out, F_OK), 0);
}
END_TEST

START_TEST(test_missing_gnuplot_is_explained)
{
    setenv("GMS_GNUPLOT", "/nonexistent/gnuplot", 1);
    char buf[256];
    gms_error err;
    ck_assert_int_eq(plot_find_gnuplot(buf, sizeof buf, &err), GMS_EEXTERNAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "GMS_GNUPLOT"));
    unsetenv("GMS_GNUPLOT");
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    setenv("PATH", "/nonexistent", 1);
    ck_assert_int_eq(plot_find_gnuplot(buf, sizeof buf, &err), GMS_EEXTERNAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "gnuplot not found on PATH"));
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("plot");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_format_follows_the_extension);
    tcase_add_test(tc, test_short_names_and_quoting);
    tcase_add_test(tc, test_failures_break_lines_and_seeds_are_averaged);
    tcase_add_test(tc, test_missing_gnuplot_is_explained);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
