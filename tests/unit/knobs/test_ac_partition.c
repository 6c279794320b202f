/* knobs: torch.compile's activation-memory-budget choice (ac_partition.c) on hand-built joint
 * graphs mirroring PyTorch's own tests (test/functorch/test_ac.py, MemoryBudgetTest), each
 * expected answer worked out from partitioners.py's rules and stated; the knapsack solvers
 * against a brute force; the min cut against a brute force over every cut. */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ac_partition.h"
#include "check_run.h"
#include "knapsack.h"
#include "mincut.h"

#define MB 1048576.0 /* a 512 x 512 float32 tensor: the tests' unit */
#define MAXN 64

/* A joint graph under construction: node k reads args; users derived. */
typedef struct jg {
    ac_node nd[MAXN];
    uint32_t args[MAXN][4], users[MAXN][MAXN];
    uint32_t n;
} jg;

static uint32_t add(jg *g, const char *op, int bw, double size, double runtime, int nargs, ...)
{
    uint32_t i = g->n++;
    ac_node *x = &g->nd[i];
    memset(x, 0, sizeof *x);
    x->op = op, x->backward = bw, x->size = size, x->runtime = runtime;
    va_list ap;
    va_start(ap, nargs);
    for (int k = 0; k < nargs; k++) {
        uint32_t a = va_arg(ap, uint32_t);
        g->args[i][x->n_args++] = a;
        ac_node *p = &g->nd[a];
        g->users[a][p->n_users++] = i;
    }
    va_end(ap);
    x->args = g->args[i];
    return i;
}

static void finish(jg *g)
{
    for (uint32_t i = 0; i < g->n; i++)
        g->nd[i].users = g->users[i];
}

static double saved_mb(const jg *g, const uint8_t *s)
{
    double t = 0;
    for (uint32_t i = 0; i < g->n; i++)
        t += s[i] ? g->nd[i].size : 0;
    return t / MB;
}

static ac_choice choose(const jg *g, double budget, ac_solver solver, uint8_t *saved)
{
    ac_choice c = {.saved = saved};
    gms_error err = {0};
    ck_assert_msg(ac_choose_saved(g->nd, g->n, budget, solver, &c, &err) == 0, "%s", err.msg);
    return c;
}

/* test_rematerializes_cheap: c = cos(x); m = mm(c, w); loss = sum(m). Backward reads c
 * (grad_w = mm(t(c), g)), x and w (inputs). Default cut (budget 1): cos is on the allowlist
 * but materialized in backward (its user t is a view whose user, mm, cannot fuse), so it is
 * banned and saved: 1 MiB. Budget 0.5: the "more aggressive" cut drops that ban, c is
 * recomputed from the input x, nothing is saved: ratio 0 < 0.5, 0 MiB. */
START_TEST(test_ac_rematerializes_cheap)
{
    jg g = {0};
    uint32_t c = add(&g, "cos", 0, MB, 1, 0);
    uint32_t m = add(&g, "mm", 0, MB, 1, 1, c);
    add(&g, "sum", 0, 4, 1, 1, m);
    uint32_t ones = add(&g, "ones_like", 1, 4, 1, 0);
    uint32_t ex = add(&g, "expand", 1, 0, 1, 1, ones);
    uint32_t tc = add(&g, "t", 1, 0, 1, 1, c);
    add(&g, "mm", 1, MB, 1, 2, tc, ex);
    uint32_t gc = add(&g, "mm", 1, MB, 1, 1, ex);
    uint32_t s = add(&g, "sin", 1, MB, 1, 0);
    add(&g, "mul", 1, MB, 1, 2, gc, s);
    finish(&g);
    uint8_t saved[MAXN];
    ac_choice a = choose(&g, 1.0, AC_SOLVER_DP, saved);
    ck_assert_int_eq(a.stage, AC_STAGE_DEFAULT);
    ck_assert(saved[c] && saved_mb(&g, saved) == 1.0);
    a = choose(&g, 0.5, AC_SOLVER_DP, saved);
    ck_assert_int_eq(a.stage, AC_STAGE_MORE_AGGR);
    ck_assert(saved_mb(&g, saved) == 0.0);
    a = choose(&g, 0.0, AC_SOLVER_DP, saved);
    ck_assert_int_eq(a.stage, AC_STAGE_INPUTS);
    ck_assert(saved_mb(&g, saved) == 0.0);
}
END_TEST

/* The chain of test_matmul_even_chain: c0 = cos(x); m_k = mm(c_{k-1}, w_k), c_k = cos(m_k)
 * for k = 1..5; loss = sum(c5). Backward reads m_1..m_5 (sin) and c_0..c_4 (weight
 * gradients). */
static void even_chain(jg *g, uint32_t *m)
{
    uint32_t c = add(g, "cos", 0, MB, 1, 0);
    uint32_t cs[6];
    cs[0] = c;
    for (int k = 1; k <= 5; k++) {
        m[k] = add(g, "mm", 0, MB, 1, 1, cs[k - 1]);
        cs[k] = add(g, "cos", 0, MB, 1, 1, m[k]);
    }
    add(g, "sum", 0, 4, 1, 1, cs[5]);
    uint32_t gr = add(g, "ones_like", 1, 4, 1, 0);
    for (int k = 5; k >= 1; k--) {
        uint32_t sn = add(g, "sin", 1, MB, 1, 1, m[k]);
        uint32_t gm = add(g, "mul", 1, MB, 1, 2, gr, sn);
        uint32_t tc = add(g, "t", 1, 0, 1, 1, cs[k - 1]);
        add(g, "mm", 1, MB, 1, 2, tc, gm);
        gr = add(g, "mm", 1, MB, 1, 1, gm);
    }
    finish(g);
}

/* Expected, as the test states and the source explains: budget 1 keeps the default cut, all
 * ten (cos outputs materialized in backward, mm outputs compute-intensive): 10 MiB; 0.6 to
 * 0.9: the more aggressive cut saves the five mm outputs and recomputes the cos ones (ratio
 * 0.5 < budget): 5 MiB; 0.5 and below: 0.5 is not < 0.5, the knapsack over the five mm
 * outputs (each 0.1 of the range, equal runtimes) saves round(budget * 10) of them, the
 * first in its order on the ties (the dp leaves an item to recompute when its row does not
 * change the value): budget * 10 MiB; 0: the inputs, 0 MiB. */
START_TEST(test_ac_matmul_even_chain)
{
    jg g = {0};
    uint32_t m[6];
    even_chain(&g, m);
    uint8_t saved[MAXN];
    for (int b = 0; b <= 10; b++) {
        ac_choice a = choose(&g, b / 10.0, AC_SOLVER_DP, saved);
        double want = b <= 5 ? b : b < 10 ? 5 : 10;
        ck_assert_msg(saved_mb(&g, saved) == want, "budget %d/10: %g MiB, not %g", b,
                      saved_mb(&g, saved), want);
        if (b > 0 && b <= 5) {
            ck_assert_int_eq(a.stage, AC_STAGE_KNAPSACK);
            ck_assert_uint_eq(a.candidates, 5);
            ck_assert_uint_eq(a.knap_saved, (uint32_t)b);
            for (int k = 1; k <= 5; k++) /* the first b mm outputs in the knapsack's order */
                ck_assert_int_eq(saved[m[k]], k <= b);
        }
    }
    /* greedy adds the normalized sizes in floating point, as greedy_knapsack does: 0.1 +
     * 0.1 + 0.1 > 0.3, so at 0.3 it saves two, where the exact solver (a MILP's tolerance)
     * and the quantized dp save three */
    double w = (MB / 1e9) / (10 * MB / 1e9);
    for (int b = 1; b <= 5; b++) {
        int fit = 0;
        double used = 0;
        while (fit < 5 && used + w <= b / 10.0)
            used += w, fit++;
        choose(&g, b / 10.0, AC_SOLVER_GREEDY, saved);
        ck_assert_msg(saved_mb(&g, saved) == fit, "greedy at %d/10: %g MiB, not %d", b,
                      saved_mb(&g, saved), fit);
        choose(&g, b / 10.0, AC_SOLVER_ILP, saved);
        ck_assert(saved_mb(&g, saved) == b);
    }
}
END_TEST

/* test_prioritize_cheaper_matmul2: three mm(x_i, w_i).cos() with outputs 16, 12, 12 MiB and
 * flops 64, 72, 24 (units of a 512-cube matmul), all three saved eagerly (40 MiB). Budget
 * 28/40: the knapsack (items by size: 16, 12, 12; weights 0.4, 0.3, 0.3) saves the first two
 * (64 + 72 beats 64 + 24 and 72 + 24): 28 MiB, the cheap third recomputed. Budget 16/40:
 * one item fits: 72 flops beat 64, so the 12 MiB one: 12 MiB. */
START_TEST(test_ac_prioritize_cheaper_matmul)
{
    jg g = {0};
    double sz[3] = {16, 12, 12}, fl[3] = {64, 72, 24};
    uint32_t mm[3];
    for (int k = 0; k < 3; k++) {
        mm[k] = add(&g, "mm", 0, sz[k] * MB, fl[k], 0);
        uint32_t c = add(&g, "cos", 0, sz[k] * MB, 1, 1, mm[k]);
        add(&g, "sum", 0, 4, 1, 1, c);
    }
    for (int k = 0; k < 3; k++) {
        uint32_t s = add(&g, "sin", 1, sz[k] * MB, 1, 1, mm[k]);
        add(&g, "mul", 1, sz[k] * MB, 1, 1, s);
    }
    finish(&g);
    uint8_t saved[MAXN];
    choose(&g, 1.0, AC_SOLVER_DP, saved);
    ck_assert(saved_mb(&g, saved) == 40);
    choose(&g, 28.0 / 40, AC_SOLVER_DP, saved);
    ck_assert(saved_mb(&g, saved) == 28 && saved[mm[0]] && saved[mm[1]] && !saved[mm[2]]);
    choose(&g, 16.0 / 40, AC_SOLVER_DP, saved);
    ck_assert(saved_mb(&g, saved) == 12 && saved[mm[1]]);
    /* greedy by flops per byte: 72/12 = 6 first, then 64/16 = 4: at 28/40 the same answer,
     * at 16/40 the same one item */
    choose(&g, 28.0 / 40, AC_SOLVER_GREEDY, saved);
    ck_assert(saved_mb(&g, saved) == 28);
    choose(&g, 16.0 / 40, AC_SOLVER_GREEDY, saved);
    ck_assert(saved_mb(&g, saved) == 12);
}
END_TEST

/* Bans: a MUST_SAVE value is saved at any budget above 0 and never offered to the knapsack;
 * a view is never banned (ban_recomputation_if_allowed returns False for views), so the cut
 * saves what it views instead; a budget outside [0, 1] is refused. */
START_TEST(test_ac_must_save_views_and_bad_budgets)
{
    jg g = {0};
    uint32_t d = add(&g, "native_dropout", 0, 2 * MB, 1, 0);
    uint32_t m = add(&g, "mm", 0, MB, 5, 1, d);
    uint32_t v = add(&g, "view", 0, MB, 0, 1, m);
    g.nd[d].must_save = 1;
    add(&g, "mul", 1, MB, 1, 1, v);
    add(&g, "mul", 1, MB, 1, 1, d);
    finish(&g);
    uint8_t saved[MAXN];
    for (int b = 1; b <= 10; b++) {
        ac_choice a = choose(&g, b / 10.0, AC_SOLVER_DP, saved);
        ck_assert_msg(saved[d], "budget %d/10 recomputes the MUST_SAVE dropout", b);
        ck_assert(!saved[v]);
        ck_assert_uint_le(a.candidates, 1); /* only the mm, never the dropout */
    }
    ac_choice c = {.saved = saved};
    gms_error err = {0};
    ck_assert_int_eq(ac_choose_saved(g.nd, g.n, 1.5, AC_SOLVER_DP, &c, &err), GMS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "0 <= budget <= 1"));
    ck_assert_int_eq(ac_choose_saved(g.nd, g.n, -0.1, AC_SOLVER_DP, &c, &err), GMS_EINVAL);
    ck_assert_int_eq(ac_choose_saved(g.nd, g.n, NAN, AC_SOLVER_DP, &c, &err), GMS_EINVAL);
}
END_TEST

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* Knapsack solvers on 400 random instances of up to 10 items against every subset: the
 * exact solver reaches the optimum; the dp reaches the optimum of the quantized instance
 * (weights round(m * 10000)) to float32 precision and ties to recompute (an item it saves
 * changes the value); greedy fits and never beats the optimum. */
START_TEST(test_knapsack_solvers_against_brute_force)
{
    uint32_t seed = 5;
    for (int round = 0; round < 400; round++) {
        size_t n = 1 + rnd(&seed) % 10;
        double m[10], r[10], cap = (rnd(&seed) % 1000) / 1000.0;
        for (size_t i = 0; i < n; i++) {
            m[i] = (1 + rnd(&seed) % 500) / 1000.0;
            r[i] = rnd(&seed) % 4 == 0 ? 1.0 : (double)(1 + rnd(&seed) % 100);
        }
        double best = 0, bestq = 0;
        for (uint32_t mask = 0; mask < (1u << n); mask++) {
            double w = 0, v = 0;
            long long wq = 0;
            for (size_t i = 0; i < n; i++)
                if (mask >> i & 1)
                    w += m[i], v += r[i], wq += llround(m[i] * 10000);
            if (w <= cap && v > best)
                best = v;
            if (wq <= llround(cap * 10000) && v > bestq)
                bestq = v;
        }
        uint8_t s[10];
        double val;
        gms_error err = {0};
        ck_assert_int_eq(knap_exact(m, r, n, cap, s, &val, &err), 0);
        ck_assert_msg(val >= best - 1e-9, "round %d: exact %g, brute %g", round, val, best);
        ck_assert_int_eq(knap_dp(m, r, n, cap, 1u << 26, s, &val, &err), 0);
        ck_assert_msg(fabs(val - bestq) <= 1e-4 * bestq + 1e-6, "round %d: dp %g, brute %g",
                      round, val, bestq);
        double sv = 0;
        for (size_t i = 0; i < n; i++)
            sv += s[i] ? r[i] : 0;
        ck_assert(fabs(sv - bestq) <= 1e-4 * bestq + 1e-6);
        ck_assert_int_eq(knap_greedy(m, r, n, cap, s, &val, &err), 0);
        double w = 0;
        for (size_t i = 0; i < n; i++)
            w += s[i] ? m[i] : 0;
        ck_assert(w <= cap + 1e-12 && val <= best + 1e-9);
    }
    /* ties go to recompute: two equal items, room for one: the dp saves the first */
    double m2[2] = {0.5, 0.5}, r2[2] = {3, 3};
    uint8_t s2[2];
    double v2;
    gms_error err = {0};
    ck_assert_int_eq(knap_dp(m2, r2, 2, 0.5, 1u << 20, s2, &v2, &err), 0);
    ck_assert(s2[0] == 1 && s2[1] == 0 && v2 == 3);
    /* quantization rounds half to even, as Python's round: 0.00005 * 10000 = 0.5 -> 0 */
    double m3[1] = {0.00005}, r3[1] = {1};
    ck_assert_int_eq(knap_dp(m3, r3, 1, 0, 1u << 20, s2, &v2, &err), 0);
    ck_assert(s2[0] == 1); /* weight 0: saved even with no room */
}
END_TEST

/* The min cut against every cut of small random graphs: the flow equals the cheapest cut,
 * and the sink side is the smallest one (every vertex on it has a residual path to t). */
START_TEST(test_min_cut_against_brute_force)
{
    uint32_t seed = 9;
    for (int round = 0; round < 300; round++) {
        uint32_t n = 3 + rnd(&seed) % 6, s = 0, t = n - 1;
        double cap[8][8] = {{0}};
        mc_graph *g = mc_new(n);
        for (uint32_t u = 0; u < n; u++)
            for (uint32_t v = 0; v < n; v++)
                if (u != v && rnd(&seed) % 3 == 0) {
                    cap[u][v] = rnd(&seed) % 5 == 0 ? INFINITY : (double)(rnd(&seed) % 7);
                    mc_add_edge(g, u, v, cap[u][v]);
                }
        double best = INFINITY;
        uint32_t best_sink = 0; /* the smallest sink side among the cheapest cuts */
        for (uint32_t mask = 0; mask < (1u << n); mask++) {
            if (!(mask >> s & 1) || (mask >> t & 1))
                continue; /* mask = source side */
            double c = 0;
            for (uint32_t u = 0; u < n; u++)
                for (uint32_t v = 0; v < n; v++)
                    if ((mask >> u & 1) && !(mask >> v & 1))
                        c += cap[u][v];
            uint32_t sink = (~mask) & ((1u << n) - 1);
            if (c < best || (c == best && __builtin_popcount(sink) < __builtin_popcount(best_sink)))
                best = c, best_sink = sink;
        }
        double flow;
        uint8_t side[8];
        gms_error err = {0};
        int rc = mc_solve(g, s, t, &flow, side, &err);
        if (isinf(best)) {
            ck_assert_int_eq(rc, GMS_EINVAL);
        } else {
            ck_assert_int_eq(rc, 0);
            ck_assert_msg(flow == best, "round %d: flow %g, cut %g", round, flow, best);
            uint32_t sink = 0;
            for (uint32_t v = 0; v < n; v++)
                sink |= (uint32_t)(!side[v]) << v;
            ck_assert_msg(sink == best_sink, "round %d: sink side %x, not %x", round, sink,
                          best_sink);
        }
        mc_free(g);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("ac_partition");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_ac_rematerializes_cheap);
    tcase_add_test(tc, test_ac_matmul_even_chain);
    tcase_add_test(tc, test_ac_prioritize_cheaper_matmul);
    tcase_add_test(tc, test_ac_must_save_views_and_bad_budgets);
    tcase_add_test(tc, test_knapsack_solvers_against_brute_force);
    tcase_add_test(tc, test_min_cut_against_brute_force);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
