/* sim_layers: the layers planners see, from scopes and from the segmentation rule, on
 * hand-made traces; and scopes never change a replay. */
#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "graph.h"
#include "sim_layers.h"

static void g_scope(sim_trace_builder *b, const char *name, int end)
{
    gmt_event ev;
    gmt_event_scope(&ev, name, end);
    g_add(b, &ev);
}

static void g_iteration(sim_trace_builder *b)
{
    gmt_event ev;
    gmt_event_init(&ev, GMT_ANNOTATE);
    ev.text = "iteration";
    ev.has_value = 1;
    ev.value = 8;
    g_add(b, &ev);
}

/* One training-like iteration on a chain: ops x(id) = f(x(id-1)); with_scopes puts the
 * forward ops in scopes "a" (ops 1-2, nested "a.inner" around op 2) and "b" (op 3), the
 * backward ops in "b" then "a". Op ids: constant w = 1, then 2..; op indices: w is op 0. */
static sim_trace *chain_trace(int with_scopes, int iterations)
{
    sim_trace_builder *b = g_new();
    g_annotate(b, "START");
    g_constant(b, 1, 64);
    uint64_t id = 10;
    for (int it = 0; it < iterations; it++) {
        g_iteration(b);
        g_call(b, "input", 5, id, 64, 0);               /* outside every scope */
        if (with_scopes)
            g_scope(b, "a", 0);
        g_call(b, "fa1", 10, id + 1, 64, 2, id, (uint64_t)1);
        if (with_scopes)
            g_scope(b, "a.inner", 0);
        g_call(b, "fa2", 10, id + 2, 64, 1, id + 1);
        if (with_scopes) {
            g_scope(b, "a.inner", 1);
            g_scope(b, NULL, 1);
            g_scope(b, "b", 0);
        }
        g_call(b, "fb", 30, id + 3, 64, 1, id + 2);
        if (with_scopes)
            g_scope(b, "b", 1);
        g_annotate(b, "BACKWARD");
        if (with_scopes)
            g_scope(b, "b", 0);
        g_call(b, "gb", 30, id + 4, 64, 1, id + 3);
        if (with_scopes) {
            g_scope(b, "b", 1);
            g_scope(b, "a", 0);
        }
        g_call(b, "ga", 20, id + 5, 64, 2, id + 4, id + 1);
        if (with_scopes)
            g_scope(b, "a", 1);
        for (uint64_t k = id; k <= id + 5; k++)
            g_release(b, k);
        id += 10;
    }
    g_release(b, 1);
    return g_finish(b);
}

START_TEST(test_scopes_give_the_top_level_forward_layers_of_each_iteration)
{
    sim_trace *t = chain_trace(1, 2);
    ck_assert_uint_eq(sim_trace_scope_count(t), 2 * 5);
    ck_assert_uint_eq(sim_trace_scope_depth(t), 2);
    sim_layers *l;
    gms_error err;
    ck_assert_int_eq(sim_layers_build(t, &l, &err), 0);
    ck_assert_int_eq(sim_layers_source(l), SIM_LAYERS_SCOPES);
    ck_assert_uint_eq(sim_layers_iterations(l), 2);
    ck_assert_uint_eq(sim_layers_count(l), 4);
    for (uint32_t it = 0; it < 2; it++) {
        /* iteration it: ops 1 + 6 it .. 6 + 6 it (input, fa1, fa2, fb | gb, ga) */
        uint32_t base = 1 + 6 * it;
        const sim_iteration_span *sp = sim_layers_iteration(l, it);
        ck_assert_uint_eq(sp->first_op, base);
        ck_assert_uint_eq(sp->backward_op, base + 4);
        ck_assert_uint_eq(sp->end_op, base + 6);
        ck_assert_uint_eq(sp->n_layers, 2);
        ck_assert_int_eq(sp->source, SIM_LAYERS_SCOPES);
        const sim_layer *a = sim_layers_at(l, sp->first_layer);
        const sim_layer *bl = sim_layers_at(l, sp->first_layer + 1);
        ck_assert_str_eq(a->name, "a");
        ck_assert_uint_eq(a->first_op, base + 1);
        ck_assert_uint_eq(a->last_op, base + 2);
        ck_assert_uint_eq(a->compute, 20);
        ck_assert_uint_eq(a->iteration, it);
        ck_assert_str_eq(bl->name, "b");
        ck_assert_uint_eq(bl->first_op, base + 3);
        ck_assert_uint_eq(bl->last_op, base + 3);
        ck_assert_uint_eq(bl->compute, 30);
        /* the input and the backward ops belong to no forward layer */
        ck_assert_uint_eq(sim_layers_of_op(l, base), SIM_LAYER_NONE);
        ck_assert_uint_eq(sim_layers_of_op(l, base + 2), sp->first_layer);
        ck_assert_uint_eq(sim_layers_of_op(l, base + 4), SIM_LAYER_NONE);
    }
    ck_assert_uint_eq(sim_layers_of_op(l, 0), SIM_LAYER_NONE); /* the constant */
    ck_assert_uint_eq(sim_layers_of_op(l, 999), SIM_LAYER_NONE);
    ck_assert_ptr_null(sim_layers_at(l, 4));
    sim_layers_free(l);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_without_scopes_the_forward_pass_is_cut_into_sqrt_n_equal_compute_segments)
{
    sim_trace *t = chain_trace(0, 1);
    ck_assert_uint_eq(sim_trace_scope_count(t), 0);
    sim_layers *l;
    gms_error err;
    ck_assert_int_eq(sim_layers_build(t, &l, &err), 0);
    ck_assert_int_eq(sim_layers_source(l), SIM_LAYERS_SEGMENTS);
    /* forward: input 5, fa1 10, fa2 10, fb 30 (ops 1-4), total 55, k = 2: the running cost
     * 5, 15, 25 stays below half of 55 until fb, the last op: one segment, never an empty
     * second one */
    ck_assert_uint_eq(sim_layers_count(l), 1);
    const sim_layer *s0 = sim_layers_at(l, 0);
    ck_assert_str_eq(s0->name, "segment.0");
    ck_assert_uint_eq(s0->first_op, 1);
    ck_assert_uint_eq(s0->last_op, 4);
    ck_assert_int_eq(s0->source, SIM_LAYERS_SEGMENTS);
    sim_layers_free(l);
    sim_trace_free(t);

    /* 16 equal ops, no markers at all: one iteration from the first CALL, k = 4 segments of
     * 4 ops each */
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 8);
    for (uint64_t i = 0; i < 16; i++)
        g_call(b, "f", 7, 100 + i, 8, 1, i ? 99 + i : (uint64_t)1);
    t = g_finish(b);
    ck_assert_int_eq(sim_layers_build(t, &l, &err), 0);
    ck_assert_uint_eq(sim_layers_iterations(l), 1);
    ck_assert_uint_eq(sim_layers_iteration(l, 0)->first_op, 1);
    ck_assert_uint_eq(sim_layers_count(l), 4);
    for (uint32_t j = 0; j < 4; j++) {
        const sim_layer *s = sim_layers_at(l, j);
        char want[32];
        snprintf(want, sizeof want, "segment.%u", j);
        ck_assert_str_eq(s->name, want);
        ck_assert_uint_eq(s->first_op, 1 + 4 * j);
        ck_assert_uint_eq(s->last_op, 4 + 4 * j);
        ck_assert_uint_eq(s->compute, 28);
    }
    sim_layers_free(l);
    sim_trace_free(t);

    /* one op that costs nearly everything: segments stay non-empty and cover every op */
    b = g_new();
    g_constant(b, 1, 8);
    for (uint64_t i = 0; i < 9; i++)
        g_call(b, "f", i == 1 ? 1000000 : 1, 100 + i, 8, 1, i ? 99 + i : (uint64_t)1);
    t = g_finish(b);
    ck_assert_int_eq(sim_layers_build(t, &l, &err), 0);
    uint32_t n = sim_layers_count(l), next = 1;
    ck_assert_uint_ge(n, 2);
    ck_assert_uint_le(n, 3);
    for (uint32_t j = 0; j < n; j++) {
        ck_assert_uint_eq(sim_layers_at(l, j)->first_op, next);
        ck_assert_uint_ge(sim_layers_at(l, j)->last_op, next);
        next = sim_layers_at(l, j)->last_op + 1;
    }
    ck_assert_uint_eq(next, 10);
    sim_layers_free(l);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_scopes_change_no_replay)
{
    sim_trace *with = chain_trace(1, 3), *without = chain_trace(0, 3);
    ck_assert_uint_eq(sim_trace_baseline(with)->memory, sim_trace_baseline(without)->memory);
    ck_assert_uint_eq(sim_trace_baseline(with)->compute, sim_trace_baseline(without)->compute);
    for (uint64_t budget = 192; budget <= 512; budget += 64) {
        for (size_t p = 0; p < pol_count(); p++) {
            if (pol_needs_addresses(pol_at(p)))
                continue; /* needs an allocator model; the ideal one is what is compared */
            const char *pol = pol_name(pol_at(p));
            g_log la, lb;
            sim_result ra = g_run(with, pol, budget, &la);
            sim_result rb = g_run(without, pol, budget, &lb);
            ck_assert_int_eq(ra.status, rb.status);
            ck_assert_uint_eq(ra.clock, rb.clock);
            ck_assert_uint_eq(ra.peak_memory, rb.peak_memory);
            ck_assert_str_eq(la.text, lb.text);
        }
    }
    sim_trace_free(with);
    sim_trace_free(without);
}
END_TEST

START_TEST(test_builder_refuses_unbalanced_scopes)
{
    sim_trace_builder *b = g_new();
    gmt_event ev;
    gmt_event_scope(&ev, NULL, 1);
    gms_error err;
    ck_assert_int_eq(sim_trace_builder_add(b, &ev, &err), GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "event 1: SCOPE end without an open scope"));
    sim_trace_builder_free(b);
    b = g_new();
    g_scope(b, "a", 0);
    gmt_event_scope(&ev, "b", 1);
    ck_assert_int_eq(sim_trace_builder_add(b, &ev, &err), GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "SCOPE end 'b' does not match the open scope 'a'"));
    sim_trace_builder_free(b);
    /* a scope left open (a truncated file) ends with the trace */
    b = g_new();
    g_constant(b, 1, 8);
    g_scope(b, "a", 0);
    g_call(b, "f", 3, 2, 8, 1, (uint64_t)1);
    sim_trace *t = g_finish(b);
    sim_layers *l;
    ck_assert_int_eq(sim_layers_build(t, &l, &err), 0);
    ck_assert_uint_eq(sim_layers_count(l), 1);
    ck_assert_str_eq(sim_layers_at(l, 0)->name, "a");
    ck_assert_uint_eq(sim_layers_at(l, 0)->last_op, 1);
    sim_layers_free(l);
    sim_trace_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_layers");
    TCase *tc = tcase_create("layers");
    tcase_add_test(tc, test_scopes_give_the_top_level_forward_layers_of_each_iteration);
    tcase_add_test(tc, test_without_scopes_the_forward_pass_is_cut_into_sqrt_n_equal_compute_segments);
    tcase_add_test(tc, test_scopes_change_no_replay);
    tcase_add_test(tc, test_builder_refuses_unbalanced_scopes);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
