/* opt: Checkmate's program on graphs whose optimum is known by hand, against an independent
 * brute force over every schedule of small random graphs, and the solver's limits. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "opt_brute.h"
#include "opt_graph.h"
#include "opt_graph_json.h"
#include "opt_test_graphs.h"
#include "opt_schedule.h"
#include "opt_solve.h"
#include "opt_test_build.h"

static opt_answer solve(const opt_graph *g, uint64_t budget, opt_mode mode, int tighten)
{
    opt_request rq = {.budget = budget, .mode = mode, .tighten = tighten};
    opt_answer a;
    gms_error err = {0};
    ck_assert_msg(opt_solve(g, &rq, &a, &err) == 0, "%s", err.msg);
    return a;
}

static uint32_t count_recomputations(const opt_schedule *s)
{
    uint32_t c = 0;
    for (uint32_t t = 0; t < s->n; t++)
        for (uint32_t i = 0; i < t; i++)
            c += s->R[(size_t)t * s->n + i];
    return c;
}

/* 0 -> 1 -> 2 -> 3, and 3 reads 0 again. With 25 bytes (5 of them constant), stage 2 cannot
 * hold 0, 1 and 2 (30), so 0 is dropped and recomputed once, at stage 3: 10 + 1 ms. */
static const char *CHAIN =
    "{\"constant_bytes\": 5, \"nodes\": ["
    "{\"name\": \"a\", \"cost\": 1, \"bytes\": 10},"
    "{\"name\": \"b\", \"cost\": 2, \"bytes\": 10, \"inputs\": [0]},"
    "{\"name\": \"c\", \"cost\": 3, \"bytes\": 10, \"inputs\": [1]},"
    "{\"name\": \"d\", \"cost\": 4, \"bytes\": 0, \"inputs\": [2, 0]}]}";

START_TEST(test_chain_recomputes_exactly_the_first_node_once)
{
    opt_graph *g = parse(CHAIN);
    ck_assert_uint_eq(opt_graph_peak(g), 35); /* stage 2 holds a, b, c */
    opt_answer a = solve(g, 30, OPT_MODE_MILP, 0);
    ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
    ck_assert_double_eq_tol(a.objective, 11, 1e-9);
    ck_assert_uint_eq(count_recomputations(a.schedule), 1);
    ck_assert_int_eq(a.schedule->R[3 * 4 + 0], 1);
    ck_assert_uint_le(a.peak, 30);
    ck_assert(a.lower_bound <= a.objective + 1e-9);
    opt_answer_clear(&a);
    /* with room for everything, nothing is recomputed */
    a = solve(g, 35, OPT_MODE_MILP, 0);
    ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
    ck_assert_double_eq_tol(a.objective, 10, 1e-9);
    opt_answer_clear(&a);
    opt_graph_free(g);
}
END_TEST

/* a feeds b and c, which meet in d; e reads d and a. Stage 3 needs b, c and d (30 bytes), so
 * with 30 bytes a (cost 5) cannot be kept across it and is recomputed for e: 9 + 5 = 14. */
static const char *DIAMOND =
    "{\"nodes\": ["
    "{\"name\": \"a\", \"cost\": 5, \"bytes\": 10},"
    "{\"name\": \"b\", \"cost\": 1, \"bytes\": 10, \"inputs\": [0]},"
    "{\"name\": \"c\", \"cost\": 1, \"bytes\": 10, \"inputs\": [0]},"
    "{\"name\": \"d\", \"cost\": 1, \"bytes\": 10, \"inputs\": [1, 2]},"
    "{\"name\": \"e\", \"cost\": 1, \"bytes\": 10, \"inputs\": [3, 0]}]}";

START_TEST(test_diamond_optimum_recomputes_the_shared_root)
{
    opt_graph *g = parse(DIAMOND);
    ck_assert_uint_eq(opt_graph_peak(g), 40);
    for (int tighten = 0; tighten < 2; tighten++) {
        opt_answer a = solve(g, 30, OPT_MODE_MILP, tighten);
        ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
        ck_assert_double_eq_tol(a.objective, 14, 1e-9);
        ck_assert_int_eq(a.schedule->R[4 * 5 + 0], 1);
        ck_assert_uint_eq(count_recomputations(a.schedule), 1);
        opt_answer_clear(&a);
    }
    opt_graph_free(g);
}
END_TEST

START_TEST(test_infeasible_budget_says_what_the_smallest_needs)
{
    opt_graph *g = parse(DIAMOND);
    opt_answer a = solve(g, 29, OPT_MODE_MILP, 0);
    ck_assert_int_eq(a.status, OPT_STATUS_INFEASIBLE);
    ck_assert_ptr_null(a.schedule);
    ck_assert_uint_eq(a.floor, 30); /* d or e with their two inputs */
    opt_answer_clear(&a);
    opt_graph_free(g);
}
END_TEST

/* ------------------------------------------------------------------------------------------
 * Against the independent implementation of the same program (opt_brute.h). */

static uint64_t rng_state = 12345;
static uint32_t rnd(uint32_t m)
{
    return opt_test_rnd(&rng_state, m);
}

/* A random graph of n nodes as JSON and as a bf_graph: each node reads one or two earlier
 * nodes (node 0 none), random costs (ms, fractional) and sizes. */
static opt_graph *random_graph(int n, bf_graph *b)
{
    char json[4096];
    size_t len = (size_t)snprintf(json, sizeof json, "{\"constant_bytes\": 3, \"nodes\": [");
    memset(b, 0, sizeof *b);
    b->n = n;
    for (int v = 0; v < n; v++) {
        b->cost[v] = (1 + rnd(1000)) / 100.0;
        b->bytes[v] = 1 + rnd(20);
        int in[2], n_in = 0;
        if (v > 0) {
            in[n_in++] = (int)rnd((uint32_t)v);
            if (v > 1 && rnd(2))
                in[n_in++] = (int)rnd((uint32_t)v);
        }
        len += (size_t)snprintf(json + len, sizeof json - len,
                                "%s{\"cost\": %.2f, \"bytes\": %llu, \"inputs\": [", v ? "," : "",
                                b->cost[v], (unsigned long long)b->bytes[v]);
        for (int k = 0; k < n_in; k++) {
            b->adj[in[k]][v] = 1;
            len += (size_t)snprintf(json + len, sizeof json - len, "%s%d", k ? "," : "", in[k]);
        }
        len += (size_t)snprintf(json + len, sizeof json - len, "]}");
    }
    snprintf(json + len, sizeof json - len, "]}");
    return parse(json);
}

START_TEST(test_random_graphs_agree_with_brute_force_and_sit_between_bound_and_heuristic)
{
    int checked = 0, infeasible = 0, proven = 0, recomputing = 0;
    for (int trial = 0; trial < 24; trial++) {
        bf_graph b;
        int n = 3 + trial % 3; /* 3, 4, 5 nodes */
        opt_graph *g = random_graph(n, &b);
        uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
        uint64_t budgets[4] = {floor > 0 ? floor - 1 : 0, floor, floor + (peak - floor) / 3,
                               floor + 2 * (peak - floor) / 3};
        for (int k = 0; k < 4; k++) {
            uint64_t budget = budgets[k];
            double want = budget >= g->constant_bytes
                              ? bf_optimum(&b, budget - g->constant_bytes, n) : INFINITY;
            for (int tighten = 0; tighten < 2; tighten++) {
                opt_answer a = solve(g, budget, OPT_MODE_MILP, tighten);
                if (isinf(want)) {
                    ck_assert_msg(a.status == OPT_STATUS_INFEASIBLE,
                                  "trial %d budget %llu: brute force finds nothing, optimal "
                                  "says %s", trial, (unsigned long long)budget,
                                  opt_status_name(a.status));
                    infeasible++;
                    proven += budget >= floor; /* the MILP's proof, not the floor's */
                } else {
                    ck_assert_msg(a.status == OPT_STATUS_OPTIMAL, "trial %d: %s", trial,
                                  opt_status_name(a.status));
                    ck_assert_msg(fabs(a.objective - want) <= 1e-6 * want,
                                  "trial %d budget %llu tighten %d: optimal %.9g, brute force "
                                  "%.9g", trial, (unsigned long long)budget, tighten,
                                  a.objective, want);
                    ck_assert_uint_le(a.peak, budget);
                    ck_assert(a.lower_bound <= a.objective * (1 + 1e-9));
                    opt_schedule *h = opt_schedule_new(g->n);
                    if (opt_schedule_greedy(g, budget - g->constant_bytes, h) == 0)
                        ck_assert(a.objective <= opt_schedule_cost(g, h) * (1 + 1e-9));
                    opt_schedule_free(h);
                    recomputing += a.objective > opt_graph_compute(g) + 1e-9;
                    checked++;
                }
                opt_answer_clear(&a);
            }
        }
        opt_graph_free(g);
    }
    /* the trials exercise all three outcomes */
    ck_assert_int_gt(checked, 20);
    ck_assert_int_gt(infeasible, 0);
    ck_assert_int_gt(proven, 0);
    ck_assert_int_gt(recomputing, 0);
}
END_TEST

START_TEST(test_lp_rounding_fits_and_costs_at_least_the_optimum)
{
    opt_graph *g = parse(DIAMOND);
    opt_answer opt = solve(g, 35, OPT_MODE_MILP, 0);
    opt_answer ap = solve(g, 35, OPT_MODE_APPROX, 0);
    opt_answer lp = solve(g, 35, OPT_MODE_RELAX, 0);
    ck_assert_int_eq(opt.status, OPT_STATUS_OPTIMAL);
    ck_assert_int_eq(lp.status, OPT_STATUS_OPTIMAL);
    ck_assert(lp.objective <= opt.objective + 1e-9);
    if (ap.status == OPT_STATUS_FEASIBLE) {
        ck_assert_uint_le(ap.peak, 35);
        ck_assert(ap.objective >= opt.objective - 1e-9);
    }
    opt_answer_clear(&opt);
    opt_answer_clear(&ap);
    opt_answer_clear(&lp);
    opt_graph_free(g);
}
END_TEST

/* The training chain of 40 nodes (opt_test_build.h) is hard enough that 1 s does not prove
 * the optimum on any machine we know. */
START_TEST(test_time_limit_is_honoured_and_reported)
{
    opt_graph *g = opt_test_training_chain(20);
    uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
    opt_request rq = {.budget = floor + (peak - floor) / 4, .time_limit = 1.0};
    opt_answer a;
    gms_error err = {0};
    ck_assert_int_eq(opt_solve(g, &rq, &a, &err), 0);
    ck_assert_msg(a.seconds < 1.0 + 2.0, "ran %.2f s with a 1 s limit", a.seconds);
    ck_assert_msg(a.status == OPT_STATUS_FEASIBLE || a.status == OPT_STATUS_OPTIMAL, "%s",
                  opt_status_name(a.status));
    ck_assert(a.seeded);
    ck_assert_ptr_nonnull(a.schedule);
    ck_assert_uint_le(a.peak, rq.budget);
    if (a.status == OPT_STATUS_FEASIBLE)
        ck_assert(a.gap > 0 && a.gap < 1);
    opt_answer_clear(&a);
    opt_graph_free(g);
}
END_TEST

/* ------------------------------------------------------------------------------------------
 * The JSON reader's refusals name the node. */

START_TEST(test_bad_graphs_are_refused_naming_the_node)
{
    refused("{\"nodes\": [{\"name\": \"x\", \"cost\": 1, \"bytes\": 1, \"inputs\": [0]}]}",
            "node 0 (\"x\")", "cycle");
    refused("{\"nodes\": [{\"cost\": 1, \"bytes\": 1}, {\"name\": \"y\", \"cost\": 1, "
            "\"bytes\": 1, \"inputs\": [2]}, {\"cost\": 1, \"bytes\": 1}]}",
            "node 1 (\"y\")", "names a later node");
    refused("{\"nodes\": [{\"name\": \"z\", \"cost\": -1, \"bytes\": 1}]}", "node 0 (\"z\")",
            "negative cost");
    refused("{\"nodes\": [{\"name\": \"w\", \"cost\": 1, \"bytes\": -4}]}", "node 0 (\"w\")",
            "negative");
    refused("{\"nodes\": [{\"cost\": 1, \"bytes\": 1}, {\"name\": \"v\", \"cost\": 1, "
            "\"bytes\": 1, \"inputs\": [-1]}]}", "node 1 (\"v\")", "not a node index");
    refused("{\"nodes\": [{\"name\": \"u\", \"bytes\": 1}]}", "node 0 (\"u\")", "cost");
    refused("[1, 2]", "g.json", "not a graph");
    refused("{\"nodes\": [", "g.json:1", "not JSON");
}
END_TEST

START_TEST(test_written_graph_reads_back_the_same)
{
    opt_graph *g = parse(DIAMOND);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(opt_graph_write(g, f, NULL), 0);
    fclose(f);
    opt_graph *h = parse(buf);
    ck_assert_uint_eq(h->n, g->n);
    ck_assert_uint_eq(h->n_edges, g->n_edges);
    for (uint32_t i = 0; i < g->n; i++) {
        ck_assert_str_eq(h->nodes[i].name, g->nodes[i].name);
        ck_assert(h->nodes[i].cost == g->nodes[i].cost);
        ck_assert_uint_eq(h->nodes[i].bytes, g->nodes[i].bytes);
    }
    free(buf);
    opt_graph_free(g);
    opt_graph_free(h);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("opt");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_chain_recomputes_exactly_the_first_node_once);
    tcase_add_test(tc, test_diamond_optimum_recomputes_the_shared_root);
    tcase_add_test(tc, test_infeasible_budget_says_what_the_smallest_needs);
    tcase_add_test(tc, test_random_graphs_agree_with_brute_force_and_sit_between_bound_and_heuristic);
    tcase_add_test(tc, test_lp_rounding_fits_and_costs_at_least_the_optimum);
    tcase_add_test(tc, test_time_limit_is_honoured_and_reported);
    tcase_add_test(tc, test_bad_graphs_are_refused_naming_the_node);
    tcase_add_test(tc, test_written_graph_reads_back_the_same);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
