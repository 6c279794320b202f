/*
 * sim_regions_fresh.c: after a first compute, the forward regions of the op's inputs are
 * brought up to date without walks. Each such region must be exactly what simrd's walk
 * rebuilds (interior, frontier, compute sum), and runs must replay alike with and without.
 */
#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "graph.h"
#include "random_dag.h"
#include "run_hash.h"
#include "sim_internal.h" /* sim_region_fresh*, sim_region_bitset_max */

static const char *const pols[4] = {"dtr", "msps", "hybrid-mix", "dtr-local"};
static const double ratios[3] = {0.2, 0.4, 0.7};

/* Every region the shortcut touched, rebuilt by the walk right after and compared: same
 * interior, frontier and sum, on random DAGs (views on evicted storages, releases, outputs
 * walked before their op ran), full and windowed sets, swaps. A sum that drifted from the
 * walk's (a member's compute raised since it was cached, an output left in an interior)
 * counts as a difference. */
START_TEST(test_fresh_forward_regions_are_what_the_walk_rebuilds)
{
    uint32_t saved_max = sim_region_bitset_max;
    sim_region_fresh_check = 1;
    sim_region_fresh_taken = sim_region_fresh_diff = 0;
    uint64_t evictions = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        sim_trace *t = random_dag(seed + 40, 1200);
        for (int w = 0; w < 2; w++)
            for (int p = 0; p < 3; p++)
                for (int k = 0; k < 3; k++) {
                    sim_region_bitset_max = w ? 0 : saved_max;
                    sim_region_full_ordered = !w; /* ordered graphs too */
                    sim_result r;
                    hash_policy_run(t, pols[p], ratios[k], &r);
                    evictions += r.evictions;
                }
        sim_trace_free(t);
    }
    sim_region_bitset_max = saved_max;
    sim_region_full_ordered = 0;
    sim_region_fresh_check = 0;
    ck_assert_uint_gt(evictions, 1000);
    ck_assert_uint_gt(sim_region_fresh_taken, 10000);
    ck_assert_msg(sim_region_fresh_diff == 0, "%llu of %llu regions differ from the walk's",
                  (unsigned long long)sim_region_fresh_diff,
                  (unsigned long long)sim_region_fresh_taken);
}
END_TEST

/* With the shortcut and without it (every region rebuilt by walks), runs are the same event
 * for event; dtr-local keeps no regions and is there as a control. */
START_TEST(test_fresh_and_walked_regions_give_identical_runs)
{
    sim_trace *t[3];
    for (uint64_t seed = 1; seed <= 3; seed++)
        t[seed - 1] = random_dag(seed + 70, 1500);
    for (int p = 0; p < 4; p++) {
        paths_case c = {.policy = {pol_find(pols[p]), pol_find(pols[p])},
                        .flags = (int *const[]){&sim_region_fresh, NULL},
                        .what = "walked and fresh regions",
                        .link_gbps = 2,
                        .windowed_too = 1};
        ck_assert_ptr_nonnull(c.policy[0]);
        paths_agree(t, 3, ratios, 3, &c);
    }
    for (int i = 0; i < 3; i++)
        sim_trace_free(t[i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("regions_fresh");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_fresh_forward_regions_are_what_the_walk_rebuilds);
    tcase_add_test(tc, test_fresh_and_walked_regions_give_identical_runs);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
