/*
 * CBC on the whole program before the window search (opt_first.h, issue 28's leftover): the
 * rule (which programs go first, for how long), a small graph that CBC proves in its slice
 * (no window is solved, and the answer is the optimum --no-improve finds), and the search
 * still running where the rule does not send the program first.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "opt_first.h"
#include "opt_graph.h"
#include "opt_lns.h"
#include "opt_size.h"
#include "opt_solve.h"
#include "opt_test_build.h"

START_TEST(test_rule_sends_a_small_program_first_for_a_tenth_of_the_limit)
{
    opt_size sz = {.nonzeros = 10000, .lp_seconds = 0.4};
    opt_first_plan p;
    opt_first_plan_for(&sz, 60, OPT_LNS_MAX_NONZEROS, &p);
    ck_assert(p.first);
    ck_assert_double_eq_tol(p.seconds, 6, 1e-12);
    ck_assert_uint_eq(p.nonzeros, 10000);
    /* at most one window's time, however long the limit */
    opt_first_plan_for(&sz, 600, OPT_LNS_MAX_NONZEROS, &p);
    ck_assert(p.first);
    ck_assert_double_eq_tol(p.seconds, OPT_LNS_WINDOW_SECONDS, 1e-12);
    /* larger than the search's widest window: the search, as before */
    opt_first_plan_for(&sz, 60, 9999, &p);
    ck_assert(!p.first);
    opt_first_plan_for(&sz, 60, 10000, &p);
    ck_assert(p.first);
    /* our LP and CBC's root LP must both fit the slice: 2 x 3 s fits 6 s, 2 x 3.01 s not */
    sz.lp_seconds = 3;
    opt_first_plan_for(&sz, 60, OPT_LNS_MAX_NONZEROS, &p);
    ck_assert(p.first);
    sz.lp_seconds = 3.01;
    opt_first_plan_for(&sz, 60, OPT_LNS_MAX_NONZEROS, &p);
    ck_assert(!p.first);
    /* no limit: no search and nothing first */
    sz.lp_seconds = 0.4;
    opt_first_plan_for(&sz, 0, OPT_LNS_MAX_NONZEROS, &p);
    ck_assert(!p.first);
}
END_TEST

START_TEST(test_environment_sets_the_largest_program_first)
{
    unsetenv("GMS_OPT_SOLVER_FIRST_NONZEROS");
    ck_assert_double_eq(opt_first_max_nonzeros(400000), 400000);
    setenv("GMS_OPT_SOLVER_FIRST_NONZEROS", "0", 1);
    ck_assert_double_eq(opt_first_max_nonzeros(400000), 0);
    setenv("GMS_OPT_SOLVER_FIRST_NONZEROS", "1234", 1);
    ck_assert_double_eq(opt_first_max_nonzeros(400000), 1234);
    setenv("GMS_OPT_SOLVER_FIRST_NONZEROS", "many", 1);
    ck_assert_double_eq(opt_first_max_nonzeros(400000), 400000);
    setenv("GMS_OPT_SOLVER_FIRST_NONZEROS", "-5", 1);
    ck_assert_double_eq(opt_first_max_nonzeros(400000), 400000);
    unsetenv("GMS_OPT_SOLVER_FIRST_NONZEROS");
}
END_TEST

/* A budget a third of the way from the least the greedy schedule fits in to g's
 * unconstrained peak: a schedule fits, and something must be recomputed. */
static uint64_t tight_budget(const opt_graph *g)
{
    uint64_t c = g->constant_bytes, peak = opt_graph_peak(g) - c;
    uint64_t fit = opt_greedy_min_budget(g, opt_graph_floor(g) - c, peak);
    return c + fit + (peak - fit) / 3;
}

static void solve(const opt_graph *g, uint64_t budget, double limit, int improve, opt_answer *a)
{
    opt_request rq = {.budget = budget, .time_limit = limit, .improve = improve};
    gms_error err = {0};
    ck_assert_msg(opt_solve(g, &rq, a, &err) == 0, "%s", err.msg);
}

/* Training chains of 8, 10 and 12 nodes (478 to 1,186 nonzeros) under a 100 s limit: a
 * 10 s slice, of which CBC needs 0.1 to 0.4 s here under load (random graphs of 8 to 16
 * nodes took it 1 to 3.6 s: too close to the slice under ASan and load). */
START_TEST(test_small_graph_is_proved_by_cbc_first_without_the_window_search)
{
    unsetenv("GMS_OPT_SOLVER_FIRST_NONZEROS");
    int recomputing = 0;
    for (int trial = 0; trial < 3; trial++) {
        opt_graph *g = opt_test_training_chain(4 + trial);
        ck_assert_uint_lt(tight_budget(g), opt_graph_peak(g));
        uint64_t budget = tight_budget(g);
        opt_answer a, none, untimed;
        solve(g, budget, 100, 1, &a);
        solve(g, budget, 100, 0, &none);
        solve(g, budget, 0, 0, &untimed);
        ck_assert_int_eq(untimed.status, OPT_STATUS_OPTIMAL);
        recomputing += untimed.objective > untimed.compute;
        ck_assert_msg(a.first_tried && a.first_proved, "trial %d: tried %d, proved %d in %.2f s",
                      trial, a.first_tried, a.first_proved, a.first_seconds);
        ck_assert_double_eq_tol(a.first_slice, OPT_LNS_WINDOW_SECONDS, 1e-12);
        opt_size sz;
        opt_size_program(g, &sz);
        ck_assert_uint_eq(a.first_nonzeros, sz.nonzeros);
        /* no window was solved, and the answer says where it came from */
        ck_assert(!a.improve_ran);
        ck_assert_uint_eq(a.improve_windows, 0);
        ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
        ck_assert_ptr_nonnull(a.schedule);
        ck_assert(!strcmp(opt_answer_from(&a), "solver") || !strcmp(opt_answer_from(&a), "seed"));
        /* the optimum --no-improve and the untimed MILP find */
        ck_assert_int_eq(none.status, OPT_STATUS_OPTIMAL);
        ck_assert(!none.first_tried && !none.improve_ran);
        ck_assert_double_eq_tol(a.objective, none.objective, 1e-9 * none.objective);
        ck_assert_double_eq_tol(a.objective, untimed.objective, 1e-9 * untimed.objective);
        ck_assert_uint_le(a.peak, budget);
        opt_answer_clear(&a);
        opt_answer_clear(&none);
        opt_answer_clear(&untimed);
        opt_graph_free(g);
    }
    ck_assert_int_eq(recomputing, 3); /* the optimum is not checkpoint-all's by accident */
}
END_TEST

/* The program over the largest that goes first (here: the environment's 0, as the CLI tests
 * of the search set it): the window search runs as before, to the same optimum. */
START_TEST(test_window_search_still_runs_where_the_program_does_not_go_first)
{
    opt_graph *g = opt_test_training_chain(5);
    uint64_t budget = tight_budget(g);
    opt_answer first, searched;
    unsetenv("GMS_OPT_SOLVER_FIRST_NONZEROS");
    solve(g, budget, 100, 1, &first);
    setenv("GMS_OPT_SOLVER_FIRST_NONZEROS", "0", 1);
    solve(g, budget, 100, 1, &searched);
    unsetenv("GMS_OPT_SOLVER_FIRST_NONZEROS");
    ck_assert(first.first_proved && !first.improve_ran);
    ck_assert(!searched.first_tried && !searched.first_proved);
    ck_assert(searched.improve_ran);
    ck_assert_uint_ge(searched.improve_windows, 1);
    ck_assert_int_eq(searched.status, OPT_STATUS_OPTIMAL);
    ck_assert_double_eq_tol(searched.objective, first.objective, 1e-9 * first.objective);
    /* a limit too short for the program's LP estimate twice over: the search, too */
    opt_size sz;
    opt_size_program(g, &sz);
    double short_limit = 0.9 * 2 * sz.lp_seconds / OPT_FIRST_SHARE;
    opt_answer brief;
    solve(g, budget, short_limit, 1, &brief);
    ck_assert(!brief.first_tried);
    ck_assert(brief.improve_ran);
    opt_answer_clear(&first);
    opt_answer_clear(&searched);
    opt_answer_clear(&brief);
    opt_graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("opt_first");
    TCase *tc = tcase_create("first");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_rule_sends_a_small_program_first_for_a_tenth_of_the_limit);
    tcase_add_test(tc, test_environment_sets_the_largest_program_first);
    tcase_add_test(tc, test_small_graph_is_proved_by_cbc_first_without_the_window_search);
    tcase_add_test(tc, test_window_search_still_runs_where_the_program_does_not_go_first);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
