/*
 * The window search (opt_lns.h, issue 28 item 3): from a deliberately bad seed (no checkpoint
 * kept anywhere: every stage recomputes its whole ancestry), it must find a cheaper schedule,
 * every schedule it keeps must be correct and within the budget (also when replayed step by
 * step), never cost more than the seed, and once it has converged (the widest window, the
 * whole graph, improved nothing) it must be the untimed MILP's proven optimum.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "opt_graph.h"
#include "opt_lns.h"
#include "opt_replay.h"
#include "opt_solve.h"
#include "opt_test_build.h"
#include "opt_window.h"

/* No checkpoints at all: each stage computes its node's whole ancestry again. */
static opt_schedule *bad_seed(const opt_graph *g)
{
    opt_schedule *s = opt_schedule_new(g->n);
    ck_assert_ptr_nonnull(s);
    opt_schedule_solve_r(g, s);
    ck_assert_int_eq(opt_schedule_check(g, s, NULL, 0), 0);
    return s;
}

/* s is correct, within act under the program and when replayed */
static void assert_fits(const opt_graph *g, const opt_schedule *s, uint64_t act)
{
    char why[200];
    ck_assert_msg(opt_schedule_check(g, s, why, sizeof why) == 0, "%s", why);
    ck_assert_uint_le(opt_schedule_peak(g, s), act);
    opt_replay r;
    gms_error err = {0};
    ck_assert_msg(opt_replay_run(g, s, 0, &r, &err) == 0, "%s", err.msg);
    ck_assert_uint_le(r.peak, act + g->constant_bytes);
    ck_assert_double_eq_tol(r.compute, opt_schedule_cost(g, s), 1e-9 * r.compute);
    opt_replay_clear(&r);
}

/* Improves the bad seed of g at activation budget act, checks it, and compares the converged
 * answer with the untimed MILP's optimum. */
static void improve_and_check(const opt_graph *g, uint64_t act)
{
    opt_schedule *s = bad_seed(g);
    double seed_cost = opt_schedule_cost(g, s);
    opt_lns_opts o = {.seconds = 60, .width = 2, .window_seconds = 10};
    opt_lns_result r;
    gms_error err = {0};
    ck_assert_msg(opt_lns_improve(g, act, s, &o, &r, &err) == 0, "%s", err.msg);
    assert_fits(g, s, act);
    ck_assert_double_eq_tol(r.start_cost, seed_cost, 1e-12);
    ck_assert_double_eq_tol(r.cost, opt_schedule_cost(g, s), 1e-12);
    ck_assert_msg(r.cost < seed_cost, "no better than the bad seed %g (%u windows)", seed_cost,
                  r.windows);
    ck_assert_uint_ge(r.improved, 1);
    ck_assert_uint_eq(r.rejected, 0);
    ck_assert(r.converged);
    opt_request rq = {.budget = act + g->constant_bytes};
    opt_answer a;
    ck_assert_int_eq(opt_solve(g, &rq, &a, &err), 0);
    ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
    ck_assert_msg(fabs(r.cost - a.objective) <= 1e-9 * a.objective,
                  "converged at %.9g, the optimum is %.9g", r.cost, a.objective);
    opt_answer_clear(&a);
    opt_schedule_free(s);
}

START_TEST(test_lns_improves_a_bad_seed_to_the_optimum_on_a_training_chain)
{
    opt_graph *g = opt_test_training_chain(6);
    uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
    opt_schedule *s = bad_seed(g);
    uint64_t act = floor + (peak - floor) / 3, bad_peak = opt_schedule_peak(g, s);
    opt_schedule_free(s);
    improve_and_check(g, act > bad_peak ? act : bad_peak);
    opt_graph_free(g);
}
END_TEST

START_TEST(test_lns_never_keeps_an_infeasible_or_worse_schedule_on_random_graphs)
{
    unsigned seed = 2811;
    for (int trial = 0; trial < 12; trial++) {
        opt_graph *g = opt_test_random_graph(8 + (uint32_t)trial % 6, &seed);
        opt_schedule *s = bad_seed(g);
        uint64_t bad_peak = opt_schedule_peak(g, s);
        opt_schedule_free(s);
        /* the bad seed must fit; the unconstrained peak would need no recomputation */
        uint64_t peak = opt_graph_peak(g) - g->constant_bytes;
        uint64_t act = bad_peak + (peak > bad_peak ? (peak - bad_peak) / 4 : 0);
        improve_and_check(g, act);
        opt_graph_free(g);
    }
}
END_TEST

/* A window's program built around the incumbent holds the incumbent: solved without a
 * cutoff it costs at most the incumbent's window, and put back it leaves a schedule that
 * passes every check. */
START_TEST(test_window_program_keeps_the_stages_outside_it)
{
    opt_graph *g = opt_test_training_chain(8);
    opt_schedule *s = bad_seed(g);
    uint64_t act = opt_schedule_peak(g, s);
    uint8_t free_nodes[16];
    for (uint32_t a = 0; a + 3 <= g->n; a += 3) {
        opt_window *w;
        gms_error err = {0};
        opt_window_stage_nodes(g, s, a, a + 3, 1, free_nodes);
        ck_assert_int_eq(opt_window_build(g, s, act, a, a + 3, free_nodes, &w, &err), 0);
        opt_solver_opts o = {0};
        opt_solver_result r;
        ck_assert_int_eq(opt_solver_solve(w->p, g, &o, &r, &err), 0);
        ck_assert_int_eq(r.status, OPT_STATUS_OPTIMAL);
        ck_assert(r.objective <= w->incumbent_cost + 1e-9);
        opt_schedule *c = opt_schedule_new(g->n);
        memcpy(c->R, s->R, (size_t)g->n * g->n);
        memcpy(c->S, s->S, (size_t)g->n * g->n);
        opt_window_apply(w, g, r.x, c);
        assert_fits(g, c, act);
        /* the stages outside are the incumbent's */
        for (uint32_t t = 0; t < g->n; t++)
            if (t < a || t >= a + 3)
                ck_assert_int_eq(memcmp(c->R + (size_t)t * g->n, s->R + (size_t)t * g->n, g->n),
                                 0);
        double delta = opt_schedule_cost(g, s) - opt_schedule_cost(g, c);
        ck_assert_double_eq_tol(delta, w->incumbent_cost - r.objective, 1e-9);
        free(r.x);
        opt_schedule_free(c);
        opt_window_free(w);
    }
    opt_schedule_free(s);
    opt_graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("opt_lns");
    TCase *tc = tcase_create("lns");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_window_program_keeps_the_stages_outside_it);
    tcase_add_test(tc, test_lns_improves_a_bad_seed_to_the_optimum_on_a_training_chain);
    tcase_add_test(tc, test_lns_never_keeps_an_infeasible_or_worse_schedule_on_random_graphs);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
