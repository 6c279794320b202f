/*
 * The op-overhead solver (analysis/calibrate.h): it finds an overhead it was given (made into
 * a "measurement" by simulating with it), under a budget where the schedule can move, and it
 * says so when a measurement is below what no overhead can reach.
 */
#include <check.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "calibrate.h"
#include "registry.h"

static sim_config config(const char *pol, uint64_t budget)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find(pol);
    ck_assert_ptr_nonnull(cfg.policy);
    cfg.budget = budget;
    cfg.remat_limit = 0;
    return cfg;
}

static double simulate(sim_runner *r, sim_config cfg, uint64_t op, unsigned seeds)
{
    cfg.op_overhead_ns = op;
    cal_summary s;
    gms_error err = {0};
    ck_assert_int_eq(cal_run_seeds(r, &cfg, seeds, &s, &err), 0);
    ck_assert_int_eq(s.status, SIM_OK);
    return s.mean;
}

START_TEST(test_solver_recovers_the_overhead_a_measurement_was_made_with)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(300, &t, &err), 0);
    sim_runner *r;
    ck_assert_int_eq(sim_runner_new(t, &r, &err), 0);
    uint64_t budgets[] = {UINT64_MAX, sim_budget_for_ratio(t, 0.5), sim_budget_for_ratio(t, 0.3)};
    for (size_t i = 0; i < 3; i++) {
        sim_config cfg = config("dtr", budgets[i]);
        double measured = simulate(r, cfg, 4321, 1);
        cal_result res;
        ck_assert_int_eq(cal_solve_op_overhead(r, t, &cfg, 1, measured, 1e-9, &res, &err), 0);
        ck_assert(res.converged);
        ck_assert(!res.below_ideal);
        ck_assert(res.ideal < measured);
        /* reproduces the slowdown; the overhead itself is unique only up to the slowdown's
         * resolution (one ns moves it by ops / compute) */
        ck_assert_msg(fabs(res.at.mean - measured) <= 1e-9 + res.at.ops_executed /
                                                              (double)sim_trace_baseline(t)->compute,
                      "budget %zu: %.12f vs %.12f", i, res.at.mean, measured);
        ck_assert_msg(llabs((long long)res.op_overhead_ns - 4321) <= 2, "got %llu",
                      (unsigned long long)res.op_overhead_ns);
        ck_assert_uint_ge(res.simulations, 2);
    }
    sim_runner_free(r);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_solver_averages_seeds_for_sampled_choice)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(300, &t, &err), 0);
    sim_runner *r;
    ck_assert_int_eq(sim_runner_new(t, &r, &err), 0);
    sim_config cfg = config("dtr", sim_budget_for_ratio(t, 0.4));
    cfg.sample = SIM_SAMPLE_SQRT;
    double measured = simulate(r, cfg, 20000, 4);
    cal_result res;
    ck_assert_int_eq(cal_solve_op_overhead(r, t, &cfg, 4, measured, 1e-6, &res, &err), 0);
    ck_assert_uint_eq(res.at.runs, 4);
    ck_assert(fabs(res.at.mean - measured) <= 1e-3);
    ck_assert(res.at.min <= res.at.mean && res.at.mean <= res.at.max);
    sim_runner_free(r);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_solver_flags_a_measurement_below_the_ideal_replay)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(200, &t, &err), 0);
    sim_runner *r;
    ck_assert_int_eq(sim_runner_new(t, &r, &err), 0);
    sim_config cfg = config("dtr", sim_budget_for_ratio(t, 0.3));
    double ideal = simulate(r, cfg, 0, 1);
    ck_assert(ideal > 1.0);
    cal_result res;
    ck_assert_int_eq(cal_solve_op_overhead(r, t, &cfg, 1, 1.0, 1e-6, &res, &err), 0);
    ck_assert(res.below_ideal);
    ck_assert_uint_eq(res.op_overhead_ns, 0);
    /* nonsense measurements are errors, not answers */
    ck_assert_int_ne(cal_solve_op_overhead(r, t, &cfg, 1, 0.5, 1e-6, &res, &err), 0);
    ck_assert_int_ne(cal_solve_op_overhead(r, t, &cfg, 1, NAN, 1e-6, &res, &err), 0);
    /* a slowdown past the range is refused before any integer conversion (issue 31: 1e17
     * overflowed the first guess, and the message claimed "up to 0 ns") */
    ck_assert_int_eq(cal_solve_op_overhead(r, t, &cfg, 1, 1e17, 1e-6, &res, &err), GMS_EINVAL);
    ck_assert_msg(strstr(err.msg, "from 1 to 1000"), "%s", err.msg);
    sim_runner_free(r);
    sim_trace_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("calibrate");
    TCase *tc = tcase_create("solver");
    tcase_add_test(tc, test_solver_recovers_the_overhead_a_measurement_was_made_with);
    tcase_add_test(tc, test_solver_averages_seeds_for_sampled_choice);
    tcase_add_test(tc, test_solver_flags_a_measurement_below_the_ideal_replay);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
