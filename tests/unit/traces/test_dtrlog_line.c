/* dtrlog_line: the fast parser for canonical DTR log lines gives exactly the record jansson
 * gives, and leaves every other line to jansson. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "dtrlog.h"
#include "dtrlog_line.h"
#include "test_dtrlog_util.h"

/* The record as text: key=type:value;... with items listed. */
static void record_text(const dl_record *rec, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < rec->n_fields && n < len; i++) {
        const dl_field *f = &rec->fields[i];
        n += (size_t)snprintf(buf + n, len - n, "%s(%zu)=", f->key, f->key_len);
        if (f->type == DL_STRING) {
            n += (size_t)snprintf(buf + n, len - n, "s:%s(%zu);", f->s, f->len);
        } else if (f->type == DL_ARRAY) {
            n += (size_t)snprintf(buf + n, len - n, "[");
            for (size_t k = 0; k < f->n && n < len; k++) {
                const dl_item *it = &rec->items[f->first + k];
                if (it->kind == DL_ITEM_STRING)
                    n += (size_t)snprintf(buf + n, len - n, "s:%s(%zu),", it->s, it->len);
                else if (it->kind == DL_ITEM_INT)
                    n += (size_t)snprintf(buf + n, len - n, "i:%lld,", (long long)it->i);
                else
                    n += (size_t)snprintf(buf + n, len - n, "other,");
            }
            n += (size_t)snprintf(buf + n, len - n, "];");
        } else {
            n += (size_t)snprintf(buf + n, len - n, "other;");
        }
    }
}

/* Parses line both ways; returns 1 when both succeed (asserting equal records), 0 when both
 * fail (asserting the same message). */
static int both_ways(const char *line)
{
    size_t len = strlen(line);
    char *a = strdup(line), *b = strdup(line);
    dl_record ra, rb;
    dl_record_init(&ra);
    dl_record_init(&rb);
    char wa[512] = "", wb[512] = "", ta[4096], tb[4096];
    int ca = dl_parse(&ra, a, len, 1, wa, sizeof wa);
    int cb = dl_parse(&rb, b, len, 0, wb, sizeof wb);
    ck_assert_msg(ca == cb, "'%s': fast %d, jansson %d", line, ca, cb);
    if (ca == 0) {
        record_text(&ra, ta, sizeof ta);
        record_text(&rb, tb, sizeof tb);
        ck_assert_msg(strcmp(ta, tb) == 0, "'%s':\nfast    %s\njansson %s", line, ta, tb);
    } else {
        ck_assert_str_eq(wa, wb);
    }
    dl_record_free(&ra);
    dl_record_free(&rb);
    free(a);
    free(b);
    return ca == 0;
}

START_TEST(test_fast_parser_matches_jansson_on_valid_lines)
{
    const char *lines[] = {
        "{\"ARGS\":[\"x5467\",\"x5266\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"cudnn_convolution\","
        "\"RESULT\":[\"x5471\"],\"TIME\":\"920906\"}",
        "{\"ARGS\":[\"x1\",\"x2\"],\"INSTRUCTION\":\"MUTATE\",\"MUTATE\":[0,1,-0,123456789012345678],"
        "\"NAME\":\"add_\",\"TIME\":\"1\"}",
        "  { \"A\" : [ ] , \"B\":\"\" ,\"C\":[ \"x\" , 7 ]}\t\r",
        "{}",
        "{\"weird key !#$%&'()*+,-./:;<=>?@[]^_`{|}~\":\"v\"}",
        /* handed to jansson: escapes, non-ASCII, other types, long integers */
        "{\"NAME\":\"a\\\"b\\u00e9\\n\"}",
        "{\"NAME\":\"caf\xc3\xa9\"}",
        "{\"A\":1,\"B\":true,\"C\":null,\"D\":{\"x\":1},\"E\":[1.5,[2],\"s\",9223372036854775807]}",
        "{\"A\":[1234567890123456789]}",
        "{\"A\":[-1],\"B\":[\"\\/\"]}", "{\"A\":[1e5,-2E-3]}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        ck_assert_msg(both_ways(lines[i]), "'%s' should parse", lines[i]);
}
END_TEST

START_TEST(test_fast_parser_leaves_invalid_lines_to_jansson)
{
    const char *lines[] = {
        "{\"A\":\"x\",\"A\":\"y\"}", "{\"A\":\"x\"} x", "{\"A\":\"x\",}", "{\"A\":[1,]}",
        "{\"A\":[01]}", "{\"A\":\"tab\there\"}", "{\"A\" \"x\"}", "[1]",
        "\"s\"", "{\"A\":[\"x\"", "{\"A\":\"x", "{", "", "   ", "{\"A\":[-]}", "{\"A\":[--1]}",
        "{\"A\":\"\\q\"}", "{\"A\":\"\xff\"}", "{\"A\":[99999999999999999999999]}",
        "{\"1\":\"a\",\"2\":\"a\",\"3\":\"a\",\"4\":\"a\",\"5\":\"a\",\"6\":\"a\",\"7\":\"a\","
        "\"8\":\"a\",\"9\":\"a\",\"10\":\"a\",\"11\":\"a\",\"12\":\"a\",\"13\":\"a\",\"14\":\"a\","
        "\"15\":\"a\",\"16\":\"a\",\"17\":\"a\"}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        ck_assert_msg(!both_ways(lines[i]), "'%s' should be rejected", lines[i]);
}
END_TEST

/* All events of a log read with the fast parser on or off, as text. */
static char *events_of(const char *path, int fast)
{
    char *out = NULL;
    size_t out_len = 0;
    FILE *o = open_memstream(&out, &out_len);
    dtrlog_reader *r;
    gms_error err;
    ck_assert_msg(dtrlog_reader_open(path, &r, &err) == 0, "%s", err.msg);
    dtrlog_reader_set_fast(r, fast);
    gmt_event ev;
    int rc;
    char line[65536];
    while ((rc = dtrlog_reader_next(r, &ev, &err)) == 1) {
        tu_event_text(&ev, line, sizeof line);
        fprintf(o, "%s\n", line);
    }
    ck_assert_msg(rc == 0, "%s", err.msg);
    dtrlog_reader_close(r);
    fclose(o);
    return out;
}

START_TEST(test_fast_and_jansson_parsers_read_every_dtr_log_alike)
{
    size_t logs;
    char **log = tu_dtr_logs(&logs);
    for (size_t i = 0; i < logs; i++) {
        char *a = events_of(log[i], 1), *b = events_of(log[i], 0);
        ck_assert_msg(strcmp(a, b) == 0, "%s: parsers differ", log[i]);
        ck_assert_uint_gt(strlen(a), 1000);
        free(a);
        free(b);
    }
    ck_assert_uint_ge(logs, 5);
    tu_free_list(log, logs);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dtrlog_line");
    TCase *tc = tcase_create("line");
    tcase_add_test(tc, test_fast_parser_matches_jansson_on_valid_lines);
    tcase_add_test(tc, test_fast_parser_leaves_invalid_lines_to_jansson);
    tcase_add_test(tc, test_fast_and_jansson_parsers_read_every_dtr_log_alike);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
