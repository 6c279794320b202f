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
#include "sim_internal.h" /* sim_region_by_difference, sim_region_exact*, bitset_max */

static void hash_event(void *ctx, const sim_event *ev)
{
    uint64_t *h = ctx;
    const uint64_t f[6] = {ev->kind, ev->clock, ev->memory, ev->size, ev->op_index, ev->storage};
    for (int i = 0; i < 6; i++) {
        *h = (*h ^ f[i]) * UINT64_C(0x100000001b3);
        *h ^= *h >> 29;
    }
}

static uint64_t hashed_run(const sim_trace *t, const char *pol, double ratio, sim_result *res)
{
    uint64_t h = UINT64_C(14695981039346656037);
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find(pol);
    ck_assert_ptr_nonnull(cfg.policy);
    cfg.budget = sim_budget_for_ratio(t, ratio);
    cfg.observer = hash_event;
    cfg.observer_ctx = &h;
    cfg.link_gbps = 2; /* hybrid-mix: swaps and drops both */
    gms_error err = {0};
    ck_assert_msg(sim_run(t, &cfg, res, &err) == 0, "%s", err.msg);
    return h;
}

/* random_dag with in-place ops too: views whose op also reads another live tensor (as an
 * imported in-place op writes into its first input's storage from others), which give an
 * existing storage a new parent. */
static sim_trace *random_dag_inplace(uint64_t seed, int n)
{
    sim_trace_builder *b = g_new();
    uint64_t live[2048], x = seed * 2654435761u + 7, next = 3;
    int n_live = 0;
    g_constant(b, 1, 64);
    g_constant(b, 2, 64);
    live[n_live++] = 1;
#define RND(k) ((x = x * 6364136223846793005u + 1442695040888963407u), (x >> 33) % (k))
    for (int i = 0; i < n && n_live < 2000; i++) {
        uint64_t out = next++;
        uint64_t r = n_live > 4 ? RND(100) : 100;
        if (r < 15) {
            uint64_t in[2];
            in[0] = live[1 + RND((uint64_t)n_live - 1)];
            in[1] = live[n_live - 1 - (int)RND(4)];
            gmt_output o = {.id = out, .size = 12345, .alias_of = 0};
            uint64_t cost = 1 + RND(20);
            g_call_multi(b, "add_", cost, in, in[1] == in[0] ? 1 : 2, &o, 1);
        } else {
            uint64_t in[3];
            int k = 1 + (int)RND(3);
            for (int j = 0; j < k; j++)
                in[j] = j == 2 ? 2 : live[n_live - 1 - (int)RND(n_live < 6 ? (uint64_t)n_live : 6)];
            if (k >= 2 && in[1] == in[0])
                k = 1;
            if (k == 3 && (in[2] == in[0] || in[2] == in[1]))
                k = 2;
            gmt_output o = {.id = out, .size = 1000 * (1 + RND(100)), .alias_of = -1};
            uint64_t cost = 1 + RND(100);
            g_call_multi(b, "f", cost, in, k, &o, 1);
        }
        live[n_live++] = out;
        if (n_live > 8 && RND(100) < 45) {
            int j = 1 + (int)RND((uint64_t)n_live - 6);
            g_release(b, live[j]);
            live[j] = live[--n_live];
        }
    }
#undef RND
    return g_finish(b);
}

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
                    sim_result r;
                    hashed_run(t, pols[p], ratios[k], &r);
                    evictions += r.evictions + r.eager_evictions;
                }
        sim_trace_free(t);
    }
    sim_region_bitset_max = saved_max;
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
                    sim_result a, b;
                    sim_region_by_difference = 0;
                    uint64_t ha = hashed_run(t, pols[p], ratios[k], &a);
                    sim_region_by_difference = 1;
                    uint64_t hb = hashed_run(t, pols[p], ratios[k], &b);
                    ck_assert_msg(ha == hb, "seed %llu %s at %g (windowed %d): runs differ",
                                  (unsigned long long)seed, pols[p], ratios[k], w);
                    ck_assert_int_eq(a.status, b.status);
                    ck_assert_uint_eq(a.clock, b.clock);
                    ck_assert_uint_eq(a.candidates, b.candidates);
                }
        sim_trace_free(t);
    }
    sim_region_bitset_max = saved_max;
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
                    sim_result a, b;
                    sim_region_defer_absorbs = 0;
                    uint64_t ha = hashed_run(t, pols[p], ratios[k], &a);
                    sim_region_defer_absorbs = 1;
                    uint64_t hb = hashed_run(t, pols[p], ratios[k], &b);
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
    ck_assert_uint_gt(evictions, 1000);
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
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
