/* Unit tests of the chart helpers and of the overhead chart's data (through a stand-in
 * gnuplot that keeps what it is given). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "test_tmpdir.h"
#include "plot.h"
#include "catalog.h"
#include "plot_internal.h"
#include "store.h"
#include "store_solution.h"

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

/* Installs a stand-in gnuplot in tmp_dir (GMS_GNUPLOT) that copies its script to `script`
 * and the data files it is handed to `data` (either NULL: not kept), and writes a chart. */
static void fake_gnuplot(const char *script, const char *data)
{
    char fake[512];
    snprintf(fake, sizeof fake, "%s/gnuplot", tmp_dir);
    FILE *f = fopen(fake, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#!/bin/sh\n");
    if (script)
        fprintf(f, "cp \"$1\" '%s'\n", script);
    if (data)
        fprintf(f, "for d in $(grep -o \"'[^']*gpumemsim-plot-[^']*'\" \"$1\" | tr -d \"'\"); do "
                   "cp \"$d\" '%s'; done\n", data);
    fprintf(f, "out=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\")\n"
               "echo chart > \"$out\"\n");
    fclose(f);
    ck_assert_int_eq(chmod(fake, 0755), 0);
    setenv("GMS_GNUPLOT", fake, 1);
}

/* A new store at path holding the trace the runs below belong to. */
static store *store_with_trace(const char *path)
{
    store *s;
    gms_error err;
    ck_assert_int_eq(store_open(path, STORE_CREATE, &s, &err), 0);
    store_trace t = {.hash = "00000000000000a1", .name = "t", .path = "t.gmt", .ops = 1,
                     .baseline_memory = 10, .baseline_compute = 10};
    ck_assert_int_eq(store_put_trace(s, &t, &err), 0);
    return s;
}

static void run(store *s, const char *policy, const char *params, uint64_t budget, int ok,
                double overhead)
{
    store_run r = {.key = {"00000000000000a1", policy, params, budget, 2.0, "simrd", NULL},
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

START_TEST(test_policy_styles_are_fixed_by_name)
{
    /* every built-in name (the catalog: eviction policies, planners, solved schedules) has
     * its own colour and never a failure mark's shape */
    plot_style a, b;
    pol_entry e, f;
    ck_assert_uint_ge(pol_catalog_count(), 20);
    for (size_t i = 0; pol_catalog_at(i, &e) == 0; i++) {
        plot_style_for(e.name, &a);
        ck_assert_int_ne(a.point, PLOT_POINT_OOM);
        ck_assert_int_ne(a.point, PLOT_POINT_LIMIT);
        for (size_t j = 0; j < i && pol_catalog_at(j, &f) == 0; j++) {
            plot_style_for(f.name, &b);
            ck_assert_msg(strcmp(a.color, b.color) != 0, "%s and %s share colour %s", e.name,
                          f.name, a.color);
        }
    }
    /* a plugin name gets a style from its name alone: the same on every call */
    plot_style_for("my-plugin", &a);
    plot_style_for("my-plugin", &b);
    ck_assert_str_eq(a.color, b.color);
    ck_assert_str_eq(a.dash, b.dash);
    ck_assert_int_eq(a.point, b.point);
    ck_assert_int_ne(a.point, PLOT_POINT_OOM);
    ck_assert_int_ne(a.point, PLOT_POINT_LIMIT);
}
END_TEST

START_TEST(test_sizes_in_inches_and_centimetres)
{
    double w, h;
    gms_error err;
    ck_assert_int_eq(plot_parse_size("3.3x2.5", &w, &h, &err), 0);
    ck_assert(w == 3.3 && h == 2.5);
    ck_assert_int_eq(plot_parse_size("3.3x2.5in", &w, &h, &err), 0);
    ck_assert(w == 3.3 && h == 2.5);
    ck_assert_int_eq(plot_parse_size("25.4x50.8mm", &w, &h, &err), 0);
    ck_assert(w > 0.999 && w < 1.001 && h > 1.999 && h < 2.001);
    ck_assert_int_eq(plot_parse_size("254x127mm", &w, &h, &err), 0); /* unit after H: both */
    ck_assert(w > 9.99 && w < 10.01 && h > 4.99 && h < 5.01);
    ck_assert_int_eq(plot_parse_size("7inx12.7cm", &w, &h, &err), 0);
    ck_assert(w == 7.0 && h > 4.99 && h < 5.01);
    const char *bad[] = {"", "3", "3x", "x2", "3x2pt", "0x2", "-3x2", "3x2in ", "0.5x2",
                         "60x2", "3x2x1", "nanx2", "infx2", "1e400x2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        ck_assert_msg(plot_parse_size(bad[i], &w, &h, &err) == GMS_EINVAL, "%s", bad[i]);
        ck_assert_ptr_nonnull(strstr(err.msg, "WIDTHxHEIGHT"));
    }
}
END_TEST

START_TEST(test_failures_break_lines_and_seeds_are_averaged)
{
    char path[512], saved[512];
    snprintf(path, sizeof path, "%s/r.db", tmp_dir);
    snprintf(saved, sizeof saved, "%s/data", tmp_dir);
    fake_gnuplot(NULL, saved);
    store *s = store_with_trace(path);
    gms_error err;
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

    FILE *f = fopen(saved, "r");
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

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char *b = calloc(1, 16384);
    size_t n = fread(b, 1, 16383, f);
    b[n] = '\0';
    fclose(f);
    return b;
}

/* The optimal curve: checkmate runs drawn as the optimum, and the region below the LP bound
 * (the stored solutions' bound over their graph's compute, of the checkmate runs' program
 * only) shaded behind every line. */
START_TEST(test_optimum_line_and_lp_bound_region)
{
    char path[512], saved[512], script[512];
    snprintf(path, sizeof path, "%s/r.db", tmp_dir);
    snprintf(saved, sizeof saved, "%s/data", tmp_dir);
    snprintf(script, sizeof script, "%s/script", tmp_dir);
    fake_gnuplot(script, saved);

    store *s = store_with_trace(path);
    gms_error err;
    const char *ck = "coarsen=layers,iteration=0,time_limit=0";
    run(s, "checkmate", ck, 5, 1, 1.25);
    run(s, "checkmate", ck, 7, 1, 1.0625);
    run(s, "checkmate", ck, 3, 0, 0); /* infeasible: no bound, no point */
    run(s, "dtr", "", 3, 1, 1.5);
    run(s, "dtr", "", 5, 1, 1.375);
    run(s, "dtr", "", 7, 1, 1.125);
    const unsigned char sched[2] = {1, 0};
    store_solution a = {.key = {"00000000000000a1", 0, "layers", 5, "exact", 0, NULL},
                        .status = "optimal", .objective = 12.5, .lower_bound = 11.5,
                        .compute = 10, .nodes = 1, .schedule = sched, .schedule_len = 2};
    store_solution b = a;
    b.key.budget = 7;
    b.objective = 10.625;
    b.lower_bound = 10.25;
    /* the op-level program's answer at 5: another program, never mixed into the bound */
    store_solution op = a;
    op.key.coarsen = "none";
    op.lower_bound = 10.5;
    store_solution inf = {.key = {"00000000000000a1", 0, "layers", 3, "exact", 0, NULL},
                          .status = "infeasible", .lower_bound = -1, .compute = 10, .nodes = 1};
    ck_assert_int_eq(store_put_solution(s, &a, &err), 0);
    ck_assert_int_eq(store_put_solution(s, &b, &err), 0);
    ck_assert_int_eq(store_put_solution(s, &op, &err), 0);
    ck_assert_int_eq(store_put_solution(s, &inf, &err), 0);

    char out[512];
    snprintf(out, sizeof out, "%s/chart.svg", tmp_dir);
    plot_overhead_opts o = {.out = out};
    size_t panels;
    ck_assert_msg(plot_overhead(s, &o, &panels, &err) == 0, "%s", err.msg);
    store_close(s);

    char *data = slurp(saved), *sc = slurp(script);
    char *bound = block(data, "lp bound layers");
    ck_assert_str_eq(bound, "0.5 1.15\n0.7 1.025\n");
    char *opt = block(data, "checkmate");
    ck_assert_str_eq(opt, "0.5 1.25\n0.7 1.0625\n");
    /* the shaded region comes first (behind the lines), from the bound's block */
    const char *fill = strstr(sc, "using 1:(0):2 with filledcurves");
    const char *line = strstr(sc, "with linespoints");
    ck_assert_ptr_nonnull(fill);
    ck_assert_ptr_nonnull(line);
    ck_assert(fill < line);
    ck_assert_ptr_nonnull(strstr(sc, "index 6 using 1:(0):2")); /* 2 policies x 3 blocks */
    ck_assert_ptr_nonnull(strstr(sc, "title 'optimum (checkmate, by layer)'"));
    ck_assert_ptr_nonnull(strstr(sc, "below the LP bound (by layer)"));
    free(bound);
    free(opt);
    free(data);
    free(sc);
}
END_TEST

/* No solutions stored: no region, no note, an empty bound block. */
START_TEST(test_no_bound_without_solutions)
{
    char path[512], script[512];
    snprintf(path, sizeof path, "%s/r.db", tmp_dir);
    snprintf(script, sizeof script, "%s/script", tmp_dir);
    fake_gnuplot(script, NULL);
    store *s = store_with_trace(path);
    gms_error err;
    run(s, "dtr", "", 5, 1, 1.375);
    char out[512];
    snprintf(out, sizeof out, "%s/chart.svg", tmp_dir);
    plot_overhead_opts o = {.out = out};
    ck_assert_msg(plot_overhead(s, &o, NULL, &err) == 0, "%s", err.msg);
    store_close(s);
    char *sc = slurp(script);
    ck_assert_ptr_null(strstr(sc, "filledcurves fc rgb '#f2c4c4'"));
    ck_assert_ptr_null(strstr(sc, "LP bound"));
    free(sc);
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
    tcase_add_test(tc, test_policy_styles_are_fixed_by_name);
    tcase_add_test(tc, test_sizes_in_inches_and_centimetres);
    tcase_add_test(tc, test_missing_gnuplot_is_explained);
    tcase_add_test(tc, test_optimum_line_and_lp_bound_region);
    tcase_add_test(tc, test_no_bound_without_solutions);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
