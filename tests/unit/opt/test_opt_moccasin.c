/* opt: MOCCASIN's program and the boundary bound against a brute force over every schedule of
 * small random graphs (opt_brute.h, with MOCCASIN's limit on computations per node), and
 * their schedules replayed. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "opt_brute.h"
#include "opt_bound.h"
#include "opt_graph.h"
#include "opt_graph_json.h"
#include "opt_moccasin.h"
#include "opt_replay.h"
#include "opt_schedule.h"
#include "opt_solve.h"
#include "opt_test_build.h"

static uint64_t rng_state = 777;
static uint32_t rnd(uint32_t m)
{
    return opt_test_rnd(&rng_state, m);
}

/* n nodes, each reading one to three earlier ones (training-like: later nodes read early
 * ones), random costs and sizes. */
static opt_graph *random_graph(int n, bf_graph *b)
{
    char json[4096];
    size_t len = (size_t)snprintf(json, sizeof json, "{\"constant_bytes\": 2, \"nodes\": [");
    memset(b, 0, sizeof *b);
    b->n = n;
    for (int v = 0; v < n; v++) {
        b->cost[v] = (1 + rnd(1000)) / 100.0;
        b->bytes[v] = 1 + rnd(20);
        len += (size_t)snprintf(json + len, sizeof json - len,
                                "%s{\"cost\": %.2f, \"bytes\": %llu, \"inputs\": [", v ? "," : "",
                                b->cost[v], (unsigned long long)b->bytes[v]);
        int first = 1;
        for (int k = 0; v > 0 && k < 1 + (int)rnd(3); k++) {
            int u = k == 0 ? v - 1 : (int)rnd((uint32_t)v);
            if (b->adj[u][v])
                continue;
            b->adj[u][v] = 1;
            len += (size_t)snprintf(json + len, sizeof json - len, "%s%d", first ? "" : ",", u);
            first = 0;
        }
        len += (size_t)snprintf(json + len, sizeof json - len, "]}");
    }
    snprintf(json + len, sizeof json - len, "]}");
    opt_graph *g = NULL;
    gms_error err = {0};
    ck_assert_msg(opt_graph_parse(json, strlen(json), "test", &g, &err) == 0, "%s", err.msg);
    return g;
}

static opt_answer solve(const opt_graph *g, uint64_t budget, opt_mode mode, opt_formulation f,
                        uint32_t copies)
{
    opt_request rq = {.budget = budget, .mode = mode, .formulation = f, .copies = copies};
    opt_answer a;
    gms_error err = {0};
    ck_assert_msg(opt_solve(g, &rq, &a, &err) == 0, "%s", err.msg);
    return a;
}

/* The replay of a's schedule costs its objective and fits the budget. */
static void replays(const opt_graph *g, const opt_answer *a, uint64_t budget)
{
    opt_replay r;
    gms_error err = {0};
    ck_assert_msg(opt_replay_run(g, a->schedule, 0, &r, &err) == 0, "%s", err.msg);
    ck_assert_msg(fabs(r.compute - a->objective) <= 1e-9 * fmax(1, a->objective),
                  "replayed %.12g ms, solver %.12g ms", r.compute, a->objective);
    ck_assert_uint_le(r.peak, budget);
    opt_replay_clear(&r);
}

START_TEST(test_moccasin_equals_brute_force_with_its_copy_limit)
{
    int checked = 0, limited = 0, infeasible = 0;
    for (int trial = 0; trial < 18; trial++) {
        bf_graph b;
        int n = 3 + trial % 3;
        opt_graph *g = random_graph(n, &b);
        uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
        uint64_t budgets[3] = {floor, floor + (peak - floor) / 3, floor + (peak - floor) / 2};
        for (int k = 0; k < 3; k++) {
            uint64_t act = budgets[k] - g->constant_bytes;
            double checkmate = bf_optimum(&b, act, n);
            uint32_t cs[3] = {1, 2, UINT32_MAX};
            for (int c = 0; c < 3; c++) {
                double want = cs[c] == UINT32_MAX ? checkmate : bf_optimum(&b, act, (int)cs[c]);
                opt_answer a = solve(g, budgets[k], OPT_MODE_MILP, OPT_FORM_MOCCASIN, cs[c]);
                limited += isinf(want) ? !isinf(checkmate) : want > checkmate * (1 + 1e-9);
                if (isinf(want)) {
                    ck_assert_msg(a.status == OPT_STATUS_INFEASIBLE, "trial %d C %u: %s", trial,
                                  cs[c], opt_status_name(a.status));
                    infeasible++;
                } else {
                    ck_assert_msg(a.status == OPT_STATUS_OPTIMAL, "trial %d C %u: %s", trial,
                                  cs[c], opt_status_name(a.status));
                    ck_assert_msg(fabs(a.objective - want) <= 1e-6 * want,
                                  "trial %d budget %llu C %u: moccasin %.9g, brute force %.9g",
                                  trial, (unsigned long long)budgets[k], cs[c], a.objective, want);
                    ck_assert(opt_moccasin_fits(a.schedule, cs[c]));
                    ck_assert(a.lower_bound <= a.objective * (1 + 1e-9));
                    ck_assert(a.objective >= checkmate * (1 - 1e-9));
                    replays(g, &a, budgets[k]);
                    checked++;
                }
                opt_answer_clear(&a);
            }
        }
        opt_graph_free(g);
    }
    /* the trials include budgets where the copy limit costs more than Checkmate's optimum
     * or leaves nothing that fits, and budgets nothing fits */
    ck_assert_int_gt(checked, 60);
    ck_assert_int_gt(limited, 0);
    ck_assert_int_gt(infeasible, 0);
}
END_TEST

START_TEST(test_boundary_bound_is_at_most_the_optimum)
{
    int checked = 0, above_base = 0, above_lp = 0;
    for (int trial = 0; trial < 30; trial++) {
        bf_graph b;
        int n = 3 + trial % 3;
        opt_graph *g = random_graph(n, &b);
        uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
        for (int k = 0; k < 4; k++) {
            uint64_t budget = floor + k * (peak - floor) / 4;
            double want = bf_optimum(&b, budget - g->constant_bytes, n);
            opt_answer a = solve(g, budget, OPT_MODE_BOUND, OPT_FORM_CHECKMATE, 0);
            opt_answer lp = solve(g, budget, OPT_MODE_RELAX, OPT_FORM_CHECKMATE, 0);
            if (a.status == OPT_STATUS_INFEASIBLE)
                ck_assert_msg(isinf(want), "trial %d: the bound says infeasible, the brute "
                              "force finds %.9g", trial, want);
            if (!isinf(want)) {
                ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
                ck_assert_msg(a.objective <= want * (1 + 1e-9),
                              "trial %d budget %llu: bound %.9g above the optimum %.9g", trial,
                              (unsigned long long)budget, a.objective, want);
                ck_assert(a.objective >= opt_graph_compute(g) * (1 - 1e-12));
                above_base += a.objective > opt_graph_compute(g) + 1e-9;
                above_lp += lp.status == OPT_STATUS_OPTIMAL && a.objective > lp.objective + 1e-9;
                checked++;
            }
            opt_answer_clear(&a);
            opt_answer_clear(&lp);
        }
        opt_graph_free(g);
    }
    ck_assert_int_gt(checked, 60);
    ck_assert_int_gt(above_base, 0); /* not the trivial bound everywhere */
    (void)above_lp;
}
END_TEST

/* A training-like chain: forward 0..9, backward 10..19, backward i reads forward 19 - i. */
static opt_graph *training_chain(uint32_t layers)
{
    uint32_t n = 2 * layers;
    opt_graph *g = opt_graph_new(n);
    gms_error err = {0};
    for (uint32_t v = 0; v < n; v++) {
        uint32_t in[2], k = 0;
        if (v > 0)
            in[k++] = v - 1;
        if (v >= layers && n - 1 - v != v - 1)
            in[k++] = n - 1 - v;
        ck_assert(opt_graph_set_node(g, v, NULL, 1 + v % 3, 10, in, k, &err) == 0);
    }
    ck_assert_msg(opt_graph_finish(g, &err) == 0, "%s", err.msg);
    return g;
}

START_TEST(test_large_graph_bound_is_quick_and_below_the_lp)
{
    opt_graph *g = training_chain(300); /* 600 nodes: the LP has about a million columns */
    uint64_t budget = opt_graph_peak(g) / 3;
    opt_bound_result r;
    gms_error err = {0};
    ck_assert_msg(opt_boundary_bound(g, budget, 0, &r, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(r.status, OPT_STATUS_OPTIMAL);
    ck_assert(r.value > opt_graph_compute(g));
    ck_assert_uint_le(r.columns, g->n_edges);
    ck_assert_uint_le(r.rows, g->n);
    /* a greedy schedule fits: the bound is below what it costs */
    opt_schedule *s = opt_schedule_new(g->n);
    ck_assert_int_eq(opt_schedule_greedy(g, budget, s), 0);
    ck_assert(r.value <= opt_schedule_cost(g, s) + 1e-9);
    opt_schedule_free(s);
    opt_graph_free(g);
}
END_TEST

START_TEST(test_copy_limit_refuses_zero)
{
    opt_graph *g = training_chain(3);
    opt_program *p = NULL;
    gms_error err = {0};
    ck_assert_int_eq(opt_moccasin_build(g, opt_graph_peak(g), 1, 0, &p, &err), GMS_EINVAL);
    ck_assert_ptr_null(p);
    ck_assert_ptr_nonnull(strstr(err.msg, "at least 1"));
    ck_assert_int_eq(opt_moccasin_build(g, opt_graph_peak(g), 1, 2, &p, &err), 0);
    opt_program *q = NULL;
    ck_assert_int_eq(opt_program_build(g, opt_graph_peak(g), 1, 1, &q, &err), 0);
    /* one row per node that could be computed more than twice: nodes 0 .. n - 3 */
    ck_assert_uint_eq(p->n_rows, q->n_rows + g->n - 2);
    ck_assert_uint_eq(p->n_cols, q->n_cols);
    opt_program_free(p);
    opt_program_free(q);
    opt_graph_free(g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("opt_moccasin");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_moccasin_equals_brute_force_with_its_copy_limit);
    tcase_add_test(tc, test_boundary_bound_is_at_most_the_optimum);
    tcase_add_test(tc, test_large_graph_bound_is_quick_and_below_the_lp);
    tcase_add_test(tc, test_copy_limit_refuses_zero);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
