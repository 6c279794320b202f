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
    /* sanitizer builds: the first 6, one graph of each size */
    for (int trial = 0; trial < gms_test_rounds(12, 6); trial++) {
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
        ck_assert_int_eq(opt_window_build(g, s, act, a, a + 3, free_nodes, NULL, &w, &err), 0);
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

/* Issue 28's follow-up: a node window whose nodes are recomputed only in the stages where the
 * incumbent computes or reads them (its quiet stages keep their R) has a smaller program than
 * the same window free in every stage, never a better optimum than it (its schedules are a
 * subset), and its solution, put back, is a schedule that passes every check and costs what
 * the program says. */
START_TEST(test_node_window_with_quiet_stages_is_smaller_and_exact)
{
    opt_graph *g = opt_test_training_chain(12);
    uint64_t peak = opt_graph_peak(g) - g->constant_bytes, floor = opt_graph_floor(g);
    uint64_t act = floor + (peak - floor) / 2;
    opt_schedule *s = opt_schedule_new(g->n);
    ck_assert_int_eq(opt_schedule_greedy(g, act, s), 0);
    assert_fits(g, s, act);
    uint8_t free_nodes[24], quiet[24];
    int smaller = 0;
    for (uint32_t c = 0; c + 2 <= g->n; c += 2) {
        memset(free_nodes, 0, sizeof free_nodes);
        for (uint32_t v = c; v < c + 2; v++) {
            free_nodes[v] = 1;
            for (uint32_t k = 0; k < g->nodes[v].n_inputs; k++)
                free_nodes[g->nodes[v].inputs[k]] = 1;
        }
        opt_window_quiet_stages(g, s, c, g->n, free_nodes, quiet);
        int n_quiet = 0;
        for (uint32_t t = c; t < g->n; t++)
            n_quiet += quiet[t - c];
        opt_window *wq, *wf;
        gms_error err = {0};
        ck_assert_int_eq(opt_window_build(g, s, act, c, g->n, free_nodes, quiet, &wq, &err), 0);
        ck_assert_int_eq(opt_window_build(g, s, act, c, g->n, free_nodes, NULL, &wf, &err), 0);
        if (n_quiet) {
            ck_assert_uint_lt(wq->p->n_ent, wf->p->n_ent);
            ck_assert_uint_lt(wq->p->n_cols, wf->p->n_cols);
            smaller++;
        }
        opt_solver_opts o = {0};
        opt_solver_result rq, rf;
        ck_assert_int_eq(opt_solver_solve(wq->p, g, &o, &rq, &err), 0);
        ck_assert_int_eq(opt_solver_solve(wf->p, g, &o, &rf, &err), 0);
        ck_assert_int_eq(rq.status, OPT_STATUS_OPTIMAL);
        ck_assert_int_eq(rf.status, OPT_STATUS_OPTIMAL);
        /* what the quiet window can gain, the whole one can too */
        double gain_q = wq->incumbent_cost - rq.objective, gain_f = wf->incumbent_cost - rf.objective;
        ck_assert(gain_q >= -1e-9 && gain_q <= gain_f + 1e-9);
        opt_schedule *cand = opt_schedule_new(g->n);
        memcpy(cand->R, s->R, (size_t)g->n * g->n);
        memcpy(cand->S, s->S, (size_t)g->n * g->n);
        opt_window_apply(wq, g, rq.x, cand);
        assert_fits(g, cand, act);
        ck_assert_double_eq_tol(opt_schedule_cost(g, s) - opt_schedule_cost(g, cand), gain_q, 1e-9);
        /* the quiet stages kept the incumbent's R */
        for (uint32_t t = c; t < g->n; t++)
            if (quiet[t - c])
                ck_assert_int_eq(memcmp(cand->R + (size_t)t * g->n, s->R + (size_t)t * g->n,
                                        g->n), 0);
        free(rq.x), free(rf.x);
        opt_schedule_free(cand);
        opt_window_free(wq), opt_window_free(wf);
    }
    ck_assert_int_ge(smaller, 3);
    opt_schedule_free(s);
    opt_graph_free(g);
}
END_TEST

/* From greedy seeds (which keep much, so node windows have quiet stages) on random graphs:
 * every schedule the search keeps passes every check, none costs more than the seed, and no
 * window's solution is refused by the checks (the window programs are exact). */
START_TEST(test_lns_with_quiet_node_windows_keeps_only_checked_schedules)
{
    unsigned seed = 2812;
    int improved = 0;
    /* sanitizer builds: the first 8, one graph of each size */
    for (int trial = 0; trial < gms_test_rounds(12, 8); trial++) {
        opt_graph *g = opt_test_random_graph(10 + (uint32_t)trial % 8, &seed);
        uint64_t peak = opt_graph_peak(g) - g->constant_bytes, floor = opt_graph_floor(g);
        uint64_t act = floor + (peak > floor ? (peak - floor) / 3 : 0);
        opt_schedule *s = opt_schedule_new(g->n);
        if (opt_schedule_greedy(g, act, s) != 0) {
            opt_schedule_free(s);
            opt_graph_free(g);
            continue;
        }
        double seed_cost = opt_schedule_cost(g, s);
        opt_lns_opts o = {.seconds = 30, .width = 2, .window_seconds = 10};
        opt_lns_result r;
        gms_error err = {0};
        ck_assert_msg(opt_lns_improve(g, act, s, &o, &r, &err) == 0, "%s", err.msg);
        assert_fits(g, s, act);
        ck_assert(r.cost <= seed_cost + 1e-12);
        ck_assert_uint_eq(r.rejected, 0);
        improved += r.improved > 0;
        opt_schedule_free(s);
        opt_graph_free(g);
    }
    ck_assert_int_ge(improved, 1);
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
    tcase_add_test(tc, test_node_window_with_quiet_stages_is_smaller_and_exact);
    tcase_add_test(tc, test_lns_with_quiet_node_windows_keeps_only_checked_schedules);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
