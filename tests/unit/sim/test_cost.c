/*
 * The runtime-cost model (sim_cost.h): costs land on the clock exactly as the result says,
 * and a run with all costs 0 is the ideal replay.
 */
#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "registry.h"
#include "sim.h"

static sim_trace *chain(uint64_t n)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(n, &t, &err), 0);
    return t;
}

static sim_result run(const sim_trace *t, const char *pol, uint64_t budget, uint64_t op,
                      uint64_t search, uint64_t evict)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find(pol);
    ck_assert_ptr_nonnull(cfg.policy);
    cfg.budget = budget;
    cfg.remat_limit = 0;
    cfg.op_overhead_ns = op;
    cfg.search_cost_ns = search;
    cfg.evict_cost_ns = evict;
    sim_result r;
    gms_error err = {0};
    ck_assert_int_eq(sim_run(t, &cfg, &r, &err), 0);
    return r;
}

START_TEST(test_op_overhead_adds_ops_executed_times_overhead_without_budget)
{
    sim_trace *t = chain(300);
    sim_result a = run(t, "dtr", UINT64_MAX, 0, 0, 0);
    sim_result b = run(t, "dtr", UINT64_MAX, 7919, 0, 0);
    ck_assert_int_eq(a.status, SIM_OK);
    ck_assert_int_eq(b.status, SIM_OK);
    /* no budget, no evictions: the schedule cannot change, the clock moves by exactly this */
    ck_assert_uint_eq(a.ops_executed, b.ops_executed);
    ck_assert_uint_eq(b.clock - a.clock, b.ops_executed * 7919);
    ck_assert_uint_eq(b.op_overhead_ns, b.ops_executed * 7919);
    ck_assert_uint_eq(a.op_overhead_ns, 0);
    /* every op but the constants (no arguments, no cost) runs and pays */
    const sim_baseline *bl = sim_trace_baseline(t);
    ck_assert_uint_lt(b.ops_executed, bl->ops);
    ck_assert_uint_ge(b.ops_executed, 2 * 300 + 2);
    ck_assert(b.overhead > a.overhead);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_clock_is_compute_plus_remat_plus_every_cost_term)
{
    sim_trace *t = chain(400);
    const sim_baseline *bl = sim_trace_baseline(t);
    uint64_t budget = sim_budget_for_ratio(t, 0.3);
    const char *pols[] = {"dtr", "dtr-eq", "lru", "msps"};
    for (size_t i = 0; i < sizeof pols / sizeof pols[0]; i++) {
        sim_result r = run(t, pols[i], budget, 1000, 13, 5000);
        ck_assert_int_eq(r.status, SIM_OK);
        ck_assert_uint_gt(r.evictions, 0);
        ck_assert_uint_ge(r.candidates, r.evictions); /* each search scores its victim */
        ck_assert_uint_eq(r.search_ns, r.candidates * 13);
        ck_assert_uint_eq(r.evict_ns, r.evictions * 5000);
        ck_assert_uint_eq(r.op_overhead_ns, r.ops_executed * 1000);
        ck_assert_uint_eq(r.ops_executed - r.remats, run(t, pols[i], UINT64_MAX, 0, 0, 0).ops_executed);
        ck_assert_uint_eq(r.clock, 1 + bl->compute + r.remat_compute + r.op_overhead_ns +
                                       r.search_ns + r.evict_ns);
    }
    sim_trace_free(t);
}
END_TEST

START_TEST(test_zero_costs_leave_the_run_unchanged)
{
    sim_trace *t = chain(400);
    uint64_t budget = sim_budget_for_ratio(t, 0.3);
    sim_result a = run(t, "dtr", budget, 0, 0, 0);
    ck_assert_uint_eq(a.op_overhead_ns + a.search_ns + a.evict_ns, 0);
    ck_assert_uint_eq(a.clock, 1 + sim_trace_baseline(t)->compute + a.remat_compute);
    /* costs move the clock, hence staleness, hence possibly the victims: but never the
     * counters' meaning */
    sim_result b = run(t, "dtr", budget, 0, 1, 0);
    ck_assert_uint_eq(b.search_ns, b.candidates);
    sim_trace_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_cost");
    TCase *tc = tcase_create("cost");
    tcase_add_test(tc, test_op_overhead_adds_ops_executed_times_overhead_without_budget);
    tcase_add_test(tc, test_clock_is_compute_plus_remat_plus_every_cost_term);
    tcase_add_test(tc, test_zero_costs_leave_the_run_unchanged);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
