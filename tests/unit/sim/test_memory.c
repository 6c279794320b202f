/*
 * Memory models: PyTorch's caching allocator rules one by one (sizes worked out by hand from
 * CUDACachingAllocator.cpp's constants), the lifetime pool's plan, and the engine running
 * with a model (a placement that needs an eviction the ideal count does not).
 */
#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "graph.h"
#include "memory.h"
#include "sim_internal.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)

static void *model(const sim_memory_model *m, uint64_t limit, const sim_memory_options *o)
{
    sim_memory_options d;
    sim_memory_options_init(&d);
    void *st;
    gms_error err = {0};
    ck_assert_msg(m->create(o ? o : &d, limit, NULL, &st, &err) == 0, "%s", err.msg);
    return st;
}

static uint32_t take(void *st, uint64_t size, uint32_t owner)
{
    uint32_t h;
    ck_assert_int_eq(sim_memory_caching.reserve(st, size, owner, &h), 0);
    return h;
}

static sim_memory_stats stats(void *st)
{
    sim_memory_stats s;
    sim_memory_caching.stats(st, &s);
    return s;
}

START_TEST(test_caching_rounds_to_512_and_sizes_segments_by_pool)
{
    ck_assert_uint_eq(sim_caching_round_size(1), 512);
    ck_assert_uint_eq(sim_caching_round_size(512), 512);
    ck_assert_uint_eq(sim_caching_round_size(513), 1024);
    ck_assert_uint_eq(sim_caching_allocation_size(MiB), 2 * MiB);      /* small pool */
    ck_assert_uint_eq(sim_caching_allocation_size(MiB + 512), 20 * MiB); /* < 10 MiB */
    ck_assert_uint_eq(sim_caching_allocation_size(10 * MiB), 10 * MiB);  /* own size ... */
    ck_assert_uint_eq(sim_caching_allocation_size(11 * MiB + 1), 12 * MiB); /* ... to 2 MiB */
}
END_TEST

START_TEST(test_caching_small_requests_share_a_2mib_segment)
{
    void *st = model(&sim_memory_caching, UINT64_MAX, NULL);
    uint32_t a = take(st, 100, 1), b = take(st, 700 * KiB, 2);
    sim_memory_stats s = stats(st);
    ck_assert_uint_eq(s.reserved, 2 * MiB);
    ck_assert_uint_eq(s.allocated, 512 + 700 * KiB);
    ck_assert_uint_eq(s.requested, 100 + 700 * KiB);
    sim_mem_block ba = sim_memory_caching.block(st, a), bb = sim_memory_caching.block(st, b);
    ck_assert_uint_eq(bb.addr, ba.addr + 512); /* split off right after a */
    ck_assert_uint_eq(s.largest_free, 2 * MiB - 512 - 700 * KiB);
    sim_memory_caching.destroy(st);
}
END_TEST

START_TEST(test_caching_large_pool_splits_only_remainders_above_1mib)
{
    void *st = model(&sim_memory_caching, UINT64_MAX, NULL);
    uint32_t a = take(st, 19 * MiB, 1); /* 20 MiB segment, 1 MiB left: not split */
    ck_assert_uint_eq(sim_memory_caching.block(st, a).size, 20 * MiB);
    uint32_t b = take(st, 5 * MiB, 2); /* a new 20 MiB segment, 15 MiB left: split */
    ck_assert_uint_eq(sim_memory_caching.block(st, b).size, 5 * MiB);
    sim_memory_stats s = stats(st);
    ck_assert_uint_eq(s.reserved, 40 * MiB);
    ck_assert_uint_eq(s.allocated, 25 * MiB);
    ck_assert_uint_eq(s.largest_free, 15 * MiB);
    sim_memory_caching.destroy(st);
}
END_TEST

START_TEST(test_caching_best_fit_then_merge_on_free)
{
    void *st = model(&sim_memory_caching, UINT64_MAX, NULL);
    /* one 20 MiB segment cut into 4 + 3 + 6 MiB, 7 MiB left */
    uint32_t a = take(st, 4 * MiB, 1), b = take(st, 3 * MiB, 2), c = take(st, 6 * MiB, 3);
    uint64_t a_addr = sim_memory_caching.block(st, a).addr;
    sim_memory_caching.release(st, a); /* free: 4 MiB at the start, 7 MiB at the end */
    uint32_t d = take(st, 4 * MiB, 4);  /* best fit: the 4 MiB hole, not the 7 MiB one */
    ck_assert_uint_eq(sim_memory_caching.block(st, d).addr, a_addr);
    ck_assert_uint_eq(sim_memory_caching.free_around(st, c), 7 * MiB);
    sim_memory_caching.release(st, d);
    sim_memory_caching.release(st, b);
    sim_memory_caching.release(st, c); /* all free: one block again */
    sim_mem_block list[8];
    ck_assert_uint_eq(sim_memory_caching.list_blocks(st, list, 8), 1);
    ck_assert_uint_eq(list[0].size, 20 * MiB);
    ck_assert_uint_eq(stats(st).allocated, 0);
    ck_assert_uint_eq(stats(st).reserved, 20 * MiB); /* cached, not given back */
    sim_memory_caching.destroy(st);
}
END_TEST

START_TEST(test_caching_gives_back_cached_segments_to_stay_under_the_limit)
{
    void *st = model(&sim_memory_caching, 32 * MiB, NULL);
    uint32_t a = take(st, 11 * MiB, 1); /* a 12 MiB segment */
    take(st, 19 * MiB, 2);              /* a 20 MiB segment, not split: 32 MiB reserved */
    sim_memory_caching.release(st, a);  /* cached, wholly free */
    uint32_t h;
    /* 13 MiB needs a 14 MiB segment: the cached one goes back, and 34 MiB still do not fit */
    ck_assert_int_eq(sim_memory_caching.reserve(st, 13 * MiB, 3, &h), 1);
    ck_assert_uint_eq(stats(st).device_frees, 1);
    ck_assert_uint_eq(stats(st).reserved, 20 * MiB);
    /* 12 MiB fits again once the cache is empty */
    ck_assert_int_eq(sim_memory_caching.reserve(st, 12 * MiB, 3, &h), 0);
    ck_assert_uint_eq(stats(st).reserved, 32 * MiB);
    sim_memory_caching.destroy(st);
}
END_TEST

START_TEST(test_caching_max_split_size_keeps_big_blocks_from_small_requests)
{
    sim_memory_options o;
    sim_memory_options_init(&o);
    o.max_split_size = 20 * MiB;
    void *st = model(&sim_memory_caching, UINT64_MAX, &o);
    uint32_t a = take(st, 40 * MiB, 1);
    sim_memory_caching.release(st, a); /* a cached 40 MiB block, oversize */
    uint32_t b = take(st, 5 * MiB, 2);  /* must not take it: a new 20 MiB segment */
    ck_assert_uint_eq(stats(st).reserved, 60 * MiB);
    ck_assert_uint_eq(sim_memory_caching.block(st, b).size, 5 * MiB);
    uint32_t c = take(st, 30 * MiB, 3); /* oversize request: the 40 MiB block wastes 10 < 20 */
    ck_assert_uint_eq(sim_memory_caching.block(st, c).size, 40 * MiB); /* never split */
    ck_assert_uint_eq(stats(st).reserved, 60 * MiB);
    sim_memory_caching.destroy(st);
}
END_TEST

START_TEST(test_alloc_conf_parses_pytorch_syntax_and_rejects_the_rest)
{
    sim_memory_options o;
    char key[128];
    gms_error err = {0};
    const sim_memory_model *caching = &sim_memory_caching, *ideal = NULL;
    ck_assert_int_eq(sim_memory_parse_conf(&caching, "max_split_size_mb:128", &o,
                                           key, sizeof key, &err), 0);
    ck_assert_uint_eq(o.max_split_size, 128 * MiB);
    ck_assert_str_eq(key, "caching{max_split_size_mb:128}");
    ck_assert_int_eq(sim_memory_parse_conf(&caching, "expandable_segments:False", &o,
                                           key, sizeof key, &err), 0);
    ck_assert_str_eq(key, "caching");
    ck_assert_int_ne(sim_memory_parse_conf(&caching, "max_split_size_mb:10", &o, key,
                                           sizeof key, &err), 0);
    ck_assert_int_ne(sim_memory_parse_conf(&caching, "first_fit:True", &o, key,
                                           sizeof key, &err), 0);
    ck_assert_int_ne(sim_memory_parse_conf(&ideal, "max_split_size_mb:128", &o, key, sizeof key,
                                           &err), 0);
    const sim_memory_model *m;
    ck_assert_int_eq(sim_memory_find("ideal", &m), 0);
    ck_assert_ptr_null(m);
    ck_assert_int_ne(sim_memory_find("cnmem", &m), 0);
}
END_TEST

START_TEST(test_expandable_segments_map_pages_on_demand_and_unmap_free_ones)
{
    const sim_memory_model *m = &sim_memory_caching;
    sim_memory_options o;
    char key[128];
    gms_error err = {0};
    ck_assert_int_eq(sim_memory_parse_conf(&m, "expandable_segments:True", &o, key, sizeof key,
                                           &err), 0);
    ck_assert_ptr_eq(m, &sim_memory_caching_expandable);
    ck_assert_str_eq(key, "caching{expandable_segments:True}");
    void *st = model(m, UINT64_MAX, &o);
    uint32_t h[4];
    sim_memory_stats s;
    ck_assert_int_eq(m->reserve(st, 100, 1, &h[0]), 0);       /* one 2 MiB small page */
    ck_assert_int_eq(m->reserve(st, 3 * MiB, 2, &h[1]), 0);   /* one 20 MiB large page */
    ck_assert_int_eq(m->reserve(st, 3 * MiB, 3, &h[2]), 0);   /* in the same page */
    m->stats(st, &s);
    ck_assert_uint_eq(s.reserved, 22 * MiB);
    ck_assert_uint_eq(m->block(st, h[2]).addr, m->block(st, h[1]).addr + 3 * MiB);
    /* 30 MiB: the 14 MiB free at the end of the mapped range grows by one more page */
    ck_assert_int_eq(m->reserve(st, 30 * MiB, 4, &h[3]), 0);
    m->stats(st, &s);
    ck_assert_uint_eq(s.reserved, 42 * MiB);
    ck_assert_uint_eq(m->block(st, h[3]).addr, m->block(st, h[2]).addr + 3 * MiB);
    m->destroy(st);

    st = model(m, 22 * MiB, &o);
    uint32_t a, b, c, d;
    ck_assert_int_eq(m->reserve(st, 3 * MiB, 1, &a), 0); /* 20 MiB mapped */
    m->release(st, a);
    ck_assert_int_eq(m->reserve(st, 1 * MiB, 2, &b), 0); /* a 2 MiB small page: 22 MiB */
    ck_assert_int_eq(m->reserve(st, 1 * MiB - 512, 3, &c), 0); /* fills the small page */
    ck_assert_int_eq(m->reserve(st, 1 * MiB, 4, &d), 0); /* unmaps the free large page */
    m->stats(st, &s);
    ck_assert_uint_eq(s.reserved, 4 * MiB);
    ck_assert_uint_eq(s.device_frees, 1);
    ck_assert_uint_eq(s.allocated, 3 * MiB - 512);
    m->destroy(st);
}
END_TEST

/* a (11 MiB), then b (8 MiB, no inputs), then c uses a again. */
static sim_trace *fragmenting_trace(void)
{
    sim_trace_builder *b = g_new();
    g_call(b, "a", 10, 1, 11 * MiB, 0);
    g_call(b, "b", 10, 2, 8 * MiB, 0);
    g_call(b, "c", 10, 3, 1 * MiB, 2, (uint64_t)1, (uint64_t)2);
    return g_finish(b);
}

static sim_result run_with(const sim_trace *t, const char *pol, uint64_t budget,
                           const sim_memory_model *m)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find(pol);
    cfg.budget = budget;
    cfg.allocator = m;
    sim_result r;
    gms_error err = {0};
    ck_assert_msg(sim_run(t, &cfg, &r, &err) == 0, "%s", err.msg);
    return r;
}

START_TEST(test_caching_run_evicts_where_the_byte_count_fits)
{
    sim_trace *t = fragmenting_trace();
    /* 27 MiB: ideal holds a, b and c (20 MiB); caching holds a's 12 MiB segment and needs a
     * 20 MiB one for b, so a goes (b reuses its segment) and comes back for c in a new one. */
    sim_result ideal = run_with(t, "dtr", 27 * MiB, NULL);
    ck_assert_int_eq(ideal.status, SIM_OK);
    ck_assert_uint_eq(ideal.evictions, 0);
    ck_assert_uint_eq(ideal.peak_reserved, ideal.peak_memory);
    sim_result cach = run_with(t, "dtr", 27 * MiB, &sim_memory_caching);
    ck_assert_int_eq(cach.status, SIM_OK);
    ck_assert_uint_eq(cach.evictions, 1);
    ck_assert_uint_eq(cach.remats, 1);
    ck_assert_uint_eq(cach.frag_allocs, 1);
    ck_assert_uint_eq(cach.peak_reserved, 26 * MiB); /* 12 + 12 + a 2 MiB small segment */
    ck_assert_uint_ge(cach.peak_reserved, cach.peak_allocated);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_address_policies_refuse_the_ideal_model)
{
    sim_trace *t = fragmenting_trace();
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find("coop");
    sim_result r;
    gms_error err = {0};
    ck_assert_int_ne(sim_run(t, &cfg, &r, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "address"));
    cfg.allocator = &sim_memory_caching;
    ck_assert_int_eq(sim_run(t, &cfg, &r, &err), 0);
    sim_trace_free(t);
}
END_TEST

/* x (100) lives [0, 2), y (100) lives [2, 3): disjoint, one offset; z overlaps both. */
START_TEST(test_lifetime_plan_shares_offsets_of_disjoint_lifetimes)
{
    sim_trace_builder *b = g_new();
    g_call(b, "x", 1, 1, 100, 0);
    g_call(b, "u", 1, 2, 10, 1, (uint64_t)1);
    g_release(b, 1);
    g_call(b, "y", 1, 3, 100, 1, (uint64_t)2);
    g_release(b, 3);
    g_release(b, 2);
    sim_trace *t = g_finish(b);
    uint64_t arena, bound;
    gms_error err = {0};
    ck_assert_int_eq(sim_lifetime_plan(t, 0, &arena, &bound, &err), 0);
    ck_assert_uint_eq(bound, 110);
    ck_assert_uint_eq(arena, 110); /* x and y share [0, 100), u sits above */
    sim_result r = run_with(t, "dtr", UINT64_MAX, &sim_memory_lifetime);
    ck_assert_uint_eq(r.peak_reserved, 110);
    ck_assert_uint_eq(r.evictions, 0);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_models_hold_every_reference_log_budget_invariant)
{
    /* on a chain under a tight budget, every model keeps reserved under the budget and
     * allocated under reserved */
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(200, &t, &err), 0);
    uint64_t budget = sim_budget_for_ratio(t, 0.4);
    const sim_memory_model *ms[] = {&sim_memory_caching, &sim_memory_lifetime,
                                    &sim_memory_caching_expandable};
    const char *pols[] = {"dtr", "lru", "coop", "dtr-frag"};
    for (size_t i = 0; i < 3; i++)
        for (size_t p = 0; p < 4; p++) {
            sim_result r = run_with(t, pols[p], budget, ms[i]);
            ck_assert_uint_le(r.peak_reserved, budget);
            ck_assert_uint_le(r.peak_allocated, r.peak_reserved);
        }
    sim_trace_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("memory");
    TCase *tc = tcase_create("models");
    tcase_add_test(tc, test_caching_rounds_to_512_and_sizes_segments_by_pool);
    tcase_add_test(tc, test_caching_small_requests_share_a_2mib_segment);
    tcase_add_test(tc, test_caching_large_pool_splits_only_remainders_above_1mib);
    tcase_add_test(tc, test_caching_best_fit_then_merge_on_free);
    tcase_add_test(tc, test_caching_gives_back_cached_segments_to_stay_under_the_limit);
    tcase_add_test(tc, test_caching_max_split_size_keeps_big_blocks_from_small_requests);
    tcase_add_test(tc, test_alloc_conf_parses_pytorch_syntax_and_rejects_the_rest);
    tcase_add_test(tc, test_expandable_segments_map_pages_on_demand_and_unmap_free_ones);
    tcase_add_test(tc, test_caching_run_evicts_where_the_byte_count_fits);
    tcase_add_test(tc, test_address_policies_refuse_the_ideal_model);
    tcase_add_test(tc, test_lifetime_plan_shares_offsets_of_disjoint_lifetimes);
    tcase_add_test(tc, test_models_hold_every_reference_log_budget_invariant);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
