/*
 * sim_regions.c: where a region's cached sum is known to be exact (no compute of a storage
 * that may lie in an interior changed since it was summed from scratch: rg_bumps,
 * rg_summed), an absorb may sum the storages it adds as the absorbed region's sum less the
 * members the region already held, and an absorb into such a reverse region may wait as a
 * rebuild request. Every claim of exactness must hold, and runs must replay alike with and
 * without each shortcut.
 */
#include <check.h>
#include <stdlib.h>

#include "graph.h"
#include "random_dag.h"
#include "run_hash.h"
#include "sim_internal.h" /* sim_region_by_difference, sim_region_exact*, bitset_max */

static const char *const pols[4] = {"dtr", "msps", "hybrid-mix", "capuchin"};
static const double ratios[3] = {0.2, 0.4, 0.7};

/* At every eviction, every region whose cached sum is claimed exact is compared with the sum
 * of its interior's compute now, and every absorb that waits as a rebuild request is done
 * and compared with that rebuild (sets and sum), on random DAGs (view ops that raise the
 * compute of evicted storages, in-place ops that give existing storages new parents,
 * releases, rematerializations), full and windowed sets, swaps. A change not counted in
 * rg_bumps, a rebuild path that stamped a region it did not make from scratch, or a stale
 * region deferred, shows up as a difference. */
START_TEST(test_sums_claimed_exact_are_the_interiors_sums)
{
    uint32_t saved_max = sim_region_bitset_max;
    sim_region_exact_check = 1;
    sim_region_exact_taken = sim_region_exact_diff = 0;
    uint64_t evictions = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        sim_trace *t = seed % 2 ? random_dag(seed + 140, 400) : random_dag_inplace(seed, 400);
        for (int w = 0; w < 2; w++)
            for (int p = 0; p < 4; p++)
                for (int k = 0; k < 3; k++) {
                    sim_region_bitset_max = w ? 0 : saved_max;
                    sim_region_full_ordered = !w; /* ordered graphs too */
                    sim_result r;
                    hash_policy_run(t, pols[p], ratios[k], &r);
                    evictions += r.evictions + r.eager_evictions;
                }
        sim_trace_free(t);
    }
    sim_region_bitset_max = saved_max;
    sim_region_full_ordered = 0;
    sim_region_exact_check = 0;
    ck_assert_uint_gt(evictions, 1000);
    ck_assert_uint_gt(sim_region_exact_taken, 100000);
    ck_assert_msg(sim_region_exact_diff == 0, "%llu of %llu sums claimed exact differ",
                  (unsigned long long)sim_region_exact_diff,
                  (unsigned long long)sim_region_exact_taken);
}
END_TEST

/* With the shortcut and without it (every added member summed one by one, as simrd does),
 * runs are the same event for event. */
START_TEST(test_absorbs_by_difference_and_one_by_one_give_identical_runs)
{
    uint32_t saved_max = sim_region_bitset_max;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        sim_trace *t = random_dag(seed + 170, 1500);
        for (int w = 0; w < 2; w++)
            for (int p = 0; p < 4; p++)
                for (int k = 0; k < 3; k++) {
                    sim_region_bitset_max = w ? 0 : saved_max;
                    sim_region_full_ordered = !w; /* ordered graphs too */
                    sim_result a, b;
                    sim_region_by_difference = 0;
                    uint64_t ha = hash_policy_run(t, pols[p], ratios[k], &a);
                    sim_region_by_difference = 1;
                    uint64_t hb = hash_policy_run(t, pols[p], ratios[k], &b);
                    ck_assert_msg(ha == hb, "seed %llu %s at %g (windowed %d): runs differ",
                                  (unsigned long long)seed, pols[p], ratios[k], w);
                    ck_assert_int_eq(a.status, b.status);
                    ck_assert_uint_eq(a.clock, b.clock);
                    ck_assert_uint_eq(a.candidates, b.candidates);
                }
        sim_trace_free(t);
    }
    sim_region_bitset_max = saved_max;
    sim_region_full_ordered = 0;
}
END_TEST

/* An eviction's absorb into a reverse region that is exact waits as a rebuild request
 * (sim_regions.c, defer_rev): runs with and without the wait are the same event for event,
 * on random DAGs whose view and in-place ops leave some regions stale (those keep absorbing:
 * were they rebuilt instead, their sums or frontiers, and the choices, would change). */
START_TEST(test_deferred_and_eager_absorbs_give_identical_runs)
{
    uint32_t saved_max = sim_region_bitset_max;
    uint64_t evictions = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        sim_trace *t = seed % 2 ? random_dag(seed + 210, 1500) : random_dag_inplace(seed, 1500);
        for (int w = 0; w < 2; w++)
            for (int p = 0; p < 4; p++)
                for (int k = 0; k < 3; k++) {
                    sim_region_bitset_max = w ? 0 : saved_max;
                    sim_region_full_ordered = !w; /* ordered graphs too */
                    sim_result a, b;
                    sim_region_defer_absorbs = 0;
                    uint64_t ha = hash_policy_run(t, pols[p], ratios[k], &a);
                    sim_region_defer_absorbs = 1;
                    uint64_t hb = hash_policy_run(t, pols[p], ratios[k], &b);
                    ck_assert_msg(ha == hb, "seed %llu %s at %g (windowed %d): runs differ",
                                  (unsigned long long)seed, pols[p], ratios[k], w);
                    ck_assert_int_eq(a.status, b.status);
                    ck_assert_uint_eq(a.clock, b.clock);
                    ck_assert_uint_eq(a.candidates, b.candidates);
                    evictions += a.evictions;
                }
        sim_trace_free(t);
    }
    sim_region_bitset_max = saved_max;
    sim_region_full_ordered = 0;
    ck_assert_uint_gt(evictions, 1000);
}
END_TEST

/* A swapping policy's run is a plain one for the regions until its first swap-out (no
 * storage is away from the device before it): an eviction rebuilds only its own pending
 * reverse region and leaves the others waiting for the next flush, and from the first swap
 * on every eviction flushes them all. On random DAGs where capuchin and hybrid-mix drop
 * before they swap, full and windowed sets: evictions leave rebuilds waiting, and the runs
 * are those with every reverse rebuild done at once (sim_region_defer 0), event for event. */
START_TEST(test_swapping_runs_defer_rebuilds_until_their_first_swap)
{
    static const char *const swapping[2] = {"capuchin", "hybrid-mix"};
    static const double budgets[3] = {0.5, 0.7, 0.9};
    uint32_t saved_max = sim_region_bitset_max;
    uint64_t waits[2] = {0, 0};
    for (uint64_t seed = 1; seed <= 6; seed++) {
        sim_trace *t = seed % 2 ? random_dag(seed + 260, 800) : random_dag_inplace(seed + 30, 800);
        for (int w = 0; w < 2; w++)
            for (int p = 0; p < 2; p++)
                for (int k = 0; k < 3; k++) {
                    sim_region_bitset_max = w ? 0 : saved_max;
                    sim_result a, b;
                    sim_region_defer = 0;
                    uint64_t ha = hash_policy_run(t, swapping[p], budgets[k], &a);
                    sim_region_defer = 1;
                    sim_region_evict_waits = 0;
                    uint64_t hb = hash_policy_run(t, swapping[p], budgets[k], &b);
                    waits[p] += sim_region_evict_waits;
                    ck_assert_msg(ha == hb, "seed %llu %s at %g (windowed %d): runs differ",
                                  (unsigned long long)seed, swapping[p], budgets[k], w);
                    ck_assert_uint_eq(a.clock, b.clock);
                    ck_assert_uint_eq(a.swaps_out, b.swaps_out);
                    ck_assert_uint_eq(a.candidates, b.candidates);
                }
        sim_trace_free(t);
    }
    sim_region_bitset_max = saved_max;
    ck_assert_uint_gt(waits[0], 100);
    ck_assert_uint_gt(waits[1], 10); /* hybrid-mix swaps sooner */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("regions_exact_sum");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_sums_claimed_exact_are_the_interiors_sums);
    tcase_add_test(tc, test_absorbs_by_difference_and_one_by_one_give_identical_runs);
    tcase_add_test(tc, test_deferred_and_eager_absorbs_give_identical_runs);
    tcase_add_test(tc, test_swapping_runs_defer_rebuilds_until_their_first_swap);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
