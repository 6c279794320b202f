/* opt_xengine: the two-device program on graphs solved by hand, against a brute force over
 * every two-device schedule of 3-node graphs, and, without any cost_host, against Checkmate's
 * single-device optimum on random graphs. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "opt_graph.h"
#include "opt_graph_json.h"
#include "opt_test_graphs.h"
#include "opt_solve.h"
#include "opt_xengine.h"
#include "opt_test_build.h"

/* 1 GB/s, no latency: a copy of B bytes takes B / 1e6 ms */
static const sim_link LINK_1GBPS = {1.0, 0};

static opt_xe_answer xsolve_seeded(const opt_graph *g, uint64_t budget, uint64_t host,
                                   int relax, int no_seed)
{
    opt_xe_request rq = {.budget = budget, .host_memory = host, .link = LINK_1GBPS,
                         .relax = relax, .no_seed = no_seed};
    opt_xe_answer a;
    gms_error err = {0};
    ck_assert_msg(opt_xe_solve(g, &rq, &a, &err) == 0, "%s", err.msg);
    return a;
}

static opt_xe_answer xsolve(const opt_graph *g, uint64_t budget, uint64_t host, int relax)
{
    return xsolve_seeded(g, budget, host, relax, 0);
}

/* a -> b -> c; b costs 10 ms on the GPU, 2 on the host; each output is 1 MB, 1 ms over the
 * link. Running b on the host: 1 + (1 copy) + 2 + (1 copy) + 1 = 6 ms < 12 on the GPU. */
static const char *CHEAP_HOST =
    "{\"nodes\": ["
    "{\"name\": \"a\", \"cost\": 1, \"bytes\": 1000000},"
    "{\"name\": \"b\", \"cost\": 10, \"cost_host\": 2, \"bytes\": 1000000, \"inputs\": [0]},"
    "{\"name\": \"c\", \"cost\": 1, \"bytes\": 1000000, \"inputs\": [1]}]}";

/* the same with 5 MB outputs: the copies (5 ms each) cost more than the host saves */
static const char *DEAR_LINK =
    "{\"nodes\": ["
    "{\"name\": \"a\", \"cost\": 1, \"bytes\": 5000000},"
    "{\"name\": \"b\", \"cost\": 10, \"cost_host\": 2, \"bytes\": 5000000, \"inputs\": [0]},"
    "{\"name\": \"c\", \"cost\": 1, \"bytes\": 5000000, \"inputs\": [1]}]}";

START_TEST(test_a_node_cheaper_on_the_host_runs_there_when_the_copies_cost_less)
{
    opt_graph *g = parse(CHEAP_HOST);
    opt_xe_answer a = xsolve(g, opt_graph_peak(g), UINT64_MAX, 0);
    ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
    ck_assert_double_eq_tol(a.objective, 6, 1e-9);
    ck_assert_int_eq(a.schedule->R[OPT_XE_HOST][1 * 3 + 1], 1);
    ck_assert_int_eq(a.schedule->R[OPT_XE_GPU][1 * 3 + 1], 0);
    ck_assert_uint_eq(a.eval.transfers[OPT_XE_HOST], 1); /* a to the host */
    ck_assert_uint_eq(a.eval.transfers[OPT_XE_GPU], 1);  /* b back for c */
    ck_assert_uint_eq(a.eval.transfer_bytes[OPT_XE_HOST] + a.eval.transfer_bytes[OPT_XE_GPU],
                      2000000);
    ck_assert_double_eq_tol(a.eval.transfer_ms, 2, 1e-9);
    ck_assert_double_eq_tol(a.eval.compute[OPT_XE_HOST], 2, 1e-9);
    ck_assert(a.lower_bound <= a.objective + 1e-9);
    opt_xe_answer_clear(&a);
    opt_graph_free(g);

    g = parse(DEAR_LINK);
    a = xsolve(g, opt_graph_peak(g), UINT64_MAX, 0);
    ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
    ck_assert_double_eq_tol(a.objective, 12, 1e-9);
    ck_assert_uint_eq(a.eval.transfers[0] + a.eval.transfers[1], 0);
    ck_assert_double_eq_tol(a.eval.compute[OPT_XE_HOST], 0, 1e-12);
    opt_xe_answer_clear(&a);
    opt_graph_free(g);
}
END_TEST

/* Checkmate's chain with a root that costs 5 on either device: at 30 bytes of GPU (5 constant)
 * the GPU alone recomputes a for d (19 ms). With 10 bytes of host memory a lives on the host
 * and is copied to b and d (14 ms + 2 x 10 ns); with 5 bytes it cannot, and the GPU
 * recomputes. */
static const char *HOST_ROOT =
    "{\"constant_bytes\": 5, \"nodes\": ["
    "{\"name\": \"a\", \"cost\": 5, \"cost_host\": 5, \"bytes\": 10},"
    "{\"name\": \"b\", \"cost\": 2, \"bytes\": 10, \"inputs\": [0]},"
    "{\"name\": \"c\", \"cost\": 3, \"bytes\": 10, \"inputs\": [1]},"
    "{\"name\": \"d\", \"cost\": 4, \"bytes\": 0, \"inputs\": [2, 0]}]}";

START_TEST(test_host_memory_too_small_forces_the_gpu_to_recompute)
{
    opt_graph *g = parse(HOST_ROOT);
    opt_xe_answer a = xsolve(g, 30, 10, 0);
    ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
    ck_assert_double_eq_tol(a.objective, 14.00002, 1e-9);
    ck_assert_int_eq(a.schedule->R[OPT_XE_HOST][0], 1);
    ck_assert_uint_eq(a.eval.transfers[OPT_XE_GPU], 2);
    ck_assert_uint_le(a.eval.peak[OPT_XE_GPU], 30);
    ck_assert_uint_eq(a.eval.peak[OPT_XE_HOST], 10);
    opt_xe_answer_clear(&a);

    a = xsolve(g, 30, 5, 0);
    ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
    ck_assert_double_eq_tol(a.objective, 19, 1e-9);
    ck_assert_uint_eq(a.eval.peak[OPT_XE_HOST], 0);
    ck_assert_int_eq(a.schedule->R[OPT_XE_GPU][3 * 4 + 0], 1); /* a again for d */
    ck_assert_double_eq_tol(a.eval.transfer_ms, 0, 1e-12);
    opt_xe_answer_clear(&a);

    /* the single-device program agrees on the GPU-only answer */
    opt_request rq = {.budget = 30};
    opt_answer s;
    gms_error err = {0};
    ck_assert_int_eq(opt_solve(g, &rq, &s, &err), 0);
    ck_assert_double_eq_tol(s.objective, 19, 1e-9);
    opt_answer_clear(&s);

    /* below the constants: infeasible */
    a = xsolve(g, 4, UINT64_MAX, 0);
    ck_assert_int_eq(a.status, OPT_STATUS_INFEASIBLE);
    opt_xe_answer_clear(&a);
    opt_graph_free(g);
}
END_TEST

static uint64_t rng_state = 987654321;
static uint32_t rnd(uint32_t m)
{
    return opt_test_rnd(&rng_state, m);
}

/* A random graph: each node reads one or two earlier nodes; with_host: some nodes get a
 * cost_host. Sizes in MB so that copies cost whole milliseconds at 1 GB/s. */
static opt_graph *random_graph(int n, int with_host)
{
    char json[8192];
    size_t len = (size_t)snprintf(json, sizeof json, "{\"constant_bytes\": 3, \"nodes\": [");
    for (int v = 0; v < n; v++) {
        len += (size_t)snprintf(json + len, sizeof json - len,
                                "%s{\"cost\": %.2f, \"bytes\": %u000000", v ? "," : "",
                                (1 + rnd(1000)) / 100.0, 1 + rnd(5));
        if (with_host && rnd(3))
            len += (size_t)snprintf(json + len, sizeof json - len, ", \"cost_host\": %.2f",
                                    (1 + rnd(1000)) / 100.0);
        len += (size_t)snprintf(json + len, sizeof json - len, ", \"inputs\": [");
        if (v > 0) {
            len += (size_t)snprintf(json + len, sizeof json - len, "%u", rnd((uint32_t)v));
            if (v > 1 && rnd(2))
                len += (size_t)snprintf(json + len, sizeof json - len, ",%u", rnd((uint32_t)v));
        }
        len += (size_t)snprintf(json + len, sizeof json - len, "]}");
    }
    snprintf(json + len, sizeof json - len, "]}");
    return parse(json);
}

START_TEST(test_without_cost_host_the_optimum_is_checkmates)
{
    int optimal = 0, infeasible = 0, recomputing = 0;
    for (int trial = 0; trial < 18; trial++) {
        opt_graph *g = random_graph(3 + trial % 4, 0);
        uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
        uint64_t budgets[4] = {floor - 1, floor, floor + (peak - floor) / 3, peak};
        for (int k = 0; k < 4; k++) {
            opt_request rq = {.budget = budgets[k]};
            opt_answer s;
            gms_error err = {0};
            ck_assert_msg(opt_solve(g, &rq, &s, &err) == 0, "%s", err.msg);
            /* unseeded too: the seed is Checkmate's own answer */
            opt_xe_answer a = xsolve_seeded(g, budgets[k], UINT64_MAX, 0, k % 2);
            ck_assert_msg(a.status == s.status, "trial %d budget %llu: two devices %s, one %s",
                          trial, (unsigned long long)budgets[k], opt_status_name(a.status),
                          opt_status_name(s.status));
            ck_assert_int_eq(a.seeded, !(k % 2) && s.status == OPT_STATUS_OPTIMAL);
            if (s.status == OPT_STATUS_OPTIMAL) {
                ck_assert_msg(fabs(a.objective - s.objective) <= 1e-6 * s.objective,
                              "trial %d budget %llu: two devices %.9g, Checkmate %.9g", trial,
                              (unsigned long long)budgets[k], a.objective, s.objective);
                ck_assert_double_eq_tol(a.eval.compute[OPT_XE_HOST], 0, 1e-12);
                ck_assert_uint_eq(a.eval.transfers[0] + a.eval.transfers[1], 0);
                ck_assert_uint_le(a.eval.peak[OPT_XE_GPU], budgets[k]);
                optimal++;
                recomputing += s.objective > opt_graph_compute(g) + 1e-9;
            } else {
                infeasible += s.status == OPT_STATUS_INFEASIBLE;
            }
            opt_answer_clear(&s);
            opt_xe_answer_clear(&a);
        }
        opt_graph_free(g);
    }
    ck_assert_int_gt(optimal, 40);
    ck_assert_int_gt(infeasible, 0);
    ck_assert_int_gt(recomputing, 0);
}
END_TEST

/* Every two-device schedule of a 3-node graph: R over {none, gpu, host, both} for each
 * (stage, earlier node) and {gpu, host} for each stage's own node, S over {none, gpu, host,
 * both} for each (stage, earlier node): 4^3 x 2^3 x 4^3 schedules, each evaluated by
 * opt_xe_evaluate (an accounting written apart from the program's rows). */
static double brute_force(const opt_graph *g, uint64_t act, uint64_t host)
{
    static const uint32_t P[3][2] = {{1, 0}, {2, 0}, {2, 1}}; /* (t, i), i < t */
    double best = INFINITY;
    opt_xe_schedule *s = opt_xe_schedule_new(3);
    for (uint32_t code = 0; code < 64u * 8 * 64; code++) {
        uint32_t rc = code % 64, dc = (code / 64) % 8, sc = code / 512;
        memset(s->R[0], 0, 9), memset(s->R[1], 0, 9), memset(s->S[0], 0, 9), memset(s->S[1], 0, 9);
        for (int p = 0; p < 3; p++) {
            uint32_t r = (rc >> (2 * p)) & 3, k = (sc >> (2 * p)) & 3;
            size_t at = (size_t)P[p][0] * 3 + P[p][1];
            s->R[0][at] = r & 1, s->R[1][at] = r >> 1;
            s->S[0][at] = k & 1, s->S[1][at] = k >> 1;
        }
        for (uint32_t t = 0; t < 3; t++)
            s->R[(dc >> t) & 1][t * 3 + t] = 1;
        opt_xe_eval e;
        if (opt_xe_evaluate(g, &LINK_1GBPS, s, &e, NULL, 0) == 0 && e.peak[0] <= act &&
            e.peak[1] <= host && e.total_ms < best)
            best = e.total_ms;
    }
    opt_xe_schedule_free(s);
    return best;
}

START_TEST(test_three_node_graphs_agree_with_brute_force)
{
    int checked = 0, hosted = 0, infeasible = 0;
    for (int trial = 0; trial < 16; trial++) {
        opt_graph *g = random_graph(3, 1);
        uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
        uint64_t gpu[3] = {g->constant_bytes + 1000000, floor, peak};
        uint64_t host[2] = {2000000, UINT64_MAX};
        for (int k = 0; k < 3; k++)
            for (int h = 0; h < 2; h++) {
                double want = brute_force(g, gpu[k] - g->constant_bytes, host[h]);
                opt_xe_answer a = xsolve_seeded(g, gpu[k], host[h], 0, h);
                if (isinf(want)) {
                    ck_assert_msg(a.status == OPT_STATUS_INFEASIBLE, "trial %d: brute force "
                                  "finds nothing, the program %s", trial,
                                  opt_status_name(a.status));
                    infeasible++;
                } else {
                    ck_assert_msg(a.status == OPT_STATUS_OPTIMAL, "trial %d: %s", trial,
                                  opt_status_name(a.status));
                    ck_assert_msg(fabs(a.objective - want) <= 1e-6 * want,
                                  "trial %d gpu %llu host %llu: program %.9g, brute force %.9g",
                                  trial, (unsigned long long)gpu[k], (unsigned long long)host[h],
                                  a.objective, want);
                    ck_assert_uint_le(a.eval.peak[OPT_XE_GPU], gpu[k]);
                    ck_assert_uint_le(a.eval.peak[OPT_XE_HOST], host[h]);
                    ck_assert(a.lower_bound <= a.objective * (1 + 1e-9));
                    hosted += a.eval.compute[OPT_XE_HOST] > 0;
                    checked++;
                }
                opt_xe_answer_clear(&a);
            }
        opt_graph_free(g);
    }
    ck_assert_int_gt(checked, 40);
    ck_assert_int_gt(hosted, 5);
    ck_assert_int_gt(infeasible, 0);
}
END_TEST

START_TEST(test_host_costs_never_make_the_optimum_worse_than_the_gpu_alone)
{
    int cheaper = 0;
    for (int trial = 0; trial < 10; trial++) {
        opt_graph *g = random_graph(5 + trial % 3, 1);
        uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
        uint64_t budget = floor + (peak - floor) / 2;
        opt_request rq = {.budget = budget};
        opt_answer s;
        gms_error err = {0};
        ck_assert_int_eq(opt_solve(g, &rq, &s, &err), 0);
        if (s.status != OPT_STATUS_OPTIMAL) { /* the floor is not the least feasible budget */
            ck_assert_int_eq(s.status, OPT_STATUS_INFEASIBLE);
            opt_answer_clear(&s);
            rq.budget = budget = peak;
            ck_assert_int_eq(opt_solve(g, &rq, &s, &err), 0);
            ck_assert_int_eq(s.status, OPT_STATUS_OPTIMAL);
        }
        opt_xe_answer a = xsolve(g, budget, UINT64_MAX, 0);
        ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
        ck_assert(a.objective <= s.objective * (1 + 1e-9));
        ck_assert_uint_le(a.eval.peak[OPT_XE_GPU], budget);
        cheaper += a.objective < s.objective - 1e-9;
        opt_xe_answer lp = xsolve(g, budget, UINT64_MAX, 1);
        ck_assert_int_eq(lp.status, OPT_STATUS_OPTIMAL);
        ck_assert(lp.objective <= a.objective * (1 + 1e-9));
        opt_xe_answer_clear(&lp);
        opt_xe_answer_clear(&a);
        opt_answer_clear(&s);
        opt_graph_free(g);
    }
    ck_assert_int_gt(cheaper, 0);
}
END_TEST

START_TEST(test_the_evaluator_refuses_incorrect_schedules)
{
    opt_graph *g = parse(CHEAP_HOST);
    opt_xe_schedule *s = opt_xe_schedule_new(3);
    opt_xe_eval e;
    char why[256];
    for (uint32_t t = 0; t < 3; t++)
        s->R[OPT_XE_GPU][t * 3 + t] = 1;
    s->S[OPT_XE_GPU][1 * 3 + 0] = s->S[OPT_XE_GPU][2 * 3 + 1] = 1;
    ck_assert_int_eq(opt_xe_evaluate(g, &LINK_1GBPS, s, &e, why, sizeof why), 0);
    ck_assert_double_eq_tol(e.total_ms, 12, 1e-12);
    s->R[OPT_XE_HOST][2 * 3 + 2] = 1; /* c on both devices */
    ck_assert_int_eq(opt_xe_evaluate(g, &LINK_1GBPS, s, &e, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "2 devices"), "%s", why);
    s->R[OPT_XE_GPU][2 * 3 + 2] = 0; /* c on the host only: it has no cost_host */
    ck_assert_int_eq(opt_xe_evaluate(g, &LINK_1GBPS, s, &e, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "cost_host"), "%s", why);
    s->R[OPT_XE_HOST][2 * 3 + 2] = 0, s->R[OPT_XE_GPU][2 * 3 + 2] = 1;
    s->S[OPT_XE_GPU][2 * 3 + 1] = 0, s->S[OPT_XE_HOST][2 * 3 + 1] = 1; /* b kept on the host */
    ck_assert_int_eq(opt_xe_evaluate(g, &LINK_1GBPS, s, &e, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "kept on device 1"), "%s", why);
    opt_xe_schedule_free(s);
    opt_graph_free(g);
}
END_TEST

/* A 40-node chain with skip edges and host costs at a tight budget: a 1 s limit ends the
 * search with a schedule (the seed's at least) and is reported. */
START_TEST(test_time_limit_is_honoured)
{
    char json[16384];
    size_t len = (size_t)snprintf(json, sizeof json, "{\"nodes\": [");
    for (int v = 0; v < 40; v++) {
        len += (size_t)snprintf(json + len, sizeof json - len,
                                "%s{\"cost\": %d, \"cost_host\": %d, \"bytes\": %d, "
                                "\"inputs\": [", v ? "," : "", 1 + v % 7, 3 + v % 5,
                                1000 * (1 + v % 3));
        if (v > 0)
            len += (size_t)snprintf(json + len, sizeof json - len, "%d", v - 1);
        if (v >= 20)
            len += (size_t)snprintf(json + len, sizeof json - len, ",%d", 39 - v);
        len += (size_t)snprintf(json + len, sizeof json - len, "]}");
    }
    snprintf(json + len, sizeof json - len, "]}");
    opt_graph *g = parse(json);
    uint64_t budget = opt_graph_floor(g) + (opt_graph_peak(g) - opt_graph_floor(g)) / 4;
    opt_xe_request rq = {.budget = budget, .host_memory = 8000, .link = LINK_1GBPS,
                         .time_limit = 1};
    opt_xe_answer a;
    gms_error err = {0};
    ck_assert_msg(opt_xe_solve(g, &rq, &a, &err) == 0, "%s", err.msg);
    ck_assert_msg(a.status == OPT_STATUS_OPTIMAL || a.status == OPT_STATUS_FEASIBLE, "%s",
                  opt_status_name(a.status));
    ck_assert_ptr_nonnull(a.schedule);
    ck_assert(a.seeded);
    ck_assert(a.objective <= a.seed_objective + 1e-9);
    ck_assert_msg(a.seconds < 6, "1 s limit took %.2f s", a.seconds); /* loaded 2-core box */
    ck_assert(a.gap >= 0 && a.gap < 1);
    opt_xe_answer_clear(&a);
    opt_graph_free(g);
}
END_TEST

START_TEST(test_cost_host_is_validated_and_written_back)
{
    refused("{\"nodes\": [{\"name\": \"h\", \"cost\": 1, \"cost_host\": -2, \"bytes\": 1}]}",
            "node 0 (\"h\")", "negative cost_host");
    refused("{\"nodes\": [{\"cost\": 1, \"bytes\": 1}, {\"name\": \"q\", \"cost\": 1, "
            "\"cost_host\": \"fast\", \"bytes\": 1}]}", "node 1 (\"q\")", "\"cost_host\" is "
            "not a number");
    opt_graph *g = parse(CHEAP_HOST);
    ck_assert(g->nodes[0].cost_host < 0);
    ck_assert(g->nodes[1].cost_host == 2);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(opt_graph_write(g, f, NULL), 0);
    fclose(f);
    opt_graph *h = parse(buf);
    for (uint32_t i = 0; i < g->n; i++)
        ck_assert(h->nodes[i].cost_host == g->nodes[i].cost_host);
    free(buf);
    opt_graph_free(h);
    opt_graph_free(g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("opt_xengine");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_a_node_cheaper_on_the_host_runs_there_when_the_copies_cost_less);
    tcase_add_test(tc, test_host_memory_too_small_forces_the_gpu_to_recompute);
    tcase_add_test(tc, test_without_cost_host_the_optimum_is_checkmates);
    tcase_add_test(tc, test_three_node_graphs_agree_with_brute_force);
    tcase_add_test(tc, test_host_costs_never_make_the_optimum_worse_than_the_gpu_alone);
    tcase_add_test(tc, test_the_evaluator_refuses_incorrect_schedules);
    tcase_add_test(tc, test_cost_host_is_validated_and_written_back);
    tcase_add_test(tc, test_time_limit_is_honoured);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
