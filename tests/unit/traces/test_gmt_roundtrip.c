/* .gmt round trips: what the writer writes, the reader gives back, field for field. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "gmt.h"
#include "gmt_format.h"
#include "test_gmt_gen.h"

static void assert_roundtrip(size_t n, uint64_t seed, size_t batch)
{
    tg_list l = {0};
    tg_generate(&l, n, seed);
    char *path = tg_path("rt.gmt");
    gms_error err;
    ck_assert_msg(tg_write(path, &l, batch, NULL, &err) == 0, "write: %s", err.msg);
    tg_result res;
    tg_read(path, &l, &res);
    ck_assert_msg(res.open_rc == 0, "open: %s", res.err.msg);
    ck_assert_msg(res.rc == 0, "read: %s", res.err.msg);
    ck_assert_msg(res.prefix_ok, "seed %llu: event %llu: %s", (unsigned long long)seed,
                  (unsigned long long)res.n, res.why);
    ck_assert_uint_eq(res.n, n);
    ck_assert_str_eq(res.warning, "");
    tg_free(&l);
    free(path);
}

START_TEST(test_roundtrip_random_event_mixes_read_back_equal)
{
    for (uint64_t seed = 1; seed <= 20; seed++)
        assert_roundtrip(2000, seed, 0);
}
END_TEST

START_TEST(test_roundtrip_across_many_small_frames)
{
    for (uint64_t seed = 100; seed < 105; seed++)
        assert_roundtrip(3000, seed, 64);
}
END_TEST

START_TEST(test_roundtrip_one_event_per_frame)
{
    assert_roundtrip(300, 7, 1);
}
END_TEST

START_TEST(test_roundtrip_large_trace_spans_default_frames)
{
    assert_roundtrip(60000, 42, 0); /* several 64 KiB frames */
}
END_TEST

START_TEST(test_roundtrip_every_kind_with_edge_values)
{
    tg_list l = {0};
    gmt_event ev;
    uint64_t in[9] = {UINT64_MAX, 0, 1, 5, 5, 1ull << 63, 4, 3, 2};
    gmt_output out[3] = {{UINT64_MAX, 0, -1}, {0, UINT64_MAX, 8}, {17, 1, 0}};
    uint32_t mut[3] = {8, 0, 8};
    gmt_event_init(&ev, GMT_CONSTANT);
    ev.id = 0;
    ev.size = 0;
    tg_push(&l, &ev);
    ev.id = UINT64_MAX;
    ev.size = UINT64_MAX;
    tg_push(&l, &ev);
    gmt_event_init(&ev, GMT_CALL);
    ev.op = "conv";
    ev.dur_ns = UINT64_MAX;
    ev.n_inputs = 9;
    ev.inputs = in;
    ev.n_outputs = 3;
    ev.outputs = out;
    tg_push(&l, &ev);
    ev.n_inputs = 0; /* no inputs, no outputs */
    ev.n_outputs = 0;
    ev.dur_ns = 0;
    ev.op = "";
    tg_push(&l, &ev);
    gmt_event_init(&ev, GMT_MUTATE);
    ev.op = "add_";
    ev.n_inputs = 9;
    ev.inputs = in;
    ev.n_mutated = 3;
    ev.mutated = mut;
    tg_push(&l, &ev);
    gmt_event_init(&ev, GMT_COPY);
    ev.id = 12;
    ev.src = UINT64_MAX;
    tg_push(&l, &ev);
    gmt_event_init(&ev, GMT_COPY_FROM);
    ev.id = 3;
    ev.src = 0;
    tg_push(&l, &ev);
    gmt_event_init(&ev, GMT_RELEASE);
    ev.id = 1ull << 63;
    tg_push(&l, &ev);
    gmt_event_init(&ev, GMT_ANNOTATE);
    ev.text = "iteration";
    ev.has_value = 1;
    ev.value = INT64_MIN;
    tg_push(&l, &ev);
    ev.value = -1;
    tg_push(&l, &ev);
    ev.has_value = 0;
    ev.value = 0;
    ev.text = "START";
    tg_push(&l, &ev);
    gmt_event_init(&ev, GMT_NAME);
    ev.id = 99;
    ev.text = "";
    tg_push(&l, &ev);
    ev.text = "layer1.weight \xc3\xa9";
    tg_push(&l, &ev);

    char *path = tg_path("edges.gmt");
    gms_error err;
    ck_assert_msg(tg_write(path, &l, 0, NULL, &err) == 0, "write: %s", err.msg);
    tg_result res;
    tg_read(path, &l, &res);
    ck_assert_msg(res.open_rc == 0 && res.rc == 0, "%s", res.err.msg);
    ck_assert_msg(res.prefix_ok, "event %llu: %s", (unsigned long long)res.n, res.why);
    ck_assert_uint_eq(res.n, l.n);
    tg_free(&l);
    free(path);
}
END_TEST

START_TEST(test_roundtrip_metadata_in_order_with_defaults)
{
    tg_list l = {0};
    tg_generate(&l, 10, 3);
    const char *meta[] = {"producer", "unit-test", "source", "/x/y.log", "model", "resnet",
                          "device", "Titan V", "device_memory", "12884901888",
                          "empty", "", "model", "resnet32", NULL};
    char *path = tg_path("meta.gmt");
    gms_error err;
    ck_assert_msg(tg_write(path, &l, 0, meta, &err) == 0, "write: %s", err.msg);
    gmt_reader *r;
    ck_assert_msg(gmt_reader_open(path, &r, &err) == 0, "%s", err.msg);
    const char *want[][2] = {{"producer", "unit-test"}, {"source", "/x/y.log"},
                             {"model", "resnet32"}, {"device", "Titan V"},
                             {"device_memory", "12884901888"}, {"empty", ""},
                             {"time_unit", "ns"}};
    ck_assert_uint_eq(gmt_reader_meta_count(r), 7);
    for (size_t i = 0; i < 7; i++) {
        const char *k, *v;
        gmt_reader_meta_at(r, i, &k, &v);
        ck_assert_str_eq(k, want[i][0]);
        ck_assert_str_eq(v, want[i][1]);
    }
    ck_assert_str_eq(gmt_reader_meta(r, "model"), "resnet32");
    ck_assert_ptr_null(gmt_reader_meta(r, "nope"));
    gmt_reader_close(r);
    tg_free(&l);
    free(path);
}
END_TEST

START_TEST(test_empty_trace_reads_zero_events_without_warning)
{
    tg_list l = {0};
    char *path = tg_path("empty.gmt");
    gms_error err;
    ck_assert_msg(tg_write(path, &l, 0, NULL, &err) == 0, "write: %s", err.msg);
    tg_result res;
    tg_read(path, &l, &res);
    ck_assert_msg(res.open_rc == 0 && res.rc == 0, "%s", res.err.msg);
    ck_assert_uint_eq(res.n, 0);
    ck_assert_str_eq(res.warning, "");
    gmt_reader *r;
    ck_assert_int_eq(gmt_reader_open(path, &r, &err), 0);
    ck_assert_str_eq(gmt_reader_meta(r, "time_unit"), "ns");
    ck_assert_ptr_nonnull(gmt_reader_meta(r, "producer"));
    gmt_reader_close(r);
    free(path);
}
END_TEST

START_TEST(test_reader_returns_zero_again_after_the_end)
{
    tg_list l = {0};
    tg_generate(&l, 50, 9);
    char *path = tg_path("again.gmt");
    gms_error err;
    ck_assert_int_eq(tg_write(path, &l, 0, NULL, &err), 0);
    gmt_reader *r;
    ck_assert_int_eq(gmt_reader_open(path, &r, &err), 0);
    gmt_event ev;
    while (gmt_reader_next(r, &ev, &err) > 0)
        ;
    ck_assert_int_eq(gmt_reader_next(r, &ev, &err), 0);
    ck_assert_int_eq(gmt_reader_next(r, &ev, NULL), 0);
    ck_assert_uint_eq(gmt_reader_events_read(r), 50);
    gmt_reader_close(r);
    tg_free(&l);
    free(path);
}
END_TEST

START_TEST(test_op_names_are_written_once_and_stay_valid_until_close)
{
    /* 20000 CALLs with one op name: the name costs its bytes once, so the decompressed stream
     * is far smaller than 20000 copies of it; and the pointer of the first event is still the name
     * after the last one was read. */
    char name[200];
    memset(name, 'q', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    char *path = tg_path("names.gmt");
    gms_error err;
    gmt_writer *w;
    ck_assert_int_eq(gmt_writer_open(path, &w, &err), 0);
    gmt_event ev;
    gmt_event_init(&ev, GMT_CALL);
    ev.op = name;
    for (int i = 0; i < 20000; i++) {
        ev.dur_ns = (uint64_t)i * 7919u % 100003u; /* poorly compressible */
        ck_assert_int_eq(gmt_writer_write(w, &ev, &err), 0);
    }
    ck_assert_int_eq(gmt_writer_close(w, &err), 0);
    size_t len, start[64], raw[64], total = 0;
    uint64_t events[64];
    uint8_t *bytes = tg_slurp(path, &len);
    ck_assert_ptr_nonnull(bytes);
    size_t nf = tg_frames(bytes, len, start, raw, events, 63);
    for (size_t i = 0; i < nf; i++)
        total += raw[i];
    ck_assert_uint_lt(total, 20000 * 8 + 1000); /* 200 bytes each would be 4 MB */
    free(bytes);
    gmt_reader *r;
    ck_assert_int_eq(gmt_reader_open(path, &r, &err), 0);
    ck_assert_int_eq(gmt_reader_next(r, &ev, &err), 1);
    const char *first = ev.op;
    while (gmt_reader_next(r, &ev, &err) > 0)
        ;
    ck_assert_str_eq(first, name);
    gmt_reader_close(r);
    free(path);
}
END_TEST

START_TEST(test_kind_names)
{
    const char *names[] = {"?", "CONSTANT", "CALL", "MUTATE", "COPY", "COPY_FROM", "RELEASE",
                           "ANNOTATE", "NAME", "SCOPE", "?"};
    for (int k = 0; k <= GMT_KIND_COUNT; k++)
        ck_assert_str_eq(gmt_kind_name((gmt_kind)k), names[k]);
}
END_TEST

START_TEST(test_event_validate_names_the_bad_field)
{
    gms_error err;
    gmt_event ev;
    uint64_t in[2] = {1, 2};
    gmt_output out[1] = {{3, 8, 2}};
    uint32_t mut[1] = {2};
    gmt_event_init(&ev, GMT_CALL);
    ck_assert_int_eq(gmt_event_validate(&ev, &err), GMS_EFORMAT); /* op missing */
    ck_assert_ptr_nonnull(strstr(err.msg, "op name"));
    ev.op = "mm";
    ev.n_inputs = 2;
    ev.inputs = in;
    ev.n_outputs = 1;
    ev.outputs = out;
    ck_assert_int_eq(gmt_event_validate(&ev, &err), GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "alias_of 2"));
    out[0].alias_of = 1;
    ck_assert_int_eq(gmt_event_validate(&ev, &err), 0);
    out[0].alias_of = -2;
    ck_assert_int_eq(gmt_event_validate(&ev, &err), GMS_EFORMAT);
    gmt_event_init(&ev, GMT_MUTATE);
    ev.op = "add_";
    ev.n_inputs = 2;
    ev.inputs = in;
    ev.n_mutated = 1;
    ev.mutated = mut;
    ck_assert_int_eq(gmt_event_validate(&ev, &err), GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "mutated[0] = 2"));
    gmt_event_init(&ev, GMT_ANNOTATE);
    ck_assert_int_eq(gmt_event_validate(&ev, &err), GMS_EFORMAT);
    gmt_event_init(&ev, GMT_NAME);
    ck_assert_int_eq(gmt_event_validate(&ev, &err), GMS_EFORMAT);
    gmt_event_init(&ev, (gmt_kind)12);
    ck_assert_int_eq(gmt_event_validate(&ev, &err), GMS_EFORMAT);
    gmt_event_init(&ev, GMT_RELEASE);
    ck_assert_int_eq(gmt_event_validate(&ev, &err), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gmt_roundtrip");
    TCase *tc = tcase_create("roundtrip");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_roundtrip_random_event_mixes_read_back_equal);
    tcase_add_test(tc, test_roundtrip_across_many_small_frames);
    tcase_add_test(tc, test_roundtrip_one_event_per_frame);
    tcase_add_test(tc, test_roundtrip_large_trace_spans_default_frames);
    tcase_add_test(tc, test_roundtrip_every_kind_with_edge_values);
    tcase_add_test(tc, test_roundtrip_metadata_in_order_with_defaults);
    tcase_add_test(tc, test_empty_trace_reads_zero_events_without_warning);
    tcase_add_test(tc, test_reader_returns_zero_again_after_the_end);
    tcase_add_test(tc, test_op_names_are_written_once_and_stay_valid_until_close);
    tcase_add_test(tc, test_kind_names);
    tcase_add_test(tc, test_event_validate_names_the_bad_field);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
