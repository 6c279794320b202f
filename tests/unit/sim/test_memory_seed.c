/* The memory seam's seeding entry point (memory.h seed, next_segment_at) on the caching model:
 * a real allocator's state with its gaps as cached free blocks, placements into them by the
 * allocator's rules, merges with seeded neighbours, refusals of inconsistent states, and new
 * segments at the address the real cudaMalloc gave. Sizes worked out by hand. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "memory.h"

#define MiB (UINT64_C(1) << 20)
#define BASE UINT64_C(0x7f4000000000)

static void *fresh(void)
{
    sim_memory_options o;
    sim_memory_options_init(&o);
    void *st;
    gms_error err;
    ck_assert_int_eq(sim_memory_caching.create(&o, UINT64_MAX, NULL, &st, &err), 0);
    return st;
}

/* Segment A: 20 MiB large, blocks [0, 4 MiB) and [10 MiB, 12 MiB) allocated; segment B: 2 MiB
 * small at A + 64 MiB, [0, 512) allocated. Free: A [4, 10) and [12, 20) MiB, B the rest. */
static void *seeded(uint32_t h[3])
{
    void *st = fresh();
    sim_mem_seed_segment seg[] = {{BASE, 20 * MiB, 0}, {BASE + 64 * MiB, 2 * MiB, 1}};
    sim_mem_seed_block blk[] = {{BASE, 4 * MiB, 4 * MiB - 100, 1},
                                {BASE + 10 * MiB, 2 * MiB, 2 * MiB, 2},
                                {BASE + 64 * MiB, 512, 300, 3}};
    gms_error err;
    ck_assert_msg(sim_memory_caching.seed(st, seg, 2, blk, 3, h, &err) == 0, "%s", err.msg);
    return st;
}

START_TEST(test_seed_holds_the_real_segments_blocks_and_free_gaps)
{
    uint32_t h[3];
    void *st = seeded(h);
    sim_memory_stats s;
    sim_memory_caching.stats(st, &s);
    ck_assert_uint_eq(s.reserved, 22 * MiB);
    ck_assert_uint_eq(s.allocated, 6 * MiB + 512);
    ck_assert_uint_eq(s.requested, 6 * MiB - 100 + 300);
    ck_assert_uint_eq(s.segments, 2);
    ck_assert_uint_eq(s.device_allocs, 0); /* seeded segments were not reserved by the model */
    ck_assert_uint_eq(s.largest_free, 8 * MiB);
    sim_mem_block b[16];
    size_t n = sim_memory_caching.list_blocks(st, b, 16);
    ck_assert_uint_eq(n, 6); /* A: 4 blocks; B: 2 */
    ck_assert_uint_eq(b[1].addr, BASE + 4 * MiB);
    ck_assert_uint_eq(b[1].size, 6 * MiB);
    ck_assert_uint_eq(b[1].owner, SIM_MEM_NONE);
    ck_assert_uint_eq(b[5].size, 2 * MiB - 512);
    ck_assert_uint_eq(sim_memory_caching.block(st, h[1]).addr, BASE + 10 * MiB);
    sim_memory_caching.destroy(st);
}
END_TEST

START_TEST(test_seeded_gaps_serve_requests_by_best_fit_and_merge_on_free)
{
    uint32_t h[3], x, y;
    void *st = seeded(h);
    /* 5 MiB: best fit is the 6 MiB gap (not the 8 MiB one); the 1 MiB rest is not split off */
    ck_assert_int_eq(sim_memory_caching.reserve(st, 5 * MiB, 10, &x), 0);
    sim_mem_block b = sim_memory_caching.block(st, x);
    ck_assert_uint_eq(b.addr, BASE + 4 * MiB);
    ck_assert_uint_eq(b.size, 6 * MiB);
    /* 1000 B goes to the small segment, right after its seeded block */
    ck_assert_int_eq(sim_memory_caching.reserve(st, 1000, 11, &y), 0);
    ck_assert_uint_eq(sim_memory_caching.block(st, y).addr, BASE + 64 * MiB + 512);
    /* freeing the seeded 2 MiB block merges it with the free 8 MiB after it: 10 MiB free */
    sim_memory_caching.release(st, h[1]);
    sim_memory_stats s;
    sim_memory_caching.stats(st, &s);
    ck_assert_uint_eq(s.largest_free, 10 * MiB);
    ck_assert_uint_eq(s.device_allocs, 0);
    sim_memory_caching.destroy(st);
}
END_TEST

START_TEST(test_seed_refuses_overlaps_stray_blocks_and_a_used_model)
{
    void *st = fresh();
    uint32_t h[2];
    gms_error err;
    sim_mem_seed_segment seg[] = {{BASE, 20 * MiB, 0}, {BASE + 10 * MiB, 20 * MiB, 0}};
    ck_assert_int_ne(sim_memory_caching.seed(st, seg, 2, NULL, 0, h, &err), 0);
    sim_memory_caching.destroy(st);
    st = fresh();
    sim_mem_seed_block out[] = {{BASE + 30 * MiB, 512, 512, 1}};
    ck_assert_int_ne(sim_memory_caching.seed(st, seg, 1, out, 1, h, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "no segment"));
    sim_memory_caching.destroy(st);
    st = fresh();
    sim_mem_seed_block two[] = {{BASE, 4 * MiB, 1, 1}, {BASE + 2 * MiB, 4 * MiB, 1, 2}};
    ck_assert_int_ne(sim_memory_caching.seed(st, seg, 1, two, 2, h, &err), 0);
    sim_memory_caching.destroy(st);
    st = fresh();
    uint32_t x;
    ck_assert_int_eq(sim_memory_caching.reserve(st, 512, 1, &x), 0);
    ck_assert_int_ne(sim_memory_caching.seed(st, seg, 1, NULL, 0, h, &err), 0);
    sim_memory_caching.destroy(st);
}
END_TEST

START_TEST(test_new_segment_goes_where_the_real_cudamalloc_put_it)
{
    uint32_t h[3], x, y;
    void *st = seeded(h);
    /* 30 MiB fits no cached block: a new segment, at the hinted (lower) address */
    sim_memory_caching.next_segment_at(st, BASE - 64 * MiB);
    ck_assert_int_eq(sim_memory_caching.reserve(st, 30 * MiB, 20, &x), 0);
    ck_assert_uint_eq(sim_memory_caching.block(st, x).addr, BASE - 64 * MiB);
    sim_mem_block b[16];
    ck_assert_uint_eq(sim_memory_caching.list_blocks(st, b, 16), 7);
    ck_assert_uint_eq(b[0].addr, BASE - 64 * MiB); /* segments stay in address order */
    /* a hint that overlaps a held segment is ignored: above all segments instead */
    sim_memory_caching.next_segment_at(st, BASE + MiB);
    ck_assert_int_eq(sim_memory_caching.reserve(st, 30 * MiB, 21, &y), 0);
    ck_assert_uint_ge(sim_memory_caching.block(st, y).addr, BASE + 66 * MiB);
    sim_memory_caching.destroy(st);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("memory_seed");
    TCase *tc = tcase_create("seed");
    tcase_add_test(tc, test_seed_holds_the_real_segments_blocks_and_free_gaps);
    tcase_add_test(tc, test_seeded_gaps_serve_requests_by_best_fit_and_merge_on_free);
    tcase_add_test(tc, test_seed_refuses_overlaps_stray_blocks_and_a_used_model);
    tcase_add_test(tc, test_new_segment_goes_where_the_real_cudamalloc_put_it);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
