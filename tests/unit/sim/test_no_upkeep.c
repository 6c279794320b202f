/*
 * Runs that cannot need an eviction skip the regions' and classes' upkeep (sim_run.c,
 * reset): their results are those of the runs that keep it, and a run that needs an
 * eviction after all is redone with it, exactly.
 */
#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "policy.h"
#include "registry.h"
#include "sim.h"
#include "sim_internal.h"

/* Every figure of two results but the wall times. */
static void same_result(const sim_result *a, const sim_result *b, const char *what)
{
    sim_result x = *a, y = *b;
    x.wall_s = y.wall_s = 0;
    x.plan_s = y.plan_s = 0;
    ck_assert_msg(x.status == y.status && x.clock == y.clock && x.evictions == y.evictions &&
                      x.eager_evictions == y.eager_evictions && x.remats == y.remats &&
                      x.remat_compute == y.remat_compute && x.peak_memory == y.peak_memory &&
                      x.candidates == y.candidates && x.ops_executed == y.ops_executed,
                  "%s: results differ (clock %llu vs %llu, evictions %llu vs %llu)", what,
                  (unsigned long long)x.clock, (unsigned long long)y.clock,
                  (unsigned long long)x.evictions, (unsigned long long)y.evictions);
}

static void count_event(void *ctx, const sim_event *ev)
{
    (void)ev;
    ++*(uint64_t *)ctx;
}

static sim_result run(sim_runner *r, const sim_trace *t, const char *pol, uint64_t budget,
                      int observed)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find(pol);
    cfg.budget = budget;
    uint64_t n = 0;
    if (observed) { /* an observer keeps the upkeep */
        cfg.observer = count_event;
        cfg.observer_ctx = &n;
    }
    sim_result res;
    gms_error err = {0};
    ck_assert_int_eq(sim_runner_run(r, &cfg, &res, &err), 0);
    (void)t;
    return res;
}

static const char *const pols[4] = {"dtr", "msps", "dtr-eq", "dtr-local"};

/* Unlimited and baseline-peak budgets: the same results without the upkeep as with it, on a
 * chain (whose dead part makes the upkeep quadratic) run after budgeted runs on the same
 * runner. */
START_TEST(test_runs_that_need_no_eviction_match_runs_with_upkeep)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(2000, &t, &err), 0);
    sim_runner *r;
    ck_assert_int_eq(sim_runner_new(t, &r, &err), 0);
    const uint64_t peak = sim_trace_baseline(t)->memory;
    const uint64_t budgets[3] = {UINT64_MAX, peak, peak + 1};
    for (int p = 0; p < 4; p++)
        for (int k = 0; k < 3; k++) {
            sim_result low = run(r, t, pols[p], sim_budget_for_ratio(t, 0.3), 0);
            ck_assert_uint_gt(low.evictions, 0);
            sim_result a = run(r, t, pols[p], budgets[k], 0);
            sim_result b = run(r, t, pols[p], budgets[k], 1);
            same_result(&a, &b, pols[p]);
            ck_assert_uint_eq(a.evictions, 0);
            ck_assert_uint_eq(a.peak_memory, peak);
        }
    sim_runner_free(r);
    sim_trace_free(t);
}
END_TEST

/* With the threshold lowered, budgeted runs start without the upkeep, need evictions, and
 * are redone with it: their results are the plain runs'. */
START_TEST(test_a_run_that_needs_an_eviction_after_all_is_redone_exactly)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(1500, &t, &err), 0);
    sim_runner *r;
    ck_assert_int_eq(sim_runner_new(t, &r, &err), 0);
    const double ratios[3] = {0.3, 0.5, 0.8};
    double saved = sim_no_upkeep_from;
    for (int p = 0; p < 4; p++)
        for (int k = 0; k < 3; k++) {
            uint64_t budget = sim_budget_for_ratio(t, ratios[k]);
            sim_no_upkeep_from = 0.2;
            sim_result a = run(r, t, pols[p], budget, 0);
            sim_no_upkeep_from = saved;
            sim_result b = run(r, t, pols[p], budget, 0);
            same_result(&a, &b, pols[p]);
            ck_assert_uint_gt(a.evictions, 0);
        }
    sim_no_upkeep_from = saved;
    sim_runner_free(r);
    sim_trace_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_no_upkeep");
    TCase *tc = tcase_create("no_upkeep");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_runs_that_need_no_eviction_match_runs_with_upkeep);
    tcase_add_test(tc, test_a_run_that_needs_an_eviction_after_all_is_redone_exactly);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
