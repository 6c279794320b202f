/* Unit tests of the lifter (tracer/lift.c): hand-made raw record sequences -> gmt events.
 * Events are rendered as short text lines so each test reads like the trace it expects. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "lift.h"

#define MAX_LINES 64

typedef struct text_sink {
    char lines[MAX_LINES][256];
    int n;
    char meta[32][2][128];
    int n_meta;
} text_sink;

static int sink_meta(void *ctx, const char *key, const char *value, gms_error *err)
{
    text_sink *t = ctx;
    if (t->n_meta < 32) {
        snprintf(t->meta[t->n_meta][0], 128, "%s", key);
        snprintf(t->meta[t->n_meta][1], 128, "%s", value);
        t->n_meta++;
    }
    return 0;
}

/* CONSTANT 1 100 | CALL op 5 in=1,2 out=3:64 | RELEASE 3 | ANNOTATE iteration 32 */
static int sink_event(void *ctx, const gmt_event *ev, gms_error *err)
{
    text_sink *t = ctx;
    ck_assert_int_lt(t->n, MAX_LINES);
    char *s = t->lines[t->n++];
    size_t cap = 256, len = 0;
    switch (ev->kind) {
    case GMT_CONSTANT:
        snprintf(s, cap, "CONSTANT %llu %llu", (unsigned long long)ev->id,
                 (unsigned long long)ev->size);
        break;
    case GMT_RELEASE:
        snprintf(s, cap, "RELEASE %llu", (unsigned long long)ev->id);
        break;
    case GMT_ANNOTATE:
        if (ev->has_value)
            snprintf(s, cap, "ANNOTATE %s %lld", ev->text, (long long)ev->value);
        else
            snprintf(s, cap, "ANNOTATE %s", ev->text);
        break;
    case GMT_CALL:
        len += (size_t)snprintf(s, cap, "CALL %s %llu in=", ev->op, (unsigned long long)ev->dur_ns);
        for (uint32_t i = 0; i < ev->n_inputs; i++)
            len += (size_t)snprintf(s + len, cap - len, "%s%llu", i ? "," : "",
                                    (unsigned long long)ev->inputs[i]);
        len += (size_t)snprintf(s + len, cap - len, " out=");
        for (uint32_t i = 0; i < ev->n_outputs; i++) {
            ck_assert_int_eq(ev->outputs[i].alias_of, -1);
            len += (size_t)snprintf(s + len, cap - len, "%s%llu:%llu", i ? "," : "",
                                    (unsigned long long)ev->outputs[i].id,
                                    (unsigned long long)ev->outputs[i].size);
        }
        break;
    default:
        snprintf(s, cap, "?%d", (int)ev->kind);
    }
    return 0;
}

static const char *meta_of(const text_sink *t, const char *key)
{
    for (int i = 0; i < t->n_meta; i++)
        if (strcmp(t->meta[i][0], key) == 0)
            return t->meta[i][1];
    return NULL;
}

/* ---- record builders ---- */

static trc_rec alloc_at(uint64_t ts, uint64_t addr, uint64_t bytes)
{
    return (trc_rec){.type = TRC_REC_ALLOC, .ts = ts, .addr = addr, .bytes = bytes,
                     .flags = TRC_MEM_DEVICE};
}

static trc_rec free_at(uint64_t ts, uint64_t addr)
{
    return (trc_rec){.type = TRC_REC_FREE, .ts = ts, .addr = addr, .flags = TRC_MEM_DEVICE};
}

static trc_rec launch_at(uint64_t ts, uint64_t corr, uint64_t thread, const uint64_t *ptrs,
                         uint32_t n)
{
    return (trc_rec){.type = TRC_REC_LAUNCH, .ts = ts, .corr = corr, .thread = thread,
                     .ptrs = ptrs, .n_ptrs = n};
}

/* The kernel runs on the GPU later than its launch; only its duration matters. */
static trc_rec kernel(uint64_t corr, uint64_t dur, const char *name)
{
    return (trc_rec){.type = TRC_REC_KERNEL, .ts = 1000000 + corr * 1000,
                     .end = 1000000 + corr * 1000 + dur, .corr = corr, .name = name};
}

static trc_rec range_start(uint64_t ts, uint64_t id, uint64_t thread, const char *name)
{
    return (trc_rec){.type = TRC_REC_MARKER, .ts = ts, .id = id, .thread = thread,
                     .flags = TRC_MARK_START, .name = name};
}

static trc_rec range_end(uint64_t ts, uint64_t id, uint64_t thread)
{
    return (trc_rec){.type = TRC_REC_MARKER, .ts = ts, .id = id, .thread = thread,
                     .flags = TRC_MARK_END};
}

static text_sink *lift(const trc_rec *recs, size_t n, trc_lift_stats *st)
{
    text_sink *t = calloc(1, sizeof *t);
    ck_assert_ptr_nonnull(t);
    trc_sink sink = {.ctx = t, .meta = sink_meta, .event = sink_event};
    gms_error err = {0};
    ck_assert_int_eq(trc_lift_records(recs, n, &sink, st, &err), 0);
    return t;
}

static void expect(const text_sink *t, const char *const *want, int n)
{
    for (int i = 0; i < n && i < t->n; i++)
        ck_assert_str_eq(t->lines[i], want[i]);
    ck_assert_int_eq(t->n, n);
}

#define EXPECT(t, ...)                                                                       \
    do {                                                                                     \
        const char *const want_[] = {__VA_ARGS__};                                           \
        expect(t, want_, (int)(sizeof want_ / sizeof want_[0]));                             \
    } while (0)

/* ---- tests ---- */

static const uint64_t P_A[] = {0x1000}, P_B[] = {0x2000}, P_AB[] = {0x1000, 0x2000};
static const uint64_t P_ABC[] = {0x1000, 0x2000, 0x3000};

START_TEST(test_first_reference_is_output_later_references_are_inputs)
{
    /* weights A exist before any kernel; B is made by k1 and read by k2, which makes C */
    trc_rec r[] = {
        alloc_at(10, 0x1000, 100),  alloc_at(20, 0x2000, 64),       launch_at(30, 1, 7, P_AB, 2),
        kernel(1, 5, "k1"),         alloc_at(40, 0x3000, 32),       launch_at(50, 2, 7, P_ABC, 3),
        kernel(2, 6, "k2"),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    /* B (0x2000) was allocated before the first kernel too, so it is a constant */
    EXPECT(t, "CONSTANT 1 100", "CONSTANT 2 64", "CALL k1 5 in=1,2 out=", "CALL k2 6 in=1,2 out=3:32");
    ck_assert_uint_eq(st.constants, 2);
    ck_assert_uint_eq(st.ops, 2);
    free(t);
}
END_TEST

START_TEST(test_allocation_made_after_first_kernel_is_output_of_its_first_user)
{
    trc_rec r[] = {
        alloc_at(10, 0x1000, 100), launch_at(20, 1, 7, P_A, 1), kernel(1, 3, "init"),
        alloc_at(30, 0x2000, 64),  launch_at(40, 2, 7, P_AB, 2), kernel(2, 4, "fwd"),
        launch_at(50, 3, 7, P_B, 1), kernel(3, 2, "use"),
    };
    text_sink *t = lift(r, sizeof r / sizeof r[0], NULL);
    EXPECT(t, "CONSTANT 1 100", "CALL init 3 in=1 out=", "CALL fwd 4 in=1 out=2:64",
           "CALL use 2 in=2 out=");
    free(t);
}
END_TEST

START_TEST(test_records_out_of_order_across_buffers_are_sorted_by_time)
{
    trc_rec sorted[] = {
        alloc_at(10, 0x1000, 100), launch_at(20, 1, 7, P_A, 1), kernel(1, 3, "init"),
        alloc_at(30, 0x2000, 64),  launch_at(40, 2, 7, P_AB, 2), kernel(2, 4, "fwd"),
        free_at(45, 0x2000),       alloc_at(50, 0x2000, 8),      launch_at(60, 3, 7, P_B, 1),
        kernel(3, 2, "next"),
    };
    /* the same records as separate CUPTI buffers deliver them: kernels late, allocations of one
     * buffer after launches of another */
    trc_rec shuffled[] = {sorted[9], sorted[2], sorted[4], sorted[6], sorted[7], sorted[8],
                          sorted[5], sorted[3], sorted[1], sorted[0]};
    text_sink *a = lift(sorted, 10, NULL), *b = lift(shuffled, 10, NULL);
    EXPECT(a, "CONSTANT 1 100", "CALL init 3 in=1 out=", "CALL fwd 4 in=1 out=2:64", "RELEASE 2",
           "CALL next 2 in= out=3:8");
    ck_assert_int_eq(a->n, b->n);
    for (int i = 0; i < a->n; i++)
        ck_assert_str_eq(a->lines[i], b->lines[i]);
    free(a);
    free(b);
}
END_TEST

START_TEST(test_kernels_in_one_nvtx_range_form_one_op_with_summed_time)
{
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),     launch_at(3, 9, 7, P_A, 1),      kernel(9, 2, "init"),
        range_start(5, 77, 7, "linear"), alloc_at(6, 0x2000, 64),
        launch_at(10, 1, 7, P_AB, 2), kernel(1, 30, "gemm"),           alloc_at(11, 0x3000, 16),
        launch_at(12, 2, 7, P_ABC, 3), kernel(2, 12, "bias"),          range_end(20, 77, 7),
        launch_at(30, 3, 7, P_A, 1),  kernel(3, 1, "after"),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CONSTANT 1 100", "CALL init 2 in=1 out=", "CALL linear 42 in=1 out=2:64,3:16",
           "CALL after 1 in=1 out=");
    ck_assert_uint_eq(st.kernels, 4);
    ck_assert_uint_eq(st.ops, 3);
    free(t);
}
END_TEST

START_TEST(test_nested_ranges_group_by_the_innermost_range)
{
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),        range_start(5, 1, 7, "block"), range_start(6, 2, 7, "conv"),
        launch_at(10, 1, 7, P_A, 1),     kernel(1, 3, "k1"),            range_end(11, 2, 7),
        range_start(12, 3, 7, "relu"),   launch_at(13, 2, 7, P_A, 1),   kernel(2, 4, "k2"),
        launch_at(14, 3, 7, P_A, 1),     kernel(3, 5, "k3"),            range_end(15, 3, 7),
        launch_at(16, 4, 7, P_A, 1),     kernel(4, 6, "k4"),            range_end(17, 1, 7),
    };
    text_sink *t = lift(r, sizeof r / sizeof r[0], NULL);
    /* k4 runs in the outer range only: it is an op named after that range */
    EXPECT(t, "CONSTANT 1 100", "CALL conv 3 in=1 out=", "CALL relu 9 in=1 out=",
           "CALL block 6 in=1 out=");
    free(t);
}
END_TEST

START_TEST(test_ranges_of_another_thread_do_not_capture_kernels)
{
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100), range_start(5, 1, 99, "other-thread"),
        launch_at(10, 1, 7, P_A, 1), kernel(1, 3, "mine"),
        launch_at(12, 2, 99, P_A, 1), kernel(2, 2, "theirs"), range_end(20, 1, 99),
    };
    text_sink *t = lift(r, sizeof r / sizeof r[0], NULL);
    EXPECT(t, "CONSTANT 1 100", "CALL mine 3 in=1 out=", "CALL other-thread 2 in=1 out=");
    free(t);
}
END_TEST

START_TEST(test_thread_ids_of_different_kinds_fall_back_to_any_thread)
{
    /* every marker on "thread" 99, every launch on 7: the ids cannot be the same kind */
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100), range_start(5, 1, 99, "fc"),
        launch_at(10, 1, 7, P_A, 1), kernel(1, 3, "k1"), launch_at(11, 2, 7, P_A, 1),
        kernel(2, 4, "k2"), range_end(20, 1, 99),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CONSTANT 1 100", "CALL fc 7 in=1 out=");
    ck_assert_int_eq(st.thread_ids_mismatch, 1);
    free(t);
}
END_TEST

START_TEST(test_free_during_a_range_is_released_after_the_op)
{
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),   launch_at(3, 9, 7, P_A, 1),   kernel(9, 2, "init"),
        range_start(5, 1, 7, "op"), alloc_at(6, 0x2000, 64),
        launch_at(7, 1, 7, P_AB, 2), kernel(1, 3, "k1"),          free_at(8, 0x2000),
        launch_at(9, 2, 7, P_A, 1),  kernel(2, 4, "k2"),          range_end(10, 1, 7),
        free_at(11, 0x1000),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CONSTANT 1 100", "CALL init 2 in=1 out=", "CALL op 7 in=1 out=2:64", "RELEASE 2",
           "RELEASE 1");
    ck_assert_uint_eq(st.frees, 2);
    ck_assert_uint_eq(st.releases, 2);
    free(t);
}
END_TEST

START_TEST(test_free_of_memory_no_kernel_used_emits_nothing)
{
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100), launch_at(2, 1, 7, P_A, 1), kernel(1, 3, "k"),
        alloc_at(3, 0x2000, 64),  free_at(4, 0x2000),         free_at(5, 0x9000),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CONSTANT 1 100", "CALL k 3 in=1 out=");
    ck_assert_uint_eq(st.unknown_frees, 1);
    free(t);
}
END_TEST

START_TEST(test_pool_allocations_are_tensors_like_any_other)
{
    trc_rec a = alloc_at(10, 0x2000, 64), f = free_at(40, 0x2000);
    a.aux = 0x7f0000; /* cudaMallocAsync: the pool's base address */
    a.id = 1;
    f.aux = 0x7f0000;
    trc_rec r[] = {alloc_at(1, 0x1000, 100), launch_at(5, 1, 7, P_A, 1), kernel(1, 1, "k0"), a,
                   launch_at(20, 2, 7, P_AB, 2), kernel(2, 2, "k1"), f};
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CONSTANT 1 100", "CALL k0 1 in=1 out=", "CALL k1 2 in=1 out=2:64", "RELEASE 2");
    ck_assert_uint_eq(st.pool_allocs, 1);
    ck_assert_uint_eq(st.peak_bytes, 164);
    free(t);
}
END_TEST

START_TEST(test_pointer_into_the_middle_of_an_allocation_maps_to_it)
{
    static const uint64_t mid[] = {0x1000 + 40, 0x2000 + 63};
    static const uint64_t past[] = {0x2000 + 64};
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100), alloc_at(2, 0x2000, 64), launch_at(3, 1, 7, mid, 2),
        kernel(1, 1, "k"),        launch_at(4, 2, 7, past, 1), kernel(2, 1, "k2"),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CONSTANT 1 100", "CONSTANT 2 64", "CALL k 1 in=1,2 out=", "CALL k2 1 in= out=");
    ck_assert_uint_eq(st.unresolved_refs, 1); /* one past the end is not inside */
    free(t);
}
END_TEST

START_TEST(test_reference_to_freed_memory_is_ignored_and_counted)
{
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),   launch_at(2, 1, 7, P_A, 1),  kernel(1, 1, "k0"),
        alloc_at(3, 0x2000, 64),    launch_at(4, 2, 7, P_B, 1),  kernel(2, 1, "k1"),
        free_at(5, 0x2000),         launch_at(6, 3, 7, P_AB, 2), kernel(3, 1, "stale"),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CONSTANT 1 100", "CALL k0 1 in=1 out=", "CALL k1 1 in= out=2:64", "RELEASE 2",
           "CALL stale 1 in=1 out=");
    ck_assert_uint_eq(st.freed_refs, 1);
    free(t);
}
END_TEST

START_TEST(test_reused_address_is_a_new_tensor)
{
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),  launch_at(2, 1, 7, P_A, 1), kernel(1, 1, "k0"),
        free_at(3, 0x1000),        alloc_at(4, 0x1000, 50),    launch_at(5, 2, 7, P_A, 1),
        kernel(2, 1, "k1"),
    };
    text_sink *t = lift(r, sizeof r / sizeof r[0], NULL);
    EXPECT(t, "CONSTANT 1 100", "CALL k0 1 in=1 out=", "RELEASE 1", "CALL k1 1 in= out=2:50");
    free(t);
}
END_TEST

START_TEST(test_iteration_range_becomes_annotation_with_its_payload)
{
    trc_rec data = {.type = TRC_REC_MARKER_DATA, .id = 5, .flags = TRC_PAYLOAD_INT64, .value = 128};
    double d = 64.0;
    trc_rec ddata = {.type = TRC_REC_MARKER_DATA, .id = 6, .flags = TRC_PAYLOAD_DOUBLE};
    memcpy(&ddata.value, &d, sizeof d);
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),
        range_start(2, 5, 7, TRC_ITERATION_RANGE), data,
        launch_at(3, 1, 7, P_A, 1), kernel(1, 2, "k"), range_end(4, 5, 7),
        range_start(5, 6, 7, TRC_ITERATION_RANGE), ddata,
        launch_at(6, 2, 7, P_A, 1), kernel(2, 3, "k"), range_end(7, 6, 7),
        range_start(8, 9, 7, TRC_ITERATION_RANGE), range_end(9, 9, 7),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    /* the iteration range is not an op: kernels in it alone are ops named after the kernel */
    EXPECT(t, "CONSTANT 1 100", "ANNOTATE iteration 128", "CALL k 2 in=1 out=",
           "ANNOTATE iteration 64", "CALL k 3 in=1 out=", "ANNOTATE iteration");
    ck_assert_uint_eq(st.iterations, 3);
    free(t);
}
END_TEST

START_TEST(test_allocations_live_at_the_first_iteration_are_constants_and_setup_is_skipped)
{
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),   launch_at(2, 1, 7, P_A, 1),  kernel(1, 5, "init_weights"),
        alloc_at(3, 0x9000, 8),     launch_at(4, 2, 7, P_A, 1),  kernel(2, 5, "warmup"),
        free_at(5, 0x9000),         range_start(6, 5, 7, TRC_ITERATION_RANGE),
        alloc_at(7, 0x2000, 64),    launch_at(8, 3, 7, P_AB, 2), kernel(3, 6, "fwd"),
        range_end(9, 5, 7),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    /* the first op's output is allocated before the first kernel of the iteration, yet it is
     * an output: only memory live when the iteration starts is constant */
    EXPECT(t, "CONSTANT 1 100", "ANNOTATE iteration", "CALL fwd 6 in=1 out=3:64");
    ck_assert_uint_eq(st.setup_kernels, 2);
    ck_assert_uint_eq(st.constants, 1);
    free(t);
}
END_TEST

START_TEST(test_iteration_value_can_come_from_the_range_name)
{
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),
        range_start(2, 5, 7, "gpumemsim:iteration=4096"),
        launch_at(3, 1, 7, P_A, 1), kernel(1, 2, "k"), range_end(4, 5, 7),
        range_start(5, 6, 7, "gpumemsim:iteration=oops"),
        launch_at(6, 2, 7, P_A, 1), kernel(2, 3, "k2"), range_end(7, 6, 7),
    };
    text_sink *t = lift(r, sizeof r / sizeof r[0], NULL);
    /* a malformed value is not an iteration mark: that range is an ordinary op */
    EXPECT(t, "CONSTANT 1 100", "ANNOTATE iteration 4096", "CALL k 2 in=1 out=",
           "CALL gpumemsim:iteration=oops 3 in=1 out=");
    free(t);
}
END_TEST

START_TEST(test_emit_nvtx_details_are_cut_from_op_names)
{
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),
        range_start(2, 5, 7, "aten::addmm, seq = 12, op_id = 40, sizes = [[64, 512], [512, 10]]"),
        launch_at(3, 1, 7, P_A, 1), kernel(1, 2, "k"), range_end(4, 5, 7),
        range_start(5, 6, 7, "AddmmBackward0, stashed seq = 12"),
        launch_at(6, 2, 7, P_A, 1), kernel(2, 3, "k2"), range_end(7, 6, 7),
    };
    text_sink *t = lift(r, sizeof r / sizeof r[0], NULL);
    EXPECT(t, "CONSTANT 1 100", "CALL aten::addmm 2 in=1 out=", "CALL AddmmBackward0 3 in=1 out=");
    free(t);
}
END_TEST

static trc_rec copy_at(uint64_t ts, uint64_t corr, uint64_t dst, uint64_t src, int memset_)
{
    return (trc_rec){.type = TRC_REC_COPY, .ts = ts, .corr = corr, .thread = 7, .addr = dst,
                     .aux = src, .flags = memset_ ? TRC_COPY_MEMSET : 0};
}

START_TEST(test_host_copy_is_a_zero_input_op_and_device_copies_are_ops)
{
    trc_rec cpy = {.type = TRC_REC_MEMCPY, .ts = 500, .end = 520, .corr = 12};
    trc_rec set = {.type = TRC_REC_MEMSET, .ts = 600, .end = 604, .corr = 13};
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),       launch_at(2, 1, 7, P_A, 1),     kernel(1, 3, "k0"),
        alloc_at(3, 0x2000, 64),        copy_at(4, 11, 0x2000, 0x7fff0000, 0), /* from host */
        launch_at(5, 2, 7, P_AB, 2),    kernel(2, 4, "use_input"),
        alloc_at(6, 0x3000, 64),        copy_at(7, 12, 0x3000, 0x2000, 0), cpy, /* clone */
        alloc_at(8, 0x4000, 32),        copy_at(9, 13, 0x4000, 0, 1), set,     /* zeros */
        copy_at(10, 14, 0x7fff0000, 0x3000, 0),                                 /* to host */
        copy_at(11, 15, 0x2000, 0x7fff0000, 0),                         /* overwrite from host */
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    /* review, lifter rules: data copied in is produced by a zero-input op, not a CONSTANT */
    EXPECT(t, "CONSTANT 1 100", "CALL k0 3 in=1 out=", "CALL copy_h2d 0 in= out=2:64",
           "CALL use_input 4 in=1,2 out=", "CALL memcpy 20 in=2 out=3:64",
           "CALL memset 4 in= out=4:32");
    ck_assert_uint_eq(st.copies_in, 2);
    ck_assert_uint_eq(st.copies_h2d_ops, 1);
    ck_assert_uint_eq(st.constants, 1);
    ck_assert_uint_eq(st.copies_on_device, 1);
    ck_assert_uint_eq(st.memset_calls, 1);
    ck_assert_uint_eq(st.kernels, 2);
    ck_assert_uint_eq(st.kernels_without_launch, 0); /* memcpy/memset records are not kernels */
    free(t);
}
END_TEST

START_TEST(test_batches_copied_in_each_iteration_are_released_not_pinned)
{
    /* review probe 2: a new batch per iteration used to become a new pinned CONSTANT each time */
    trc_rec c1 = {.type = TRC_REC_MEMCPY, .ts = 900, .end = 910, .corr = 21};
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),
        range_start(2, 5, 7, TRC_ITERATION_RANGE),
        alloc_at(3, 0x2000, 64), copy_at(4, 21, 0x2000, 0x7fff0000, 0), c1,
        launch_at(5, 1, 7, P_AB, 2), kernel(1, 2, "fwd"), free_at(6, 0x2000), range_end(7, 5, 7),
        range_start(8, 6, 7, TRC_ITERATION_RANGE),
        alloc_at(9, 0x2000, 64), copy_at(10, 22, 0x2000, 0x7fff0000, 0),
        launch_at(11, 2, 7, P_AB, 2), kernel(2, 2, "fwd"), free_at(12, 0x2000), range_end(13, 6, 7),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CONSTANT 1 100", "ANNOTATE iteration", "CALL copy_h2d 10 in= out=2:64",
           "CALL fwd 2 in=1,2 out=", "RELEASE 2", "ANNOTATE iteration",
           "CALL copy_h2d 0 in= out=3:64", "CALL fwd 2 in=1,3 out=", "RELEASE 3");
    ck_assert_uint_eq(st.constants, 1);
    free(t);
}
END_TEST

START_TEST(test_state_freed_in_the_first_iteration_is_not_a_constant)
{
    /* warm-up gradient G (0x2000) is live at the first iteration start and freed inside it
     * (zero_grad(set_to_none=True)); weights W (0x1000) live on and are freed at the job's
     * end: W is a CONSTANT, G the output of a zero-input setup_state op, released when freed */
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100), alloc_at(2, 0x2000, 64),
        launch_at(3, 9, 7, P_AB, 2), kernel(9, 1, "warmup"),
        range_start(10, 5, 7, TRC_ITERATION_RANGE),
        free_at(11, 0x2000), launch_at(12, 1, 7, P_A, 1), kernel(1, 2, "fwd"),
        range_end(13, 5, 7),
        range_start(14, 6, 7, TRC_ITERATION_RANGE), launch_at(15, 2, 7, P_A, 1),
        kernel(2, 2, "fwd"), range_end(16, 6, 7),
        free_at(20, 0x1000),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CONSTANT 1 100", "CALL setup_state 0 in= out=2:64", "ANNOTATE iteration",
           "RELEASE 2", "CALL fwd 2 in=1 out=", "ANNOTATE iteration", "CALL fwd 2 in=1 out=",
           "RELEASE 1");
    ck_assert_uint_eq(st.constants, 1);
    ck_assert_uint_eq(st.setup_state, 1);
    free(t);
}
END_TEST

START_TEST(test_pointer_past_the_end_is_not_the_next_allocation)
{
    /* review probe 3: A = [0x1000, 0x1100) and B = [0x1100, ...) packed back to back; a kernel
     * gets A's begin and end pointers (0x1000, 0x1100). By default B is a reference (the same
     * values come from an op whose output B was allocated right after its input A), counted as
     * ambiguous; with drop_past_end the end bound is dropped and B becomes the output of the
     * op that really uses it. A pointer to B's start with no pointer into A is never dropped. */
    static const uint64_t begin_end[] = {0x1000, 0x1100}, b_only[] = {0x1100};
    trc_rec r[] = {
        alloc_at(1, 0x1000, 0x100), launch_at(2, 9, 7, begin_end, 1), kernel(9, 1, "init"),
        alloc_at(3, 0x1100, 0x100),
        launch_at(4, 1, 7, begin_end, 2), kernel(1, 2, "sort"),
        launch_at(5, 2, 7, b_only, 1), kernel(2, 3, "use_b"),
    };
    size_t n = sizeof r / sizeof r[0];
    trc_lift_stats st;
    text_sink *t = lift(r, n, &st);
    EXPECT(t, "CONSTANT 1 256", "CALL init 1 in=1 out=", "CALL sort 2 in=1 out=2:256",
           "CALL use_b 3 in=2 out=");
    ck_assert_uint_eq(st.past_end_refs, 1);
    free(t);
    t = calloc(1, sizeof *t);
    ck_assert_ptr_nonnull(t);
    trc_sink sink = {.ctx = t, .meta = sink_meta, .event = sink_event};
    gms_error err = {0};
    trc_lift_opts opts = {.drop_past_end = 1};
    ck_assert_int_eq(trc_lift_records_opt(r, n, &sink, &opts, &st, &err), 0);
    EXPECT(t, "CONSTANT 1 256", "CALL init 1 in=1 out=", "CALL sort 2 in=1 out=",
           "CALL use_b 3 in= out=2:256");
    ck_assert_uint_eq(st.past_end_refs, 1);
    free(t);
}
END_TEST

START_TEST(test_callback_allocations_are_preferred_to_memory2_records)
{
    trc_rec api = {.type = TRC_REC_API_ALLOC, .ts = 1, .addr = 0x1000, .bytes = 100,
                   .flags = TRC_MEM_DEVICE};
    trc_rec api2 = {.type = TRC_REC_API_ALLOC, .ts = 3, .addr = 0x2000, .bytes = 64,
                    .flags = TRC_MEM_DEVICE};
    trc_rec api_free = {.type = TRC_REC_API_FREE, .ts = 9, .addr = 0x2000, .flags = TRC_MEM_DEVICE};
    /* MEMORY2 saw the second allocation late (after the launch that used it): were it used,
     * the launch's reference would miss; the callbacks' view, timed like the launches, is used */
    trc_rec late = alloc_at(6, 0x2000, 64);
    trc_rec late_free = free_at(10, 0x2000);
    trc_rec r[] = {api, alloc_at(1, 0x1000, 100), launch_at(2, 1, 7, P_A, 1), kernel(1, 3, "k0"),
                   api2, launch_at(4, 2, 7, P_AB, 2), kernel(2, 4, "k1"), late, api_free, late_free};
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CONSTANT 1 100", "CALL k0 3 in=1 out=", "CALL k1 4 in=1 out=2:64", "RELEASE 2");
    ck_assert_int_eq(st.alloc_source, TRC_ALLOCS_CALLBACKS);
    ck_assert_uint_eq(st.alloc_records_callbacks, 2);
    ck_assert_uint_eq(st.alloc_records_memory2, 2);
    ck_assert_uint_eq(st.allocs, 2);
    ck_assert_uint_eq(st.unresolved_refs, 0);
    ck_assert_str_eq(meta_of(t, "allocations"), "callbacks");
    free(t);
    /* without callback records, MEMORY2 is the view */
    trc_rec only_memory2[] = {alloc_at(1, 0x1000, 100), launch_at(2, 1, 7, P_A, 1),
                              kernel(1, 3, "k0")};
    t = lift(only_memory2, 3, &st);
    EXPECT(t, "CONSTANT 1 100", "CALL k0 3 in=1 out=");
    ck_assert_int_eq(st.alloc_source, TRC_ALLOCS_MEMORY2);
    ck_assert_str_eq(meta_of(t, "allocations"), "memory2");
    free(t);
}
END_TEST

START_TEST(test_launch_matches_kernel_through_runtime_correlation_id)
{
    trc_rec l = launch_at(3, 500, 7, P_A, 1);
    l.corr2 = 499; /* runtime API correlation id: the kernel record carries this one */
    trc_rec r[] = {alloc_at(1, 0x1000, 100), l, kernel(499, 9, "rt")};
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CONSTANT 1 100", "CALL rt 9 in=1 out=");
    ck_assert_uint_eq(st.launches_without_kernel, 0);
    ck_assert_uint_eq(st.kernels_without_launch, 0);
    free(t);
}
END_TEST

START_TEST(test_unmatched_launches_and_kernels_are_still_ops)
{
    trc_rec r[] = {alloc_at(1, 0x1000, 100), launch_at(3, 1, 7, P_A, 1), kernel(42, 9, "orphan")};
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    /* the launch has references but no kernel (dropped record): cost 0; the kernel record has
     * cost but no references; it runs at its GPU start time, after the launch */
    EXPECT(t, "CONSTANT 1 100", "CALL unknown-kernel 0 in=1 out=", "CALL orphan 9 in= out=");
    ck_assert_uint_eq(st.launches_without_kernel, 1);
    ck_assert_uint_eq(st.kernels_without_launch, 1);
    free(t);
}
END_TEST

START_TEST(test_host_memory_is_not_a_tensor)
{
    trc_rec host = alloc_at(1, 0x1000, 100);
    host.flags = TRC_MEM_PINNED;
    trc_rec r[] = {host, launch_at(3, 1, 7, P_A, 1), kernel(1, 2, "k")};
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    EXPECT(t, "CALL k 2 in= out=");
    ck_assert_uint_eq(st.allocs, 0);
    free(t);
}
END_TEST

START_TEST(test_end_by_signal_is_an_incomplete_trace)
{
    /* review D9: "end = signal 2" used to count as a complete trace */
    trc_rec r[] = {
        {.type = TRC_REC_INFO, .name = "end", .text = "signal 2"},
        alloc_at(1, 0x1000, 100),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    ck_assert_int_eq(st.clean_end, 0);
    ck_assert_str_eq(meta_of(t, "trace_complete"), "no (job died)");
    ck_assert_ptr_nonnull(strstr(meta_of(t, "tracer_status"), "job ended by signal 2"));
    free(t);
}
END_TEST

static trc_rec domain_start(uint64_t ts, uint64_t id, const char *name, const char *domain)
{
    trc_rec r = range_start(ts, id, 7, name);
    r.text = domain;
    return r;
}

START_TEST(test_library_nvtx_domains_neither_name_nor_split_ops)
{
    /* review D3: cuBLAS's own range inside the job's "fc2_backward" range used to become the
     * innermost op, splitting fc2_backward in two ops named after the cuBLAS call */
    trc_rec r[] = {
        alloc_at(1, 0x1000, 100),
        range_start(10, 1, 7, "fc2_backward"),
        launch_at(11, 1, 7, P_A, 1),           kernel(1, 5, "pre"),
        domain_start(12, 2, "cublasSgemm_v2", "cuBLAS"),
        launch_at(13, 2, 7, P_A, 1),           kernel(2, 6, "sgemm"),
        range_end(14, 2, 7),
        launch_at(15, 3, 7, P_A, 1),           kernel(3, 7, "post"),
        range_end(16, 1, 7),
    };
    size_t n = sizeof r / sizeof r[0];
    trc_lift_stats st;
    text_sink *t = lift(r, n, &st);
    EXPECT(t, "CONSTANT 1 100", "CALL fc2_backward 18 in=1 out=");
    ck_assert_uint_eq(st.foreign_markers, 1);
    ck_assert_str_eq(st.foreign_domains, "cuBLAS");
    ck_assert_ptr_nonnull(strstr(meta_of(t, "nvtx_ignored"), "cuBLAS"));
    free(t);
    /* asked for, the domain's ranges form ops as before */
    t = calloc(1, sizeof *t);
    ck_assert_ptr_nonnull(t);
    trc_sink sink = {.ctx = t, .meta = sink_meta, .event = sink_event};
    gms_error err = {0};
    trc_lift_opts opts = {.nvtx_domains = "NCCL,cuBLAS"};
    ck_assert_int_eq(trc_lift_records_opt(r, n, &sink, &opts, &st, &err), 0);
    EXPECT(t, "CONSTANT 1 100", "CALL fc2_backward 5 in=1 out=", "CALL cublasSgemm_v2 6 in=1 out=",
           "CALL fc2_backward 7 in=1 out=");
    ck_assert_uint_eq(st.foreign_markers, 0);
    ck_assert_ptr_null(meta_of(t, "nvtx_ignored"));
    free(t);
    ck_assert_int_eq(trc_lift_domain_wanted(NULL, NULL), 1);
    ck_assert_int_eq(trc_lift_domain_wanted(NULL, ""), 1);
    ck_assert_int_eq(trc_lift_domain_wanted(NULL, "cuBLAS"), 0);
    ck_assert_int_eq(trc_lift_domain_wanted(&(trc_lift_opts){.nvtx_domains = "*"}, "NCCL"), 1);
    ck_assert_int_eq(trc_lift_domain_wanted(&opts, "cuBLASLt"), 0);
    ck_assert_int_eq(trc_lift_domain_wanted(&opts, "cuBLA"), 0);
}
END_TEST

START_TEST(test_tracer_info_becomes_header_metadata)
{
    trc_rec r[] = {
        {.type = TRC_REC_INFO, .name = "device", .text = "NVIDIA H100"},
        {.type = TRC_REC_INFO, .name = "status", .text = "cannot subscribe"},
        {.type = TRC_REC_INFO, .name = "dropped_records", .text = "17"},
        {.type = TRC_REC_INFO, .name = "end", .text = "exit"},
        {.type = TRC_REC_INFO, .name = "device", .text = "written twice by racing threads"},
        {.type = TRC_REC_INFO, .name = "producer", .text = "not the tracer's to say"},
        alloc_at(1, 0x1000, 100),
    };
    trc_lift_stats st;
    text_sink *t = lift(r, sizeof r / sizeof r[0], &st);
    ck_assert_str_eq(meta_of(t, "device"), "NVIDIA H100");
    ck_assert_str_eq(meta_of(t, "dropped_records"), "17");
    ck_assert_str_eq(meta_of(t, "tracer_status"), "cannot subscribe");
    ck_assert_str_eq(meta_of(t, "trace_complete"), "yes");
    ck_assert_str_eq(meta_of(t, "source"), "cupti");
    int devices = 0, producers = 0;
    for (int i = 0; i < t->n_meta; i++) {
        devices += strcmp(t->meta[i][0], "device") == 0;
        producers += strcmp(t->meta[i][0], "producer") == 0;
    }
    ck_assert_int_eq(devices, 1); /* every key once: the first value wins */
    ck_assert_int_eq(producers, 1);
    ck_assert_ptr_nonnull(strstr(meta_of(t, "producer"), "gpumemsim-tracer"));
    ck_assert_uint_eq(st.dropped_records, 17);
    ck_assert_int_eq(st.clean_end, 1);
    ck_assert_str_eq(st.device, "NVIDIA H100");
    ck_assert_int_eq(t->n, 0); /* no kernel: no constants either */
    free(t);
}
END_TEST

static Suite *lift_suite(void)
{
    Suite *s = suite_create("lift");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, test_first_reference_is_output_later_references_are_inputs);
    tcase_add_test(tc, test_allocation_made_after_first_kernel_is_output_of_its_first_user);
    tcase_add_test(tc, test_records_out_of_order_across_buffers_are_sorted_by_time);
    tcase_add_test(tc, test_kernels_in_one_nvtx_range_form_one_op_with_summed_time);
    tcase_add_test(tc, test_nested_ranges_group_by_the_innermost_range);
    tcase_add_test(tc, test_ranges_of_another_thread_do_not_capture_kernels);
    tcase_add_test(tc, test_thread_ids_of_different_kinds_fall_back_to_any_thread);
    tcase_add_test(tc, test_free_during_a_range_is_released_after_the_op);
    tcase_add_test(tc, test_free_of_memory_no_kernel_used_emits_nothing);
    tcase_add_test(tc, test_pool_allocations_are_tensors_like_any_other);
    tcase_add_test(tc, test_pointer_into_the_middle_of_an_allocation_maps_to_it);
    tcase_add_test(tc, test_reference_to_freed_memory_is_ignored_and_counted);
    tcase_add_test(tc, test_reused_address_is_a_new_tensor);
    tcase_add_test(tc, test_iteration_range_becomes_annotation_with_its_payload);
    tcase_add_test(tc, test_allocations_live_at_the_first_iteration_are_constants_and_setup_is_skipped);
    tcase_add_test(tc, test_iteration_value_can_come_from_the_range_name);
    tcase_add_test(tc, test_emit_nvtx_details_are_cut_from_op_names);
    tcase_add_test(tc, test_host_copy_is_a_zero_input_op_and_device_copies_are_ops);
    tcase_add_test(tc, test_batches_copied_in_each_iteration_are_released_not_pinned);
    tcase_add_test(tc, test_state_freed_in_the_first_iteration_is_not_a_constant);
    tcase_add_test(tc, test_pointer_past_the_end_is_not_the_next_allocation);
    tcase_add_test(tc, test_callback_allocations_are_preferred_to_memory2_records);
    tcase_add_test(tc, test_launch_matches_kernel_through_runtime_correlation_id);
    tcase_add_test(tc, test_unmatched_launches_and_kernels_are_still_ops);
    tcase_add_test(tc, test_host_memory_is_not_a_tensor);
    tcase_add_test(tc, test_tracer_info_becomes_header_metadata);
    tcase_add_test(tc, test_end_by_signal_is_an_incomplete_trace);
    tcase_add_test(tc, test_library_nvtx_domains_neither_name_nor_split_ops);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(lift_suite());
}
