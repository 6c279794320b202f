/* Unit tests of the tracer library's output file (tracer/trc_out.c), which needs no CUDA:
 * one file per process that never touches another's, whole records under concurrent writers,
 * and a forked child that leaves its parent's file alone. Each test runs in its own process
 * (Check forks), so the module's global state starts fresh. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_run.h"
#include "lift_raw.h"
#include "trc.h"

static char g_dir[256];

static void fresh_dir(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/gms-trc-out-%d", (int)getpid());
    mkdir(g_dir, 0755);
    setenv("GMS_TRACE_DIR", g_dir, 1);
}

static trc_raw *load(const char *path)
{
    trc_raw *r = NULL;
    gms_error err = {0};
    ck_assert_msg(trc_raw_open(path, &r, &err) == 0, "%s", err.msg);
    return r;
}

START_TEST(test_out_writes_a_parseable_file_named_after_the_pid)
{
    fresh_dir();
    ck_assert_int_eq(trc_out_open(), 0);
    char want[512];
    snprintf(want, sizeof want, "%s/gms-%d.raw", g_dir, (int)getpid());
    ck_assert_str_eq(trc_out_path(), want);
    trc_rec k = {.type = TRC_REC_KERNEL, .ts = 5, .end = 9, .corr = 3, .name = "k"};
    trc_out_write(&k);
    trc_out_info("device", "Test GPU");
    trc_out_close();
    trc_out_write(&k); /* after close: ignored, no crash */
    trc_raw *r = load(want);
    ck_assert_uint_eq(trc_raw_count(r), 2);
    ck_assert_uint_eq(trc_raw_pid(r), (uint32_t)getpid());
    ck_assert_str_eq(trc_raw_at(r, 0)->name, "k");
    ck_assert_str_eq(trc_raw_at(r, 1)->text, "Test GPU");
    ck_assert_ptr_null(trc_raw_warning(r));
    trc_raw_close(r);
    remove(want);
    rmdir(g_dir);
}
END_TEST

START_TEST(test_out_never_reuses_an_existing_file)
{
    fresh_dir();
    char taken[512];
    snprintf(taken, sizeof taken, "%s/gms-%d.raw", g_dir, (int)getpid());
    FILE *f = fopen(taken, "wb");
    ck_assert_ptr_nonnull(f);
    fputs("a sibling's data", f);
    fclose(f);
    ck_assert_int_eq(trc_out_open(), 0);
    ck_assert_str_ne(trc_out_path(), taken);
    trc_out_close();
    f = fopen(taken, "rb");
    char buf[64] = {0};
    ck_assert_uint_gt(fread(buf, 1, sizeof buf - 1, f), 0);
    fclose(f);
    ck_assert_str_eq(buf, "a sibling's data");
    remove(taken);
    remove(trc_out_path());
    rmdir(g_dir);
}
END_TEST

#define THREADS 4
#define PER_THREAD 20000

static void *writer(void *arg)
{
    uint64_t t = (uint64_t)(uintptr_t)arg;
    uint64_t ptrs[3] = {t, t + 1, t + 2};
    for (uint64_t i = 0; i < PER_THREAD; i++) {
        trc_rec r = {.type = TRC_REC_LAUNCH, .ts = i, .thread = t, .n_ptrs = (uint32_t)(i % 4),
                     .ptrs = ptrs};
        trc_out_write(&r);
    }
    return NULL;
}

START_TEST(test_concurrent_writers_produce_whole_records)
{
    fresh_dir();
    ck_assert_int_eq(trc_out_open(), 0);
    pthread_t th[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, writer, (void *)(i + 1)), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    trc_out_close();
    trc_raw *r = load(trc_out_path());
    ck_assert_ptr_null(trc_raw_warning(r));
    ck_assert_uint_eq(trc_raw_count(r), THREADS * PER_THREAD);
    uint64_t next[THREADS + 1] = {0};
    for (size_t i = 0; i < trc_raw_count(r); i++) {
        const trc_rec *x = trc_raw_at(r, i);
        ck_assert_uint_ge(x->thread, 1);
        ck_assert_uint_le(x->thread, THREADS);
        ck_assert_uint_eq(x->ts, next[x->thread]++); /* each thread's records in its order */
        ck_assert_uint_eq(x->n_ptrs, x->ts % 4);
    }
    trc_raw_close(r);
    remove(trc_out_path());
    rmdir(g_dir);
}
END_TEST

START_TEST(test_forked_child_leaves_the_parent_file_alone)
{
    fresh_dir();
    ck_assert_int_eq(trc_out_open(), 0);
    trc_rec r = {.type = TRC_REC_KERNEL, .ts = 1, .name = "parent"};
    trc_out_write(&r); /* buffered, not yet written */
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        trc_out_forget_after_fork(); /* what the tracer's atfork handler does */
        trc_rec c = {.type = TRC_REC_KERNEL, .ts = 2, .name = "child"};
        trc_out_write(&c);
        trc_out_close();
        exit(0); /* a normal exit: stdio flushes, our buffer must not */
    }
    int st;
    waitpid(pid, &st, 0);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    trc_out_close();
    trc_raw *raw = load(trc_out_path());
    ck_assert_uint_eq(trc_raw_count(raw), 1);
    ck_assert_str_eq(trc_raw_at(raw, 0)->name, "parent");
    trc_raw_close(raw);
    remove(trc_out_path());
    rmdir(g_dir);
}
END_TEST

START_TEST(test_status_is_recorded_in_the_file)
{
    fresh_dir();
    ck_assert_int_eq(trc_out_open(), 0);
    trc_status("cannot subscribe: %s", "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
    trc_out_close();
    trc_raw *r = load(trc_out_path());
    ck_assert_uint_eq(trc_raw_count(r), 1);
    ck_assert_str_eq(trc_raw_at(r, 0)->name, "status");
    ck_assert_str_eq(trc_raw_at(r, 0)->text,
                     "cannot subscribe: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
    trc_raw_close(r);
    remove(trc_out_path());
    rmdir(g_dir);
}
END_TEST

START_TEST(test_unwritable_directory_means_no_recording)
{
    setenv("GMS_TRACE_DIR", "/nonexistent/gms", 1);
    ck_assert_int_ne(trc_out_open(), 0);
    trc_rec r = {.type = TRC_REC_KERNEL};
    trc_out_write(&r); /* no file: silently nothing */
    trc_out_close();
}
END_TEST

static Suite *out_suite(void)
{
    Suite *s = suite_create("trc_out");
    TCase *tc = tcase_create("file");
    tcase_add_test(tc, test_out_writes_a_parseable_file_named_after_the_pid);
    tcase_add_test(tc, test_out_never_reuses_an_existing_file);
    tcase_add_test(tc, test_concurrent_writers_produce_whole_records);
    tcase_add_test(tc, test_forked_child_leaves_the_parent_file_alone);
    tcase_add_test(tc, test_status_is_recorded_in_the_file);
    tcase_add_test(tc, test_unwritable_directory_means_no_recording);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(out_suite());
}
