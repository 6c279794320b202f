/* Budget and byte-count parsing: what `--budget` accepts and what it refuses. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "cli.h"

START_TEST(test_bytes_accept_binary_and_decimal_units)
{
    uint64_t b;
    ck_assert_int_eq(cli_parse_bytes("123", &b), 0);
    ck_assert_uint_eq(b, 123);
    ck_assert_int_eq(cli_parse_bytes("64k", &b), 0);
    ck_assert_uint_eq(b, 65536);
    ck_assert_int_eq(cli_parse_bytes("1.5GiB", &b), 0);
    ck_assert_uint_eq(b, 1610612736);
    ck_assert_int_eq(cli_parse_bytes("800MB", &b), 0);
    ck_assert_uint_eq(b, 800000000);
    ck_assert_int_eq(cli_parse_bytes("2 tib", &b), 0);
    ck_assert_uint_eq(b, 2199023255552ull);
}
END_TEST

START_TEST(test_bytes_refuse_junk_negative_and_overflow)
{
    uint64_t b = 7;
    ck_assert_int_eq(cli_parse_bytes("", &b), -1);
    ck_assert_int_eq(cli_parse_bytes("GiB", &b), -1);
    ck_assert_int_eq(cli_parse_bytes("12 parsecs", &b), -1);
    ck_assert_int_eq(cli_parse_bytes("-5", &b), -1);
    ck_assert_int_eq(cli_parse_bytes("nan", &b), -1);
    ck_assert_int_eq(cli_parse_bytes("1e30", &b), -1);
    ck_assert_uint_eq(b, 7); /* untouched on failure */
}
END_TEST

START_TEST(test_budget_ratio_forms)
{
    double r;
    uint64_t b;
    ck_assert_int_eq(cli_parse_budget("0.4", &r, &b), 0);
    ck_assert(r == 0.4 && b == 0);
    ck_assert_int_eq(cli_parse_budget("40%", &r, &b), 0);
    ck_assert(r == 0.4 && b == 0);
    ck_assert_int_eq(cli_parse_budget("1", &r, &b), 0);
    ck_assert(r == 1.0 && b == 0);
    ck_assert_int_eq(cli_parse_budget("2.0", &r, &b), 0); /* once 2 bytes */
    ck_assert(r == 2.0 && b == 0);
    ck_assert_int_eq(cli_parse_budget("1.5", &r, &b), 0); /* once refused */
    ck_assert(r == 1.5 && b == 0);
    ck_assert_int_eq(cli_parse_budget("150%", &r, &b), 0);
    ck_assert(r == 1.5 && b == 0);
    ck_assert_int_eq(cli_parse_budget("10", &r, &b), 0);
    ck_assert(r == 10.0 && b == 0);
}
END_TEST

START_TEST(test_budget_absolute_forms)
{
    double r;
    uint64_t b;
    ck_assert_int_eq(cli_parse_budget("3.2GiB", &r, &b), 0);
    ck_assert(r == 0 && b == (uint64_t)(3.2 * 1073741824.0));
    ck_assert_int_eq(cli_parse_budget("123456789B", &r, &b), 0);
    ck_assert(r == 0 && b == 123456789);
    ck_assert_int_eq(cli_parse_budget("800MB", &r, &b), 0);
    ck_assert(r == 0 && b == 800000000);
    /* a plain number above the largest ratio is bytes without a unit: refused, with its own
     * code so the message can say so */
    ck_assert_int_eq(cli_parse_budget("123456789", &r, &b), -2);
    ck_assert_int_eq(cli_parse_budget("10.5", &r, &b), -2);
}
END_TEST

START_TEST(test_budget_refuses_zero_negative_and_unknown_text)
{
    double r;
    uint64_t b;
    ck_assert_int_eq(cli_parse_budget("0", &r, &b), -1);
    ck_assert_int_eq(cli_parse_budget("-0.5", &r, &b), -1);
    ck_assert_int_eq(cli_parse_budget("lots", &r, &b), -1);
    ck_assert_int_eq(cli_parse_budget("0GiB", &r, &b), -1);
}
END_TEST

START_TEST(test_format_bytes_picks_a_readable_unit)
{
    char buf[32];
    ck_assert_str_eq(cli_format_bytes(512, buf, sizeof buf), "512 B");
    ck_assert_str_eq(cli_format_bytes(1536, buf, sizeof buf), "1.50 KiB");
    ck_assert_str_eq(cli_format_bytes(3435973837ull, buf, sizeof buf), "3.20 GiB");
}
END_TEST

START_TEST(test_duration_needs_a_unit_and_rounds_to_ns)
{
    uint64_t ns;
    ck_assert_int_eq(cli_parse_duration("20us", &ns), 0);
    ck_assert_uint_eq(ns, 20000);
    ck_assert_int_eq(cli_parse_duration("1.5ms", &ns), 0);
    ck_assert_uint_eq(ns, 1500000);
    ck_assert_int_eq(cli_parse_duration("500ns", &ns), 0);
    ck_assert_uint_eq(ns, 500);
    ck_assert_int_eq(cli_parse_duration("0.2s", &ns), 0);
    ck_assert_uint_eq(ns, 200000000);
    ck_assert_int_eq(cli_parse_duration("2.5\xc2\xb5s", &ns), 0);
    ck_assert_uint_eq(ns, 2500);
    ck_assert_int_eq(cli_parse_duration("10s", &ns), 0);
    ck_assert_uint_eq(ns, 10000000000u);
    ck_assert_int_eq(cli_parse_duration("0ns", &ns), 0);
    ck_assert_uint_eq(ns, 0);
    ns = 7;
    ck_assert_int_eq(cli_parse_duration("20", &ns), -1); /* ns or us? refuse */
    ck_assert_int_eq(cli_parse_duration("-1us", &ns), -1);
    ck_assert_int_eq(cli_parse_duration("us", &ns), -1);
    ck_assert_int_eq(cli_parse_duration("nanus", &ns), -1);
    ck_assert_int_eq(cli_parse_duration("1e30s", &ns), -1);
    ck_assert_int_eq(cli_parse_duration("11s", &ns), -1); /* over 10 s per op (issue 31) */
    ck_assert_int_eq(cli_parse_duration("1e300s", &ns), -1);
    ck_assert_int_eq(cli_parse_duration("5 minutes", &ns), -1);
    ck_assert_uint_eq(ns, 7); /* untouched on failure */
}
END_TEST

START_TEST(test_band_is_a_fraction_or_percent_below_one)
{
    double b;
    ck_assert_int_eq(cli_parse_band("2%", &b), 0);
    ck_assert(b == 0.02);
    ck_assert_int_eq(cli_parse_band("0.05", &b), 0);
    ck_assert(b == 0.05);
    ck_assert_int_eq(cli_parse_band("0", &b), -1);
    ck_assert_int_eq(cli_parse_band("100%", &b), -1);
    ck_assert_int_eq(cli_parse_band("-2%", &b), -1);
    ck_assert_int_eq(cli_parse_band("2 %", &b), -1);
    ck_assert_int_eq(cli_parse_band("nan", &b), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli_util");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_bytes_accept_binary_and_decimal_units);
    tcase_add_test(tc, test_bytes_refuse_junk_negative_and_overflow);
    tcase_add_test(tc, test_budget_ratio_forms);
    tcase_add_test(tc, test_budget_absolute_forms);
    tcase_add_test(tc, test_budget_refuses_zero_negative_and_unknown_text);
    tcase_add_test(tc, test_format_bytes_picks_a_readable_unit);
    tcase_add_test(tc, test_duration_needs_a_unit_and_rounds_to_ns);
    tcase_add_test(tc, test_band_is_a_fraction_or_percent_below_one);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
