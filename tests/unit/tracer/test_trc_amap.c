/* Unit tests of the tracer's live-allocation map (tracer/trc_amap.c): random inserts, removes
 * and lookups checked against a plain list, across many block splits and emptied blocks. */
#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "trc_amap.h"

#define SLOTS 20000

/* A model: slot k holds an allocation at base 0x10000 + k * 0x1000 (size in sizes[k], 0 = free). */
static uint64_t base_of(size_t k)
{
    return 0x10000 + (uint64_t)k * 0x1000;
}

START_TEST(test_random_operations_match_a_plain_list)
{
    static uint64_t sizes[SLOTS];
    trc_amap m = {0};
    srand(7);
    size_t live = 0;
    for (int step = 0; step < 200000; step++) {
        size_t k = (size_t)rand() % SLOTS;
        uint64_t b = base_of(k);
        if (rand() % 3 != 0) { /* insert (twice as often: the map grows to thousands) */
            uint64_t sz = 1 + (uint64_t)(rand() % 0x1000);
            int r = trc_amap_insert(&m, b, sz, k);
            ck_assert_int_eq(r, sizes[k] ? 0 : 1);
            live += sizes[k] == 0;
            sizes[k] = sz;
        } else {
            uint64_t got = 0;
            int r = trc_amap_remove(&m, b, &got);
            ck_assert_int_eq(r, sizes[k] ? 1 : 0);
            if (sizes[k]) {
                ck_assert_uint_eq(got, sizes[k]);
                live--;
            }
            sizes[k] = 0;
        }
        ck_assert_uint_eq(m.count, live);
        /* lookups: the base, the last byte, one past the end, and between allocations */
        size_t q = (size_t)rand() % SLOTS;
        uint64_t qb = base_of(q);
        ck_assert_int_eq(trc_amap_hit(&m, qb), sizes[q] != 0);
        if (sizes[q]) {
            trc_amap_range got;
            ck_assert_int_eq(trc_amap_find(&m, qb + sizes[q] - 1, &got), 1);
            ck_assert_uint_eq(got.base, qb);
            ck_assert_uint_eq(got.size, sizes[q]);
            ck_assert_uint_eq(got.tag, q);
            /* one past the end is a hit only when it is the next slot's live allocation */
            int next_live = sizes[q] == 0x1000 && q + 1 < SLOTS && sizes[q + 1] != 0;
            ck_assert_int_eq(trc_amap_hit(&m, qb + sizes[q]), next_live);
        }
    }
    ck_assert_uint_gt(m.n_blocks, 10); /* the test went through many splits */
    for (size_t k = 0; k < SLOTS; k++)
        if (sizes[k])
            ck_assert_int_eq(trc_amap_remove(&m, base_of(k), NULL), 1);
    ck_assert_uint_eq(m.count, 0);
    ck_assert_uint_eq(m.n_blocks, 0);
    ck_assert_int_eq(trc_amap_hit(&m, base_of(0)), 0);
    trc_amap_free(&m);
}
END_TEST

START_TEST(test_descending_and_ascending_inserts_split_correctly)
{
    trc_amap m = {0};
    for (uint64_t i = 0; i < 3000; i++) /* below everything each time: block 0 keeps splitting */
        ck_assert_int_eq(trc_amap_insert(&m, 0x100000000ull - i * 64, 64, i), 1);
    for (uint64_t i = 0; i < 3000; i++) /* above everything */
        ck_assert_int_eq(trc_amap_insert(&m, 0x200000000ull + i * 64, 0, i), 1);
    ck_assert_uint_eq(m.count, 6000);
    for (size_t b = 0; b < m.n_blocks; b++) { /* sorted within and across blocks */
        for (size_t i = 1; i < m.blocks[b]->n; i++)
            ck_assert_uint_lt(m.blocks[b]->e[i - 1].base, m.blocks[b]->e[i].base);
        if (b > 0)
            ck_assert_uint_lt(m.blocks[b - 1]->e[m.blocks[b - 1]->n - 1].base,
                              m.blocks[b]->e[0].base);
    }
    ck_assert_int_eq(trc_amap_hit(&m, 0x100000000ull + 63), 1);
    ck_assert_int_eq(trc_amap_hit(&m, 0x100000000ull + 64), 0);
    ck_assert_int_eq(trc_amap_hit(&m, 0x200000000ull), 1); /* size 0 counts as one byte */
    ck_assert_int_eq(trc_amap_hit(&m, 0x200000001ull), 0);
    ck_assert_int_eq(trc_amap_hit(&m, 0x10), 0);
    trc_amap_free(&m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trc_amap");
    TCase *tc = tcase_create("map");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_random_operations_match_a_plain_list);
    tcase_add_test(tc, test_descending_and_ascending_inserts_split_correctly);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
