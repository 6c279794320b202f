/* dtrlog_writer: gmt events -> DTR log lines in the logs' exact byte form, names restored,
 * atomic output; and reader -> writer reproduces every real DTR log byte for byte. */
#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "dtrlog.h"
#include "test_dtrlog_util.h"

static gmt_event event(gmt_kind kind)
{
    gmt_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    return ev;
}

/* Writes the events to a fresh file and returns its content. */
static char *write_events(const gmt_event *evs, size_t n)
{
    char *path = tu_tmp_path("w.log");
    dtrlog_writer *w;
    gms_error err;
    ck_assert_int_eq(dtrlog_writer_open(path, &w, &err), 0);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(dtrlog_writer_write(w, &evs[i], &err) == 0, "event %zu: %s", i, err.msg);
    ck_assert_uint_eq(dtrlog_writer_events_written(w), n);
    ck_assert_int_eq(dtrlog_writer_close(w, &err), 0);
    char *text = tu_slurp(path, NULL);
    ck_assert_ptr_nonnull(text);
    remove(path);
    free(path);
    return text;
}

/* Writes the events and returns the error message of the one that fails (the output file must
 * not exist afterwards). */
static char *write_error(const gmt_event *evs, size_t n)
{
    char *path = tu_tmp_path("bad.log");
    dtrlog_writer *w;
    gms_error err;
    ck_assert_int_eq(dtrlog_writer_open(path, &w, &err), 0);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = dtrlog_writer_write(w, &evs[i], &err);
    ck_assert_int_eq(rc, GMS_EINVAL);
    dtrlog_writer_abort(w);
    ck_assert_int_ne(access(path, F_OK), 0);
    free(path);
    return strdup(err.msg);
}

START_TEST(test_writer_writes_each_kind_like_the_dtr_logs)
{
    uint64_t in[] = {5467, 5266};
    gmt_output out[] = {{5471, 1024, -1}, {5472, 1024, 1}};
    uint32_t mut[] = {0};
    gmt_event evs[8];
    evs[0] = event(GMT_ANNOTATE);
    evs[0].text = "START";
    evs[1] = event(GMT_CONSTANT);
    evs[1].id = 7690;
    evs[1].size = 1728;
    evs[2] = event(GMT_CALL);
    evs[2].op = "cudnn_convolution";
    evs[2].dur_ns = 920906;
    evs[2].n_inputs = 2;
    evs[2].inputs = in;
    evs[2].n_outputs = 2;
    evs[2].outputs = out;
    evs[3] = event(GMT_MUTATE);
    evs[3].op = "add_";
    evs[3].dur_ns = 274581;
    evs[3].n_inputs = 2;
    evs[3].inputs = in;
    evs[3].n_mutated = 1;
    evs[3].mutated = mut;
    evs[4] = event(GMT_COPY);
    evs[4].id = 7691;
    evs[4].src = 7690;
    evs[5] = event(GMT_COPY_FROM);
    evs[5].id = 8;
    evs[5].src = 9;
    evs[6] = event(GMT_RELEASE);
    evs[6].id = 7690;
    evs[7] = event(GMT_ANNOTATE);
    evs[7].text = "iteration";
    evs[7].has_value = 1;
    evs[7].value = 4096;
    char *text = write_events(evs, 8);
    ck_assert_str_eq(
        text,
        "{\"ANNOTATION\":\"START\",\"INSTRUCTION\":\"ANNOTATE\"}\n"
        "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x7690\"}\n"
        "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1728\",\"NAME\":\"x7690\"}\n"
        "{\"ARGS\":[\"x5467\",\"x5266\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"cudnn_convolution\","
        "\"RESULT\":[\"x5471\",\"x5472\"],\"TIME\":\"920906\"}\n"
        "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1024\",\"NAME\":\"x5471\"}\n"
        "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x5471\"}\n"
        "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"1024\",\"NAME\":\"x5472\"}\n"
        "{\"ALIAS\":\"1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x5472\"}\n"
        "{\"ARGS\":[\"x5467\",\"x5266\"],\"INSTRUCTION\":\"MUTATE\",\"MUTATE\":[0],"
        "\"NAME\":\"add_\",\"TIME\":\"274581\"}\n"
        "{\"DST\":\"x7691\",\"INSTRUCTION\":\"COPY\",\"SRC\":\"x7690\"}\n"
        "{\"DST\":\"x8\",\"INSTRUCTION\":\"COPY_FROM\",\"SRC\":\"x9\"}\n"
        "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x7690\"}\n"
        "{\"ANNOTATION\":\"iteration\",\"INSTRUCTION\":\"ANNOTATE\",\"VALUE\":\"4096\"}\n");
    free(text);
}
END_TEST

START_TEST(test_writer_restores_names_from_name_events)
{
    gmt_event evs[4];
    evs[0] = event(GMT_NAME);
    evs[0].id = 77;
    evs[0].text = "weight \"w\"";
    evs[1] = event(GMT_NAME); /* its own default name: accepted, changes nothing */
    evs[1].id = 5;
    evs[1].text = "x5";
    evs[2] = event(GMT_COPY);
    evs[2].id = 5;
    evs[2].src = 77;
    evs[3] = event(GMT_RELEASE);
    evs[3].id = 77;
    char *text = write_events(evs, 4);
    ck_assert_str_eq(text, "{\"DST\":\"x5\",\"INSTRUCTION\":\"COPY\",\"SRC\":\"weight \\\"w\\\"\"}\n"
                           "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"weight \\\"w\\\"\"}\n");
    free(text);
}
END_TEST

START_TEST(test_writer_rejects_names_that_would_read_back_as_another_tensor)
{
    gmt_event evs[2];
    evs[0] = event(GMT_NAME);
    evs[0].id = 5;
    evs[0].text = "x7";
    char *msg = write_error(evs, 1);
    ck_assert_ptr_nonnull(strstr(msg, "event 1: NAME: tensor 5 cannot be called \"x7\""));
    free(msg);

    evs[0].text = "w";
    evs[1] = event(GMT_NAME);
    evs[1].id = 6;
    evs[1].text = "w";
    msg = write_error(evs, 2);
    ck_assert_ptr_nonnull(strstr(msg, "event 2: NAME: \"w\" is already the name of tensor 5"));
    free(msg);

    evs[1].id = 5;
    evs[1].text = "v";
    msg = write_error(evs, 2);
    ck_assert_ptr_nonnull(strstr(msg, "tensor 5 already has a name"));
    free(msg);

    evs[0].text = "";
    msg = write_error(evs, 1);
    ck_assert_ptr_nonnull(strstr(msg, "empty name"));
    free(msg);

    evs[0].text = "\xff\xfe";
    msg = write_error(evs, 1);
    ck_assert_ptr_nonnull(strstr(msg, "not valid UTF-8"));
    free(msg);
}
END_TEST

START_TEST(test_writer_rejects_indices_out_of_range)
{
    uint64_t in[] = {1};
    gmt_output out[] = {{2, 8, 1}};
    uint32_t mut[] = {3};
    gmt_event ev = event(GMT_CALL);
    ev.op = "view";
    ev.n_inputs = 1;
    ev.inputs = in;
    ev.n_outputs = 1;
    ev.outputs = out;
    char *msg = write_error(&ev, 1);
    ck_assert_ptr_nonnull(strstr(msg, "output 0 is a view of input 1 of 1"));
    free(msg);
    ev = event(GMT_MUTATE);
    ev.op = "add_";
    ev.n_inputs = 1;
    ev.inputs = in;
    ev.n_mutated = 1;
    ev.mutated = mut;
    msg = write_error(&ev, 1);
    ck_assert_ptr_nonnull(strstr(msg, "mutated index 3 of 1 inputs"));
    free(msg);
    ev = event(GMT_CALL);
    msg = write_error(&ev, 1);
    ck_assert_ptr_nonnull(strstr(msg, "without an op name"));
    free(msg);
    ev = event((gmt_kind)42);
    msg = write_error(&ev, 1);
    ck_assert_ptr_nonnull(strstr(msg, "unknown event kind 42"));
    free(msg);
}
END_TEST

/* What jansson writes for {"ANNOTATION":text,"INSTRUCTION":"ANNOTATE"} (compact, sorted). */
static char *jansson_annotate_line(const char *text)
{
    json_t *o = json_pack("{s:s, s:s}", "INSTRUCTION", "ANNOTATE", "ANNOTATION", text);
    ck_assert_ptr_nonnull(o);
    char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    size_t n = strlen(s);
    char *line = malloc(n + 2);
    memcpy(line, s, n);
    line[n] = '\n';
    line[n + 1] = '\0';
    free(s);
    return line;
}

START_TEST(test_writer_escapes_strings_exactly_like_jansson)
{
    const char *texts[] = {"plain", "quo\"te", "back\\slash", "new\nline\ttab", "ctl\x01\x1f",
                           "caf\xc3\xa9", "slash/", "del\x7f", "emoji\xf0\x9f\x98\x80", ""};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        gmt_event ev = event(GMT_ANNOTATE);
        ev.text = texts[i];
        char *got = write_events(&ev, 1), *want = jansson_annotate_line(texts[i]);
        ck_assert_str_eq(got, want);
        free(got);
        free(want);
    }
}
END_TEST

START_TEST(test_writer_refuses_text_that_is_not_utf8)
{
    uint64_t in[] = {1};
    gmt_event ev = event(GMT_MUTATE);
    ev.op = "bad\xff";
    ev.n_inputs = 1;
    ev.inputs = in;
    char *msg = write_error(&ev, 1);
    ck_assert_ptr_nonnull(strstr(msg, "not valid UTF-8"));
    free(msg);
}
END_TEST

START_TEST(test_writer_ignores_a_name_that_comes_after_the_first_use)
{
    char *path = tu_tmp_path("late.log");
    dtrlog_writer *w;
    gms_error err;
    ck_assert_int_eq(dtrlog_writer_open(path, &w, &err), 0);
    gmt_event c = event(GMT_CONSTANT);
    c.id = 4;
    c.size = 8;
    gmt_event n = event(GMT_NAME);
    n.id = 4;
    n.text = "fc1.weight";
    gmt_event n2 = event(GMT_NAME);
    n2.id = 5;
    n2.text = "fc1.bias";
    gmt_event r = event(GMT_RELEASE);
    r.id = 4;
    gmt_event r2 = event(GMT_RELEASE);
    r2.id = 5;
    const gmt_event *evs[] = {&c, &n, &n2, &r, &r2};
    for (size_t i = 0; i < 5; i++)
        ck_assert_msg(dtrlog_writer_write(w, evs[i], &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(dtrlog_writer_late_names(w), 1);
    ck_assert_int_eq(dtrlog_writer_close(w, &err), 0);
    char *text = tu_slurp(path, NULL);
    ck_assert_str_eq(text, "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x4\"}\n"
                           "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"8\",\"NAME\":\"x4\"}\n"
                           "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x4\"}\n"
                           "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"fc1.bias\"}\n");
    free(text);
    remove(path);
    free(path);
}
END_TEST

/* Names of the files in dir (the writer's temporary files included). */
static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

START_TEST(test_writer_output_appears_only_on_close_and_abort_leaves_nothing)
{
    char *dir = tu_tmp_path("atomic");
    ck_assert_int_eq(mkdir(dir, 0777), 0);
    size_t n = strlen(dir) + 16;
    char *path = malloc(n);
    snprintf(path, n, "%s/out.log", dir);
    gmt_event ev = event(GMT_RELEASE);
    ev.id = 3;
    dtrlog_writer *w;
    gms_error err;

    ck_assert_int_eq(dtrlog_writer_open(path, &w, &err), 0);
    ck_assert_int_eq(dtrlog_writer_write(w, &ev, &err), 0);
    ck_assert_int_ne(access(path, F_OK), 0);
    dtrlog_writer_abort(w);
    ck_assert_int_eq(count_files(dir), 0);

    ck_assert_int_eq(dtrlog_writer_open(path, &w, &err), 0);
    ck_assert_int_eq(dtrlog_writer_write(w, &ev, &err), 0);
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_int_eq(dtrlog_writer_close(w, &err), 0);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_eq(count_files(dir), 1);
    remove(path);
    rmdir(dir);
    free(path);
    free(dir);
}
END_TEST

START_TEST(test_writer_open_in_missing_folder_is_an_io_error)
{
    dtrlog_writer *w = (dtrlog_writer *)1;
    gms_error err;
    ck_assert_int_eq(dtrlog_writer_open("/nonexistent/dir/out.log", &w, &err), GMS_EIO);
    ck_assert_ptr_null(w);
    ck_assert_ptr_nonnull(strstr(err.msg, "cannot create"));
}
END_TEST

START_TEST(test_writer_open_refuses_an_empty_path_and_a_directory)
{
    dtrlog_writer *w = (dtrlog_writer *)1;
    gms_error err;
    ck_assert_int_eq(dtrlog_writer_open("", &w, &err), GMS_EINVAL);
    ck_assert_ptr_null(w);
    ck_assert_ptr_nonnull(strstr(err.msg, "empty output path"));
    ck_assert_int_eq(dtrlog_writer_open("/", &w, &err), GMS_EIO);
    ck_assert_ptr_null(w);
    ck_assert_ptr_nonnull(strstr(err.msg, "/: is a directory; give a file name"));
}
END_TEST

/* Reads in_path with the reader and writes every event with the writer to out_path. */
static void copy_log(const char *in_path, const char *out_path)
{
    dtrlog_reader *r;
    dtrlog_writer *w;
    gms_error err;
    ck_assert_msg(dtrlog_reader_open(in_path, &r, &err) == 0, "%s", err.msg);
    ck_assert_msg(dtrlog_writer_open(out_path, &w, &err) == 0, "%s", err.msg);
    gmt_event ev;
    int rc;
    while ((rc = dtrlog_reader_next(r, &ev, &err)) == 1)
        ck_assert_msg(dtrlog_writer_write(w, &ev, &err) == 0, "%s", err.msg);
    ck_assert_msg(rc == 0, "%s", err.msg);
    ck_assert_int_eq(dtrlog_writer_close(w, &err), 0);
    dtrlog_reader_close(r);
}

START_TEST(test_reader_then_writer_reproduces_hand_written_log_byte_for_byte)
{
    const char *log =
        "{\"ANNOTATION\":\"START\",\"INSTRUCTION\":\"ANNOTATE\"}\n"
        "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"weight\"}\n"
        "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"16\",\"NAME\":\"weight\"}\n"
        "{\"ARGS\":[\"weight\",\"x007\"],\"INSTRUCTION\":\"CALL\",\"NAME\":\"mm\","
        "\"RESULT\":[\"out\",\"x12\"],\"TIME\":\"5\"}\n"
        "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"8\",\"NAME\":\"out\"}\n"
        "{\"ALIAS\":\"-1\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"out\"}\n"
        "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"16\",\"NAME\":\"x12\"}\n"
        "{\"ALIAS\":\"0\",\"INSTRUCTION\":\"ALIAS\",\"NAME\":\"x12\"}\n"
        "{\"ARGS\":[\"out\",\"x12\"],\"INSTRUCTION\":\"MUTATE\",\"MUTATE\":[1,0],"
        "\"NAME\":\"relu_\",\"TIME\":\"3\"}\n"
        "{\"DST\":\"out\",\"INSTRUCTION\":\"COPY_FROM\",\"SRC\":\"x12\"}\n"
        "{\"DST\":\"y\",\"INSTRUCTION\":\"COPY\",\"SRC\":\"out\"}\n"
        "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"weight\"}\n";
    char *in = tu_tmp_path("hand.log"), *out = tu_tmp_path("hand-out.log");
    tu_write_file(in, log);
    copy_log(in, out);
    char *text = tu_slurp(out, NULL);
    ck_assert_str_eq(text, log);
    free(text);
    remove(in);
    remove(out);
    free(in);
    free(out);
}
END_TEST

START_TEST(test_reader_then_writer_reproduces_every_dtr_paper_log)
{
    size_t logs;
    char **log = tu_dtr_logs(&logs);
    char *out = tu_tmp_path("copy.log");
    for (size_t i = 0; i < logs; i++) {
        copy_log(log[i], out);
        size_t a_len, b_len;
        char *a = tu_slurp(log[i], &a_len), *b = tu_slurp(out, &b_len);
        ck_assert_msg(a_len == b_len && memcmp(a, b, a_len) == 0, "%s differs after a round trip",
                      log[i]);
        free(a);
        free(b);
    }
    ck_assert_msg(logs >= 5, "expected the 5 DTR paper logs, found %zu", logs);
    remove(out);
    free(out);
    tu_free_list(log, logs);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dtrlog_writer");
    TCase *tc = tcase_create("writer");
    tcase_add_test(tc, test_writer_writes_each_kind_like_the_dtr_logs);
    tcase_add_test(tc, test_writer_restores_names_from_name_events);
    tcase_add_test(tc, test_writer_rejects_names_that_would_read_back_as_another_tensor);
    tcase_add_test(tc, test_writer_rejects_indices_out_of_range);
    tcase_add_test(tc, test_writer_ignores_a_name_that_comes_after_the_first_use);
    tcase_add_test(tc, test_writer_escapes_strings_exactly_like_jansson);
    tcase_add_test(tc, test_writer_refuses_text_that_is_not_utf8);
    tcase_add_test(tc, test_writer_output_appears_only_on_close_and_abort_leaves_nothing);
    tcase_add_test(tc, test_writer_open_in_missing_folder_is_an_io_error);
    tcase_add_test(tc, test_writer_open_refuses_an_empty_path_and_a_directory);
    tcase_add_test(tc, test_reader_then_writer_reproduces_hand_written_log_byte_for_byte);
    tcase_add_test(tc, test_reader_then_writer_reproduces_every_dtr_paper_log);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
