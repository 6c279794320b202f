/*
 * The engine's fast paths against their plain versions: windowed and full region bitsets,
 * inline score scans and score calls, deferred and eager region rebuilds, cached and fresh
 * equivalence-class costs, MSPS's block summaries and the slot scan, the builder's handle
 * tables, the block bounds of lru, size, dtr-local and dtr. Each pair must replay alike, event for event (hashed), on chains and random DAGs.
 */
#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "graph.h"
#include "random_dag.h"
#include "run_hash.h"
#include "sim_internal.h" /* sim_region_bitset_max, sim_region_defer */
#include "sim_pool_bound.h" /* sim_pkb_bounds */
#include "sim_pool_min.h"  /* sim_psc_summaries */
#include "cap_swap.h"      /* cap_swap_scored */

START_TEST(test_full_and_windowed_bitset_regions_give_identical_runs)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(600, &t, &err), 0);
    const char *pols[2] = {"dtr", "msps"};
    const double ratios[3] = {0.1, 0.3, 0.6};
    uint32_t saved = sim_region_bitset_max;
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 3; k++) {
            sim_region_bitset_max = saved;
            sim_result a = g_run(t, pols[p], sim_budget_for_ratio(t, ratios[k]), NULL);
            sim_region_bitset_max = 0;
            sim_result b = g_run(t, pols[p], sim_budget_for_ratio(t, ratios[k]), NULL);
            ck_assert_int_eq(a.status, b.status);
            ck_assert_uint_eq(a.clock, b.clock);
            ck_assert_uint_eq(a.evictions, b.evictions);
            ck_assert_uint_eq(a.peak_memory, b.peak_memory);
            ck_assert_uint_gt(a.evictions, 0);
        }
    sim_region_bitset_max = saved;
    sim_trace_free(t);
}
END_TEST

/* One run of p on run (a runner reused across runs) at budget: its events' hash. */
static uint64_t hashed_run(sim_runner *run, const sim_policy *p, uint64_t budget,
                           sim_result *res)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = p;
    cfg.budget = budget;
    return hash_cfg_run(NULL, run, &cfg, res);
}

/* The pool scan evaluates the built-in formulas inline (sim_policy.score_kind); calling
 * each policy's score function instead must give the same events, run for run. */
START_TEST(test_inline_score_scans_choose_like_score_calls)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(400, &t, &err), 0);
    sim_runner *run;
    ck_assert_int_eq(sim_runner_new(t, &run, &err), 0);
    const double ratios[4] = {0.15, 0.3, 0.5, 0.8};
    int kinds = 0;
    uint64_t evictions = 0;
    for (size_t i = 0; i < pol_count(); i++) {
        const sim_policy *p = pol_at(i);
        if (!p->score || !p->score_kind || (p->needs & SIM_NEEDS_SWAP))
            continue; /* (swap-lru's scan is lru's; the swap tests cover it) */
        kinds++;
        sim_policy plain = *p;
        plain.score_kind = SIM_SCORE_CUSTOM;
        for (int k = 0; k < 4; k++) {
            uint64_t budget = sim_budget_for_ratio(t, ratios[k]);
            sim_result a, b;
            uint64_t ha = hashed_run(run, p, budget, &a);
            uint64_t hb = hashed_run(run, &plain, budget, &b);
            ck_assert_msg(ha == hb, "%s at %g: inline scan and score calls differ", p->name,
                          ratios[k]);
            ck_assert_uint_eq(a.clock, b.clock);
            ck_assert_uint_eq(a.evictions, b.evictions);
            evictions += a.evictions;
        }
    }
    ck_assert_int_eq(kinds, 6); /* dtr dtr-eq dtr-local lru size msps */
    ck_assert_uint_gt(evictions, 0);
    sim_runner_free(run);
    sim_trace_free(t);
}
END_TEST

/* The handles random_dag_trace gives its tensors: h itself unless a test renames them. */
static uint64_t (*dag_handle)(uint64_t h);
#define H(h) (dag_handle ? dag_handle(h) : (h))

/* A random DAG of n ops (seeded): calls with one to three live inputs, views (some on
 * storages the policy may have evicted by then), releases, three constants. */
static sim_trace *random_dag_trace(uint64_t seed, int n)
{
    sim_trace_builder *b = g_new();
    uint64_t live[4096], x = seed * 2654435761u + 1, next = 4;
    int n_live = 0;
    for (uint64_t c = 1; c <= 3; c++)
        g_constant(b, H(c), 64);
#define RND(k) ((x = x * 6364136223846793005u + 1442695040888963407u), (x >> 33) % (k))
    live[n_live++] = 1;
    for (int i = 0; i < n && n_live < 4000; i++) {
        uint64_t out = next++;
        if (n_live > 4 && RND(100) < 15) {
            uint64_t cost = 1 + RND(20), base = live[4 + RND((uint64_t)n_live - 4)];
            g_view(b, "view", cost, H(out), H(base));
        } else {
            uint64_t in[3];
            int k = 1 + (int)RND(3);
            for (int j = 0; j < k; j++)
                in[j] = j == 2 ? 2 + RND(2) : live[n_live - 1 - (int)RND(n_live < 6 ? (uint64_t)n_live : 6)];
            if (k >= 2 && in[1] == in[0])
                k = 1;
            if (k == 3 && (in[2] == in[0] || in[2] == in[1]))
                k = 2;
            gmt_output o = {.id = H(out), .size = 1000 * (1 + RND(100)), .alias_of = -1};
            uint64_t cost = 1 + RND(100);
            for (int j = 0; j < k; j++)
                in[j] = H(in[j]);
            g_call_multi(b, "f", cost, in, k, &o, 1);
        }
        live[n_live++] = out;
        if (n_live > 8 && RND(100) < 45) { /* release one of the older tensors */
            int j = 1 + (int)RND((uint64_t)n_live - 6);
            g_release(b, H(live[j]));
            live[j] = live[--n_live];
        }
    }
#undef RND
    return g_finish(b);
}

static uint64_t sparse_handle(uint64_t h)
{
    return h * 1000003 + (UINT64_C(1) << 40);
}

static uint64_t mixed_handle(uint64_t h)
{
    return h % 3 ? h : sparse_handle(h);
}

static uint64_t offset_handle(uint64_t h)
{
    return h + 70000;
}

/* A chain of n ops (each output used by the next two ops, then most are released), with
 * its handles renamed by dag_handle. */
static sim_trace *long_chain_trace(int n)
{
    sim_trace_builder *b = g_new();
    g_constant(b, H(1), 64);
    g_call(b, "f", 5, H(2), 1000, 1, H(1));
    for (uint64_t i = 3; i < (uint64_t)n + 2; i++) {
        g_call(b, "f", 1 + i % 7, H(i), 1000 + 10 * (i % 13), 2, H(i - 1), H(i - 2 < 2 ? 1 : i - 2));
        if (i - 2 >= 2 && i % 4) /* a quarter stays live: memory grows, evictions come */
            g_release(b, H(i - 2));
    }
    return g_finish(b);
}

/* The builder finds tensors by handle in a direct table (dense handles) or a hash table
 * (sparse ones), moving handles to the direct table as it grows: renaming the tensors
 * (all sparse, a mix, and dense ones that start in the hash table and move once the trace
 * has enough tensors: the 20000-op chain) replays exactly like the plain names. */
START_TEST(test_builder_finds_dense_sparse_and_moved_handles_alike)
{
    uint64_t (*maps[3])(uint64_t) = {sparse_handle, mixed_handle, offset_handle};
    for (int seed = 1; seed <= 2; seed++) {
        int n = seed == 1 ? 1500 : 20000;
        dag_handle = NULL;
        sim_trace *plain = seed == 1 ? random_dag_trace((uint64_t)seed, n) : long_chain_trace(n);
        sim_runner *rp;
        gms_error err = {0};
        ck_assert_int_eq(sim_runner_new(plain, &rp, &err), 0);
        sim_result a, b;
        uint64_t budget = sim_budget_for_ratio(plain, 0.3);
        uint64_t ha = hashed_run(rp, pol_find("dtr-eq"), budget, &a);
        ck_assert_uint_gt(a.evictions, 0);
        for (int m = 0; m < 3; m++) {
            dag_handle = maps[m];
            sim_trace *t = seed == 1 ? random_dag_trace((uint64_t)seed, n) : long_chain_trace(n);
            sim_runner *r;
            ck_assert_int_eq(sim_runner_new(t, &r, &err), 0);
            ck_assert_uint_eq(hashed_run(r, pol_find("dtr-eq"), budget, &b), ha);
            ck_assert_uint_eq(b.clock, a.clock);
            ck_assert_uint_eq(sim_trace_baseline(t)->memory, sim_trace_baseline(plain)->memory);
            sim_runner_free(r);
            sim_trace_free(t);
        }
        dag_handle = NULL;
        sim_runner_free(rp);
        sim_trace_free(plain);
    }
}
END_TEST

/* DTR-eq's scan reads cached class costs (sim_eqcache.c); scoring every member through the
 * policy's score function walks the classes afresh each time. On random DAGs (views on
 * evicted storages, in-flight outputs, releases) both must choose alike, run for run. */
START_TEST(test_dtr_eq_cached_class_costs_choose_like_fresh_walks)
{
    const sim_policy *p = pol_find("dtr-eq");
    sim_policy plain = *p;
    plain.score_kind = SIM_SCORE_CUSTOM;
    const double ratios[3] = {0.15, 0.3, 0.5};
    uint64_t evictions = 0;
    for (int seed = 1; seed <= 4; seed++) {
        sim_trace *t = random_dag_trace((uint64_t)seed, 1500);
        sim_runner *run;
        gms_error err = {0};
        ck_assert_int_eq(sim_runner_new(t, &run, &err), 0);
        for (int k = 0; k < 3; k++) {
            uint64_t budget = sim_budget_for_ratio(t, ratios[k]);
            sim_result a, b;
            uint64_t ha = hashed_run(run, p, budget, &a);
            uint64_t hb = hashed_run(run, &plain, budget, &b);
            ck_assert_msg(ha == hb, "seed %d at %g: cached and fresh class costs differ", seed,
                          ratios[k]);
            ck_assert_uint_eq(a.clock, b.clock);
            evictions += a.evictions;
        }
        sim_runner_free(run);
        sim_trace_free(t);
    }
    ck_assert_uint_gt(evictions, 0);
}
END_TEST

/* --sample with dtr keeps no regions: it scores with equivalence classes (DTR-eq's formula),
 * so a sample covering the pool replays exactly like dtr-eq's full scan (and, where the two
 * estimates differ, unlike exact dtr). */
START_TEST(test_sampled_dtr_scores_with_equivalence_classes)
{
    int differ = 0;
    for (int i = 1; i <= 3; i++) {
        sim_trace *t = random_dag_trace((uint64_t)i, 1500);
        gms_error err = {0};
        sim_config cfg;
        sim_config_init(&cfg);
        cfg.budget = sim_budget_for_ratio(t, 0.2);
        cfg.policy = pol_find("dtr-eq");
        sim_result eq, exact, big, s1, s2;
        ck_assert_int_eq(sim_run(t, &cfg, &eq, &err), 0);
        cfg.policy = pol_find("dtr");
        ck_assert_int_eq(sim_run(t, &cfg, &exact, &err), 0);
        cfg.sample = 1000000;
        ck_assert_int_eq(sim_run(t, &cfg, &big, &err), 0);
        ck_assert_uint_gt(eq.evictions, 0);
        ck_assert_uint_eq(big.clock, eq.clock);
        ck_assert_uint_eq(big.evictions, eq.evictions);
        differ += exact.clock != eq.clock;
        cfg.sample = 8;
        ck_assert_int_eq(sim_run(t, &cfg, &s1, &err), 0);
        ck_assert_int_eq(sim_run(t, &cfg, &s2, &err), 0);
        ck_assert_uint_eq(s1.clock, s2.clock);
        sim_trace_free(t);
    }
    ck_assert_int_gt(differ, 0);
}
END_TEST

/* Reverse-region rebuilds deferred to the next choice (an eviction rebuilds only the evicted
 * storage's own pending region and absorbs into no pending one; all done as one sweep) give
 * the region costs, and so the runs, of rebuilding each region at once and absorbing at
 * every eviction as simrd does: on a chain and on random DAGs with views, full and windowed
 * region sets, every region cost read and every event agree. */
START_TEST(test_deferred_region_rebuilds_give_eager_runs)
{
    sim_trace *traces[4];
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(600, &traces[0], &err), 0);
    for (int i = 1; i < 4; i++)
        traces[i] = random_dag_trace((uint64_t)i, 1500);
    const sim_policy *pols[3] = {pol_find("dtr"), pol_find("msps"), probe_policy()};
    const double ratios[4] = {0.1, 0.2, 0.3, 0.6};
    uint64_t evictions = 0;
    for (int p = 0; p < 3; p++) {
        paths_case c = {.policy = {pols[p], pols[p]},
                        .flags = (int *const[]){&sim_region_defer, NULL},
                        .what = "eager and deferred rebuilds",
                        .windowed_too = 1};
        evictions += paths_agree(traces, 4, ratios, 4, &c).evictions;
    }
    ck_assert_uint_gt(evictions, 0);
    for (int i = 0; i < 4; i++)
        sim_trace_free(traces[i]);
}
END_TEST

/* MSPS's scan over the block summaries of its cached scores (sim_pool_min.h) chooses what
 * the plain scan of every slot chooses and counts the same candidates: on a chain and random
 * DAGs (pools compacted many times over), full and windowed region sets, four budgets. */
START_TEST(test_msps_block_summaries_choose_like_the_slot_scan)
{
    sim_trace *traces[3];
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(600, &traces[0], &err), 0);
    for (int i = 1; i < 3; i++)
        traces[i] = random_dag_trace((uint64_t)i + 7, 1500);
    const double ratios[4] = {0.1, 0.2, 0.3, 0.6};
    paths_case c = {.policy = {pol_find("msps"), pol_find("msps")},
                    .flags = (int *const[]){&sim_psc_summaries, NULL},
                    .what = "slot scan and summaries",
                    .windowed_too = 1};
    ck_assert_uint_gt(paths_agree(traces, 3, ratios, 4, &c).evictions, 1000);
    for (int i = 0; i < 3; i++)
        sim_trace_free(traces[i]);
}
END_TEST

/* A view op created on an evicted storage raises that storage's compute, so a reverse region
 * requested before it and running through that storage is rebuilt first, as simrd rebuilt
 * it at the request (sim_regions_on_new_op). x -> a -> e -> b -> c (a and e evicted), q ages
 * b and c, k = m(a) rematerializes a (evicting c; the remat requests b's reverse region,
 * interior {e}) and fits without a choice; then view(e) is created with e evicted and e's
 * rematerialization has to choose, scoring b. Without that flush the deferred rebuild would
 * count the view's cost in b's reverse region and the probe would read another cost. */
START_TEST(test_deferred_rebuilds_flush_before_a_view_on_an_evicted_storage)
{
    sim_trace_builder *tb = g_new();
    g_constant(tb, 1, 8);
    g_call(tb, "f", 10, 2, 100, 1, (uint64_t)1);   /* a */
    g_call(tb, "g", 10, 3, 100, 1, (uint64_t)2);   /* e */
    g_call(tb, "h", 10, 4, 100, 1, (uint64_t)3);   /* b: evicts a */
    g_call(tb, "p", 10, 5, 100, 1, (uint64_t)4);   /* c: evicts e */
    g_call(tb, "q", 10, 8, 1, 1, (uint64_t)1);     /* ages b and c */
    g_call(tb, "m", 10, 6, 1, 1, (uint64_t)2);     /* k: rematerializes a */
    g_view(tb, "view", 5, 7, 3);                   /* on e, evicted */
    for (uint64_t id = 2; id <= 8; id++)           /* nothing left to pin at the end */
        g_release(tb, id);
    sim_trace *t = g_finish(tb);
    paths_case c = {.policy = {probe_policy(), probe_policy()},
                    .flags = (int *const[]){&sim_region_defer, NULL},
                    .what = "eager and deferred rebuilds (the region costs read)"};
    paths_runs p = paths_pair(t, 210, &c, "the view on an evicted storage");
    ck_assert_int_eq(p.r[0].status, SIM_OK);
    ck_assert_uint_eq(p.r[0].remats, 2); /* a, then e */
    sim_trace_free(t);
}
END_TEST

/* lru, size, dtr-local and dtr (and swap-lru, whose scan is lru's) skip pool blocks by their
 * bounds (sim_pool_bound.h); the plain scan scores every member. Both must choose alike, event
 * for event, and count the same candidates, on a chain and on random DAGs (sizes that tie,
 * views, releases, compactions), full and windowed regions, four budgets; and the bounds
 * must actually skip: together the bounded scans score under half the plain candidates. */
START_TEST(test_pool_bounds_choose_like_the_plain_scan)
{
    sim_trace *traces[4];
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(600, &traces[0], &err), 0);
    for (int i = 1; i < 4; i++)
        traces[i] = random_dag_trace((uint64_t)i + 11, 1500);
    const char *names[5] = {"lru", "size", "dtr-local", "dtr", "swap-lru"};
    const double ratios[4] = {0.1, 0.2, 0.3, 0.6};
    uint64_t evictions = 0;
    for (int p = 0; p < 5; p++) {
        sim_policy pol = scored_policy(names[p]);
        paths_case c = {.policy = {&pol, &pol},
                        .flags = (int *const[]){&sim_pkb_bounds, NULL},
                        .what = "plain and bounded scans",
                        .probe = bounded_scored(),
                        .windowed_too = 1};
        paths_sums sum = paths_agree(traces, 4, ratios, 4, &c);
        evictions += sum.evictions;
        paths_assert_skipped(&sum, names[p]);
    }
    ck_assert_uint_gt(evictions, 1000);
    for (int i = 0; i < 4; i++)
        sim_trace_free(traces[i]);
}
END_TEST

/* Inside a block of 64 pool slots the bounded scans score only the sub-blocks of 16 whose
 * own bounds can hold the choice (sim_pool_bound.h). On pools that stay within a block or two
 * (a 60-layer chain, random DAGs of 90 ops), where the block bounds alone leave 82-95% of the
 * candidates to score, the scans must still choose as the plain scan does, event for event,
 * and score under 4/5 of the candidates (43-71% with the sub-blocks). */
START_TEST(test_pool_sub_block_bounds_skip_inside_a_block)
{
    sim_trace *traces[4];
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(60, &traces[0], &err), 0);
    for (int i = 1; i < 4; i++)
        traces[i] = random_dag_trace((uint64_t)i + 23, 90);
    const char *names[4] = {"lru", "size", "dtr-local", "dtr"};
    const double ratios[4] = {0.1, 0.2, 0.3, 0.6};
    for (int p = 0; p < 4; p++) {
        sim_policy pol = scored_policy(names[p]);
        paths_case c = {.policy = {&pol, &pol},
                        .flags = (int *const[]){&sim_pkb_bounds, NULL},
                        .what = "plain and bounded scans of small pools",
                        .probe = bounded_scored()};
        paths_sums sum = paths_agree(traces, 4, ratios, 4, &c);
        ck_assert_uint_gt(sum.evictions, 1000);
        ck_assert_msg(sum.probe[1] > 0 && sum.probe[1] < sum.candidates / 5 * 4,
                      "%s: the bounded scans scored %llu of %llu candidates", names[p],
                      (unsigned long long)sum.probe[1], (unsigned long long)sum.candidates);
    }
    for (int i = 0; i < 4; i++)
        sim_trace_free(traces[i]);
}
END_TEST

/* capuchin with the engine's caches (MSPS's cached choice, the pool's bytes, the block sizes
 * of its bounded swap pass, the memo and early stop of its chain walks) and without them (a
 * plain pass scoring every member both ways, full walks) must replay alike, event for event,
 * with the same swaps and candidates, on a chain and random DAGs, full and windowed regions,
 * four budgets; and the bounded pass must skip: it scores under half the members the plain
 * pass scores. */
START_TEST(test_capuchin_bounded_pass_chooses_like_the_plain_pass)
{
    sim_trace *traces[4];
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(600, &traces[0], &err), 0);
    for (int i = 1; i < 4; i++)
        traces[i] = random_dag_trace((uint64_t)i + 11, 1500);
    const double ratios[4] = {0.1, 0.2, 0.3, 0.6};
    paths_case c = {.policy = {pol_find("capuchin"), pol_find("capuchin")},
                    .flags = (int *const[]){&sim_pkb_bounds, NULL},
                    .what = "plain and bounded passes",
                    .probe = &cap_swap_scored,
                    .windowed_too = 1};
    paths_sums sum = paths_agree(traces, 4, ratios, 4, &c);
    ck_assert_uint_gt(sum.evictions, 1000);
    ck_assert_uint_gt(sum.swaps, 1000);
    paths_assert_skipped(&sum, "capuchin");
    for (int i = 0; i < 4; i++)
        sim_trace_free(traces[i]);
}
END_TEST

/* The evictions of a run so far whose forward regions were kept as frontiers only: a
 * paths_case.probe, bumped by the on_evict hook frontier_probe (which changes no choice). */
static uint64_t frontier_only_evictions;

static void frontier_probe(const sim_view *v, uint32_t s, int eager, void *state)
{
    (void)s, (void)eager, (void)state;
    frontier_only_evictions += v->fwd_frontier_only != 0;
}

/* capuchin reads reverse region costs only (SIM_NEEDS_REV_REGIONS_ONLY), so its forward
 * regions are kept as frontiers only, without interiors or sums: it must replay as with them
 * kept in full, event for event, with the same swaps and candidates, on a chain and random
 * DAGs (in-place ops among them), full and windowed regions, four budgets. */
START_TEST(test_capuchin_replays_alike_with_forward_frontiers_only)
{
    sim_trace *traces[4];
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(600, &traces[0], &err), 0);
    traces[1] = random_dag_trace(31, 1500);
    traces[2] = random_dag(32, 1200);
    traces[3] = random_dag_inplace(33, 1200);
    const double ratios[4] = {0.2, 0.4, 0.7, 0.9};
    sim_policy pol[2] = {*pol_find("capuchin"), *pol_find("capuchin")};
    ck_assert_ptr_null(pol[0].on_evict);
    pol[0].needs &= ~(unsigned)SIM_NEEDS_REV_REGIONS_ONLY; /* forward regions in full */
    pol[0].on_evict = pol[1].on_evict = frontier_probe;
    paths_case c = {.policy = {&pol[0], &pol[1]},
                    .what = "runs with full and frontier-only forward regions",
                    .probe = &frontier_only_evictions,
                    .link_gbps = 2,
                    .windowed_too = 1};
    paths_sums sum = paths_agree(traces, 4, ratios, 4, &c);
    ck_assert_uint_gt(sum.evictions, 1000);
    ck_assert_uint_gt(sum.swaps, 100);
    ck_assert_uint_eq(sum.probe[0], 0);
    ck_assert_uint_gt(sum.probe[1], 1000);
    for (int i = 0; i < 4; i++)
        sim_trace_free(traces[i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_paths");
    TCase *tc = tcase_create("fast_and_plain");
    tcase_add_test(tc, test_full_and_windowed_bitset_regions_give_identical_runs);
    tcase_add_test(tc, test_inline_score_scans_choose_like_score_calls);
    tcase_add_test(tc, test_deferred_region_rebuilds_give_eager_runs);
    tcase_add_test(tc, test_deferred_rebuilds_flush_before_a_view_on_an_evicted_storage);
    tcase_add_test(tc, test_sampled_dtr_scores_with_equivalence_classes);
    tcase_add_test(tc, test_builder_finds_dense_sparse_and_moved_handles_alike);
    tcase_add_test(tc, test_dtr_eq_cached_class_costs_choose_like_fresh_walks);
    tcase_add_test(tc, test_msps_block_summaries_choose_like_the_slot_scan);
    tcase_add_test(tc, test_pool_bounds_choose_like_the_plain_scan);
    tcase_add_test(tc, test_pool_sub_block_bounds_skip_inside_a_block);
    tcase_add_test(tc, test_capuchin_bounded_pass_chooses_like_the_plain_pass);
    tcase_add_test(tc, test_capuchin_replays_alike_with_forward_frontiers_only);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
