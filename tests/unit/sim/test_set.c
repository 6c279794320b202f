/*
 * sim_set, the bitset behind DTR's regions (sim_set.h): the windowed layout grows up and
 * down, keeps every member across growth, iterates in order, and takes words from a scratch
 * bitset exactly; the full layout behaves the same.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "sim_set.h"

#define UNIVERSE_WORDS 2000 /* ids < 128000 */

/* The members of s in iteration order, into out (at most cap); returns how many. */
static uint32_t members(const sim_set *s, uint32_t *out, uint32_t cap)
{
    sim_set_iter it;
    uint32_t x, n = 0;
    for (sim_set_iter_init(&it, s); sim_set_iter_next(&it, &x);) {
        ck_assert_uint_lt(n, cap);
        out[n++] = x;
    }
    return n;
}

/* Adds ids in an order that grows the window upwards, downwards and far away, and checks
 * has/count/iteration against a plain array of flags after every step. */
static void exercise(sim_set *s, sim_set_pool *pool)
{
    static const uint32_t ids[] = {5000, 5001, 5063, 5064, 4999, 4000, 9000, 64, 0, 127999,
                                   70000, 5000, 4000, 1, 63, 127936};
    uint8_t *in = calloc(64 * UNIVERSE_WORDS, 1);
    uint32_t expect = 0, got[64];
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        int r = sim_set_add(s, pool, ids[i]);
        ck_assert_int_eq(r, in[ids[i]] ? 0 : 1);
        if (!in[ids[i]])
            expect++;
        in[ids[i]] = 1;
        ck_assert_uint_eq(s->count, expect);
        for (size_t j = 0; j < sizeof ids / sizeof ids[0]; j++)
            ck_assert_int_eq(sim_set_has(s, ids[j]), in[ids[j]]);
        ck_assert_int_eq(sim_set_has(s, 4998), 0);
        uint32_t n = members(s, got, 64);
        ck_assert_uint_eq(n, expect);
        for (uint32_t k = 1; k < n; k++)
            ck_assert_uint_lt(got[k - 1], got[k]); /* increasing */
        for (uint32_t k = 0; k < n; k++)
            ck_assert(in[got[k]]);
    }
    sim_set_remove(s, 5064);
    sim_set_remove(s, 5064); /* twice: no effect */
    sim_set_remove(s, 77);   /* never there */
    ck_assert_int_eq(sim_set_has(s, 5064), 0);
    ck_assert_uint_eq(s->count, expect - 1);
    sim_set_clear(s);
    ck_assert_uint_eq(s->count, 0);
    ck_assert_uint_eq(members(s, got, 64), 0);
    ck_assert_int_eq(sim_set_has(s, 5000), 0);
    ck_assert_int_eq(sim_set_add(s, pool, 5000), 1); /* usable again after clearing */
    free(in);
}

/* (The sanitizer build runs these with every block its own malloc: GMS_SIM_SET_POOL_MALLOC.) */
START_TEST(test_windowed_set_grows_both_ways_and_keeps_members)
{
    sim_set_pool pool = {0};
    sim_set_pool_layout(&pool, UNIVERSE_WORDS, 1);
    for (int round = 0; round < 2; round++) { /* again after the pool gave all back */
        sim_set s;
        memset(&s, 0, sizeof s); /* all zero: an empty set */
        exercise(&s, &pool);
        ck_assert_uint_le(s.wcap, UNIVERSE_WORDS);
        sim_set_release(&s, &pool); /* a windowed set gives its memory back */
        ck_assert_ptr_null(s.bits);
        ck_assert_uint_eq(s.count, 0);
        sim_set_free(&s, &pool);
        sim_set_pool_free(&pool);
        ck_assert_uint_eq(sim_set_pool_words(&pool), UNIVERSE_WORDS); /* layout kept */
        ck_assert_int_eq(sim_set_pool_windowed(&pool), 1);
    }
}
END_TEST

START_TEST(test_full_set_behaves_like_the_windowed_one)
{
    sim_set_pool pool = {0};
    sim_set_pool_layout(&pool, UNIVERSE_WORDS, 0);
    ck_assert_int_eq(sim_set_pool_windowed(&pool), 0);
    sim_set s;
    memset(&s, 0, sizeof s);
    exercise(&s, &pool);
    ck_assert_uint_eq(s.wcap, UNIVERSE_WORDS); /* the whole universe */
    sim_set_release(&s, &pool); /* a full set keeps its words */
    ck_assert_ptr_nonnull(s.bits);
    ck_assert_uint_eq(s.count, 0);
    sim_set_free(&s, &pool);
    sim_set_pool_free(&pool);
}
END_TEST

/* take_words copies a scratch range in and zeroes it, shrinks a window much larger than
 * needed, and leaves nothing behind of the set's earlier members. */
START_TEST(test_take_words_copies_and_zeroes_the_scratch)
{
    uint64_t *scratch = calloc(UNIVERSE_WORDS, sizeof *scratch);
    sim_set_pool pool = {0};
    sim_set_pool_layout(&pool, UNIVERSE_WORDS, 1);
    sim_set s;
    memset(&s, 0, sizeof s);
    for (uint32_t x = 0; x < 64 * 1000; x += 7) /* a wide window first */
        ck_assert_int_ge(sim_set_add(&s, &pool, x), 0);
    scratch[300] = 0x5;          /* ids 19200, 19202 */
    scratch[302] = 1ull << 63;   /* id 19391 */
    ck_assert_int_eq(sim_set_take_words(&s, &pool, scratch, 300, 303, 3), 0);
    for (uint32_t w = 0; w < UNIVERSE_WORDS; w++)
        ck_assert_uint_eq(scratch[w], 0);
    ck_assert_uint_le(s.wcap, 8 * 3 + 64); /* the wide window was not kept */
    uint32_t got[8];
    ck_assert_uint_eq(members(&s, got, 8), 3);
    ck_assert_uint_eq(got[0], 19200);
    ck_assert_uint_eq(got[1], 19202);
    ck_assert_uint_eq(got[2], 19391);
    ck_assert_int_eq(sim_set_has(&s, 7 * 2743), 0); /* 19201: an earlier member, gone */
    ck_assert_int_eq(sim_set_take_words(&s, &pool, scratch, 10, 12, 0), 0); /* empty */
    ck_assert_uint_eq(s.count, 0);
    ck_assert_uint_eq(members(&s, got, 8), 0);
    sim_set_free(&s, &pool);
    sim_set_pool_free(&pool);
    free(scratch);
}
END_TEST

/* The pool hands out distinct, writable blocks of every size class, reuses a block given
 * back for the next request of its class, and passes blocks above its largest class to
 * malloc. */
START_TEST(test_pool_reuses_blocks_per_size_class)
{
    sim_set_pool pool = {0};
    sim_set_pool_layout(&pool, UNIVERSE_WORDS, 1); /* windowed: sets of every size */
    enum { N = 300 };
    uint64_t *b[N];
    uint32_t n[N];
    for (int i = 0; i < N; i++) { /* sizes 1 .. 5000 words: every class, and beyond */
        n[i] = 1 + (uint32_t)(i * 17) % 5000;
        b[i] = sim_set_pool_get(&pool, n[i]);
        ck_assert_ptr_nonnull(b[i]);
        for (uint32_t w = 0; w < n[i]; w++)
            b[i][w] = (uint64_t)i << 32 | w;
    }
    for (int i = 0; i < N; i++) /* no block overlaps another */
        for (uint32_t w = 0; w < n[i]; w++)
            ck_assert_uint_eq(b[i][w], (uint64_t)i << 32 | w);
#ifndef GMS_SIM_SET_POOL_MALLOC
    sim_set_pool_put(&pool, b[3], n[3]); /* 52 words: the 64-word class */
    ck_assert_ptr_eq(sim_set_pool_get(&pool, 40), b[3]);
    b[3] = NULL;
#endif
#ifndef GMS_SIM_SET_POOL_MALLOC
    ck_assert_int_eq(sim_set_pool_holds_all(&pool), 0); /* the blocks above 4096 words */
#endif
    for (int i = 0; i < N; i++) {
#ifndef GMS_SIM_SET_POOL_MALLOC
        if (n[i] <= SIM_SET_POOL_MAX_WORDS && i % 2 == 0)
            continue; /* left out: they go with the chunks */
#endif
        sim_set_pool_put(&pool, b[i], n[i]);
    }
#ifndef GMS_SIM_SET_POOL_MALLOC
    ck_assert_int_eq(sim_set_pool_holds_all(&pool), 1); /* they were given back */
#else
    ck_assert_int_eq(sim_set_pool_holds_all(&pool), 0); /* never: each block is a malloc */
#endif
    sim_set_pool_free(&pool);
    for (int c = 0; c < SIM_SET_POOL_CLASSES; c++)
        ck_assert_ptr_null(pool.free_list[c]);
    ck_assert_ptr_null(pool.chunks);
}
END_TEST

/* A full-layout pool carves its (universe-sized) blocks at their size, not rounded up to
 * a power of two, and reuses a block given back. */
START_TEST(test_full_pool_blocks_are_not_rounded_up)
{
#ifndef GMS_SIM_SET_POOL_MALLOC
    sim_set_pool pool = {0};
    sim_set_pool_layout(&pool, 157, 0); /* 10,000 ids: a 256-word class */
    uint64_t *a = sim_set_pool_get(&pool, 157), *b = sim_set_pool_get(&pool, 157);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_eq(b, a + 157); /* carved one after the other from the chunk */
    sim_set_pool_put(&pool, a, 157);
    ck_assert_ptr_eq(sim_set_pool_get(&pool, 157), a);
    sim_set_pool_free(&pool);
#endif
}
END_TEST

/* The pool's chunks start at SIM_SET_POOL_FIRST_CHUNK words and double up to a megabyte
 * (2^17 words), again from the small one after the pool is freed: a run whose sets need a
 * few kilobytes takes a few kilobytes, not a megabyte populated in full (issue 26). Counted
 * in 1024-word blocks: a chunk of w words holds (w - 1) / 1024 of them. */
START_TEST(test_pool_chunks_start_small_and_double_to_a_megabyte)
{
#ifndef GMS_SIM_SET_POOL_MALLOC
    ck_assert_uint_eq(SIM_SET_POOL_FIRST_CHUNK, 8192);
    sim_set_pool pool = {0};
    sim_set_pool_layout(&pool, UNIVERSE_WORDS, 1);
    static const uint32_t want[] = {7, 15, 31, 63, 127, 127, 127};
    for (int round = 0; round < 2; round++) {
        uint32_t per_chunk[8] = {0};
        int chunk = -1;
        uint64_t *current = NULL;
        while (chunk < 7) {
            uint64_t *b = sim_set_pool_get(&pool, 1024);
            ck_assert_ptr_nonnull(b);
            b[0] = b[1023] = 1; /* writable to its end */
            if (pool.chunks != current) {
                current = pool.chunks;
                chunk++;
            }
            if (chunk < 8)
                per_chunk[chunk]++;
        }
        for (int c = 0; c < 7; c++)
            ck_assert_msg(per_chunk[c] == want[c], "round %d chunk %d held %u blocks, want %u",
                          round, c, per_chunk[c], want[c]);
        sim_set_pool_free(&pool); /* the next run starts small again */
    }
#endif
}
END_TEST

/* A pool starts with a small chunk (a small trace's regions need a few tens of KiB, and a
 * MiB populated for them cost more than the run) and carves later ones ever larger: blocks
 * from many chunks stay distinct and writable, full-layout universes larger than the first
 * chunk included, and the pool starts small again after it gave everything back. */
START_TEST(test_pool_chunks_start_small_and_grow)
{
#ifndef GMS_SIM_SET_POOL_MALLOC
    for (int round = 0; round < 2; round++) {
        sim_set_pool pool = {0};
        sim_set_pool_layout(&pool, 6000, 0); /* full: 6,000-word blocks, over 4096 */
        uint64_t *a = sim_set_pool_get(&pool, 6000), *b = sim_set_pool_get(&pool, 6000);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(b);
        for (uint32_t w = 0; w < 6000; w++) {
            a[w] = w;
            b[w] = ~(uint64_t)w;
        }
        for (uint32_t w = 0; w < 6000; w++) {
            ck_assert_uint_eq(a[w], w);
            ck_assert_uint_eq(b[w], ~(uint64_t)w);
        }
        sim_set_pool_free(&pool);
        sim_set_pool_layout(&pool, UNIVERSE_WORDS, 1);
        ck_assert_ptr_nonnull(sim_set_pool_get(&pool, 1));
        ck_assert_uint_lt(pool.left, 8192); /* the first chunk: 64 KiB, not a MiB */
        enum { N = 2000 };
        static uint64_t *blk[N];
        for (int i = 0; i < N; i++) { /* 64 words each: 128k words, chunks up to 1 MiB */
            blk[i] = sim_set_pool_get(&pool, 64);
            ck_assert_ptr_nonnull(blk[i]);
            for (uint32_t w = 0; w < 64; w++)
                blk[i][w] = (uint64_t)i << 8 | w;
        }
        for (int i = 0; i < N; i++)
            for (uint32_t w = 0; w < 64; w++)
                ck_assert_uint_eq(blk[i][w], (uint64_t)i << 8 | w);
        sim_set_pool_free(&pool);
    }
#endif
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_set");
    TCase *tc = tcase_create("set");
    tcase_add_test(tc, test_windowed_set_grows_both_ways_and_keeps_members);
    tcase_add_test(tc, test_full_set_behaves_like_the_windowed_one);
    tcase_add_test(tc, test_take_words_copies_and_zeroes_the_scratch);
    tcase_add_test(tc, test_pool_reuses_blocks_per_size_class);
    tcase_add_test(tc, test_full_pool_blocks_are_not_rounded_up);
    tcase_add_test(tc, test_pool_chunks_start_small_and_double_to_a_megabyte);
    tcase_add_test(tc, test_pool_chunks_start_small_and_grow);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
