/*
 * sim_view_scores_as (policy.h): a policy that settles on a built-in formula during the run
 * says so, and from the next choice on the engine scans as that formula's kind does (bounded
 * scans, sim_pool_bound.h). hybrid says it once it measured its candidates and runs dtr or
 * swap-lru; hybrid-mix says it from its score (dtr's). The choices must stay those of the
 * policy's own score calls, event for event, and the bounded scans must actually be used.
 */
#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "graph.h"
#include "random_dag.h"
#include "run_hash.h"
#include "sim_pool_bound.h" /* sim_pkb_bounds */

/* A built-in policy with its score_kind taken away, whose score says the kind at every call
 * (as hybrid-mix does): the run starts with score calls and switches at its second choice. */
static const sim_policy *wrapped;
static double saying_score(const sim_view *v, uint32_t s, void *state)
{
    sim_view_scores_as(v, wrapped->score_kind);
    return wrapped->score(v, s, state);
}

START_TEST(test_a_policy_that_says_its_kind_mid_run_chooses_as_its_score_calls)
{
    const char *names[4] = {"lru", "size", "dtr-local", "dtr"};
    const double ratios[3] = {0.15, 0.3, 0.6};
    sim_trace *t[3];
    for (int i = 0; i < 3; i++)
        t[i] = random_dag((uint64_t)i + 5, 1200);
    int saved = sim_pkb_bounds;
    sim_pkb_bounds = 1; /* both runs scan bounded where they may: the fast path under test */
    for (int p = 0; p < 4; p++) {
        wrapped = pol_find(names[p]);
        sim_policy plain = scored_policy(names[p]), saying = plain;
        plain.score_kind = saying.score_kind = SIM_SCORE_CUSTOM;
        saying.score = saying_score;
        /* on a slow link, as for the swap policies */
        paths_case c = {.policy = {&plain, &saying},
                        .what = "the scan as its kind and its score calls",
                        .probe = bounded_scored(),
                        .link_gbps = 2};
        paths_sums sum = paths_agree(t, 3, ratios, 3, &c);
        ck_assert_uint_gt(sum.evictions, 300);
        paths_assert_skipped(&sum, names[p]);
    }
    sim_pkb_bounds = saved;
    for (int i = 0; i < 3; i++)
        sim_trace_free(t[i]);
}
END_TEST

/* hybrid-mix and hybrid with the bounds on (they say their kind) and off (every choice calls
 * their score): the same events, clocks, candidates and swaps; with them on, the bounded
 * scans do the choosing. */
START_TEST(test_hybrid_and_its_mix_scan_as_their_formula_with_the_same_choices)
{
    const char *names[2] = {"hybrid-mix", "hybrid"};
    const double ratios[4] = {0.15, 0.3, 0.5, 0.7};
    sim_trace *t[4];
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(500, &t[0], &err), 0);
    for (int i = 1; i < 4; i++)
        t[i] = random_dag((uint64_t)i + 21, 1200);
    for (int p = 0; p < 2; p++) {
        sim_policy pol = scored_policy(names[p]);
        paths_case c = {.policy = {&pol, &pol},
                        .flags = (int *const[]){&sim_pkb_bounds, NULL},
                        .what = "plain and bounded scans",
                        .probe = bounded_scored(),
                        .link_gbps = 2};
        paths_sums sum = paths_agree(t, 4, ratios, 4, &c);
        ck_assert_uint_gt(sum.evictions, 300);
        ck_assert_uint_gt(sum.swaps, 0);
        paths_assert_skipped(&sum, names[p]);
    }
    for (int i = 0; i < 4; i++)
        sim_trace_free(t[i]);
}
END_TEST

/* autoswap's fallback choice is lru's (its score is the last access) and it says so in its
 * score_kind, so the engine's bounded lru scan chooses for it: the same events, clocks,
 * candidates, swaps and stalls as its own score calls (score_kind taken away), on a chain
 * and random DAGs at four budgets, and the bounded scans score under half the candidates. */
START_TEST(test_autoswap_scans_as_lru_with_the_choices_of_its_score_calls)
{
    const double ratios[4] = {0.15, 0.3, 0.5, 0.7};
    sim_trace *t[4];
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(500, &t[0], &err), 0);
    for (int i = 1; i < 4; i++)
        t[i] = random_dag((uint64_t)i + 31, 1200);
    sim_policy kind = *pol_find("autoswap"), calls = kind;
    ck_assert_uint_eq(kind.score_kind, SIM_SCORE_LRU);
    ck_assert_ptr_null(kind.on_evict);
    calls.score_kind = SIM_SCORE_CUSTOM;
    kind.on_evict = calls.on_evict = read_scored;
    int saved = sim_pkb_bounds;
    sim_pkb_bounds = 1; /* both runs may scan bounded: only the score kind differs */
    paths_case c = {.policy = {&calls, &kind},
                    .what = "the lru scan's choices and autoswap's score calls",
                    .probe = bounded_scored(),
                    .link_gbps = 2};
    paths_sums sum = paths_agree(t, 4, ratios, 4, &c);
    sim_pkb_bounds = saved;
    ck_assert_uint_gt(sum.swaps, 100);
    paths_assert_skipped(&sum, "autoswap");
    for (int i = 0; i < 4; i++)
        sim_trace_free(t[i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scores_as");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_a_policy_that_says_its_kind_mid_run_chooses_as_its_score_calls);
    tcase_add_test(tc, test_hybrid_and_its_mix_scan_as_their_formula_with_the_same_choices);
    tcase_add_test(tc, test_autoswap_scans_as_lru_with_the_choices_of_its_score_calls);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
