/* .gmt writer: atomic output (temporary file + rename), clean errors, state rules. */
#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "gmt.h"
#include "gmt_format.h"
#include "test_gmt_gen.h"

/* Number of entries in the folder holding path (its temporary files included). */
static int entries_beside(const char *path)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

START_TEST(test_writer_abort_leaves_no_file)
{
    char *path = tg_path("aborted.gmt");
    int before = entries_beside(path);
    tg_list l = {0};
    tg_generate(&l, 5000, 1);
    gmt_writer *w;
    gms_error err;
    ck_assert_int_eq(gmt_writer_open(path, &w, &err), 0);
    for (size_t i = 0; i < l.n; i++)
        ck_assert_int_eq(gmt_writer_write(w, &l.ev[i], &err), 0);
    ck_assert_int_eq(entries_beside(path), before + 1); /* the temporary file */
    ck_assert(!exists(path));
    gmt_writer_abort(w);
    ck_assert(!exists(path));
    ck_assert_int_eq(entries_beside(path), before);
    tg_free(&l);
    free(path);
}
END_TEST

START_TEST(test_writer_close_leaves_only_the_final_file)
{
    char *path = tg_path("final.gmt");
    int before = entries_beside(path);
    tg_list l = {0};
    tg_generate(&l, 100, 2);
    gms_error err;
    ck_assert_int_eq(tg_write(path, &l, 0, NULL, &err), 0);
    ck_assert(exists(path));
    ck_assert_int_eq(entries_beside(path), before + 1);
    tg_free(&l);
    free(path);
}
END_TEST

/* The folder appears while the trace is being written (open refuses an existing one). */
START_TEST(test_writer_close_onto_a_directory_fails_and_cleans_up)
{
    char *path = tg_path("isadir.gmt");
    gmt_writer *w;
    gms_error err;
    ck_assert_int_eq(gmt_writer_open(path, &w, &err), 0);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    char inner[600];
    snprintf(inner, sizeof inner, "%s/keep", path);
    ck_assert_int_eq(tg_spit(inner, (const uint8_t *)"x", 1), 0);
    int before = entries_beside(path) - 1; /* the temporary file goes */
    gmt_event ev;
    gmt_event_init(&ev, GMT_RELEASE);
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), 0);
    ck_assert_int_eq(gmt_writer_close(w, &err), GMS_EIO);
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    ck_assert_int_eq(entries_beside(path), before); /* the temporary file is gone */
    ck_assert(exists(inner));
    remove(inner);
    rmdir(path);
    free(path);
}
END_TEST

START_TEST(test_writer_open_refuses_a_directory_and_an_empty_path)
{
    char *path = tg_path("dir.gmt");
    ck_assert_int_eq(mkdir(path, 0700), 0);
    int before = entries_beside(path);
    gmt_writer *w = (gmt_writer *)1;
    gms_error err;
    ck_assert_int_eq(gmt_writer_open(path, &w, &err), GMS_EIO);
    ck_assert_ptr_null(w);
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    ck_assert_ptr_nonnull(strstr(err.msg, "is a directory; give a file name"));
    ck_assert_int_eq(entries_beside(path), before); /* no temporary file */
    ck_assert_int_eq(gmt_writer_open("", &w, &err), GMS_EINVAL);
    ck_assert_ptr_null(w);
    ck_assert_ptr_nonnull(strstr(err.msg, "empty output path"));
    rmdir(path);
    free(path);
}
END_TEST

START_TEST(test_writer_open_in_a_missing_folder_fails)
{
    gmt_writer *w = (gmt_writer *)1;
    gms_error err;
    ck_assert_int_eq(gmt_writer_open("/nonexistent-gms-dir/x.gmt", &w, &err), GMS_EIO);
    ck_assert_ptr_null(w);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent-gms-dir/x.gmt"));
}
END_TEST

START_TEST(test_writer_refuses_metadata_after_the_first_event)
{
    char *path = tg_path("late.gmt");
    gmt_writer *w;
    gms_error err;
    ck_assert_int_eq(gmt_writer_open(path, &w, &err), 0);
    ck_assert_int_eq(gmt_writer_meta(w, "model", "a", &err), 0);
    ck_assert_int_eq(gmt_writer_meta(w, "", "a", &err), GMS_EINVAL);
    gmt_event ev;
    gmt_event_init(&ev, GMT_RELEASE);
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), 0);
    ck_assert_int_eq(gmt_writer_meta(w, "device", "b", &err), GMS_ESTATE);
    ck_assert_ptr_nonnull(strstr(err.msg, "device"));
    gmt_writer_abort(w);
    free(path);
}
END_TEST

START_TEST(test_writer_rejects_bad_events_and_stays_usable)
{
    char *path = tg_path("bad.gmt");
    gmt_writer *w;
    gms_error err;
    ck_assert_int_eq(gmt_writer_open(path, &w, &err), 0);
    tg_list l = {0};
    gmt_event ev;
    gmt_event_init(&ev, GMT_CONSTANT);
    ev.id = 1;
    ev.size = 4;
    tg_push(&l, &ev);
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), 0);
    /* alias_of outside the inputs */
    uint64_t in[1] = {1};
    gmt_output out[1] = {{2, 4, 1}};
    gmt_event_init(&ev, GMT_CALL);
    ev.op = "view";
    ev.n_inputs = 1;
    ev.inputs = in;
    ev.n_outputs = 1;
    ev.outputs = out;
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "event 2"));
    ck_assert_ptr_nonnull(strstr(err.msg, "alias_of"));
    /* too many inputs */
    uint64_t *many = calloc(GMT_MAX_INPUTS + 1, sizeof *many);
    ev.n_inputs = GMT_MAX_INPUTS + 1;
    ev.inputs = many;
    out[0].alias_of = 0;
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), GMS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "inputs"));
    /* the largest event allowed goes through */
    ev.n_inputs = GMT_MAX_INPUTS;
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), 0);
    tg_push(&l, &ev);
    free(many);
    /* an op name over the limit */
    char *longname = malloc(GMT_MAX_STRING + 2);
    memset(longname, 'a', GMT_MAX_STRING + 1);
    longname[GMT_MAX_STRING + 1] = '\0';
    ev.op = longname;
    ev.n_inputs = 0;
    ev.n_outputs = 0;
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), GMS_EINVAL);
    longname[GMT_MAX_STRING] = '\0'; /* exactly at the limit: fine */
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), 0);
    tg_push(&l, &ev);
    free(longname);
    ck_assert_int_eq(gmt_writer_close(w, &err), 0);
    tg_result res;
    tg_read(path, &l, &res);
    ck_assert_msg(res.open_rc == 0 && res.rc == 0, "%s", res.err.msg);
    ck_assert_msg(res.prefix_ok, "%s", res.why);
    ck_assert_uint_eq(res.n, 3);
    tg_free(&l);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gmt_writer");
    TCase *tc = tcase_create("writer");
    tcase_add_test(tc, test_writer_abort_leaves_no_file);
    tcase_add_test(tc, test_writer_close_leaves_only_the_final_file);
    tcase_add_test(tc, test_writer_close_onto_a_directory_fails_and_cleans_up);
    tcase_add_test(tc, test_writer_open_refuses_a_directory_and_an_empty_path);
    tcase_add_test(tc, test_writer_open_in_a_missing_folder_fails);
    tcase_add_test(tc, test_writer_refuses_metadata_after_the_first_event);
    tcase_add_test(tc, test_writer_rejects_bad_events_and_stays_usable);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
