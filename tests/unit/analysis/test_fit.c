/* Unit tests of the fit search (analysis/fit.c) on synthetic pass/fail functions whose answer
 * is known, and of fit_policy on a synthetic trace against plain sim runs. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "fit.h"
#include "registry.h"
#include "sim.h"

/* A synthetic probe: passes at and above `threshold`, and inside [win_lo, win_hi] (an isolated
 * window of passing budgets below a failing stretch); counts its calls. */
typedef struct synth {
    uint64_t threshold, win_lo, win_hi;
    unsigned calls;
    unsigned fail_at_call; /* > 0: the probe returns an error on this call */
} synth;

static int synth_probe(void *ctx, uint64_t b, fit_probe *out, gms_error *err)
{
    synth *s = ctx;
    if (++s->calls == s->fail_at_call)
        return gms_error_set(err, GMS_EIO, "probe failed at %llu", (unsigned long long)b);
    out->pass = b >= s->threshold || (b >= s->win_lo && b <= s->win_hi);
    out->status = out->pass ? 0 : 1;
    out->overhead = out->pass ? 1.1 : 0;
    return 0;
}

static fit_search_opts opts(uint64_t floor, uint64_t top)
{
    return (fit_search_opts){.floor = floor, .top = top, .grid = 20, .tolerance = top / 200};
}

START_TEST(test_monotone_answer_passes_and_a_tolerance_below_fails)
{
    static const uint64_t thresholds[] = {1000001, 1234567, 4999999, 7777777, 9999999};
    for (size_t i = 0; i < sizeof thresholds / sizeof *thresholds; i++) {
        synth s = {.threshold = thresholds[i], .win_lo = 1, .win_hi = 0};
        fit_search_opts o = opts(1000000, 10000000);
        fit_answer a;
        gms_error err;
        ck_assert_int_eq(fit_search(&o, synth_probe, &s, &a, &err), 0);
        ck_assert(a.found);
        ck_assert(!a.at_floor);
        ck_assert(a.budget >= s.threshold);           /* it passes */
        ck_assert(a.failed_below < s.threshold);      /* the bracket below fails */
        ck_assert_uint_le(a.budget - a.failed_below, o.tolerance);
        ck_assert(a.at.pass && !a.below.pass);
        ck_assert(!a.non_monotone);
        ck_assert_uint_eq(a.lowest_pass, a.budget);
        ck_assert_uint_eq(a.runs, s.calls);
        ck_assert_uint_le(a.runs, fit_search_max_runs(&o));
        ck_assert_uint_gt(a.runs, o.grid); /* it did bisect */
    }
}
END_TEST

START_TEST(test_isolated_pass_below_is_reported_not_taken)
{
    /* grid step is (10e6 - 1e6) / 19 = 473684: the window holds grid point 2 (1947368) */
    synth s = {.threshold = 6000000, .win_lo = 1900000, .win_hi = 2000000};
    fit_search_opts o = opts(1000000, 10000000);
    fit_answer a;
    gms_error err;
    ck_assert_int_eq(fit_search(&o, synth_probe, &s, &a, &err), 0);
    ck_assert(a.found);
    ck_assert(a.budget >= 6000000 && a.failed_below < 6000000);
    ck_assert(a.non_monotone);
    ck_assert_uint_ge(a.lowest_pass, 1900000);
    ck_assert_uint_le(a.lowest_pass, 2000000);
}
END_TEST

START_TEST(test_pass_everywhere_answers_the_floor_without_bisecting)
{
    synth s = {.threshold = 0, .win_lo = 1, .win_hi = 0};
    fit_search_opts o = opts(1000000, 10000000);
    fit_answer a;
    ck_assert_int_eq(fit_search(&o, synth_probe, &s, &a, NULL), 0);
    ck_assert(a.found && a.at_floor);
    ck_assert_uint_eq(a.budget, 1000000);
    ck_assert_uint_eq(a.runs, 20);
}
END_TEST

START_TEST(test_failing_top_finds_nothing_but_reports_passes_below)
{
    synth s = {.threshold = UINT64_MAX, .win_lo = 1, .win_hi = 0};
    fit_search_opts o = opts(1000000, 10000000);
    fit_answer a;
    ck_assert_int_eq(fit_search(&o, synth_probe, &s, &a, NULL), 0);
    ck_assert(!a.found && !a.non_monotone);
    ck_assert_uint_eq(a.lowest_pass, 0);
    ck_assert_uint_eq(a.runs, 20);
    synth w = {.threshold = UINT64_MAX, .win_lo = 1900000, .win_hi = 2000000};
    ck_assert_int_eq(fit_search(&o, synth_probe, &w, &a, NULL), 0);
    ck_assert(!a.found && a.non_monotone);
    ck_assert_uint_ge(a.lowest_pass, 1900000);
}
END_TEST

START_TEST(test_floor_at_or_above_top_probes_one_point)
{
    synth s = {.threshold = 0, .win_lo = 1, .win_hi = 0};
    fit_search_opts o = opts(20000000, 10000000);
    fit_answer a;
    ck_assert_int_eq(fit_search(&o, synth_probe, &s, &a, NULL), 0);
    ck_assert(a.found && a.at_floor);
    ck_assert_uint_eq(a.budget, 10000000);
    ck_assert_uint_eq(a.runs, 1);
}
END_TEST

START_TEST(test_huge_budgets_keep_their_bytes)
{
    const uint64_t top = UINT64_C(1) << 50, threshold = top / 3 + 12345;
    synth s = {.threshold = threshold, .win_lo = 1, .win_hi = 0};
    fit_search_opts o = {.floor = 1, .top = top, .grid = 20, .tolerance = 1};
    fit_answer a;
    ck_assert_int_eq(fit_search(&o, synth_probe, &s, &a, NULL), 0);
    ck_assert_uint_eq(a.budget, threshold); /* a tolerance of 1 byte finds it exactly */
    ck_assert_uint_eq(a.failed_below, threshold - 1);
    ck_assert_uint_le(a.runs, fit_search_max_runs(&o));
}
END_TEST

START_TEST(test_bad_options_and_probe_errors)
{
    synth s = {.threshold = 5000000, .win_lo = 1, .win_hi = 0};
    fit_search_opts o = opts(1000000, 10000000);
    fit_answer a;
    gms_error err;
    o.grid = 1;
    ck_assert_int_eq(fit_search(&o, synth_probe, &s, &a, &err), GMS_EINVAL);
    o.grid = 20;
    o.tolerance = 0;
    ck_assert_int_eq(fit_search(&o, synth_probe, &s, &a, &err), GMS_EINVAL);
    o.tolerance = 100;
    s.fail_at_call = 3; /* during the grid */
    ck_assert_int_eq(fit_search(&o, synth_probe, &s, &a, &err), GMS_EIO);
    s.calls = 0;
    s.fail_at_call = 22; /* during the bisection */
    ck_assert_int_eq(fit_search(&o, synth_probe, &s, &a, &err), GMS_EIO);
    ck_assert_uint_gt(strlen(err.msg), 0);
}
END_TEST

START_TEST(test_floor_is_the_larger_of_bottleneck_and_constants)
{
    sim_baseline b = {.bottleneck = 100, .constants = 40};
    ck_assert_uint_eq(fit_floor(&b), 100);
    b.constants = 400;
    ck_assert_uint_eq(fit_floor(&b), 400);
}
END_TEST

/* fit_policy on a synthetic chain: its answer passes when simulated on its own and the
 * failing budget below it fails (or exceeds the overhead), as plain sim runs say. */
START_TEST(test_fit_policy_answer_matches_plain_runs)
{
    sim_trace *t;
    gms_error err;
    ck_assert_int_eq(sim_trace_chain(300, &t, &err), 0);
    const sim_baseline *bl = sim_trace_baseline(t);
    sim_runner *r;
    ck_assert_int_eq(sim_runner_new(t, &r, &err), 0);
    const char *names[] = {"dtr", "lru"};
    for (int i = 0; i < 2; i++) {
        sim_config cfg;
        sim_config_init(&cfg);
        cfg.policy = pol_find(names[i]);
        ck_assert_ptr_nonnull(cfg.policy);
        fit_search_opts o = {.floor = fit_floor(bl), .top = bl->memory, .grid = 20,
                             .tolerance = bl->memory / 200};
        fit_answer a;
        ck_assert_int_eq(fit_policy(r, &cfg, 1.2, &o, &a, &err), 0);
        ck_assert(a.found);
        ck_assert_uint_lt(a.budget, bl->memory);
        sim_result res;
        cfg.budget = a.budget;
        ck_assert_int_eq(sim_run(t, &cfg, &res, &err), 0);
        ck_assert(res.status == SIM_OK && res.overhead <= 1.2);
        ck_assert(res.overhead == a.at.overhead);
        if (!a.at_floor) {
            cfg.budget = a.failed_below;
            ck_assert_int_eq(sim_run(t, &cfg, &res, &err), 0);
            ck_assert(res.status != SIM_OK || res.overhead > 1.2);
        }
    }
    sim_runner_free(r);
    sim_trace_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("fit");
    TCase *tc = tcase_create("search");
    tcase_add_test(tc, test_monotone_answer_passes_and_a_tolerance_below_fails);
    tcase_add_test(tc, test_isolated_pass_below_is_reported_not_taken);
    tcase_add_test(tc, test_pass_everywhere_answers_the_floor_without_bisecting);
    tcase_add_test(tc, test_failing_top_finds_nothing_but_reports_passes_below);
    tcase_add_test(tc, test_floor_at_or_above_top_probes_one_point);
    tcase_add_test(tc, test_huge_budgets_keep_their_bytes);
    tcase_add_test(tc, test_bad_options_and_probe_errors);
    tcase_add_test(tc, test_floor_is_the_larger_of_bottleneck_and_constants);
    tcase_add_test(tc, test_fit_policy_answer_matches_plain_runs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
