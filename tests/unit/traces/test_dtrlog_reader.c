/* dtrlog_reader: DTR JSON log lines -> gmt events, and every kind of malformed line. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "dtrlog.h"
#include "test_dtrlog_util.h"

#define FRESH "4611686018427387904" /* DTRLOG_FRESH_ID_BASE */
#define FRESH1 "4611686018427387905"

/* Asserts that reading text yields exactly the expected event lines. */
static void expect_events(const char *text, const char *expected)
{
    char *got = tu_read_log(text);
    ck_assert_str_eq(got, expected);
    free(got);
}

/* Asserts that reading text fails with GMS_EFORMAT and a message starting with "t.log:LINE: "
 * and containing phrase. */
static void expect_error(const char *text, int line, const char *phrase)
{
    char *got = tu_read_log(text);
    char head[64];
    snprintf(head, sizeof head, "ERROR 2 t.log:%d: ", line);
    const char *e = strstr(got, "ERROR ");
    ck_assert_msg(e != NULL, "no error for:\n%s\ngot:\n%s", text, got);
    ck_assert_msg(strncmp(e, head, strlen(head)) == 0, "expected '%s...', got '%s'", head, e);
    ck_assert_msg(strstr(e, phrase) != NULL, "expected '%s' in '%s'", phrase, e);
    free(got);
}

START_TEST(test_reader_pairs_constant_with_its_memory_line)
{
    expect_events("{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x7690\"}\n"
                  "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1728\",\"NAME\":\"x7690\"}\n",
                  "CONSTANT 7690 1728\n");
}
END_TEST

START_TEST(test_reader_call_keeps_view_sizes_and_alias_indices)
{
    expect_events(
        "{\"ARGS\":[\"x1\",\"x2\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"split\","
        "\"RESULT\":[\"x3\",\"x4\",\"x5\"],\"TIME\":\"920906\"}\n"
        "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"64\",\"NAME\":\"x3\"}\n"
        "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x3\"}\n"
        "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"32\",\"NAME\":\"x4\"}\n"
        "{\"ALIAS\":\"0\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x4\"}\n"
        "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"0\",\"NAME\":\"x5\"}\n"
        "{\"ALIAS\":\"1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x5\"}\n",
        "CALL split 920906 in=1,2 out=3:64:-1,4:32:0,5:0:1\n");
}
END_TEST

START_TEST(test_reader_call_without_results_reads_no_memory_lines)
{
    expect_events("{\"ARGS\":[],\"INSTRUCTION\":\"CALL\",\"NAME\":\"sync\",\"RESULT\":[],"
                  "\"TIME\":\"0\"}\n{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x1\"}\n",
                  "CALL sync 0 in= out=\nRELEASE 1\n");
}
END_TEST

START_TEST(test_reader_mutate_lists_mutated_argument_indices)
{
    expect_events("{\"ARGS\":[\"x32922\",\"x32407\",\"x9\"],\"INSTRUCTION\":\"MUTATE\","
                  "\"MUTATE\":[0,2],\"NAME\":\"add_\",\"TIME\":\"274581\"}\n",
                  "MUTATE add_ 274581 in=32922,32407,9 mut=0,2\n");
}
END_TEST

START_TEST(test_reader_copy_copy_from_release_and_annotations)
{
    expect_events("{\"ANNOTATION\":\"START\",\"INSTRUCTION\":\"ANNOTATE\"}\n"
                  "{\"DST\":\"x7691\",\"INSTRUCTION\":\"COPY\",\"SRC\":\"x7690\"}\n"
                  "{\"DST\":\"x8\",\"INSTRUCTION\":\"COPY_FROM\",\"SRC\":\"x9\"}\n"
                  "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x7690\"}\n"
                  "{\"ANNOTATION\":\"iteration\",\"INSTRUCTION\":\"ANNOTATE\",\"VALUE\":\"-12\"}\n"
                  "{\"ANNOTATION\":\"BACKWARD\",\"INSTRUCTION\":\"ANNOTATE\"}",
                  "ANNOTATE START\nCOPY 7691 7690\nCOPY_FROM 8 9\nRELEASE 7690\n"
                  "ANNOTATE iteration -12\nANNOTATE BACKWARD\n");
}
END_TEST

START_TEST(test_reader_names_not_x_digits_get_fresh_ids_and_a_name_event_once)
{
    expect_events(
        "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"weight\"}\n"
        "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"16\",\"NAME\":\"weight\"}\n"
        "{\"ARGS\":[\"weight\",\"x007\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"mm\","
        "\"RESULT\":[\"out\"],\"TIME\":\"5\"}\n"
        "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"8\",\"NAME\":\"out\"}\n"
        "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"out\"}\n"
        "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"weight\"}\n"
        "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x0\"}\n",
        "NAME " FRESH " weight\nCONSTANT " FRESH " 16\n"
        "NAME " FRESH1 " x007\nNAME 4611686018427387906 out\n"
        "CALL mm 5 in=" FRESH "," FRESH1 " out=4611686018427387906:8:-1\n"
        "RELEASE " FRESH "\nRELEASE 0\n");
}
END_TEST

START_TEST(test_reader_x_numbers_beyond_the_id_range_are_names)
{
    expect_events("{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x4611686018427387903\"}\n"
                  "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x4611686018427387904\"}\n"
                  "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x99999999999999999999999\"}\n",
                  "RELEASE 4611686018427387903\n"
                  "NAME " FRESH " x4611686018427387904\nRELEASE " FRESH "\n"
                  "NAME " FRESH1 " x99999999999999999999999\nRELEASE " FRESH1 "\n");
}
END_TEST

START_TEST(test_reader_accepts_crlf_and_spaces_inside_lines)
{
    expect_events("{ \"INSTRUCTION\" : \"RELEASE\", \"NAME\" : \"x1\" }\r\n"
                  "{\"NAME\":\"x2\",\"INSTRUCTION\":\"RELEASE\"}\n",
                  "RELEASE 1\nRELEASE 2\n");
}
END_TEST

/* ---- malformed input: each is a FILE:LINE error ---- */

#define REL1 "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x1\"}\n"
#define CALL1 "{\"ARGS\":[\"x1\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"view\"," \
              "\"RESULT\":[\"x2\"],\"TIME\":\"10\"}\n"
#define MEM2 "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"64\",\"NAME\":\"x2\"}\n"
#define ALIAS2(a) "{\"ALIAS\":\"" a "\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x2\"}\n"

START_TEST(test_reader_rejects_lines_that_are_not_json)
{
    expect_error(REL1 "{\"INSTRUCTION\":\"RELEASE\",\n", 2, "not valid JSON");
    expect_error(REL1 "hello\n", 2, "not valid JSON");
    expect_error(REL1 "[1,2]\n", 2, "not a JSON object");
    expect_error(REL1 "\n" REL1, 2, "empty line");
    expect_error("{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x1\"} {}\n", 1, "not valid JSON");
    expect_error("{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x1\",\"NAME\":\"x2\"}\n", 1,
                 "not valid JSON");
}
END_TEST

START_TEST(test_reader_rejects_unknown_or_missing_instruction)
{
    expect_error(REL1 REL1 "{\"INSTRUCTION\":\"FREE\",\"NAME\":\"x1\"}\n", 3,
                 "unknown INSTRUCTION \"FREE\"");
    expect_error("{\"NAME\":\"x1\"}\n", 1, "missing \"INSTRUCTION\"");
    expect_error("{\"INSTRUCTION\":7}\n", 1, "non-string \"INSTRUCTION\"");
}
END_TEST

START_TEST(test_reader_rejects_missing_ill_typed_and_unexpected_fields)
{
    expect_error("{\"INSTRUCTION\":\"RELEASE\"}\n", 1, "RELEASE: missing \"NAME\"");
    expect_error("{\"INSTRUCTION\":\"RELEASE\",\"NAME\":1}\n", 1, "\"NAME\" must be a string");
    expect_error("{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x1\",\"X\":1}\n", 1,
                 "unexpected key \"X\"");
    expect_error("{\"ARGS\":\"x1\",\"INSTRUCTION\":\"CALL\",\"NAME\":\"v\",\"RESULT\":[],"
                 "\"TIME\":\"1\"}\n", 1, "\"ARGS\" must be a list");
    expect_error("{\"ARGS\":[1],\"INSTRUCTION\":\"CALL\",\"NAME\":\"v\",\"RESULT\":[],"
                 "\"TIME\":\"1\"}\n", 1, "\"ARGS\" item 0 must be a string");
    expect_error("{\"ARGS\":[],\"INSTRUCTION\":\"CALL\",\"NAME\":\"v\",\"RESULT\":[],"
                 "\"TIME\":1}\n", 1, "\"TIME\" must be a string");
    expect_error("{\"ARGS\":[],\"INSTRUCTION\":\"CALL\",\"NAME\":\"v\",\"RESULT\":[]}\n", 1,
                 "CALL: missing \"TIME\"");
    expect_error("{\"DST\":\"x1\",\"INSTRUCTION\":\"COPY\"}\n", 1, "COPY: missing \"SRC\"");
    expect_error("{\"DST\":\"\",\"INSTRUCTION\":\"COPY_FROM\",\"SRC\":\"x1\"}\n", 1,
                 "empty tensor name");
    expect_error("{\"ANNOTATION\":5,\"INSTRUCTION\":\"ANNOTATE\"}\n", 1,
                 "\"ANNOTATION\" must be a string");
    expect_error("{\"ANNOTATION\":\"a\",\"INSTRUCTION\":\"ANNOTATE\",\"VALUE\":\"1.5\"}\n", 1,
                 "\"VALUE\" is \"1.5\"");
}
END_TEST

START_TEST(test_reader_rejects_bad_integers)
{
    const char *bad[] = {"12a", "", "-1", "+5", "007", " 5", "1e3", "18446744073709551616"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text,
                 "{\"ARGS\":[],\"INSTRUCTION\":\"CALL\",\"NAME\":\"v\",\"RESULT\":[],"
                 "\"TIME\":\"%s\"}\n", bad[i]);
        /* digits that overflow are an integer, too large (issue 31) */
        expect_error(text, 1, i == 7 ? "is 18446744073709551616, too large (at most "
                                       "18446744073709551615)"
                                     : "not a non-negative decimal integer");
    }
    expect_error("{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x1\"}\n"
                 "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"-4\",\"NAME\":\"x1\"}\n",
                 2, "MEMORY is \"-4\"");
    expect_error(CALL1 MEM2 ALIAS2("zero"), 3, "ALIAS is \"zero\"");
    expect_error(CALL1 MEM2 ALIAS2("-2"), 3, "ALIAS is \"-2\"");
}
END_TEST

START_TEST(test_reader_rejects_memory_and_alias_out_of_place)
{
    expect_error(REL1 MEM2, 2, "stray MEMORY line");
    expect_error(REL1 ALIAS2("0"), 2, "stray ALIAS line");
    expect_error(CALL1 MEM2 ALIAS2("0") ALIAS2("0"), 4, "stray ALIAS line");
    expect_error(CALL1 ALIAS2("0") MEM2, 2, "expected the MEMORY line of CALL result \"x2\" (line 1), got ALIAS");
    expect_error(CALL1 MEM2 MEM2, 3, "expected the ALIAS line");
    expect_error(CALL1 REL1, 2, "expected the MEMORY line");
    expect_error("{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x1\"}\n" CALL1, 2,
                 "expected the MEMORY line of CONSTANT \"x1\" (line 1), got CALL");
    expect_error(CALL1 "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"64\",\"NAME\":\"x3\"}\n", 2,
                 "MEMORY names \"x3\" but CALL result on line 1 expects \"x2\"");
    expect_error(CALL1 MEM2 "{\"ALIAS\":\"0\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x9\"}\n", 3,
                 "ALIAS names \"x9\"");
    expect_error(CALL1 MEM2 "{\"ALIAS\":\"0\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x2\","
                 "\"MEMORY\":\"1\"}\n", 3, "unexpected key \"MEMORY\"");
}
END_TEST

START_TEST(test_reader_rejects_alias_and_mutate_indices_out_of_range)
{
    expect_error(CALL1 MEM2 ALIAS2("1"), 3,
                 "ALIAS 1 is out of range: the CALL on line 1 has 1 argument");
    expect_error("{\"ARGS\":[\"x1\"],\"INSTRUCTION\":\"MUTATE\",\"MUTATE\":[1],\"NAME\":\"add_\","
                 "\"TIME\":\"1\"}\n", 1, "index 1 is out of range");
    expect_error("{\"ARGS\":[\"x1\"],\"INSTRUCTION\":\"MUTATE\",\"MUTATE\":[-1],\"NAME\":\"a\","
                 "\"TIME\":\"1\"}\n", 1, "index -1 is out of range");
    expect_error("{\"ARGS\":[\"x1\"],\"INSTRUCTION\":\"MUTATE\",\"MUTATE\":[\"0\"],"
                 "\"NAME\":\"a\",\"TIME\":\"1\"}\n", 1, "item 0 must be an integer");
    expect_error("{\"ARGS\":[\"x1\"],\"INSTRUCTION\":\"MUTATE\",\"MUTATE\":0,"
                 "\"NAME\":\"a\",\"TIME\":\"1\"}\n", 1, "must be a list of argument indices");
}
END_TEST

START_TEST(test_reader_rejects_pairs_truncated_at_end_of_file)
{
    expect_error(REL1 "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x1\"}\n", 2,
                 "CONSTANT \"x1\": the file ends before its MEMORY line");
    expect_error(CALL1, 1, "CALL result \"x2\": the file ends before its MEMORY line");
    expect_error(CALL1 MEM2, 1, "the file ends before its ALIAS line");
}
END_TEST

START_TEST(test_reader_events_before_an_error_are_delivered)
{
    char *got = tu_read_log(REL1 REL1 "oops\n");
    ck_assert_ptr_nonnull(strstr(got, "RELEASE 1\nRELEASE 1\nERROR 2 t.log:3: "));
    free(got);
}
END_TEST

START_TEST(test_reader_reads_empty_file_as_no_events)
{
    char *path = tu_tmp_path("empty.log");
    tu_write_file(path, "");
    dtrlog_reader *r;
    gms_error err;
    ck_assert_int_eq(dtrlog_reader_open(path, &r, &err), 0);
    gmt_event ev;
    ck_assert_int_eq(dtrlog_reader_next(r, &ev, &err), 0);
    ck_assert_uint_eq(dtrlog_reader_events_read(r), 0);
    dtrlog_reader_close(r);
    remove(path);
    free(path);
}
END_TEST

START_TEST(test_reader_open_of_missing_file_is_an_io_error)
{
    dtrlog_reader *r = (dtrlog_reader *)1;
    gms_error err;
    ck_assert_int_eq(dtrlog_reader_open("/nonexistent/x.log", &r, &err), GMS_EIO);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/x.log: cannot open"));
}
END_TEST

START_TEST(test_reader_rejects_embedded_nul_bytes)
{
    char text[] = "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x1\"}\0junk\n";
    FILE *f = fmemopen(text, sizeof text - 1, "r");
    dtrlog_reader *r;
    gms_error err;
    ck_assert_int_eq(dtrlog_reader_open_stream(f, "nul.log", 1, &r, &err), 0);
    gmt_event ev;
    ck_assert_int_lt(dtrlog_reader_next(r, &ev, &err), 0);
    ck_assert_int_eq(err.code, GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "nul.log:1: "));
    dtrlog_reader_close(r);
}
END_TEST

START_TEST(test_name_to_id_accepts_only_canonical_x_digits)
{
    uint64_t id = 0;
    ck_assert_int_eq(dtrlog_name_to_id("x0", 2, &id), 1);
    ck_assert_uint_eq(id, 0);
    ck_assert_int_eq(dtrlog_name_to_id("x5467", 5, &id), 1);
    ck_assert_uint_eq(id, 5467);
    ck_assert_int_eq(dtrlog_name_to_id("x", 1, &id), 0);
    ck_assert_int_eq(dtrlog_name_to_id("x01", 3, &id), 0);
    ck_assert_int_eq(dtrlog_name_to_id("y1", 2, &id), 0);
    ck_assert_int_eq(dtrlog_name_to_id("x1a", 3, &id), 0);
    ck_assert_int_eq(dtrlog_name_to_id("x-1", 3, &id), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dtrlog_reader");
    TCase *tc = tcase_create("reader");
    tcase_add_test(tc, test_reader_pairs_constant_with_its_memory_line);
    tcase_add_test(tc, test_reader_call_keeps_view_sizes_and_alias_indices);
    tcase_add_test(tc, test_reader_call_without_results_reads_no_memory_lines);
    tcase_add_test(tc, test_reader_mutate_lists_mutated_argument_indices);
    tcase_add_test(tc, test_reader_copy_copy_from_release_and_annotations);
    tcase_add_test(tc, test_reader_names_not_x_digits_get_fresh_ids_and_a_name_event_once);
    tcase_add_test(tc, test_reader_x_numbers_beyond_the_id_range_are_names);
    tcase_add_test(tc, test_reader_accepts_crlf_and_spaces_inside_lines);
    tcase_add_test(tc, test_reader_rejects_lines_that_are_not_json);
    tcase_add_test(tc, test_reader_rejects_unknown_or_missing_instruction);
    tcase_add_test(tc, test_reader_rejects_missing_ill_typed_and_unexpected_fields);
    tcase_add_test(tc, test_reader_rejects_bad_integers);
    tcase_add_test(tc, test_reader_rejects_memory_and_alias_out_of_place);
    tcase_add_test(tc, test_reader_rejects_alias_and_mutate_indices_out_of_range);
    tcase_add_test(tc, test_reader_rejects_pairs_truncated_at_end_of_file);
    tcase_add_test(tc, test_reader_events_before_an_error_are_delivered);
    tcase_add_test(tc, test_reader_reads_empty_file_as_no_events);
    tcase_add_test(tc, test_reader_open_of_missing_file_is_an_io_error);
    tcase_add_test(tc, test_reader_rejects_embedded_nul_bytes);
    tcase_add_test(tc, test_name_to_id_accepts_only_canonical_x_digits);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
