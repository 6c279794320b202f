/*
 * hybrid's measured director (heuristics/hybrid.c, docs/swap.md): sim_view_measure replays the
 * running trace under another policy exactly as a run of its own would, without disturbing
 * the run that asked; hybrid then runs, choice for choice, the candidate (hybrid-mix, dtr,
 * swap-lru) whose measured step was cheapest, so it is never worse than either half.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "graph.h"
#include "policy.h"

/* A test policy: lru's victims; at its first choice it measures dtr and itself. */
static sim_result measured;
static int measured_rc = -1, self_rc = -1;
static const sim_policy measuring;

static double measuring_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    if (measured_rc < 0) {
        gms_error e = {0}, e2 = {0};
        measured_rc = sim_view_measure(v, pol_find("dtr"), &measured, &e);
        sim_result r;
        self_rc = sim_view_measure(v, &measuring, &r, &e2);
        ck_assert_ptr_nonnull(strstr(e2.msg, "itself"));
    }
    return (double)sim_view_last_access(v, s);
}

static const sim_policy measuring = {
    .name = "measuring", .description = "test", .score = measuring_score};

static void count_event(void *ctx, const sim_event *ev)
{
    (void)ev;
    (*(uint64_t *)ctx)++;
}

static sim_result run(const sim_trace *t, const sim_policy *p, double ratio, double gbps,
                      uint64_t lat, double limit, uint64_t *events)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = p;
    cfg.budget = sim_budget_for_ratio(t, ratio);
    cfg.remat_limit = limit;
    if (p->needs & SIM_NEEDS_SWAP) {
        cfg.link_gbps = gbps;
        cfg.link_latency_ns = lat;
    }
    if (events) {
        *events = 0;
        cfg.observer = count_event;
        cfg.observer_ctx = events;
    }
    sim_result r;
    gms_error err = {0};
    ck_assert_msg(sim_run(t, &cfg, &r, &err) == 0, "%s", err.msg);
    r.wall_s = 0;
    return r;
}

START_TEST(test_measure_replays_the_run_under_another_policy_and_refuses_itself)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(200, &t, &err), 0);
    uint64_t with = 0, plain = 0;
    sim_result r = run(t, &measuring, 0.3, 0, 0, 0, &with);
    ck_assert_int_eq(measured_rc, 0);
    ck_assert_int_ne(self_rc, 0);
    /* what it measured is dtr's own run, bit for bit */
    sim_result d = run(t, pol_find("dtr"), 0.3, 0, 0, 0, NULL);
    measured.wall_s = 0;
    ck_assert_int_eq(memcmp(&measured, &d, sizeof d), 0);
    ck_assert_uint_gt(d.evictions, 0);
    /* and the run that measured is lru's, its observer seeing none of the measured run */
    sim_result l = run(t, pol_find("lru"), 0.3, 0, 0, 0, &plain);
    ck_assert_uint_eq(r.clock, l.clock);
    ck_assert_uint_eq(r.evictions, l.evictions);
    ck_assert_uint_eq(with, plain);
    sim_trace_free(t);
}
END_TEST

/* On chains under three links, three budgets, with and without a remat limit: hybrid's run is
 * the cheapest candidate's (ties: the mix, dtr, swap-lru), never worse than dtr or swap-lru,
 * and it runs wherever either does. */
START_TEST(test_hybrid_runs_the_candidate_that_measured_cheapest)
{
    const sim_policy *cand[3] = {pol_find("hybrid-mix"), pol_find("dtr"), pol_find("swap-lru")};
    const sim_policy *h = pol_find("hybrid");
    ck_assert(cand[0] && cand[1] && cand[2] && h);
    const struct {
        double gbps;
        uint64_t lat;
    } links[3] = {{0.5, 3000}, {5, 1000}, {500, 100}};
    const double ratios[3] = {0.2, 0.35, 0.6}, limits[2] = {0, 2};
    int kept[3] = {0, 0, 0};
    for (uint64_t n = 150; n <= 300; n += 150) {
        sim_trace *t;
        gms_error err = {0};
        ck_assert_int_eq(sim_trace_chain(n, &t, &err), 0);
        for (int li = 0; li < 3; li++)
            for (int ri = 0; ri < 3; ri++)
                for (int mi = 0; mi < 2; mi++) {
                    sim_result c[3], best = {0};
                    int b = -1;
                    for (int k = 0; k < 3; k++) {
                        c[k] = run(t, cand[k], ratios[ri], links[li].gbps, links[li].lat,
                                   limits[mi], NULL);
                        if (c[k].status == SIM_OK && (b < 0 || c[k].clock < best.clock)) {
                            b = k;
                            memcpy(&best, &c[k], sizeof best);
                        }
                    }
                    sim_result r = run(t, h, ratios[ri], links[li].gbps, links[li].lat,
                                       limits[mi], NULL);
                    if (b < 0) {
                        ck_assert_int_eq(r.status, c[0].status);
                        continue;
                    }
                    kept[b]++;
                    ck_assert_msg(memcmp(&r, &best, sizeof r) == 0,
                                  "n %llu link %d ratio %g limit %g: hybrid %llu, cheapest %llu",
                                  (unsigned long long)n, li, ratios[ri], limits[mi],
                                  (unsigned long long)r.clock, (unsigned long long)best.clock);
                    for (int k = 1; k < 3; k++)
                        ck_assert(c[k].status != SIM_OK || r.clock <= c[k].clock);
                }
        sim_trace_free(t);
    }
    /* the mix is kept in some cells and beaten by a half in others (where it alone, hybrid
     * before issue 30's third session, was worse than the better half) */
    ck_assert_int_gt(kept[0], 0);
    ck_assert_int_gt(kept[1] + kept[2], 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("hybrid");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_measure_replays_the_run_under_another_policy_and_refuses_itself);
    tcase_add_test(tc, test_hybrid_runs_the_candidate_that_measured_cheapest);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
