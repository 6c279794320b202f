/*
 * sim_regions.c's choice of set layout (sim_regions_init): an ordered storage graph keeps
 * windowed region sets whatever its size, since the multi-base sweep serves its reverse
 * batches; an unordered one keeps full sets up to sim_region_bitset_max, for the memoised
 * closures. The layout changes memory, never a result.
 */
#include <check.h>

#include "check_run.h"
#include "random_dag.h"
#include "run_hash.h"
#include "sim_internal.h" /* sim_region_full_ordered, sim_set_pool_windowed */

static const char *const pols[4] = {"dtr", "msps", "hybrid-mix", "capuchin"};
static const double ratios[3] = {0.2, 0.4, 0.7};

/* The layout the last eviction saw: 1 windowed, 0 full, -1 no eviction yet. */
static int seen_windowed = -1;

static void read_layout(const sim_view *v, uint32_t s, int eager, void *state)
{
    (void)s, (void)eager, (void)state;
    seen_windowed = sim_set_pool_windowed(&v->set_pool);
}

/* The layout a dtr run on t at ratio 0.4 kept its regions in (it must evict). */
static int layout_of_run(const sim_trace *t)
{
    sim_policy p = scored_policy("dtr");
    p.on_evict = read_layout;
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = &p;
    cfg.budget = sim_budget_for_ratio(t, 0.4);
    seen_windowed = -1;
    sim_result r;
    hash_cfg_run(t, NULL, &cfg, &r);
    ck_assert_int_ne(seen_windowed, -1);
    return seen_windowed;
}

/* Ordered random DAGs keep windowed sets, unless sim_region_full_ordered asks for full ones;
 * DAGs with in-place ops (unordered) keep full sets either way, and windowed ones past
 * sim_region_bitset_max. */
START_TEST(test_ordered_graphs_keep_windowed_region_sets)
{
    uint32_t saved_max = sim_region_bitset_max;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        sim_trace *t = seed % 2 ? random_dag(seed + 60, 400) : random_dag_inplace(seed, 400);
        int ordered = t->graph_ordered;
        ck_assert_int_eq(ordered, seed % 2 == 1);
        sim_region_full_ordered = 0;
        ck_assert_int_eq(layout_of_run(t), ordered);
        sim_region_full_ordered = 1;
        ck_assert_int_eq(layout_of_run(t), 0);
        sim_region_bitset_max = 0;
        ck_assert_int_eq(layout_of_run(t), 1);
        sim_region_bitset_max = saved_max;
        sim_trace_free(t);
    }
    sim_region_full_ordered = 0;
}
END_TEST

/* Full and windowed sets on ordered graphs (and on unordered ones, for the record): the same
 * runs event for event, at three budgets, for the policies that keep regions. */
START_TEST(test_full_and_windowed_sets_replay_alike_on_ordered_graphs)
{
    uint64_t evictions = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        sim_trace *t = seed % 3 ? random_dag(seed + 80, 500) : random_dag_inplace(seed, 500);
        for (int p = 0; p < 4; p++)
            for (int k = 0; k < 3; k++) {
                sim_result a, b;
                sim_region_full_ordered = 1;
                uint64_t ha = hash_policy_run(t, pols[p], ratios[k], &a);
                sim_region_full_ordered = 0;
                uint64_t hb = hash_policy_run(t, pols[p], ratios[k], &b);
                ck_assert_msg(ha == hb, "seed %d %s at %g: full and windowed sets differ",
                              (int)seed, pols[p], ratios[k]);
                ck_assert_uint_eq(a.clock, b.clock);
                ck_assert_uint_eq(a.evictions, b.evictions);
                ck_assert_uint_eq(a.remats, b.remats);
                evictions += a.evictions;
            }
        sim_trace_free(t);
    }
    ck_assert_uint_gt(evictions, 1000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_regions_layout");
    TCase *tc = tcase_create("layout");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_ordered_graphs_keep_windowed_region_sets);
    tcase_add_test(tc, test_full_and_windowed_sets_replay_alike_on_ordered_graphs);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
