/* gmt_source over DTR logs: format sniffed from content (not the name), DTR log metadata
 * (source, producer, model guessed from the file name), and .gmt files delegated. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "gmt.h"
#include "test_dtrlog_util.h"

#define LOG_TEXT                                                                            \
    "{\"ANNOTATION\":\"START\",\"INSTRUCTION\":\"ANNOTATE\"}\n"                              \
    "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":\"x1\"}\n"                                       \
    "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":\"64\",\"NAME\":\"x1\"}\n"                       \
    "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":\"x1\"}\n"

/* Opens text saved under name; returns the source (asserting success). */
static gmt_source *open_text(const char *name, const char *text)
{
    char *path = tu_tmp_path(name);
    tu_write_file(path, text);
    gmt_source *s;
    gms_error err;
    ck_assert_msg(gmt_source_open(path, &s, &err) == 0, "%s", err.msg);
    free(path);
    return s;
}

static char *model_of(const char *name)
{
    gmt_source *s = open_text(name, LOG_TEXT);
    const char *m = gmt_source_meta(s, "model");
    char *copy = strdup(m ? m : "(none)");
    gmt_source_close(s);
    return copy;
}

START_TEST(test_source_guesses_the_model_from_dtr_log_names)
{
    const char *cases[][2] = {
        {"unet-6-8000000000.0-2020-10-1-10-57-18-default.log", "unet"},
        {"tv_densenet121-84-10000000000.0-2020-10-1-13-41-18-default.log", "densenet121"},
        {"resnet32-56-9000000000.0-2020-10-1-13-3-30-default.log", "resnet32"},
        {"mymodel.log", "mymodel"},
        {"trace", "trace"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *m = model_of(cases[i][0]);
        ck_assert_msg(strcmp(m, cases[i][1]) == 0, "%s: model %s, expected %s", cases[i][0], m,
                      cases[i][1]);
        free(m);
    }
}
END_TEST

START_TEST(test_source_reads_a_dtr_log_whatever_its_name_with_metadata)
{
    gmt_source *s = open_text("unet-6-x.gmt", "  " LOG_TEXT);
    ck_assert_int_eq(gmt_source_format(s), GMT_FORMAT_DTR_LOG);
    ck_assert_str_eq(gmt_source_meta(s, "source"), "unet-6-x.gmt");
    ck_assert_str_eq(gmt_source_meta(s, "producer"), "dtr-log");
    ck_assert_ptr_null(gmt_source_meta(s, "no-such-key"));
    ck_assert_uint_ge(gmt_source_meta_count(s), 3);
    const char *k, *v;
    gmt_source_meta_at(s, 0, &k, &v);
    ck_assert_str_eq(k, "source");
    gmt_event ev;
    gms_error err;
    char line[256], all[1024] = "";
    int rc;
    while ((rc = gmt_source_next(s, &ev, &err)) == 1) {
        tu_event_text(&ev, line, sizeof line);
        strcat(all, line);
        strcat(all, "\n");
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(all, "ANNOTATE START\nCONSTANT 1 64\nRELEASE 1\n");
    ck_assert_ptr_null(gmt_source_warning(s));
    gmt_source_close(s);
}
END_TEST

START_TEST(test_source_delegates_gmt_files_to_the_gmt_reader)
{
    char *path = tu_tmp_path("t.log"); /* a .gmt, whatever its name says */
    gmt_writer *w;
    gms_error err;
    ck_assert_int_eq(gmt_writer_open(path, &w, &err), 0);
    ck_assert_int_eq(gmt_writer_meta(w, "model", "toy", &err), 0);
    gmt_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = GMT_RELEASE;
    ev.id = 42;
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), 0);
    ck_assert_int_eq(gmt_writer_close(w, &err), 0);
    gmt_source *s;
    ck_assert_msg(gmt_source_open(path, &s, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(gmt_source_format(s), GMT_FORMAT_GMT);
    ck_assert_str_eq(gmt_source_meta(s, "model"), "toy");
    ck_assert_int_eq(gmt_source_next(s, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, GMT_RELEASE);
    ck_assert_uint_eq(ev.id, 42);
    ck_assert_int_eq(gmt_source_next(s, &ev, &err), 0);
    gmt_source_close(s);
    remove(path);
    free(path);
}
END_TEST

START_TEST(test_source_rejects_empty_directory_and_unknown_content)
{
    gmt_source *s = (gmt_source *)1;
    gms_error err;
    char *path = tu_tmp_path("empty.log");
    tu_write_file(path, "");
    ck_assert_int_eq(gmt_source_open(path, &s, &err), GMS_EFORMAT);
    ck_assert_ptr_null(s);
    ck_assert_ptr_nonnull(strstr(err.msg, "empty.log: empty file"));
    tu_write_file(path, "\x89PNG\r\n");
    ck_assert_int_eq(gmt_source_open(path, &s, &err), GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "not a .gmt trace, DTR JSON log or Kineto trace"));
    remove(path);
    free(path);
    char *dir = tu_tmp_path("");
    ck_assert_int_eq(gmt_source_open(dir, &s, &err), GMS_EIO);
    ck_assert_ptr_nonnull(strstr(err.msg, "is a directory"));
    free(dir);
    ck_assert_int_eq(gmt_source_open("/nonexistent/t.log", &s, &err), GMS_EIO);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/t.log: cannot open"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dtrlog_source");
    TCase *tc = tcase_create("source");
    tcase_add_test(tc, test_source_guesses_the_model_from_dtr_log_names);
    tcase_add_test(tc, test_source_reads_a_dtr_log_whatever_its_name_with_metadata);
    tcase_add_test(tc, test_source_delegates_gmt_files_to_the_gmt_reader);
    tcase_add_test(tc, test_source_rejects_empty_directory_and_unknown_content);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
