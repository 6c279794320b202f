/*
 * The op-overhead solver (analysis/calibrate.h): it finds an overhead it was given (made into
 * a "measurement" by simulating with it), under a budget where the schedule can move, and it
 * says so when a measurement is below what no overhead can reach.
 */
#include <check.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "check_run.h"
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

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Seeds are a distribution: the median is a real run (stopped runs rank last), the range and
 * the counts of stopped runs are reported, and there is a mean only when every seed
 * finished. */
START_TEST(test_seeds_report_median_range_and_stopped_runs_not_a_survivor_mean)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(300, &t, &err), 0);
    sim_runner *r;
    ck_assert_int_eq(sim_runner_new(t, &r, &err), 0);
    sim_config cfg = config("random", sim_budget_for_ratio(t, 0.3));
    enum { N = 9 };
    double each[N], sorted[N];
    cal_summary all;
    ck_assert_int_eq(cal_run_seeds_each(r, &cfg, N, &all, each, &err), 0);
    ck_assert_uint_eq(all.ok, N);
    memcpy(sorted, each, sizeof each);
    qsort(sorted, N, sizeof *sorted, by_double);
    ck_assert_msg(sorted[0] < sorted[N - 1], "the seeds should not all agree");
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += each[i];
    ck_assert(fabs(all.mean - sum / N) < 1e-12);
    ck_assert(all.median == sorted[(N - 1) / 2]);
    ck_assert(all.median_run.overhead == all.median);
    ck_assert(each[all.median_seed - cfg.seed] == all.median);
    ck_assert(all.min == sorted[0] && all.max == sorted[N - 1]);

    /* a remat limit between the runs' overheads stops the costlier seeds: they are counted,
     * ranked above every finished run, and there is no mean of the survivors */
    double lim = (sorted[N / 2 + 1] + sorted[N / 2 + 2]) / 2;
    ck_assert(sorted[N / 2 + 1] < sorted[N / 2 + 2]);
    cfg.remat_limit = lim;
    cal_summary part;
    double each2[N];
    ck_assert_int_eq(cal_run_seeds_each(r, &cfg, N, &part, each2, &err), 0);
    ck_assert_uint_gt(part.limit, 0);
    ck_assert_uint_eq(part.oom, 0);
    ck_assert_uint_eq(part.ok + part.limit, N);
    ck_assert_int_eq(part.status, SIM_REMAT_LIMIT);
    ck_assert(isnan(part.mean) && isnan(part.sd));
    for (int i = 0; i < N; i++)
        ck_assert(isnan(each2[i]) == (each[i] > lim));
    /* the median still is the (N-1)/2-th run: finished, since most finished */
    ck_assert(part.median == sorted[(N - 1) / 2]);
    ck_assert_int_eq(part.median_run.status, SIM_OK);
    ck_assert(part.max <= lim);

    /* more than half stopped: the median run is a stopped one */
    cfg.remat_limit = (sorted[0] + sorted[1]) / 2;
    ck_assert(sorted[0] < sorted[1]);
    ck_assert_int_eq(cal_run_seeds(r, &cfg, N, &part, &err), 0);
    ck_assert_uint_eq(part.ok, 1);
    ck_assert(isnan(part.median));
    ck_assert_int_eq(part.median_run.status, SIM_REMAT_LIMIT);
    ck_assert(part.min == sorted[0] && part.max == sorted[0]);
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
    tcase_add_test(tc, test_seeds_report_median_range_and_stopped_runs_not_a_survivor_mean);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
