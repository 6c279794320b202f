/* mem_pair: the one pairing of frees with allocations by address, shared by the Kineto
 * memory importer and the Execution Trace's lifetimes from the Kineto memory events. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "check_run.h"
#include "mem_pair.h"

typedef struct ev {
    uint64_t addr;
    int kind; /* > 0 allocation, < 0 free, 0 left out */
} ev;

static int event(const void *ctx, size_t i, uint64_t *addr)
{
    const ev *e = ctx;
    *addr = e[i].addr;
    return e[i].kind;
}

START_TEST(test_each_free_pairs_with_the_allocation_open_at_its_address)
{
    const ev e[] = {
        {0x1000, 1},  /* 0 */
        {0x2000, 1},  /* 1 */
        {0x1000, -1}, /* 2 frees 0 */
        {0x1000, 1},  /* 3: the address again, after its free */
        {0x2000, -1}, /* 4 frees 1 */
        {0x1000, -1}, /* 5 frees 3 */
    };
    size_t pair[6];
    uint8_t reused[6];
    ck_assert_int_eq(mem_pair(6, event, e, pair, reused), 0);
    const size_t want[] = {2, 4, 0, 5, 1, 3};
    for (size_t i = 0; i < 6; i++) {
        ck_assert_uint_eq(pair[i], want[i]);
        ck_assert_uint_eq(reused[i], 0);
    }
}
END_TEST

/* a free before any allocation at its address (a block from before the trace) pairs with
 * nothing; an allocation never freed neither; an allocation at an address still open ends
 * the earlier one there (its free is missing), and the next free is the later one's */
START_TEST(test_unpaired_frees_open_ends_and_reused_addresses)
{
    const ev e[] = {
        {0x3000, -1}, /* 0: from before the trace */
        {0x4000, 1},  /* 1: its address taken again by 2 */
        {0x4000, 1},  /* 2 */
        {0x4000, -1}, /* 3 frees 2 */
        {0x5000, 1},  /* 4: never freed */
        {0x4000, -1}, /* 5: nothing open there any more */
    };
    size_t pair[6];
    uint8_t reused[6];
    ck_assert_int_eq(mem_pair(6, event, e, pair, reused), 0);
    ck_assert_uint_eq(pair[0], MEM_PAIR_NONE);
    ck_assert_uint_eq(pair[1], 2);
    ck_assert_uint_eq(reused[1], 1);
    ck_assert_uint_eq(pair[2], 3);
    ck_assert_uint_eq(reused[2], 0);
    ck_assert_uint_eq(pair[3], 2);
    ck_assert_uint_eq(pair[4], MEM_PAIR_NONE);
    ck_assert_uint_eq(pair[5], MEM_PAIR_NONE);
    /* reused is optional: the same pairs without it */
    size_t again[6];
    ck_assert_int_eq(mem_pair(6, event, e, again, NULL), 0);
    for (size_t i = 0; i < 6; i++)
        ck_assert_uint_eq(again[i], pair[i]);
}
END_TEST

/* events left out (another device's) neither open nor close an address, and pair with
 * nothing; every address is allowed, 0 and UINT64_MAX included; no events, no work */
START_TEST(test_left_out_events_and_extreme_addresses)
{
    const ev e[] = {
        {0, 1},           /* 0 */
        {UINT64_MAX, 1},  /* 1 */
        {0, 0},           /* 2: another device's, at the same address */
        {0, -1},          /* 3 frees 0 */
        {UINT64_MAX, 0},  /* 4: left out */
        {UINT64_MAX, -1}, /* 5 frees 1 */
    };
    size_t pair[6];
    ck_assert_int_eq(mem_pair(6, event, e, pair, NULL), 0);
    const size_t want[] = {3, 5, MEM_PAIR_NONE, 0, MEM_PAIR_NONE, 1};
    for (size_t i = 0; i < 6; i++)
        ck_assert_uint_eq(pair[i], want[i]);
    ck_assert_int_eq(mem_pair(0, event, e, pair, NULL), 0);
}
END_TEST

/* many blocks at once: the map grows, and each of 5000 frees (in reverse order) finds its
 * allocation */
START_TEST(test_many_open_blocks)
{
    enum { N = 5000 };
    ev *e = malloc(2 * N * sizeof *e);
    size_t *pair = malloc(2 * N * sizeof *pair);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_nonnull(pair);
    for (size_t i = 0; i < N; i++) {
        e[i] = (ev){0x7f0000000000 + 512 * (uint64_t)i, 1};
        e[2 * N - 1 - i] = (ev){0x7f0000000000 + 512 * (uint64_t)i, -1};
    }
    ck_assert_int_eq(mem_pair(2 * N, event, e, pair, NULL), 0);
    for (size_t i = 0; i < N; i++) {
        ck_assert_uint_eq(pair[i], 2 * N - 1 - i);
        ck_assert_uint_eq(pair[2 * N - 1 - i], i);
    }
    free(e);
    free(pair);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mem_pair");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_each_free_pairs_with_the_allocation_open_at_its_address);
    tcase_add_test(tc, test_unpaired_frees_open_ends_and_reused_addresses);
    tcase_add_test(tc, test_left_out_events_and_extreme_addresses);
    tcase_add_test(tc, test_many_open_blocks);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
