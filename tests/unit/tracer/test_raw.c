/* Unit tests of the raw record file codec (tracer/lift_raw*.c): round trip, and truncated or
 * corrupt files never crash the reader and keep every complete record before the damage. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "lift.h"
#include "lift_raw.h"

/* A small raw file: header + 4 records of different shapes. Returns its length. */
static size_t sample(uint8_t *buf, size_t cap)
{
    static const uint64_t ptrs[] = {0x1000, 0x2040};
    trc_rec recs[] = {
        {.type = TRC_REC_INFO, .name = "device", .text = "Test GPU"},
        {.type = TRC_REC_ALLOC, .ts = 10, .addr = 0x1000, .bytes = 4096, .flags = TRC_MEM_DEVICE},
        {.type = TRC_REC_LAUNCH, .ts = 20, .corr = 3, .corr2 = 2, .thread = 77, .n_ptrs = 2,
         .ptrs = ptrs},
        {.type = TRC_REC_KERNEL, .ts = 30, .end = 45, .corr = 2, .name = "void gemm<float>(...)"},
    };
    size_t len = TRC_RAW_HEADER_SIZE;
    ck_assert_uint_ge(cap, len);
    trc_raw_header(buf, 4242);
    for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++) {
        size_t n = trc_raw_encode(&recs[i], buf + len, cap - len);
        ck_assert_uint_gt(n, 0);
        ck_assert_uint_eq(n, trc_raw_record_size(&recs[i]));
        len += n;
    }
    return len;
}

START_TEST(test_raw_records_round_trip)
{
    uint8_t buf[4096];
    size_t len = sample(buf, sizeof buf);
    trc_raw *r = NULL;
    gms_error err = {0};
    ck_assert_int_eq(trc_raw_parse(buf, len, "mem", &r, &err), 0);
    ck_assert_uint_eq(trc_raw_count(r), 4);
    ck_assert_uint_eq(trc_raw_pid(r), 4242);
    ck_assert_ptr_null(trc_raw_warning(r));
    const trc_rec *info = trc_raw_at(r, 0), *l = trc_raw_at(r, 2), *k = trc_raw_at(r, 3);
    ck_assert_str_eq(info->name, "device");
    ck_assert_str_eq(info->text, "Test GPU");
    ck_assert_uint_eq(trc_raw_at(r, 1)->bytes, 4096);
    ck_assert_uint_eq(l->n_ptrs, 2);
    ck_assert_uint_eq(l->ptrs[1], 0x2040);
    ck_assert_uint_eq(l->thread, 77);
    ck_assert_uint_eq(l->corr2, 2);
    ck_assert_ptr_null(l->name);
    ck_assert_str_eq(k->name, "void gemm<float>(...)");
    ck_assert_uint_eq(k->end, 45);
    ck_assert_ptr_null(trc_raw_at(r, 4));
    trc_raw_close(r);
}
END_TEST

START_TEST(test_truncated_raw_file_keeps_complete_records)
{
    uint8_t buf[4096];
    size_t len = sample(buf, sizeof buf);
    size_t last = 0;
    for (size_t cut = TRC_RAW_HEADER_SIZE; cut < len; cut++) {
        trc_raw *r = NULL;
        gms_error err = {0};
        ck_assert_int_eq(trc_raw_parse(buf, cut, "cut", &r, &err), 0);
        size_t n = trc_raw_count(r);
        ck_assert_uint_ge(n, last); /* a longer prefix never loses records */
        ck_assert_uint_lt(n, 4);
        if (cut > TRC_RAW_HEADER_SIZE && n == last && cut != TRC_RAW_HEADER_SIZE)
            ck_assert_ptr_nonnull(trc_raw_warning(r));
        last = n;
        trc_raw_close(r);
    }
    ck_assert_uint_eq(last, 3);
}
END_TEST

START_TEST(test_corrupt_raw_bytes_never_crash_the_reader)
{
    uint8_t buf[4096], bad[4096];
    size_t len = sample(buf, sizeof buf);
    srand(12345);
    for (int round = 0; round < 3000; round++) {
        memcpy(bad, buf, len);
        int flips = 1 + rand() % 4;
        for (int i = 0; i < flips; i++) {
            size_t at = TRC_RAW_HEADER_SIZE + (size_t)rand() % (len - TRC_RAW_HEADER_SIZE);
            bad[at] = (uint8_t)rand();
        }
        trc_raw *r = NULL;
        gms_error err = {0};
        ck_assert_int_eq(trc_raw_parse(bad, len, "bad", &r, &err), 0);
        ck_assert_uint_le(trc_raw_count(r), 4);
        for (size_t i = 0; i < trc_raw_count(r); i++) {
            const trc_rec *x = trc_raw_at(r, i);
            if (x->n_ptrs)
                ck_assert_ptr_nonnull(x->ptrs);
        }
        trc_raw_close(r);
    }
}
END_TEST

START_TEST(test_not_a_raw_file_is_a_clear_error)
{
    gms_error err = {0};
    trc_raw *r = NULL;
    const uint8_t junk[] = "{\"this is\": \"json, not a raw trace\"}";
    ck_assert_int_eq(trc_raw_parse(junk, sizeof junk, "x.json", &r, &err), GMS_EFORMAT);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(err.msg, "x.json"));
    ck_assert_int_eq(trc_raw_parse(junk, 3, "short", &r, &err), GMS_EFORMAT);
    uint8_t buf[64];
    trc_raw_header(buf, 1);
    buf[8] = 9; /* version 9 */
    ck_assert_int_eq(trc_raw_parse(buf, TRC_RAW_HEADER_SIZE, "new", &r, &err), GMS_EVERSION);
    ck_assert_int_eq(trc_raw_open("/nonexistent/gms-1.raw", &r, &err), GMS_EIO);
}
END_TEST

START_TEST(test_encoder_refuses_records_over_the_limits)
{
    static uint64_t many[TRC_RAW_MAX_PTRS + 1];
    trc_rec rec = {.type = TRC_REC_LAUNCH, .n_ptrs = TRC_RAW_MAX_PTRS + 1, .ptrs = many};
    uint8_t buf[128];
    ck_assert_uint_eq(trc_raw_record_size(&rec), 0);
    rec.n_ptrs = 1;
    ck_assert_uint_eq(trc_raw_encode(&rec, buf, 16), 0); /* does not fit */
}
END_TEST

START_TEST(test_lifting_a_file_without_cuda_activity_writes_nothing)
{
    const char *tmp = getenv("GMS_TMP") ? getenv("GMS_TMP") : "/tmp";
    char raw[512], gmt[512], tmpfile[600];
    snprintf(raw, sizeof raw, "%s/gms-test-%d.raw", tmp, (int)getpid());
    snprintf(gmt, sizeof gmt, "%s/gms-test-%d.gmt", tmp, (int)getpid());
    snprintf(tmpfile, sizeof tmpfile, "%s.tmp", gmt);
    uint8_t buf[512];
    trc_raw_header(buf, 1);
    trc_rec info = {.type = TRC_REC_INFO, .name = "status", .text = "cannot subscribe"};
    size_t len = TRC_RAW_HEADER_SIZE + trc_raw_encode(&info, buf + TRC_RAW_HEADER_SIZE, 400);
    FILE *f = fopen(raw, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    fclose(f);
    gms_error err = {0};
    trc_lift_stats st;
    ck_assert_int_eq(trc_lift_to_gmt(raw, gmt, &st, NULL, 0, &err), GMS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "no CUDA activity"));
    ck_assert_ptr_nonnull(strstr(err.msg, "cannot subscribe"));
    ck_assert_ptr_null(fopen(gmt, "rb"));
    ck_assert_ptr_null(fopen(tmpfile, "rb"));
    remove(raw);
}
END_TEST

START_TEST(test_lifting_a_raw_file_writes_a_readable_gmt)
{
    const char *tmp = getenv("GMS_TMP") ? getenv("GMS_TMP") : "/tmp";
    char raw[512], gmt[512];
    snprintf(raw, sizeof raw, "%s/gms-test2-%d.raw", tmp, (int)getpid());
    snprintf(gmt, sizeof gmt, "%s/gms-test2-%d.gmt", tmp, (int)getpid());
    uint8_t buf[4096];
    size_t len = sample(buf, sizeof buf);
    FILE *f = fopen(raw, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    fclose(f);
    gms_error err = {0};
    trc_lift_stats st;
    char warning[512];
    ck_assert_msg(trc_lift_to_gmt(raw, gmt, &st, warning, sizeof warning, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(warning, "");
    ck_assert_uint_eq(st.ops, 1);
    gmt_reader *r = NULL;
    ck_assert_msg(gmt_reader_open(gmt, &r, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(gmt_reader_meta(r, "device"), "Test GPU");
    ck_assert_str_eq(gmt_reader_meta(r, "trace_complete"), "no (job died)");
    gmt_event ev;
    ck_assert_int_eq(gmt_reader_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, GMT_CONSTANT);
    ck_assert_uint_eq(ev.size, 4096);
    ck_assert_int_eq(gmt_reader_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.kind, GMT_CALL);
    ck_assert_str_eq(ev.op, "void gemm<float>(...)");
    ck_assert_uint_eq(ev.dur_ns, 15);
    ck_assert_uint_eq(ev.n_inputs, 1); /* both pointers fall into the one allocation */
    ck_assert_int_eq(gmt_reader_next(r, &ev, &err), 0);
    gmt_reader_close(r);
    remove(raw);
    remove(gmt);
}
END_TEST

static Suite *raw_suite(void)
{
    Suite *s = suite_create("raw");
    TCase *tc = tcase_create("codec");
    tcase_add_test(tc, test_raw_records_round_trip);
    tcase_add_test(tc, test_truncated_raw_file_keeps_complete_records);
    tcase_add_test(tc, test_corrupt_raw_bytes_never_crash_the_reader);
    tcase_add_test(tc, test_not_a_raw_file_is_a_clear_error);
    tcase_add_test(tc, test_encoder_refuses_records_over_the_limits);
    tcase_add_test(tc, test_lifting_a_file_without_cuda_activity_writes_nothing);
    tcase_add_test(tc, test_lifting_a_raw_file_writes_a_readable_gmt);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(raw_suite());
}
