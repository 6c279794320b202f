/*
 * The policies' building blocks: the registry, the CPython-compatible Mersenne Twister (the
 * spec's section 5 test vectors) and the correctly rounded score division.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "mt19937.h"
#include "policy.h"
#include "registry.h"

START_TEST(test_registry_knows_the_paper_policies_then_the_address_aware_ones)
{
    static const char *const names[] = {"dtr",    "dtr-eq", "dtr-local", "lru",
                                        "size",   "msps",   "random",    "coop",
                                        "dtr-frag", "dtr-proto", "dtr-proto-all", "swap-lru",
                                        "hybrid",   "hybrid-mix", "capuchin", "autoswap"};
    ck_assert_uint_eq(pol_count(), 16);
    for (size_t i = 0; i < 16; i++) {
        const struct sim_policy *p = pol_find(names[i]);
        ck_assert_msg(p, "%s missing", names[i]);
        ck_assert_str_eq(pol_name(p), names[i]);
        ck_assert_ptr_eq(pol_at(i), p);
        ck_assert(pol_description(p) && strlen(pol_description(p)) > 5);
        ck_assert_msg(!p->score != !p->choose, "%s: exactly one of score/choose", names[i]);
        ck_assert_int_eq(pol_needs_addresses(p), i == 7 || i == 8);
    }
    ck_assert_ptr_null(pol_find("DTR"));
    ck_assert_ptr_null(pol_find(""));
    ck_assert_ptr_null(pol_find(NULL));
    ck_assert_ptr_null(pol_at(16));
}
END_TEST

START_TEST(test_regions_and_eqclasses_are_asked_for_only_by_dtr_msps_dtreq)
{
    ck_assert_uint_eq(pol_find("dtr")->needs, SIM_NEEDS_REGIONS);
    ck_assert_uint_eq(pol_find("msps")->needs, SIM_NEEDS_REGIONS);
    ck_assert_uint_eq(pol_find("dtr-eq")->needs, SIM_NEEDS_EQCLASS);
    ck_assert_uint_eq(pol_find("lru")->needs, 0);
    ck_assert_uint_eq(pol_find("dtr-local")->needs, 0);
    ck_assert_uint_eq(pol_find("dtr-proto")->needs,
                      SIM_NEEDS_EQCLASS | SIM_NEEDS_EVICT_AFTER | SIM_NEEDS_NO_FINAL_PIN);
    ck_assert_uint_eq(pol_find("dtr-proto-all")->needs,
                      SIM_NEEDS_EQCLASS | SIM_NEEDS_EVICT_AFTER | SIM_NEEDS_NO_FINAL_PIN);
}
END_TEST

START_TEST(test_mt19937_seed_0_matches_python_getrandbits)
{
    static const uint32_t want[5] = {3626764237u, 1654615998u, 3255389356u, 3823568514u,
                                     1806341205u};
    pol_mt m;
    pol_mt_seed(&m, 0);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(pol_mt_next(&m), want[i]);
}
END_TEST

START_TEST(test_mt19937_randrange_matches_python)
{
    static const uint32_t want37[10] = {24, 26, 2, 16, 32, 31, 25, 19, 30, 22};
    static const uint32_t want1000[5] = {243, 606, 557, 133, 378};
    pol_mt m;
    pol_mt_seed(&m, 0);
    for (int i = 0; i < 10; i++)
        ck_assert_uint_eq(pol_mt_below(&m, 37), want37[i]);
    pol_mt_seed(&m, 3);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(pol_mt_below(&m, 1000), want1000[i]);
    /* a seed wider than 32 bits is split into two key words, as Python does */
    static const uint32_t want5[5] = {1, 0, 1, 1, 1};
    pol_mt_seed(&m, (UINT64_C(1) << 40) + 5);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(pol_mt_below(&m, 1), 0);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(pol_mt_below(&m, 5), want5[i]);
}
END_TEST

/* num / (a * b) against Python's int / int; the last four are cases where
 * (double)num / (double)(a * b) is one ulp off. */
START_TEST(test_score_ratio_is_correctly_rounded_like_python)
{
    static const struct {
        long long n;
        unsigned long long a, b;
        double want;
    } c[] = {
        {434439589176LL, 698935573ULL, 103694313ULL, 5.994283938138473e-06},
        {902254243636LL, 575398923ULL, 202142729ULL, 7.757142403568504e-06},
        {641520749049LL, 62275870ULL, 1953574603ULL, 5.273038029195537e-06},
        {234107653878LL, 40260663ULL, 184570286ULL, 3.150452275197345e-05},
        {149715982028LL, 310965606ULL, 900094242ULL, 5.34894118768859e-07},
        {858667946126LL, 499987953ULL, 971302523ULL, 1.7681177903621703e-06},
        {677015191162LL, 199902474ULL, 203128585ULL, 1.667282537169545e-05},
        {653014903656LL, 425373533ULL, 973799061ULL, 1.5764611677838243e-06},
        {650432128441LL, 209724731ULL, 1115810544ULL, 2.7794692793787354e-06},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        ck_assert_msg(sim_score_ratio(c[i].n, c[i].a, c[i].b) == c[i].want, "case %zu", i);
        ck_assert(sim_score_ratio(-c[i].n, c[i].a, c[i].b) == -c[i].want);
    }
    ck_assert(sim_score_ratio(7, 2, 1) == 3.5);
    ck_assert(sim_score_ratio(0, 5, 5) == 0.0);
    ck_assert(isinf(sim_score_ratio(5, 0, 3)));
    ck_assert(isinf(sim_score_ratio(0, 4, 0))); /* zero denominator wins over zero cost */
}
END_TEST

/* The division as it was first written (a 128-bit quotient of at least 64 bits, a sticky
 * remainder bit, one conversion): an independent reference for the faster one in sim_view.c. */
static double reference_ratio(int64_t num, uint64_t a, uint64_t b)
{
    unsigned __int128 den = (unsigned __int128)a * b;
    if (den == 0)
        return INFINITY;
    if (num == 0)
        return 0.0;
    uint64_t n = num < 0 ? (uint64_t)0 - (uint64_t)num : (uint64_t)num;
    double q;
    if (den >> 64) {
        q = (double)((long double)n / (long double)den);
    } else {
        int s = 128 - (64 - __builtin_clzll(n));
        unsigned __int128 N = (unsigned __int128)n << s, Q = N / den;
        if (N % den)
            Q |= 1;
        q = ldexp((double)Q, -s);
    }
    return num < 0 ? -q : q;
}

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Random operands of every bit width (as sizes, costs and staleness of real traces, and far
 * beyond), halfway cases and the extremes: the fast division equals the reference bit for
 * bit. */
START_TEST(test_score_ratio_equals_the_reference_division_everywhere)
{
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 2000000; i++) {
        int64_t n = (int64_t)(xorshift(&x) >> (xorshift(&x) % 64));
        uint64_t a = xorshift(&x) >> (xorshift(&x) % 64);
        uint64_t b = xorshift(&x) >> (xorshift(&x) % 64);
        if (i % 3 == 0)
            b = 1;
        if (i % 5 == 0 && n != INT64_MIN)
            n = -n;
        double got = sim_score_ratio(n, a, b), want = reference_ratio(n, a, b);
        ck_assert_msg(memcmp(&got, &want, sizeof got) == 0,
                      "%lld / (%llu x %llu): %a, reference %a", (long long)n,
                      (unsigned long long)a, (unsigned long long)b, got, want);
    }
    /* exact halfway between two doubles: ties to even, both directions */
    ck_assert(sim_score_ratio((INT64_C(1) << 54) + 2, 4, 1) == 0x1p52); /* 2^52 + 0.5 */
    ck_assert(sim_score_ratio((INT64_C(1) << 54) + 6, 4, 1) == 0x1p52 + 2); /* 2^52 + 1.5 */
    ck_assert(sim_score_ratio((INT64_C(1) << 54) + 3, 4, 1) == 0x1p52 + 1); /* above half */
    ck_assert(sim_score_ratio(INT64_MAX, 1, 1) == 0x1p63);
    ck_assert(sim_score_ratio(1, UINT64_MAX, 1) == 1.0 / 18446744073709551615.0);
    ck_assert(sim_score_ratio(-9, 2, 2) == -2.25);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("heuristics");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_registry_knows_the_paper_policies_then_the_address_aware_ones);
    tcase_add_test(tc, test_regions_and_eqclasses_are_asked_for_only_by_dtr_msps_dtreq);
    tcase_add_test(tc, test_mt19937_seed_0_matches_python_getrandbits);
    tcase_add_test(tc, test_mt19937_randrange_matches_python);
    tcase_add_test(tc, test_score_ratio_is_correctly_rounded_like_python);
    tcase_add_test(tc, test_score_ratio_equals_the_reference_division_everywhere);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
