/* opt_extract: a trace's iteration as a dataflow graph, at op level and by layers, on a
 * hand-made training step whose graph is known. */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "opt_extract.h"

static void scope(sim_trace_builder *b, const char *name, int end)
{
    gmt_event ev;
    gmt_event_scope(&ev, name, end);
    g_add(b, &ev);
}

/* w (constant, 64 B); iteration: x = input(); l1 = f(x, w) [a]; v = view(l1) [a];
 * l2 = f(v) [b]; BACKWARD; g2 = f(l2, v) [b]; g1 = f(g2, l1) [a]; upd = f(g1, w), never
 * released (outlives the iteration). Costs in ns. */
static sim_trace *step(int scopes)
{
    sim_trace_builder *b = g_new();
    g_annotate(b, "START");
    g_constant(b, 1, 64);
    gmt_event ev;
    gmt_event_init(&ev, GMT_ANNOTATE);
    ev.text = "iteration";
    ev.has_value = 1;
    ev.value = 1;
    g_add(b, &ev);
    g_call(b, "input", 5, 10, 100, 0);
    if (scopes)
        scope(b, "a", 0);
    g_call(b, "l1", 10, 11, 200, 2, (uint64_t)10, (uint64_t)1);
    g_view(b, "view", 1, 12, 11);
    if (scopes)
        scope(b, "a", 1), scope(b, "b", 0);
    g_call(b, "l2", 20, 13, 300, 1, (uint64_t)12);
    if (scopes)
        scope(b, "b", 1);
    g_annotate(b, "BACKWARD");
    if (scopes)
        scope(b, "b", 0);
    g_call(b, "g2", 40, 14, 50, 2, (uint64_t)13, (uint64_t)12);
    g_release(b, 13);
    g_release(b, 12);
    if (scopes)
        scope(b, "b", 1), scope(b, "a", 0);
    g_call(b, "g1", 30, 15, 60, 2, (uint64_t)14, (uint64_t)11);
    g_release(b, 14);
    g_release(b, 11);
    g_release(b, 10);
    if (scopes)
        scope(b, "a", 1);
    g_call(b, "upd", 2, 16, 8, 2, (uint64_t)15, (uint64_t)1);
    g_release(b, 15);
    return g_finish(b);
}

static opt_graph *extract(const sim_trace *t, opt_coarsen c)
{
    opt_graph *g = NULL;
    gms_error err = {0};
    ck_assert_msg(opt_graph_from_trace(t, 0, c, &g, NULL, &err) == 0, "%s", err.msg);
    return g;
}

static void has_inputs(const opt_graph *g, uint32_t v, uint32_t n, ...)
{
    va_list ap;
    va_start(ap, n);
    ck_assert_msg(g->nodes[v].n_inputs == n, "node %u (%s): %u inputs, want %u", v,
                  g->nodes[v].name, g->nodes[v].n_inputs, n);
    for (uint32_t k = 0; k < n; k++)
        ck_assert_uint_eq(g->nodes[v].inputs[k], va_arg(ap, unsigned));
    va_end(ap);
}

START_TEST(test_op_level_graph_links_producers_and_views)
{
    sim_trace *t = step(0);
    opt_graph *g = extract(t, OPT_COARSEN_NONE);
    ck_assert_uint_eq(g->n, 7); /* the constant is no node */
    const char *names[] = {"input", "l1", "view", "l2", "g2", "g1", "upd"};
    const uint64_t bytes[] = {100, 200, 0, 300, 50, 60, 0};
    for (uint32_t i = 0; i < 7; i++) {
        ck_assert_str_eq(g->nodes[i].name, names[i]);
        ck_assert_uint_eq(g->nodes[i].bytes, bytes[i]);
    }
    ck_assert_double_eq_tol(g->nodes[3].cost, 20e-6, 1e-15); /* ns -> ms */
    /* the weight w (64) and upd's output, which outlives the iteration (8) */
    ck_assert_uint_eq(g->constant_bytes, 72);
    has_inputs(g, 0, 0);
    has_inputs(g, 1, 1, 0u);
    has_inputs(g, 2, 1, 1u);
    has_inputs(g, 3, 2, 1u, 2u);     /* the view and the op that made its storage */
    has_inputs(g, 4, 3, 1u, 2u, 3u);
    has_inputs(g, 5, 2, 1u, 4u);
    has_inputs(g, 6, 1, 5u);
    opt_graph_free(g);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_layers_merge_forward_and_backward_scopes)
{
    sim_trace *t = step(1);
    opt_graph *g = extract(t, OPT_COARSEN_LAYERS);
    ck_assert_uint_eq(g->n, 6);
    const char *names[] = {"input+0", "a", "b", "b.backward", "a.backward", "upd+0"};
    /* bytes: members' outputs read by another node */
    const uint64_t bytes[] = {100, 200, 300, 50, 60, 0};
    for (uint32_t i = 0; i < 6; i++) {
        ck_assert_str_eq(g->nodes[i].name, names[i]);
        ck_assert_uint_eq(g->nodes[i].bytes, bytes[i]);
    }
    ck_assert_double_eq_tol(g->nodes[1].cost, 11e-6, 1e-15);
    has_inputs(g, 1, 1, 0u);
    has_inputs(g, 2, 1, 1u);
    has_inputs(g, 3, 2, 1u, 2u);
    has_inputs(g, 4, 2, 1u, 3u);
    has_inputs(g, 5, 1, 4u);
    ck_assert_uint_eq(g->constant_bytes, 72);
    opt_graph_free(g);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_layers_without_scopes_segment_and_keep_all_compute)
{
    sim_trace *t = step(0);
    opt_graph *g = extract(t, OPT_COARSEN_LAYERS);
    opt_graph *ops = extract(t, OPT_COARSEN_NONE);
    ck_assert_uint_lt(g->n, ops->n);
    ck_assert_uint_ge(g->n, 2);
    ck_assert_double_eq_tol(opt_graph_compute(g), opt_graph_compute(ops), 1e-12);
    ck_assert_uint_eq(g->constant_bytes, ops->constant_bytes);
    opt_graph_free(g);
    opt_graph_free(ops);
    sim_trace_free(t);
}
END_TEST

/* --host-estimate slowdown=20,roofline=1: at 1 GB/s a byte is a nanosecond, so each op's
 * host time in ns is max(20 x its duration, bytes read + written); a coarse node's is its
 * members' total. Reads count each argument's whole storage (the view's is l1's 200). */
START_TEST(test_host_estimate_per_op_and_summed_by_layer)
{
    sim_trace *t = step(1);
    opt_host_estimate e = {.slowdown = 20, .gbps = 1};
    gms_error err = {0};
    opt_graph *g = NULL, *c = NULL;
    ck_assert_msg(opt_graph_from_trace_host(t, 0, OPT_COARSEN_NONE, &e, &g, NULL, &err) == 0,
                  "%s", err.msg);
    /* input 100 B written; l1 200 + 100 + 64; view 200 (its base); l2 300 + 200;
     * g2 20 x 40 > 50 + 300 + 200; g1 20 x 30 > 60 + 50 + 200; upd 8 + 60 + 64 */
    const double ns[] = {100, 364, 200, 500, 800, 600, 132};
    for (uint32_t i = 0; i < 7; i++)
        ck_assert_double_eq_tol(g->nodes[i].cost_host, ns[i] / 1e6, 1e-15);
    ck_assert_msg(opt_graph_from_trace_host(t, 0, OPT_COARSEN_LAYERS, &e, &c, NULL, &err) == 0,
                  "%s", err.msg);
    const double cns[] = {100, 564, 500, 800, 600, 132}; /* input+0 a b b.bwd a.bwd upd+0 */
    ck_assert_uint_eq(c->n, 6);
    for (uint32_t i = 0; i < 6; i++)
        ck_assert_double_eq_tol(c->nodes[i].cost_host, cns[i] / 1e6, 1e-15);
    opt_graph_free(g);
    opt_graph_free(c);
    /* without an estimate no node has a host cost */
    g = extract(t, OPT_COARSEN_NONE);
    for (uint32_t i = 0; i < g->n; i++)
        ck_assert(g->nodes[i].cost_host < 0);
    opt_graph_free(g);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_missing_iteration_is_refused_with_the_count)
{
    sim_trace *t = step(0);
    opt_graph *g = NULL;
    gms_error err = {0};
    ck_assert_int_eq(opt_graph_from_trace(t, 3, OPT_COARSEN_NONE, &g, NULL, &err), GMS_EINVAL);
    ck_assert_ptr_null(g);
    ck_assert_msg(strstr(err.msg, "1 iteration"), "%s", err.msg);
    sim_trace_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("opt_extract");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_op_level_graph_links_producers_and_views);
    tcase_add_test(tc, test_layers_merge_forward_and_backward_scopes);
    tcase_add_test(tc, test_layers_without_scopes_segment_and_keep_all_compute);
    tcase_add_test(tc, test_missing_iteration_is_refused_with_the_count);
    tcase_add_test(tc, test_host_estimate_per_op_and_summed_by_layer);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
