/* gmt_stats: counts by kind, ops, distinct op names, constant bytes, annotations. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "gmt_stats.h"

static gmt_event event(gmt_kind kind)
{
    gmt_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    return ev;
}

START_TEST(test_stats_counts_kinds_ops_constants_and_views)
{
    gmt_stats *s = gmt_stats_new();
    ck_assert_ptr_nonnull(s);
    gms_error err;
    uint64_t in[] = {1};
    gmt_output out[] = {{2, 64, -1}, {3, 64, 0}};
    uint32_t mut[] = {0};
    gmt_event c = event(GMT_CONSTANT);
    c.id = 1;
    c.size = 100;
    gmt_event call = event(GMT_CALL);
    call.op = "split";
    call.n_inputs = 1;
    call.inputs = in;
    call.n_outputs = 2;
    call.outputs = out;
    gmt_event m = event(GMT_MUTATE);
    m.op = "add_";
    m.n_inputs = 1;
    m.inputs = in;
    m.n_mutated = 1;
    m.mutated = mut;
    gmt_event rel = event(GMT_RELEASE);
    gmt_event odd = event((gmt_kind)99);
    const gmt_event *evs[] = {&c, &c, &call, &m, &call, &rel, &odd};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        ck_assert_int_eq(gmt_stats_add(s, evs[i], &err), 0);
    ck_assert_uint_eq(gmt_stats_events(s), 7);
    ck_assert_uint_eq(gmt_stats_kind(s, GMT_CONSTANT), 2);
    ck_assert_uint_eq(gmt_stats_kind(s, GMT_CALL), 2);
    ck_assert_uint_eq(gmt_stats_kind(s, GMT_MUTATE), 1);
    ck_assert_uint_eq(gmt_stats_kind(s, GMT_RELEASE), 1);
    ck_assert_uint_eq(gmt_stats_kind(s, GMT_COPY), 0);
    ck_assert_uint_eq(gmt_stats_kind(s, (gmt_kind)0), 1);
    ck_assert_uint_eq(gmt_stats_ops(s), 3);
    ck_assert_uint_eq(gmt_stats_constant_bytes(s), 200);
    ck_assert_uint_eq(gmt_stats_outputs(s), 4);
    ck_assert_uint_eq(gmt_stats_views(s), 2);
    ck_assert_uint_eq(gmt_stats_op_names(s), 2);
    uint64_t n;
    ck_assert_str_eq(gmt_stats_op_name_at(s, 0, &n), "split");
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(gmt_stats_op_name_at(s, 1, &n), "add_");
    ck_assert_uint_eq(n, 1);
    gmt_stats_free(s);
}
END_TEST

START_TEST(test_stats_counts_annotation_kinds_in_first_seen_order)
{
    gmt_stats *s = gmt_stats_new();
    gms_error err;
    const char *texts[] = {"START", "iteration", "BACKWARD", "iteration"};
    for (size_t i = 0; i < 4; i++) {
        gmt_event a = event(GMT_ANNOTATE);
        a.text = texts[i];
        ck_assert_int_eq(gmt_stats_add(s, &a, &err), 0);
    }
    ck_assert_uint_eq(gmt_stats_annotations(s), 3);
    uint64_t n;
    ck_assert_str_eq(gmt_stats_annotation_at(s, 0, &n), "START");
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(gmt_stats_annotation_at(s, 1, &n), "iteration");
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(gmt_stats_annotation_at(s, 2, &n), "BACKWARD");
    ck_assert_uint_eq(gmt_stats_kind(s, GMT_ANNOTATE), 4);
    ck_assert_uint_eq(gmt_stats_ops(s), 0);
    gmt_stats_free(s);
}
END_TEST

START_TEST(test_stats_keeps_many_distinct_op_names)
{
    gmt_stats *s = gmt_stats_new();
    gms_error err;
    char name[32];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 5000; i++) {
            snprintf(name, sizeof name, "op%d", i);
            gmt_event e = event(GMT_CALL);
            e.op = name;
            ck_assert_int_eq(gmt_stats_add(s, &e, &err), 0);
        }
    ck_assert_uint_eq(gmt_stats_op_names(s), 5000);
    uint64_t n;
    ck_assert_str_eq(gmt_stats_op_name_at(s, 4999, &n), "op4999");
    ck_assert_uint_eq(n, 2);
    gmt_stats_free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gmt_stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, test_stats_counts_kinds_ops_constants_and_views);
    tcase_add_test(tc, test_stats_counts_annotation_kinds_in_first_seen_order);
    tcase_add_test(tc, test_stats_keeps_many_distinct_op_names);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
