/* Unit tests of the TMA descriptor table (tracer/trc_tmap.c): descriptors (opaque 128-byte
 * blocks) map back to the address they were encoded with; unknown bytes map to nothing. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "trc_tmap.h"

static void make_desc(uint8_t *d, uint32_t seed)
{
    for (int i = 0; i < TRC_TMAP_BYTES; i++) {
        seed = seed * 1103515245u + 12345u;
        d[i] = (uint8_t)(seed >> 16);
    }
}

START_TEST(test_descriptors_map_back_to_their_address)
{
    trc_tmap t = {0};
    uint8_t d[TRC_TMAP_BYTES];
    make_desc(d, 1);
    ck_assert_uint_eq(trc_tmap_lookup(&t, d), 0); /* empty table */
    for (uint32_t k = 1; k <= 1000; k++) {
        make_desc(d, k);
        ck_assert_int_eq(trc_tmap_insert(&t, d, 0x7f0000000000ull + k * 4096), 0);
    }
    for (uint32_t k = 1; k <= 1000; k++) {
        make_desc(d, k);
        ck_assert_uint_eq(trc_tmap_lookup(&t, d), 0x7f0000000000ull + k * 4096);
    }
    make_desc(d, 5000); /* never inserted */
    ck_assert_uint_eq(trc_tmap_lookup(&t, d), 0);
    make_desc(d, 7); /* one byte different is another descriptor */
    d[127] ^= 1;
    ck_assert_uint_eq(trc_tmap_lookup(&t, d), 0);
    make_desc(d, 7); /* cuTensorMapReplaceAddress: the same bytes now name another address */
    trc_tmap_insert(&t, d, 0x1234000);
    ck_assert_uint_eq(trc_tmap_lookup(&t, d), 0x1234000);
    ck_assert_uint_eq(t.n, 1000);
    trc_tmap_free(&t);
}
END_TEST

START_TEST(test_a_full_table_keeps_the_newest_descriptors)
{
    trc_tmap t = {0};
    uint8_t d[TRC_TMAP_BYTES];
    uint32_t total = TRC_TMAP_SLOTS; /* twice what the table keeps */
    for (uint32_t k = 1; k <= total; k++) {
        make_desc(d, k);
        trc_tmap_insert(&t, d, k);
    }
    ck_assert_uint_le(t.n, TRC_TMAP_SLOTS / 2);
    ck_assert_uint_eq(t.inserted, total);
    make_desc(d, total); /* the newest is there */
    ck_assert_uint_eq(trc_tmap_lookup(&t, d), total);
    trc_tmap_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trc_tmap");
    TCase *tc = tcase_create("tmap");
    tcase_add_test(tc, test_descriptors_map_back_to_their_address);
    tcase_add_test(tc, test_a_full_table_keeps_the_newest_descriptors);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
