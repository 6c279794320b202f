/*
 * The yardstick (analysis/yardstick.h, store_gaps.h): a heuristic run's gap to the optimum and
 * the LP bound on hand cases (none known, infeasible program, heuristic oom, a heuristic that
 * beats a coarsened optimum), and the same figures from the store (store_query_gaps and the
 * SQL view run_gaps), a pre-version-9 solution's compute filled in, and merge carrying it.
 */
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "store.h"
#include "store_gaps.h"
#include "store_solution.h"
#include "test_sql.h"
#include "test_tmpdir.h"
#include "yardstick.h"

static void setup(void)
{
    tmpdir_make("gms-yard");
}

static void teardown(void)
{
    tmpdir_remove();
}

#define CLOSE(a, b) (fabs((a) - (b)) <= 1e-12 * fabs(b))

START_TEST(test_gap_by_hand)
{
    /* the optimum costs 12 ms on a graph of 10 ms: overhead 1.2; LP bound 11 ms: 1.1 */
    yardstick_solution s = {.status = "optimal", .has_objective = 1, .objective = 12,
                            .lower_bound = 11, .compute = 10, .coarsen = "none"};
    yardstick_gap g;
    yardstick_gap_of(1, 1.5, &s, &g);
    ck_assert(CLOSE(g.opt_overhead, 1.2) && CLOSE(g.bound_overhead, 1.1));
    ck_assert(CLOSE(g.gap_optimum, 1.5 / 1.2 - 1)); /* 25% more compute than the optimum */
    ck_assert(CLOSE(g.gap_bound, 1.5 / 1.1 - 1));
    ck_assert_int_eq(g.proven, 1);
    ck_assert_ptr_null(g.finding);
    /* equal to the optimum: gap 0, no finding */
    yardstick_gap_of(1, 1.2, &s, &g);
    ck_assert(fabs(g.gap_optimum) < 1e-15);
    ck_assert_ptr_null(g.finding);
    /* a best-found schedule (time limit) is not proven */
    s.status = "feasible";
    yardstick_gap_of(1, 1.5, &s, &g);
    ck_assert_int_eq(g.proven, 0);
    ck_assert(CLOSE(g.gap_optimum, 1.5 / 1.2 - 1));
}
END_TEST

START_TEST(test_no_solution_known)
{
    yardstick_gap g;
    yardstick_gap_of(1, 1.5, NULL, &g);
    ck_assert(isnan(g.opt_overhead) && isnan(g.bound_overhead));
    ck_assert(isnan(g.gap_optimum) && isnan(g.gap_bound));
    ck_assert_ptr_null(g.finding);
    /* a solution without the graph's compute (stored before version 9): no gap either */
    yardstick_solution s = {.status = "optimal", .has_objective = 1, .objective = 12,
                            .lower_bound = 11, .compute = -1, .coarsen = "none"};
    yardstick_gap_of(1, 1.5, &s, &g);
    ck_assert(isnan(g.gap_optimum) && isnan(g.gap_bound));
    /* the solver found nothing in its limit: only the bound */
    yardstick_solution u = {.status = "unknown", .lower_bound = 11, .compute = 10,
                            .coarsen = "none"};
    yardstick_gap_of(1, 1.5, &u, &g);
    ck_assert(isnan(g.gap_optimum) && CLOSE(g.gap_bound, 1.5 / 1.1 - 1));
}
END_TEST

START_TEST(test_infeasible_optimum)
{
    yardstick_solution s = {.status = "infeasible", .lower_bound = -1, .compute = 10,
                            .coarsen = "layers"};
    yardstick_gap g;
    /* the heuristic fits where the program cannot: a finding, no number */
    yardstick_gap_of(1, 1.3, &s, &g);
    ck_assert(isnan(g.gap_optimum) && isnan(g.gap_bound));
    ck_assert_ptr_nonnull(g.finding);
    ck_assert_ptr_nonnull(strstr(g.finding, "infeasible"));
    ck_assert_ptr_nonnull(strstr(g.finding, "layer"));
    /* both fail: nothing to say */
    yardstick_gap_of(0, 0, &s, &g);
    ck_assert_ptr_null(g.finding);
}
END_TEST

START_TEST(test_heuristic_oom)
{
    yardstick_solution s = {.status = "optimal", .has_objective = 1, .objective = 12,
                            .lower_bound = 11, .compute = 10, .coarsen = "none"};
    yardstick_gap g;
    yardstick_gap_of(0, 0, &s, &g);
    ck_assert(isnan(g.gap_optimum) && isnan(g.gap_bound));
    ck_assert(CLOSE(g.opt_overhead, 1.2)); /* the optimum is still reported */
    ck_assert_ptr_nonnull(g.finding);
    ck_assert_ptr_nonnull(strstr(g.finding, "failed"));
}
END_TEST

START_TEST(test_heuristic_below_the_optimum_is_kept_and_explained)
{
    yardstick_solution s = {.status = "optimal", .has_objective = 1, .objective = 12,
                            .lower_bound = 11, .compute = 10, .coarsen = "layers"};
    yardstick_gap g;
    yardstick_gap_of(1, 1.15, &s, &g); /* between the bound and the optimum */
    ck_assert(g.gap_optimum < 0 && CLOSE(g.gap_optimum, 1.15 / 1.2 - 1)); /* not clamped */
    ck_assert(g.gap_bound > 0);
    ck_assert_ptr_nonnull(strstr(g.finding, "beats the layer-coarsened optimum"));
    yardstick_gap_of(1, 1.05, &s, &g); /* below the bound */
    ck_assert(g.gap_bound < 0);
    ck_assert_ptr_nonnull(strstr(g.finding, "below the LP bound of the layer-coarsened"));
    s.coarsen = "none";
    yardstick_gap_of(1, 1.15, &s, &g);
    ck_assert_ptr_nonnull(strstr(g.finding, "beats the program's optimum"));
}
END_TEST

typedef struct seen {
    size_t n;
    char policy[8][16], coarsen[8][8];
    double gap_opt[8], gap_bound[8];
    int has_sol[8];
} seen;

static int keep(void *ctx, const store_gap_row *g)
{
    seen *x = ctx;
    ck_assert_uint_lt(x->n, 8);
    snprintf(x->policy[x->n], 16, "%s", g->run->policy);
    snprintf(x->coarsen[x->n], 8, "%s", g->sol ? g->sol->key.coarsen : "-");
    x->has_sol[x->n] = g->sol != NULL;
    x->gap_opt[x->n] = g->gap.gap_optimum;
    x->gap_bound[x->n] = g->gap.gap_bound;
    x->n++;
    return 0;
}

static void put_run(store *s, const char *policy, uint64_t budget, const char *status,
                    double overhead)
{
    store_run r = {.key = {"00000000000000e1", policy, "", budget, 2.0, "simrd", NULL},
                   .ratio = (double)budget / 1000.0, .status = status, .overhead = overhead,
                   .peak_memory = budget};
    gms_error err;
    ck_assert_msg(store_put_run(s, &r, NULL, &err) == 0, "%s", err.msg);
}

START_TEST(test_store_gaps_and_view_agree)
{
    const char *p = path_in("gaps.db"), *pm = path_in("gaps-merged.db");
    store *s;
    gms_error err;
    ck_assert_msg(store_open(p, STORE_CREATE, &s, &err) == 0, "%s", err.msg);
    store_trace t = {.name = "t", .path = "t.gmt", .ops = 10, .baseline_memory = 1000,
                     .baseline_compute = 10000000};
    snprintf(t.hash, sizeof t.hash, "00000000000000e1");
    ck_assert_msg(store_put_trace(s, &t, &err) == 0, "%s", err.msg);
    put_run(s, "dtr", 600, "ok", 1.5);
    put_run(s, "lru", 600, "oom", 0);
    put_run(s, "dtr", 800, "ok", 1.1); /* no solution at 800 */
    /* at 600: an op-level optimum and a layer-coarsened one, and an approx answer (ignored) */
    store_solution op = {.key = {"00000000000000e1", 0, "none", 600, "exact", 0, NULL},
                         .status = "optimal", .objective = 12, .lower_bound = 11,
                         .nodes = 4, .compute = 10, .solve_s = 1};
    store_solution ly = {.key = {"00000000000000e1", 0, "layers", 600, "exact", 30, NULL},
                         .status = "feasible", .objective = 16, .lower_bound = 13,
                         .nodes = 2, .compute = 10, .solve_s = 30};
    store_solution ap = {.key = {"00000000000000e1", 0, "none", 600, "approx", 0, NULL},
                         .status = "feasible", .objective = 14, .lower_bound = 11,
                         .nodes = 4, .compute = 10};
    const unsigned char sched[32] = {0};
    op.schedule = ly.schedule = ap.schedule = sched;
    op.schedule_len = ap.schedule_len = 32;
    ly.schedule_len = 8;
    ck_assert_msg(store_put_solution(s, &op, &err) == 0, "%s", err.msg);
    ck_assert_msg(store_put_solution(s, &ly, &err) == 0, "%s", err.msg);
    ck_assert_msg(store_put_solution(s, &ap, &err) == 0, "%s", err.msg);

    seen x = {0};
    ck_assert_msg(store_query_gaps(s, NULL, 1, keep, &x, &err) == 0, "%s", err.msg);
    /* dtr@600 x 2 solutions, dtr@800 unsolved, lru@600 x 2 */
    ck_assert_uint_eq(x.n, 5);
    ck_assert_str_eq(x.policy[0], "dtr");
    ck_assert_str_eq(x.coarsen[0], "layers");
    ck_assert(CLOSE(x.gap_opt[0], 1.5 / 1.6 - 1)); /* below the coarsened one: kept */
    ck_assert(CLOSE(x.gap_bound[0], 1.5 / 1.3 - 1));
    ck_assert_str_eq(x.coarsen[1], "none");
    ck_assert(CLOSE(x.gap_opt[1], 1.5 / 1.2 - 1));
    ck_assert_int_eq(x.has_sol[2], 0);
    ck_assert(isnan(x.gap_opt[2]));
    ck_assert_str_eq(x.policy[3], "lru");
    ck_assert(isnan(x.gap_opt[3]) && isnan(x.gap_opt[4]));
    seen y = {0};
    ck_assert_int_eq(store_query_gaps(s, NULL, 0, keep, &y, &err), 0);
    ck_assert_uint_eq(y.n, 4); /* without the unsolved run */
    store_close(s);

    /* the SQL view: the same numbers */
    double v;
    ck_assert_int_eq(sql_double_or_null(p, "SELECT gap_optimum FROM run_gaps WHERE policy = 'dtr'"
                                   " AND coarsen = 'none'", &v), 0);
    ck_assert(fabs(v - x.gap_opt[1]) < 1e-12);
    ck_assert_int_eq(sql_double_or_null(p, "SELECT gap_bound FROM run_gaps WHERE policy = 'dtr'"
                                   " AND coarsen = 'layers'", &v), 0);
    ck_assert(fabs(v - x.gap_bound[0]) < 1e-12);
    ck_assert_int_eq(sql_double_or_null(p, "SELECT count(*) FROM run_gaps", &v), 0);
    ck_assert(v == 4); /* exact answers only, solved budgets only */
    ck_assert_int_ne(sql_double_or_null(p, "SELECT gap_optimum FROM run_gaps WHERE policy = 'lru'"
                                   " AND coarsen = 'none'", &v), 0); /* oom: NULL */

    /* merge carries the compute */
    const char *in[] = {p};
    ck_assert_msg(store_merge(in, 1, pm, 0, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sql_double_or_null(pm, "SELECT sum(compute) FROM solutions", &v), 0);
    ck_assert(v == 30);
}
END_TEST

/* A solution stored before version 9 has no compute: no gap, until a cache hit fills it. */
START_TEST(test_old_solution_gets_its_compute)
{
    const char *p = path_in("old.db");
    store *s;
    gms_error err;
    ck_assert_int_eq(store_open(p, STORE_CREATE, &s, &err), 0);
    store_solution a = {.key = {"00000000000000e2", 0, "layers", 600, "exact", 0, NULL},
                        .status = "optimal", .objective = 12, .lower_bound = 11,
                        .nodes = 1, .compute = -1};
    const unsigned char sched[2] = {1, 0};
    a.schedule = sched;
    a.schedule_len = 2;
    ck_assert_int_eq(store_put_solution(s, &a, &err), 0);
    store_solution got = {0};
    int found;
    ck_assert_int_eq(store_get_solution(s, &a.key, &got, &found, &err), 0);
    ck_assert(found && got.compute < 0);
    store_solution_clear(&got);
    ck_assert_int_eq(store_solution_fill_compute(s, &a.key, 10, &err), 0);
    ck_assert_int_eq(store_solution_fill_compute(s, &a.key, 99, &err), 0); /* only once */
    ck_assert_int_eq(store_get_solution(s, &a.key, &got, &found, &err), 0);
    ck_assert(found && got.compute == 10);
    store_solution_clear(&got);
    store_close(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("yardstick");
    TCase *tc = tcase_create("gap");
    tcase_add_test(tc, test_gap_by_hand);
    tcase_add_test(tc, test_no_solution_known);
    tcase_add_test(tc, test_infeasible_optimum);
    tcase_add_test(tc, test_heuristic_oom);
    tcase_add_test(tc, test_heuristic_below_the_optimum_is_kept_and_explained);
    suite_add_tcase(s, tc);
    TCase *ts = tcase_create("store");
    tcase_add_checked_fixture(ts, setup, teardown);
    tcase_add_test(ts, test_store_gaps_and_view_agree);
    tcase_add_test(ts, test_old_solution_gets_its_compute);
    suite_add_tcase(s, ts);
    return gms_check_run(s);
}
