/* opt_extract: a trace's iteration as a dataflow graph, at op level and by layers, on a
 * hand-made training step whose graph is known. */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "graph.h"
#include "opt_extract.h"
#include "opt_run_seed.h"
#include "registry.h"
#include "opt_replay.h"
#include "opt_schedule.h"
#include "opt_solve.h"
#include "sim_internal.h"
#include "opt_test_build.h"

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

/* A batch norm with two outputs: y (400 B), read only by the next op, and saved (16 B), read
 * in the backward pass; upd (8 B) outlives the iteration and is not its last op. Each storage
 * is released right after its last reader. */
static sim_trace *two_outputs(void)
{
    sim_trace_builder *b = g_new();
    g_annotate(b, "START");
    g_constant(b, 1, 64);
    g_call(b, "input", 5, 10, 100, 0);
    uint64_t in[2] = {10, 1};
    gmt_output outs[2] = {{.id = 11, .size = 400, .alias_of = -1},
                          {.id = 12, .size = 16, .alias_of = -1}};
    g_call_multi(b, "bn", 10, in, 2, outs, 2);
    g_release(b, 10);
    g_call(b, "relu", 3, 13, 400, 1, (uint64_t)11);
    g_release(b, 11);
    g_annotate(b, "BACKWARD");
    g_call(b, "grad", 40, 14, 50, 2, (uint64_t)13, (uint64_t)12);
    g_release(b, 13);
    g_release(b, 12);
    g_call(b, "upd", 2, 15, 8, 2, (uint64_t)14, (uint64_t)1);
    g_call(b, "z", 1, 16, 4, 1, (uint64_t)14);
    g_release(b, 14);
    g_release(b, 16);
    return g_finish(b);
}

START_TEST(test_outputs_graph_holds_each_storage_until_its_own_reader)
{
    sim_trace *t = two_outputs();
    opt_graph *g = extract(t, OPT_COARSEN_OUTPUTS);
    ck_assert_uint_eq(g->n, 7);
    const char *names[] = {"input", "bn", "bn:out1", "relu", "grad", "upd", "z"};
    const uint64_t bytes[] = {100, 400, 16, 400, 50, 8, 4};
    const double cost[] = {5, 10, 0, 3, 40, 2, 1};
    for (uint32_t i = 0; i < 7; i++) {
        ck_assert_str_eq(g->nodes[i].name, names[i]);
        ck_assert_uint_eq(g->nodes[i].bytes, bytes[i]);
        ck_assert_double_eq_tol(g->nodes[i].cost, cost[i] * 1e-6, 1e-15);
    }
    ck_assert_uint_eq(g->constant_bytes, 64); /* upd is a node now, w alone is constant */
    has_inputs(g, 1, 1, 0u);
    has_inputs(g, 2, 2, 0u, 1u); /* the op's inputs and its earlier part */
    has_inputs(g, 3, 1, 1u);     /* y only */
    has_inputs(g, 4, 2, 2u, 3u); /* saved, not y */
    has_inputs(g, 5, 1, 4u);
    has_inputs(g, 6, 2, 4u, 5u); /* the last node holds upd to the end */
    /* the program frees as the replay does: its unconstrained peak is the baseline's (relu's
     * stage: w, y, saved and relu's output), where the authors' graph holds y until grad */
    uint64_t base = sim_trace_baseline(t)->memory;
    ck_assert_uint_eq(base, 64 + 400 + 16 + 400);
    ck_assert_uint_eq(opt_graph_peak(g), base);
    opt_graph *ops = extract(t, OPT_COARSEN_NONE);
    ck_assert_uint_eq(opt_graph_peak(ops), 72 + 416 + 400 + 50);
    ck_assert_double_eq_tol(opt_graph_compute(g), opt_graph_compute(ops), 1e-12);
    opt_graph_free(ops);
    opt_graph_free(g);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_outputs_graph_of_views_reads_the_storage_and_the_view_op)
{
    sim_trace *t = step(0);
    opt_graph *g = extract(t, OPT_COARSEN_OUTPUTS);
    opt_graph *ops = extract(t, OPT_COARSEN_NONE);
    /* one output each: the same nodes and inputs as the authors' graph, but upd's 8 B are a
     * node's (held from upd on) instead of constant */
    ck_assert_uint_eq(g->n, ops->n);
    for (uint32_t i = 0; i < g->n; i++) {
        ck_assert_str_eq(g->nodes[i].name, ops->nodes[i].name);
        ck_assert_uint_eq(g->nodes[i].n_inputs, ops->nodes[i].n_inputs);
    }
    ck_assert_uint_eq(g->nodes[6].bytes, 8);
    ck_assert_uint_eq(g->constant_bytes, 64);
    has_inputs(g, 3, 2, 1u, 2u);
    /* x (100 B) is released after g1, long after its last reader l1: the replay holds it,
     * the program frees it after l1, so the program's peak is below the baseline by it */
    ck_assert_uint_eq(opt_graph_peak(g) + 100, sim_trace_baseline(t)->memory);
    opt_graph_free(ops);
    opt_graph_free(g);
    sim_trace_free(t);
}
END_TEST

static uint64_t rng_state = 99991;
static uint32_t rnd(uint32_t m)
{
    return opt_test_rnd(&rng_state, m);
}

/* A random one-iteration trace: ops of 0 to 3 new outputs (some ops also a view of an
 * input) reading 1 to 3 earlier tensors; each storage released right after its last reader
 * (at once when none), a few never (they outlive the iteration). */
static sim_trace *random_trace(int n_ops)
{
    enum { MAXT = 128 };
    uint64_t id[MAXT], last[MAXT];
    int n_t = 0, keep[MAXT] = {0};
    int op_in[64][3], op_nin[64], op_nout[64], op_first[64], op_view[64];
    uint64_t size[MAXT];
    /* plan: tensors made per op and what each op reads */
    for (int o = 0; o < n_ops; o++) {
        op_nin[o] = n_t ? 1 + (int)rnd(3) : 0;
        for (int k = 0; k < op_nin[o]; k++)
            op_in[o][k] = (int)rnd((uint32_t)n_t);
        op_nout[o] = (int)rnd(4);
        op_view[o] = op_nin[o] > 0 && rnd(4) == 0;
        op_first[o] = n_t;
        for (int k = 0; k < op_nout[o] + op_view[o]; k++, n_t++) {
            size[n_t] = 8 * (1 + rnd(50));
            keep[n_t] = rnd(8) == 0;
        }
    }
    for (int i = 0; i < n_t; i++)
        last[i] = UINT64_MAX;
    for (int o = 0; o < n_ops; o++)
        for (int k = 0; k < op_nin[o]; k++)
            last[op_in[o][k]] = (uint64_t)o;
    sim_trace_builder *b = g_new();
    g_annotate(b, "START");
    g_constant(b, 1, 32);
    for (int i = 0; i < n_t; i++)
        id[i] = 100 + (uint64_t)i;
    for (int o = 0; o < n_ops; o++) {
        uint64_t in[4];
        gmt_output outs[5];
        for (int k = 0; k < op_nin[o]; k++)
            in[k] = id[op_in[o][k]];
        in[op_nin[o]] = 1; /* the constant, read by every op */
        int n_out = 0;
        for (int k = 0; k < op_nout[o]; k++)
            outs[n_out++] = (gmt_output){.id = id[op_first[o] + k], .size = size[op_first[o] + k],
                                         .alias_of = -1};
        if (op_view[o])
            outs[n_out++] = (gmt_output){.id = id[op_first[o] + op_nout[o]], .size = 1,
                                         .alias_of = 0};
        g_call_multi(b, "op", 1 + rnd(100), in, op_nin[o] + 1, outs, n_out);
        /* release what this op read last, and its own outputs that nobody reads */
        for (int i = 0; i < n_t; i++)
            if (!keep[i] && ((last[i] == (uint64_t)o) ||
                             (last[i] == UINT64_MAX && i >= op_first[o] &&
                              i < op_first[o] + op_nout[o] + op_view[o])))
                g_release(b, id[i]);
    }
    return g_finish(b);
}

/* On random traces the extended program's unconstrained peak is the replay's baseline, and
 * its optimal schedules replay to the solver's objective within the budget. */
START_TEST(test_outputs_graph_peaks_at_the_baseline_on_random_traces)
{
    int solved = 0, multi = 0;
    for (int trial = 0; trial < 40; trial++) {
        sim_trace *t = random_trace(3 + trial % 6);
        opt_graph *g = extract(t, OPT_COARSEN_OUTPUTS);
        opt_graph *ops = extract(t, OPT_COARSEN_NONE);
        uint64_t base = sim_trace_baseline(t)->memory;
        ck_assert_msg(opt_graph_peak(g) == base, "trial %d: peak %llu, baseline %llu", trial,
                      (unsigned long long)opt_graph_peak(g), (unsigned long long)base);
        /* the authors' graph never frees earlier */
        ck_assert_uint_ge(opt_graph_peak(ops), base);
        multi += opt_graph_peak(ops) > base;
        ck_assert_double_eq_tol(opt_graph_compute(g), opt_graph_compute(ops), 1e-12);
        if (g->n <= 12) {
            uint64_t floor = opt_graph_floor(g);
            uint64_t budgets[2] = {floor + (base - floor) / 3, base};
            for (int k = 0; k < 2; k++) {
                opt_request rq = {.budget = budgets[k], .mode = OPT_MODE_MILP};
                opt_answer a;
                gms_error err = {0};
                ck_assert_msg(opt_solve(g, &rq, &a, &err) == 0, "%s", err.msg);
                if (k == 1)
                    ck_assert_msg(a.status == OPT_STATUS_OPTIMAL &&
                                  fabs(a.objective - opt_graph_compute(g)) < 1e-9,
                                  "trial %d: at the baseline peak %s", trial,
                                  opt_status_name(a.status));
                if (a.status == OPT_STATUS_OPTIMAL) {
                    opt_replay r;
                    ck_assert_msg(opt_replay_run(g, a.schedule, 1, &r, &err) == 0, "%s", err.msg);
                    ck_assert_msg(fabs(r.compute - a.objective) <= 1e-9 * fmax(1, a.objective),
                                  "replayed %.12g, solver %.12g", r.compute, a.objective);
                    ck_assert_uint_le(r.peak, budgets[k]);
                    solved++;
                    opt_replay_clear(&r);
                }
                opt_answer_clear(&a);
            }
        }
        opt_graph_free(ops);
        opt_graph_free(g);
        sim_trace_free(t);
    }
    ck_assert_int_gt(solved, 30);
    ck_assert_int_gt(multi, 5); /* the extension mattered on some traces */
}
END_TEST

/* The node map (issue 26: a solved schedule's peak by category): at every coarsening each
 * node's storages are exactly its bytes, the constant storages exactly constant_bytes, no
 * storage counted twice, and each node ends at an op of the iteration, in order. */
static void check_map(const sim_trace *t, opt_coarsen c, int trial)
{
    opt_graph *g = NULL;
    opt_node_map *m = NULL;
    gms_error err = {0};
    ck_assert_msg(opt_graph_from_trace_map(t, 0, c, &g, &m, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(m->n, g->n);
    uint8_t *seen = calloc(t->n_storages + 1, 1);
    ck_assert_ptr_nonnull(seen);
    for (uint32_t v = 0; v < g->n; v++) {
        uint64_t sum = 0;
        for (uint32_t k = m->st_off[v]; k < m->st_off[v + 1]; k++) {
            ck_assert_uint_lt(m->st[k], t->n_storages);
            ck_assert_msg(!seen[m->st[k]]++, "trial %d %s: storage %u twice", trial,
                          opt_coarsen_name(c), m->st[k]);
            sum += t->storages[m->st[k]].size;
        }
        ck_assert_msg(sum == g->nodes[v].bytes, "trial %d %s node %u: storages %llu, bytes %llu",
                      trial, opt_coarsen_name(c), v, (unsigned long long)sum,
                      (unsigned long long)g->nodes[v].bytes);
        ck_assert_uint_lt(m->last_op[v], t->n_ops);
        if (v)
            ck_assert_uint_ge(m->last_op[v], m->last_op[v - 1]);
    }
    uint64_t sum = 0;
    for (uint32_t k = 0; k < m->n_constants; k++) {
        ck_assert_uint_lt(m->constants[k], t->n_storages);
        ck_assert_msg(!seen[m->constants[k]]++, "trial %d: constant storage %u twice", trial,
                      m->constants[k]);
        sum += t->storages[m->constants[k]].size;
    }
    ck_assert_msg(sum == g->constant_bytes, "trial %d %s: constants %llu, constant_bytes %llu",
                  trial, opt_coarsen_name(c), (unsigned long long)sum,
                  (unsigned long long)g->constant_bytes);
    free(seen);
    opt_node_map_free(m);
    opt_graph_free(g);
}

START_TEST(test_node_map_places_every_byte_of_the_graph_once)
{
    for (int scopes = 0; scopes < 2; scopes++) {
        sim_trace *t = step(scopes);
        for (int c = 0; c < 3; c++)
            check_map(t, (opt_coarsen)c, -1 - scopes);
        sim_trace_free(t);
    }
    for (int trial = 0; trial < 40; trial++) {
        sim_trace *t = random_trace(4 + trial % 20);
        for (int c = 0; c < 3; c++)
            check_map(t, (opt_coarsen)c, trial);
        sim_trace_free(t);
    }
}
END_TEST

/* A heuristic's run as a schedule of the op-level graph (issue 28, item 3): on random traces
 * at tight budgets, every run that completes maps onto a correct schedule that computes no
 * more than the run did and replays to its own cost; and a MILP seeded with it never answers
 * worse than it when it fits the program's memory. */
START_TEST(test_a_heuristic_run_maps_onto_a_schedule_no_costlier_than_the_run)
{
    int mapped = 0, recomputing = 0, solved = 0;
    const char *pols[] = {"dtr", "lru", "msps"};
    for (int trial = 0; trial < 30; trial++) {
        sim_trace *t = random_trace(8 + trial % 20);
        for (int c = 0; c < 2; c++) {
            opt_coarsen co = c ? OPT_COARSEN_OUTPUTS : OPT_COARSEN_NONE;
            opt_graph *g = extract(t, co);
            opt_run_seed *m = NULL;
            gms_error err = {0};
            ck_assert_msg(opt_run_seed_new(t, 0, co, &m, &err) == 0, "%s", err.msg);
            for (int k = 0; k < 6; k++) {
                sim_config cfg;
                sim_config_init(&cfg);
                cfg.policy = pol_find(pols[k % 3]);
                cfg.budget = sim_budget_for_ratio(t, k < 3 ? 0.6 : 0.8);
                cfg.observer = opt_run_seed_observe;
                cfg.observer_ctx = m;
                opt_run_seed_reset(m);
                sim_result res;
                ck_assert_msg(sim_run(t, &cfg, &res, &err) == 0, "%s", err.msg);
                opt_schedule *s = opt_schedule_new(g->n);
                int rc = opt_run_seed_schedule(m, g, s);
                if (res.status != SIM_OK) {
                    opt_schedule_free(s);
                    continue;
                }
                ck_assert_msg(rc == 0, "trial %d: an ok run did not map", trial);
                char why[200];
                ck_assert_msg(opt_schedule_check(g, s, why, sizeof why) == 0, "trial %d: %s",
                              trial, why);
                /* the run's compute in ms: its clock less the start (1 ns) */
                double run_ms = (double)(res.clock - 1) / 1e6, cost = opt_schedule_cost(g, s);
                ck_assert_msg(cost <= run_ms + 1e-9, "trial %d %s: schedule %.9g ms, run %.9g ms",
                              trial, pols[k % 3], cost, run_ms);
                mapped++;
                recomputing += cost > opt_graph_compute(g) + 1e-12;
                opt_replay r;
                ck_assert_msg(opt_replay_run(g, s, 0, &r, &err) == 0, "%s", err.msg);
                ck_assert(fabs(r.compute - cost) <= 1e-9 * fmax(1, cost));
                opt_replay_clear(&r);
                uint64_t act = cfg.budget > g->constant_bytes ? cfg.budget - g->constant_bytes : 0;
                if (c && g->n <= 16 && opt_schedule_peak(g, s) <= act) {
                    const opt_schedule *seeds[1] = {s};
                    const char *names[1] = {pols[k % 3]};
                    opt_request rq = {.budget = cfg.budget, .mode = OPT_MODE_MILP, .seeds = seeds,
                                      .seed_names = names, .n_seeds = 1};
                    opt_answer a;
                    ck_assert_msg(opt_solve(g, &rq, &a, &err) == 0, "%s", err.msg);
                    ck_assert_ptr_nonnull(a.schedule);
                    ck_assert(a.objective <= cost + 1e-9 * fmax(1, cost));
                    ck_assert(a.seeded && a.seed_objective <= cost + 1e-12);
                    ck_assert_ptr_nonnull(a.seed_from);
                    solved++;
                    opt_answer_clear(&a);
                }
                opt_schedule_free(s);
            }
            opt_run_seed_free(m);
            opt_graph_free(g);
        }
        sim_trace_free(t);
    }
    ck_assert_int_gt(mapped, 60);
    ck_assert_int_gt(recomputing, 10); /* the budgets made the runs recompute */
    ck_assert_int_gt(solved, 3);
}
END_TEST

/* Only op-level graphs take a run; an unfinished run maps onto nothing. */
START_TEST(test_a_run_maps_onto_op_level_graphs_only_and_whole)
{
    sim_trace *t = random_trace(12);
    opt_run_seed *m = NULL;
    gms_error err = {0};
    ck_assert_int_eq(opt_run_seed_new(t, 0, OPT_COARSEN_LAYERS, &m, &err), GMS_EINVAL);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(opt_run_seed_new(t, 3, OPT_COARSEN_OUTPUTS, &m, &err), GMS_EINVAL);
    ck_assert_int_eq(opt_run_seed_new(t, 0, OPT_COARSEN_OUTPUTS, &m, &err), 0);
    opt_graph *g = extract(t, OPT_COARSEN_OUTPUTS);
    opt_schedule *s = opt_schedule_new(g->n);
    ck_assert_int_eq(opt_run_seed_schedule(m, g, s), -1); /* nothing recorded */
    opt_schedule_free(s);
    opt_graph_free(g);
    opt_run_seed_free(m);
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
    tcase_add_test(tc, test_outputs_graph_holds_each_storage_until_its_own_reader);
    tcase_add_test(tc, test_outputs_graph_of_views_reads_the_storage_and_the_view_op);
    tcase_add_test(tc, test_outputs_graph_peaks_at_the_baseline_on_random_traces);
    tcase_add_test(tc, test_a_heuristic_run_maps_onto_a_schedule_no_costlier_than_the_run);
    tcase_add_test(tc, test_a_run_maps_onto_op_level_graphs_only_and_whole);
    tcase_add_test(tc, test_node_map_places_every_byte_of_the_graph_once);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
