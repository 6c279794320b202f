/*
 * A time-limited MILP runs as rounds (opt_solve.c, issue 28 item 3): each round starts from
 * the best schedule so far and is cut off at its objective, so what a finished round found
 * survives a later round killed at the limit. Checked: under a limit a small graph is still
 * proven optimal (by a round, or by a cutoff round finding nothing better) with the untimed
 * optimum's objective; on a 24-node training chain the answer is never worse than the seed,
 * fits the budget and replays to its objective.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_run.h"
#include "opt_graph.h"
#include "opt_replay.h"
#include "opt_solve.h"
#include "opt_test_build.h"

START_TEST(test_rounds_still_prove_a_small_optimum)
{
    opt_graph *g = opt_test_training_chain(4);
    uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
    opt_request free_rq = {.budget = floor + (peak - floor) / 3};
    opt_request timed = free_rq;
    timed.time_limit = 20;
    opt_answer a, b;
    gms_error err = {0};
    ck_assert_int_eq(opt_solve(g, &free_rq, &a, &err), 0);
    ck_assert_int_eq(opt_solve(g, &timed, &b, &err), 0);
    ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
    ck_assert_msg(b.status == OPT_STATUS_OPTIMAL, "%s after %d rounds", opt_status_name(b.status),
                  b.rounds);
    ck_assert_int_ge(b.rounds, 1);
    ck_assert_double_eq_tol(a.objective, b.objective, 1e-9 * a.objective);
    opt_answer_clear(&a);
    opt_answer_clear(&b);
    opt_graph_free(g);
}
END_TEST

START_TEST(test_rounds_never_answer_worse_than_the_seed)
{
    opt_graph *g = opt_test_training_chain(12);
    uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
    opt_request rq = {.budget = floor + (peak - floor) / 4, .time_limit = 3};
    opt_answer a;
    gms_error err = {0};
    ck_assert_int_eq(opt_solve(g, &rq, &a, &err), 0);
    ck_assert(a.seeded && a.schedule);
    ck_assert_msg(a.objective <= a.seed_objective + 1e-9, "%g above the seed's %g", a.objective,
                  a.seed_objective);
    if (a.improved_rounds > 0)
        ck_assert(a.objective < a.seed_objective);
    ck_assert_uint_le(a.peak, rq.budget);
    opt_replay r = {0};
    ck_assert_int_eq(opt_replay_run(g, a.schedule, 0, &r, &err), 0);
    ck_assert_double_eq_tol(r.compute, a.objective, 1e-9 * a.objective);
    ck_assert_msg(a.seconds < 3 + 6, "ran %.1f s with a 3 s limit", a.seconds);
    opt_replay_clear(&r);
    opt_answer_clear(&a);
    opt_graph_free(g);
}
END_TEST

int main(void)
{
    setenv("GMS_OPT_ROUNDS", "1", 1); /* rounds are opt-in (opt_solve.c) */
    Suite *s = suite_create("opt_rounds");
    TCase *tc = tcase_create("rounds");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_rounds_still_prove_a_small_optimum);
    tcase_add_test(tc, test_rounds_never_answer_worse_than_the_seed);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
