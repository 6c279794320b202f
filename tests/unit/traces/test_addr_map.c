/* addr_map: the one address map of the Kineto memory reader and the snapshot replays. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "addr_map.h"
#include "check_run.h"

START_TEST(test_addr_map_puts_replaces_takes_and_keeps_64_bit_values)
{
    addr_map m;
    ck_assert_int_eq(addr_map_init(&m, 4), 0);
    uint64_t v = 7;
    ck_assert_int_eq(addr_map_get(&m, 0x7f0000001000, &v), 0);
    ck_assert_uint_eq(v, 7); /* untouched when absent */
    ck_assert_int_eq(addr_map_put(&m, 0x7f0000001000, UINT64_C(0x123456789abcdef0)), 0);
    ck_assert_int_eq(addr_map_get(&m, 0x7f0000001000, &v), 1);
    ck_assert_uint_eq(v, UINT64_C(0x123456789abcdef0)); /* a Kineto tensor id: 64 bits */
    ck_assert_int_eq(addr_map_put(&m, 0x7f0000001000, 5), 0);
    ck_assert_uint_eq(addr_map_count(&m), 1); /* replaced, not added */
    ck_assert_int_eq(addr_map_take(&m, 0x7f0000001000, &v), 1);
    ck_assert_uint_eq(v, 5);
    ck_assert_int_eq(addr_map_take(&m, 0x7f0000001000, &v), 0);
    ck_assert_int_eq(addr_map_take(&m, 0x7f0000001000, NULL), 0);
    ck_assert_uint_eq(addr_map_count(&m), 0);
    addr_map_free(&m);
}
END_TEST

/* 0 would be the empty slot and UINT64_MAX wraps to it when keys are stored plus one */
START_TEST(test_addr_map_takes_every_key_zero_and_max_included)
{
    addr_map m;
    ck_assert_int_eq(addr_map_init(&m, 0), 0);
    const uint64_t keys[] = {0, 1, UINT64_MAX, UINT64_MAX - 1};
    for (uint64_t i = 0; i < 4; i++)
        ck_assert_int_eq(addr_map_put(&m, keys[i], 100 + i), 0);
    ck_assert_uint_eq(addr_map_count(&m), 4);
    for (uint64_t i = 0; i < 4; i++) {
        uint64_t v = 0;
        ck_assert_int_eq(addr_map_get(&m, keys[i], &v), 1);
        ck_assert_uint_eq(v, 100 + i);
    }
    uint64_t v = 0;
    ck_assert_int_eq(addr_map_take(&m, UINT64_MAX, &v), 1);
    ck_assert_uint_eq(v, 102);
    ck_assert_int_eq(addr_map_get(&m, UINT64_MAX, &v), 0);
    ck_assert_int_eq(addr_map_take(&m, 0, &v), 1);
    ck_assert_uint_eq(v, 100);
    ck_assert_int_eq(addr_map_get(&m, 0, &v), 0);
    ck_assert_uint_eq(addr_map_count(&m), 2);
    addr_map_free(&m);
}
END_TEST

/* the ET importer's maps start zeroed, with no init */
START_TEST(test_addr_map_zeroed_is_empty_and_grows_on_first_put)
{
    addr_map m = {0};
    uint64_t v = 3;
    ck_assert_int_eq(addr_map_get(&m, 42, &v), 0);
    ck_assert_int_eq(addr_map_take(&m, 42, &v), 0);
    ck_assert_uint_eq(addr_map_count(&m), 0);
    for (uint64_t k = 1; k <= 1000; k++)
        ck_assert_int_eq(addr_map_put(&m, k * 4096, k), 0);
    ck_assert_uint_eq(addr_map_count(&m), 1000);
    ck_assert_int_eq(addr_map_get(&m, 500 * 4096, &v), 1);
    ck_assert_uint_eq(v, 500);
    addr_map_free(&m);
    addr_map_free(&m); /* freed twice: a no-op */
}
END_TEST

/* Many keys in few slots' worth of clusters (addresses 512 bytes apart, as blocks are), grown
 * from a small start, taken in an order that empties slots inside clusters: every lookup
 * agrees with a plain array after every step. */
START_TEST(test_addr_map_matches_an_array_through_growth_and_deletions)
{
    enum { N = 5000 };
    uint64_t *val = calloc(N, sizeof *val);
    unsigned char *in = calloc(N, 1);
    ck_assert_ptr_nonnull(val);
    ck_assert_ptr_nonnull(in);
    addr_map m;
    ck_assert_int_eq(addr_map_init(&m, 1), 0);
    uint64_t rng = 88172645463325252u;
    for (int step = 0; step < 60000; step++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        size_t i = (size_t)(rng % N);
        uint64_t addr = 0x7f3a00000000u + 512u * i;
        if (rng >> 62) {
            uint64_t v = rng ^ (uint64_t)step;
            ck_assert_int_eq(addr_map_put(&m, addr, v), 0);
            val[i] = v;
            in[i] = 1;
        } else {
            uint64_t v = 0;
            ck_assert_int_eq(addr_map_take(&m, addr, &v), in[i]);
            if (in[i])
                ck_assert_uint_eq(v, val[i]);
            in[i] = 0;
        }
        if (step % 997 == 0) {
            size_t count = 0;
            for (size_t j = 0; j < N; j++) {
                uint64_t v = 0;
                count += in[j];
                ck_assert_int_eq(addr_map_get(&m, 0x7f3a00000000u + 512u * j, &v), in[j]);
                if (in[j])
                    ck_assert_uint_eq(v, val[j]);
            }
            ck_assert_uint_eq(addr_map_count(&m), count);
        }
    }
    addr_map_free(&m);
    free(val);
    free(in);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("addr_map");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_addr_map_puts_replaces_takes_and_keeps_64_bit_values);
    tcase_add_test(tc, test_addr_map_takes_every_key_zero_and_max_included);
    tcase_add_test(tc, test_addr_map_zeroed_is_empty_and_grows_on_first_put);
    tcase_add_test(tc, test_addr_map_matches_an_array_through_growth_and_deletions);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
