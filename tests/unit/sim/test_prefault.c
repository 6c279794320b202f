/*
 * sim_prefault (sim_prefault.h): populating an array's pages keeps what it holds, zeroes
 * nothing, maps fresh calloc'd memory as zeros, and accepts unaligned, small and NULL
 * arrays.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "sim_prefault.h"

START_TEST(test_prefault_keeps_contents_and_zeros)
{
    size_t n = (size_t)6 << 20; /* above the megabyte threshold: populated */
    uint8_t *a = calloc(n, 1);
    ck_assert_ptr_nonnull(a);
    for (size_t i = 0; i < n; i += 4093) /* some pages written before, most never touched */
        if ((i / 4093) % 3 == 0)
            a[i] = (uint8_t)(i * 7 + 1);
    sim_prefault(a + 3, n - 5); /* unaligned both ends */
    for (size_t i = 0; i < n; i++) {
        uint8_t want = (i % 4093 == 0 && (i / 4093) % 3 == 0) ? (uint8_t)(i * 7 + 1) : 0;
        if (a[i] != want)
            ck_abort_msg("byte %zu is %u after prefault, want %u", i, a[i], want);
    }
    memset(a, 0xab, n); /* and the pages are writable */
    ck_assert_uint_eq(a[n - 1], 0xab);
    free(a);
}
END_TEST

START_TEST(test_prefault_accepts_small_and_null)
{
    uint64_t small[16] = {1, 2, 3};
    sim_prefault(small, sizeof small);
    ck_assert_uint_eq(small[2], 3);
    sim_prefault(NULL, (size_t)1 << 30);
    sim_prefault(small, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_prefault");
    TCase *tc = tcase_create("prefault");
    tcase_add_test(tc, test_prefault_keeps_contents_and_zeros);
    tcase_add_test(tc, test_prefault_accepts_small_and_null);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
