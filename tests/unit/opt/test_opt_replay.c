/* opt_replay: a solved schedule carried out as compute and free steps costs what the solver
 * said and fits the budget, on the hand-solved graphs of test_opt.c and on random ones; and
 * a schedule that cannot be carried out is refused naming the stage and node. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "opt_graph.h"
#include "opt_graph_json.h"
#include "opt_test_graphs.h"
#include "opt_replay.h"
#include "opt_schedule.h"
#include "opt_solve.h"
#include "opt_test_build.h"

static opt_answer solve(const opt_graph *g, uint64_t budget, opt_mode mode)
{
    opt_request rq = {.budget = budget, .mode = mode};
    opt_answer a;
    gms_error err = {0};
    ck_assert_msg(opt_solve(g, &rq, &a, &err) == 0, "%s", err.msg);
    return a;
}

/* The replay of a's schedule equals the solver's objective and the program's peak (or is
 * below it where a resident value was computed again) and fits the budget. */
static opt_replay replay_and_compare(const opt_graph *g, const opt_answer *a, uint64_t budget)
{
    opt_replay r;
    gms_error err = {0};
    ck_assert_msg(opt_replay_run(g, a->schedule, 1, &r, &err) == 0, "%s", err.msg);
    ck_assert_msg(fabs(r.compute - a->objective) <= 1e-9 * fmax(1, a->objective),
                  "replayed %.12g ms, solver %.12g ms", r.compute, a->objective);
    ck_assert_double_eq_tol(r.compute, opt_schedule_cost(g, a->schedule), 1e-9);
    ck_assert_uint_le(r.peak, budget);
    if (r.duplicate_frees == 0)
        ck_assert_uint_eq(r.peak, a->peak);
    else
        ck_assert_uint_le(r.peak, a->peak);
    /* the steps account for everything: each compute allocates, each free releases, and
     * the last stage leaves only the constants */
    ck_assert_uint_eq(r.n_steps, (size_t)r.computes + r.frees);
    ck_assert_uint_eq(r.steps[r.n_steps - 1].resident, g->constant_bytes);
    uint64_t peak = g->constant_bytes;
    for (size_t i = 0; i < r.n_steps; i++)
        if (r.steps[i].resident > peak)
            peak = r.steps[i].resident;
    ck_assert_uint_eq(peak, r.peak);
    return r;
}

static const char *CHAIN =
    "{\"constant_bytes\": 5, \"nodes\": ["
    "{\"name\": \"a\", \"cost\": 1, \"bytes\": 10},"
    "{\"name\": \"b\", \"cost\": 2, \"bytes\": 10, \"inputs\": [0]},"
    "{\"name\": \"c\", \"cost\": 3, \"bytes\": 10, \"inputs\": [1]},"
    "{\"name\": \"d\", \"cost\": 4, \"bytes\": 0, \"inputs\": [2, 0]}]}";

static const char *DIAMOND =
    "{\"nodes\": ["
    "{\"name\": \"a\", \"cost\": 5, \"bytes\": 10},"
    "{\"name\": \"b\", \"cost\": 1, \"bytes\": 10, \"inputs\": [0]},"
    "{\"name\": \"c\", \"cost\": 1, \"bytes\": 10, \"inputs\": [0]},"
    "{\"name\": \"d\", \"cost\": 1, \"bytes\": 10, \"inputs\": [1, 2]},"
    "{\"name\": \"e\", \"cost\": 1, \"bytes\": 10, \"inputs\": [3, 0]}]}";

START_TEST(test_hand_solved_graphs_replay_to_the_solvers_numbers)
{
    struct { const char *json; uint64_t budget; double want; uint32_t recomputes; } c[] = {
        {CHAIN, 30, 11, 1}, {CHAIN, 35, 10, 0}, {DIAMOND, 30, 14, 1}, {DIAMOND, 40, 9, 0},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        opt_graph *g = parse(c[k].json);
        opt_answer a = solve(g, c[k].budget, OPT_MODE_MILP);
        ck_assert_int_eq(a.status, OPT_STATUS_OPTIMAL);
        opt_replay r = replay_and_compare(g, &a, c[k].budget);
        ck_assert_double_eq_tol(r.compute, c[k].want, 1e-9);
        ck_assert_uint_eq(r.recomputes, c[k].recomputes);
        ck_assert_uint_eq(r.computes, g->n + c[k].recomputes);
        opt_replay_clear(&r);
        opt_answer_clear(&a);
        opt_graph_free(g);
    }
}
END_TEST

static uint64_t rng_state = 424242;
static uint32_t rnd(uint32_t m)
{
    return opt_test_rnd(&rng_state, m);
}

/* n nodes, each reading one to three earlier nodes, fractional costs, random sizes. */
static opt_graph *random_graph(int n)
{
    char json[16384];
    size_t len = (size_t)snprintf(json, sizeof json, "{\"constant_bytes\": 7, \"nodes\": [");
    for (int v = 0; v < n; v++) {
        len += (size_t)snprintf(json + len, sizeof json - len,
                                "%s{\"cost\": %.2f, \"bytes\": %u, \"inputs\": [", v ? "," : "",
                                (1 + rnd(1000)) / 100.0, 1 + rnd(30));
        int n_in = v == 0 ? 0 : 1 + (int)rnd(v > 2 ? 3 : (uint32_t)v);
        for (int k = 0; k < n_in; k++)
            len += (size_t)snprintf(json + len, sizeof json - len, "%s%u", k ? "," : "",
                                    rnd((uint32_t)v));
        len += (size_t)snprintf(json + len, sizeof json - len, "]}");
    }
    snprintf(json + len, sizeof json - len, "]}");
    return parse(json);
}

START_TEST(test_random_graphs_replay_to_the_solvers_numbers)
{
    int replayed = 0, recomputing = 0, approx = 0;
    for (int trial = 0; trial < 20; trial++) {
        opt_graph *g = random_graph(4 + trial % 7); /* 4 .. 10 nodes */
        uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
        uint64_t budgets[3] = {floor, floor + (peak - floor) / 2, peak};
        for (int k = 0; k < 3; k++) {
            for (int mode = 0; mode < 2; mode++) {
                opt_answer a = solve(g, budgets[k], mode ? OPT_MODE_APPROX : OPT_MODE_MILP);
                if (a.schedule && (a.status == OPT_STATUS_OPTIMAL ||
                                   a.status == OPT_STATUS_FEASIBLE)) {
                    opt_replay r = replay_and_compare(g, &a, budgets[k]);
                    replayed++;
                    recomputing += r.recomputes > 0;
                    approx += mode;
                    opt_replay_clear(&r);
                } else {
                    /* the floor is a bound, not a guarantee; the unconstrained peak fits */
                    ck_assert_msg(mode == 1 || k < 2, "trial %d budget %llu: %s", trial,
                                  (unsigned long long)budgets[k], opt_status_name(a.status));
                }
                opt_answer_clear(&a);
            }
        }
        opt_graph_free(g);
    }
    ck_assert_int_gt(replayed, 40);
    ck_assert_int_gt(recomputing, 5);
    ck_assert_int_gt(approx, 5);
}
END_TEST

/* Node b computed again in a stage that keeps it: the program counts both copies, the
 * engine frees the old one at once, so the engine's peak is the lower. */
START_TEST(test_recomputing_a_resident_value_frees_the_old_copy)
{
    opt_graph *g = parse(CHAIN);
    opt_schedule *s = opt_schedule_new(4);
    opt_schedule_checkpoint_all(g, s);
    s->R[2 * 4 + 1] = 1; /* stage 2 computes b again though it keeps it */
    ck_assert_int_eq(opt_schedule_check(g, s, NULL, 0), 0);
    opt_replay r;
    gms_error err = {0};
    ck_assert_int_eq(opt_replay_run(g, s, 0, &r, &err), 0);
    ck_assert_uint_eq(r.duplicate_frees, 1);
    ck_assert_uint_eq(r.recomputes, 1);
    ck_assert_double_eq_tol(r.compute, 12, 1e-9);
    ck_assert_uint_lt(r.peak - g->constant_bytes, opt_schedule_peak(g, s));
    ck_assert_ptr_null(r.steps);
    opt_replay_clear(&r);
    opt_schedule_free(s);
    opt_graph_free(g);
}
END_TEST

START_TEST(test_a_schedule_that_cannot_run_is_refused_naming_stage_and_node)
{
    opt_graph *g = parse(DIAMOND);
    opt_schedule *s = opt_schedule_new(5);
    opt_schedule_checkpoint_all(g, s);
    s->S[4 * 5 + 0] = 0; /* stage 4 drops a but e reads it */
    opt_replay r;
    gms_error err = {0};
    ck_assert_int_eq(opt_replay_run(g, s, 1, &r, &err), GMS_EINVAL);
    ck_assert_msg(strstr(err.msg, "stage 4 computes node 4 (\"e\")") &&
                  strstr(err.msg, "input 0 (\"a\")"), "%s", err.msg);
    ck_assert_ptr_null(r.steps);
    opt_schedule_free(s);
    opt_graph_free(g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("opt_replay");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_hand_solved_graphs_replay_to_the_solvers_numbers);
    tcase_add_test(tc, test_random_graphs_replay_to_the_solvers_numbers);
    tcase_add_test(tc, test_recomputing_a_resident_value_frees_the_old_copy);
    tcase_add_test(tc, test_a_schedule_that_cannot_run_is_refused_naming_stage_and_node);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
