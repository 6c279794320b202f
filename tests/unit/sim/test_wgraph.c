/*
 * The region walks' graph (sim/sim_wgraph.c): wide ops (an optimizer's `_foreach_*` step:
 * many arguments, many outputs) become one group per direction, and the region walks, the
 * multi-base sweep and the shared regions of one op's outputs give exactly what walking the
 * plain storage graph gives: every region cost a policy reads and every event agree.
 */
#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "graph.h"
#include "policy.h"
#include "registry.h"
#include "run_hash.h"
#include "sim.h"
#include "sim_internal.h"

/* A random training-like DAG (seeded) with wide ops: most ops take one to three recent
 * tensors; about one in eight is wide (3 to 12 distinct arguments, 2 to 8 outputs, as an
 * optimizer's foreach step), and with arg_views some of those also return a view of an
 * argument (not groupable: the storage graph has no self edges; and the graph is no longer
 * ordered by storage index, so no multi-base sweep); some plain views, releases. */
static sim_trace *wide_dag_trace(uint64_t seed, int n, int arg_views)
{
    sim_trace_builder *b = g_new();
    uint64_t live[4096], x = seed * 2654435761u + 7, next = 5;
    int n_live = 0;
    for (uint64_t c = 1; c <= 4; c++)
        g_constant(b, c, 64);
#define RND(k) ((x = x * 6364136223846793005u + 1442695040888963407u), (x >> 33) % (k))
    live[n_live++] = 1;
    live[n_live++] = 2;
    for (int i = 0; i < n && n_live < 4000; i++) {
        uint64_t in[12];
        gmt_output o[9];
        int k = 1 + (int)RND(3), m = 1;
        int wide = n_live > 16 && RND(8) == 0;
        if (wide) {
            k = 3 + (int)RND(10);
            m = 2 + (int)RND(7);
        }
        if (!wide && n_live > 4 && RND(100) < 10) {
            uint64_t cost = 1 + RND(20);
            g_view(b, "view", cost, next, live[4 + RND((uint64_t)n_live - 4)]);
            live[n_live++] = next++;
            continue;
        }
        int span = wide ? 24 : 6, nk = 0;
        for (int j = 0; j < k; j++) {
            uint64_t t = live[n_live - 1 - (int)RND(n_live < span ? (uint64_t)n_live : (uint64_t)span)];
            int dup = 0;
            for (int q = 0; q < nk; q++)
                dup |= in[q] == t;
            if (!dup)
                in[nk++] = t;
        }
        for (int j = 0; j < m; j++)
            o[j] = (gmt_output){.id = next + (uint64_t)j, .size = 1000 * (1 + RND(100)),
                                .alias_of = -1};
        if (arg_views && wide && RND(4) == 0) { /* a view of an argument among the outputs */
            int32_t a = (int32_t)RND((uint64_t)nk);
            o[m] = (gmt_output){.id = next + (uint64_t)m, .size = 0, .alias_of = a};
            m++;
        }
        g_call_multi(b, wide ? "foreach" : "f", 1 + RND(100), in, nk, o, m);
        for (int j = 0; j < m && n_live < 4000; j++)
            live[n_live++] = next + (uint64_t)j;
        next += (uint64_t)m;
        while (n_live > 12 && RND(100) < 55) { /* release older tensors */
            int j = 2 + (int)RND((uint64_t)n_live - 10);
            g_release(b, live[j]);
            live[j] = live[--n_live];
        }
    }
#undef RND
    return g_finish(b);
}

static uint64_t hashed_run(const sim_trace *t, const sim_policy *p, double ratio, sim_result *res)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = p;
    cfg.budget = sim_budget_for_ratio(t, ratio);
    return hash_cfg_run(t, NULL, &cfg, res);
}

/* A wide op with A distinct argument storages and X output storages is one group entry in
 * each of their lists, its members listed once; an op returning a view of an argument keeps
 * plain edges; the plain storage graph is unchanged. */
START_TEST(test_wide_op_is_one_group_per_storage)
{
    sim_trace_builder *b = g_new();
    uint64_t in[4] = {1, 2, 3, 1};
    for (uint64_t c = 1; c <= 3; c++)
        g_constant(b, c, 64);
    gmt_output o[3] = {{.id = 10, .size = 100, .alias_of = -1},
                       {.id = 11, .size = 100, .alias_of = -1},
                       {.id = 12, .size = 100, .alias_of = -1}};
    g_call_multi(b, "foreach", 5, in, 4, o, 3); /* args 1, 2, 3 (1 twice): 3 x 3 */
    gmt_output ov[3] = {{.id = 20, .size = 100, .alias_of = -1},
                        {.id = 21, .size = 100, .alias_of = -1},
                        {.id = 22, .size = 0, .alias_of = 0}};
    uint64_t in2[3] = {10, 11, 12};
    g_call_multi(b, "foreach_view", 5, in2, 3, ov, 3); /* a view of 10: plain edges */
    sim_trace *t = g_finish(b);
    ck_assert_uint_eq(t->n_groups, 1);
    ck_assert_uint_eq(t->grev_off[1], 3);
    ck_assert_uint_eq(t->gfwd_off[1], 3);
    /* every output of the grouped op: the group as its first reverse entry, its only one
     * but for the first output, whose storage the second op's view also writes (plain
     * edges from the second op's other two arguments) */
    const sim_op *op = NULL;
    for (uint32_t i = 0; i < t->n_ops; i++)
        if (t->ops[i].n_out == 3 && !op)
            op = &t->ops[i];
    ck_assert_ptr_nonnull(op);
    for (uint32_t k = 0; k < 3; k++) {
        uint32_t s = t->tensors[op->out_first + k].storage;
        ck_assert_uint_eq(t->wrev_off[s + 1] - t->wrev_off[s], k == 0 ? 3 : 1);
        ck_assert_uint_eq(t->wrev_adj[t->wrev_off[s]].s, SIM_WG_GROUP | 0);
        /* the second op's two new outputs and the view's own storage (the first output)
         * keep plain forward edges: 2 of them, de-duplicated */
        ck_assert_uint_eq(t->fwd_off[s + 1] - t->fwd_off[s], 2 + (k > 0));
    }
    sim_trace_free(t);
}
END_TEST

/* Grouped and plain walk graphs give the same runs: dtr, msps and a probe reading every
 * region cost, at three budgets, with full and windowed region sets and with deferred and
 * eager reverse rebuilds, on random DAGs with wide ops (one ordered by storage index, so that
 * deferred rebuilds go through the multi-base sweep and share the regions of one op's
 * outputs, one not). */
START_TEST(test_grouped_walks_give_the_plain_graph_runs)
{
    const sim_policy *pols[3] = {pol_find("dtr"), pol_find("msps"), probe_policy()};
    const double ratios[3] = {0.15, 0.3, 0.6};
    int saved_defer = sim_region_defer;
    uint32_t saved_max = sim_region_bitset_max;
    uint64_t evictions = 0, groups = 0;
    for (uint64_t seed = 1; seed <= 2; seed++) {
        sim_wgraph_grouping = 1;
        sim_trace *grouped = wide_dag_trace(seed, 700, seed == 2);
        sim_wgraph_grouping = 0;
        sim_trace *plain = wide_dag_trace(seed, 700, seed == 2);
        sim_wgraph_grouping = 1;
        ck_assert_uint_eq(plain->n_groups, 0);
        ck_assert_int_eq(grouped->graph_ordered, seed == 1); /* seed 1: multi-base sweeps */
        groups += grouped->n_groups;
        for (int w = 0; w < 2; w++)
            for (int d = 0; d < 2; d++)
                for (int p = 0; p < 3; p++)
                    for (int k = 0; k < 3; k++) {
                        sim_region_bitset_max = w ? 0 : saved_max;
                        sim_region_full_ordered = !w; /* ordered graphs too */
                        sim_region_defer = !d;
                        sim_result a, c;
                        uint64_t ha = hashed_run(grouped, pols[p], ratios[k], &a);
                        uint64_t hc = hashed_run(plain, pols[p], ratios[k], &c);
                        ck_assert_msg(ha == hc,
                                      "seed %d %s at %g (windowed %d, eager %d): grouped and "
                                      "plain walks differ",
                                      (int)seed, pols[p]->name, ratios[k], w, d);
                        ck_assert_uint_eq(a.clock, c.clock);
                        ck_assert_uint_eq(a.evictions, c.evictions);
                        evictions += a.evictions;
                    }
        sim_trace_free(grouped);
        sim_trace_free(plain);
    }
    sim_region_defer = saved_defer;
    sim_region_bitset_max = saved_max;
    sim_region_full_ordered = 0;
    ck_assert_uint_gt(groups, 20);
    ck_assert_uint_gt(evictions, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_wgraph");
    TCase *tc = tcase_create("wgraph");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_wide_op_is_one_group_per_storage);
    tcase_add_test(tc, test_grouped_walks_give_the_plain_graph_runs);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
