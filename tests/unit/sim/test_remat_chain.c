/*
 * sim_view_remat_cost_at (sim/sim_view.c): the recomputation a drop will cost when its
 * ancestors are released before its next use (issue 30: capuchin's price counted only the
 * ancestors evicted at the drop and passed its recomputation budget on resnet-small at 0.4).
 */
#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "graph.h"
#include "policy.h"

#define S 1000u

/* c (constant); A = f(c); B = g(A); C = k(B); D = m(B) (B's last read); E = n(A) (A's last
 * read); F = h(C). Ops: c 0, f 1, g 2, k 3, m 4, n 5, h 6. */
static sim_trace *chain_trace(void)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 1);
    g_call(b, "f", 100, 2, S, 1, (uint64_t)1);
    g_call(b, "g", 200, 3, S, 1, (uint64_t)2);
    g_call(b, "k", 300, 4, S, 1, (uint64_t)3);
    g_call(b, "m", 10, 5, 1, 1, (uint64_t)3);
    g_call(b, "n", 10, 6, 1, 1, (uint64_t)2);
    g_call(b, "h", 10, 7, 1, 1, (uint64_t)4);
    return g_finish(b);
}

enum { N_PROBES = 6 };
static uint64_t cost[N_PROBES], bytes[N_PROBES];

/* After k ran, all of A, B, C are material: price C's recomputation at several ops. */
static void probe(const sim_view *v, uint32_t op, void *state)
{
    (void)state;
    if (op != 3)
        return;
    const uint32_t c = 3, cb[2] = {3, 2}, at6[2] = {6, 6};
    const uint32_t at[4] = {6, 5, 4, SIM_NONE};
    for (int i = 0; i < 4; i++)
        cost[i] = sim_view_remat_cost_at(v, &c, &at[i], 1, &bytes[i]);
    cost[4] = sim_view_remat_cost_at(v, cb, at6, 2, &bytes[4]); /* B on both chains */
    cost[5] = sim_view_remat_cost_at(v, cb, at6, 0, &bytes[5]);
}

static uint32_t first(const sim_view *v, void *state)
{
    (void)state;
    return sim_view_pool_first(v);
}

static const sim_policy prober = {
    .name = "test-chain",
    .description = "prices C's chain after k",
    .needs = SIM_NEEDS_SWAP,
    .choose = first,
    .on_access = probe,
};

START_TEST(test_chain_price_counts_ancestors_released_before_the_use)
{
    sim_trace *t = chain_trace();
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = &prober;
    cfg.link_gbps = 1.0;
    sim_result r;
    gms_error err = {0};
    ck_assert_msg(sim_run(t, &cfg, &r, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(r.status, SIM_OK);
    /* at h (6): B and A are read by no op from 6 on, so released: the whole chain */
    ck_assert_uint_eq(cost[0], 600);
    ck_assert_uint_eq(bytes[0], 3 * S);
    /* at n (5): A is still read there, B is not */
    ck_assert_uint_eq(cost[1], 500);
    ck_assert_uint_eq(bytes[1], 2 * S);
    /* at m (4): B is read there, so C's recomputation finds it */
    ck_assert_uint_eq(cost[2], 300);
    ck_assert_uint_eq(bytes[2], S);
    /* no use ahead: only what is evicted now counts, and nothing is */
    ck_assert_uint_eq(cost[3], 300);
    /* two chains through B: each storage once; the constant c (pinned) never */
    ck_assert_uint_eq(cost[4], 600);
    ck_assert_uint_eq(bytes[4], 3 * S);
    ck_assert_uint_eq(cost[5], 0);
    ck_assert_uint_eq(bytes[5], 0);
    sim_trace_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("remat_chain");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_chain_price_counts_ancestors_released_before_the_use);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
