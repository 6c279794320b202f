/* The caching model's what-if settings (memory.h options, memory.c parser): the rounding of
 * roundup_power2_divisions (round_size / roundup_power2_next_division), its list syntax as
 * CUDAAllocatorConfig reads it, garbage_collection_threshold's release of old cached
 * segments under a limit, canonical run keys and refusals. Sizes worked out by hand. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "memory.h"

#define MiB (UINT64_C(1) << 20)

static sim_memory_options parse_ok(const char *conf, char *key, size_t len)
{
    const sim_memory_model *m = &sim_memory_caching;
    sim_memory_options o;
    gms_error err;
    ck_assert_msg(sim_memory_parse_conf(&m, conf, &o, key, len, &err) == 0, "%s", err.msg);
    ck_assert_ptr_eq(m, &sim_memory_caching);
    return o;
}

START_TEST(test_roundup_divisions_round_to_the_next_power_of_two_step)
{
    char key[128];
    sim_memory_options o = parse_ok("roundup_power2_divisions:4", key, sizeof key);
    ck_assert_str_eq(key, "caching{roundup_power2_divisions:4}");
    /* 5 MiB + 1 lies in [4, 8) MiB: steps of 1 MiB -> 6 MiB */
    ck_assert_uint_eq(sim_caching_round_size_opt(&o, 5 * MiB + 1), 6 * MiB);
    /* a power of two and an exact step stay */
    ck_assert_uint_eq(sim_caching_round_size_opt(&o, 8 * MiB), 8 * MiB);
    ck_assert_uint_eq(sim_caching_round_size_opt(&o, 5 * MiB), 5 * MiB);
    /* 1200 B is not above 512 x 4: plain 512-byte rounding */
    ck_assert_uint_eq(sim_caching_round_size_opt(&o, 1200), 1536);
    /* 3000 B: steps of 512 between 2048 and 4096 -> 3072 */
    ck_assert_uint_eq(sim_caching_round_size_opt(&o, 3000), 3072);
    /* without the setting: 512-byte rounding, as sim_caching_round_size */
    sim_memory_options d;
    sim_memory_options_init(&d);
    ck_assert_uint_eq(sim_caching_round_size_opt(&d, 5 * MiB + 1), 5 * MiB + 512);
}
END_TEST

START_TEST(test_roundup_list_reads_as_pytorch_parses_it)
{
    char key[128];
    /* the first entry fills below it; '>' fills from the last entry given (which it
     * overwrites, as parseRoundUpPower2Divisions does) to the end */
    sim_memory_options o = parse_ok("roundup_power2_divisions:[256:1,512:2,>:4]", key,
                                    sizeof key);
    for (int i = 0; i <= 8; i++)
        ck_assert_uint_eq(o.roundup_divisions[i], 1);
    for (int i = 9; i < SIM_ROUNDUP_INTERVALS; i++)
        ck_assert_uint_eq(o.roundup_divisions[i], 4);
    ck_assert_str_eq(key, "caching{roundup_power2_divisions:[1:1,512:4]}");
    /* together with other settings, commas inside the brackets do not split settings */
    o = parse_ok("max_split_size_mb:64,roundup_power2_divisions:[1:2,>:8],"
                 "garbage_collection_threshold:0.5", key, sizeof key);
    ck_assert_uint_eq(o.max_split_size, 64 * MiB);
    ck_assert_uint_eq(o.roundup_divisions[0], 8);
    ck_assert(o.gc_threshold == 0.5);
    ck_assert_str_eq(key, "caching{max_split_size_mb:64,roundup_power2_divisions:8,"
                          "garbage_collection_threshold:0.5}");
}
END_TEST

START_TEST(test_bad_knob_values_are_refused)
{
    const char *bad[] = {"roundup_power2_divisions:3", "roundup_power2_divisions:[3:4]",
                         "roundup_power2_divisions:[1:3]", "roundup_power2_divisions:[1:4",
                         "garbage_collection_threshold:1", "garbage_collection_threshold:0",
                         "garbage_collection_threshold:x",
                         "expandable_segments:True,roundup_power2_divisions:4",
                         "expandable_segments:True,garbage_collection_threshold:0.5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const sim_memory_model *m = &sim_memory_caching;
        sim_memory_options o;
        char key[128];
        gms_error err;
        ck_assert_msg(sim_memory_parse_conf(&m, bad[i], &o, key, sizeof key, &err) != 0,
                      "accepted %s", bad[i]);
        ck_assert(err.msg[0]);
    }
}
END_TEST

/* Two cached 24 and 26 MiB segments, limit 100 MiB, then a 40 MiB request: with the GC
 * threshold 0.4 (40 MiB) both cached segments are old enough and go back first (reserved
 * 40 MiB after); without it they stay (90 MiB). */
static sim_memory_stats gc_run(double threshold)
{
    sim_memory_options o;
    sim_memory_options_init(&o);
    o.gc_threshold = threshold;
    void *st;
    gms_error err;
    ck_assert_int_eq(sim_memory_caching.create(&o, 100 * MiB, NULL, &st, &err), 0);
    uint32_t a, b, c;
    ck_assert_int_eq(sim_memory_caching.reserve(st, 24 * MiB, 1, &a), 0);
    ck_assert_int_eq(sim_memory_caching.reserve(st, 26 * MiB, 2, &b), 0);
    sim_memory_caching.release(st, a);
    sim_memory_caching.release(st, b);
    ck_assert_int_eq(sim_memory_caching.reserve(st, 40 * MiB, 3, &c), 0);
    sim_memory_stats s;
    sim_memory_caching.stats(st, &s);
    sim_memory_caching.destroy(st);
    return s;
}

START_TEST(test_gc_threshold_gives_back_old_cached_segments_under_a_limit)
{
    sim_memory_stats with = gc_run(0.4), without = gc_run(0);
    ck_assert_uint_eq(with.reserved, 40 * MiB);
    ck_assert_uint_eq(with.device_frees, 2);
    ck_assert_uint_eq(without.reserved, 90 * MiB);
    ck_assert_uint_eq(without.device_frees, 0);
    /* no limit, no garbage collection (PyTorch: only with a memory fraction set) */
    sim_memory_options o;
    sim_memory_options_init(&o);
    o.gc_threshold = 0.4;
    void *st;
    gms_error err;
    ck_assert_int_eq(sim_memory_caching.create(&o, UINT64_MAX, NULL, &st, &err), 0);
    uint32_t a, c;
    ck_assert_int_eq(sim_memory_caching.reserve(st, 24 * MiB, 1, &a), 0);
    sim_memory_caching.release(st, a);
    ck_assert_int_eq(sim_memory_caching.reserve(st, 40 * MiB, 3, &c), 0);
    sim_memory_stats s;
    sim_memory_caching.stats(st, &s);
    ck_assert_uint_eq(s.device_frees, 0);
    sim_memory_caching.destroy(st);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("memory_knobs");
    TCase *tc = tcase_create("knobs");
    tcase_add_test(tc, test_roundup_divisions_round_to_the_next_power_of_two_step);
    tcase_add_test(tc, test_roundup_list_reads_as_pytorch_parses_it);
    tcase_add_test(tc, test_bad_knob_values_are_refused);
    tcase_add_test(tc, test_gc_threshold_gives_back_old_cached_segments_under_a_limit);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
