/* knobs/rotor: Rotor's persistent dynamic program against an independent brute force over
 * every persistent schedule of small chains (in the authors' chain model and operationally),
 * its tie rules, its discretization, and Checkmate's optimum on the same chain graph. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "opt_graph.h"
#include "opt_solve.h"
#include "rotor.h"

/* ---- a small random chain ---- */

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static rotor_chain *random_chain(uint32_t L, uint32_t *seed, int tmps)
{
    rotor_chain *c = rotor_chain_new(L);
    ck_assert_ptr_nonnull(c);
    for (uint32_t i = 0; i <= L; i++) {
        c->fw[i] = 1 + rnd(seed) % 9;
        c->bw[i] = 1 + rnd(seed) % 9;
        c->cw[i] = 1 + rnd(seed) % 4;
        if (i > 0)
            c->cbw[i] = c->cw[i] + rnd(seed) % 5;
        c->fwd_tmp[i] = tmps ? rnd(seed) % 3 : 0;
        c->bwd_tmp[i] = tmps ? rnd(seed) % 3 : 0;
    }
    return c;
}

/* ---- the brute force: every persistent schedule of segment (i, l) as a tree ---- */

/* A schedule tree node: kind 0 single (i == l), 1 chain (ForwardEnable i, then sub), 2 leaf
 * at j (ForwardCheck i, ForwardNograd i+1..j-1, right = (j, l), left = (i, j - 1)). */
typedef struct tree {
    int kind;
    uint32_t i, l, j;
    struct tree *a, *b;
} tree;

typedef struct forest {
    tree **t;
    size_t n, cap;
} forest;

/* every node made, so reset_memo can free them (trees share subtrees) */
static tree **made;
static size_t n_made, cap_made;

static tree *node(int kind, uint32_t i, uint32_t l, uint32_t j, tree *a, tree *b)
{
    tree *t = malloc(sizeof *t);
    ck_assert_ptr_nonnull(t);
    *t = (tree){kind, i, l, j, a, b};
    if (n_made == cap_made) {
        cap_made = cap_made ? 2 * cap_made : 256;
        made = realloc(made, cap_made * sizeof *made);
        ck_assert_ptr_nonnull(made);
    }
    made[n_made++] = t;
    return t;
}

static void add(forest *f, tree *t)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 16;
        f->t = realloc(f->t, f->cap * sizeof *f->t);
        ck_assert_ptr_nonnull(f->t);
    }
    f->t[f->n++] = t;
}

/* All trees of (i, l), memoized per (i, l); reset_memo frees them. */
static forest memo[8][8];
static int memo_done[8][8];

static forest *all(uint32_t i, uint32_t l)
{
    if (memo_done[i][l])
        return &memo[i][l];
    forest *f = &memo[i][l];
    if (i == l) {
        add(f, node(0, i, l, 0, NULL, NULL));
    } else {
        forest *sub = all(i + 1, l);
        for (size_t k = 0; k < sub->n; k++)
            add(f, node(1, i, l, 0, sub->t[k], NULL));
        for (uint32_t j = i + 1; j <= l; j++) {
            forest *r = all(j, l), *le = all(i, j - 1);
            for (size_t x = 0; x < r->n; x++)
                for (size_t y = 0; y < le->n; y++)
                    add(f, node(2, i, l, j, r->t[x], le->t[y]));
        }
    }
    memo_done[i][l] = 1;
    return f;
}

static void reset_memo(void)
{
    for (int i = 0; i < 8; i++)
        for (int l = 0; l < 8; l++)
            free(memo[i][l].t);
    for (size_t k = 0; k < n_made; k++)
        free(made[k]);
    free(made);
    made = NULL, n_made = cap_made = 0;
    memset(memo_done, 0, sizeof memo_done);
    memset(memo, 0, sizeof memo);
}

static uint64_t Z(const rotor_chain *c, const uint64_t *a, uint32_t i)
{
    return i <= c->length ? a[i] : 0;
}

/* The paper's chain model, written from its equations (not from rotor.c): a segment (i, l)
 * runs in memory m when its own forwards fit (the segment's incoming gradient, the output
 * being made, the temporaries) and its parts fit in what is left to each. */
static int fits_model(const rotor_chain *c, const tree *t, uint64_t m)
{
    uint32_t i = t->i, l = t->l;
    if (t->kind == 0) {
        uint64_t f = Z(c, c->cw, i + 1) + Z(c, c->cbw, i + 1) + c->fwd_tmp[i];
        uint64_t b = c->cw[i] + Z(c, c->cw, i + 1) + Z(c, c->cbw, i + 1) + c->bwd_tmp[i];
        return m >= f && m >= b;
    }
    uint64_t need = Z(c, c->cw, l + 1) + c->cw[i + 1] + c->fwd_tmp[i];
    for (uint32_t j = i + 1; j < l; j++) {
        uint64_t v = Z(c, c->cw, l + 1) + c->cw[j] + c->cw[j + 1] + c->fwd_tmp[j];
        need = v > need ? v : need;
    }
    if (m < need)
        return 0;
    if (t->kind == 1) {
        tree single = {0, i, i, 0, NULL, NULL};
        return m >= c->cbw[i + 1] && fits_model(c, &single, m) &&
               fits_model(c, t->a, m - c->cbw[i + 1]);
    }
    return m >= c->cw[t->j] && fits_model(c, t->a, m - c->cw[t->j]) && fits_model(c, t->b, m);
}

static double tree_time(const rotor_chain *c, const tree *t)
{
    uint32_t i = t->i;
    if (t->kind == 0)
        return c->fw[i] + c->bw[i];
    if (t->kind == 1)
        return c->fw[i] + c->bw[i] + tree_time(c, t->a);
    double s = 0;
    for (uint32_t k = i; k < t->j; k++)
        s += c->fw[k];
    return s + tree_time(c, t->a) + tree_time(c, t->b);
}

/* The operations of a tree, as persistent_rec emits them. */
static void tree_ops(const rotor_chain *c, const tree *t, rotor_sequence *s)
{
#define PUSH(k, x)                                                                       \
    do {                                                                                 \
        if (s->n == s->cap) {                                                            \
            s->cap = s->cap ? 2 * s->cap : 32;                                           \
            s->ops = realloc(s->ops, s->cap * sizeof *s->ops);                           \
        }                                                                                \
        s->ops[s->n++] = (rotor_op){(k), (x)};                                           \
    } while (0)
    if (t->kind == 0) {
        if (t->i == c->length) {
            PUSH(ROTOR_LOSS, t->i);
        } else {
            PUSH(ROTOR_FWD_ENABLE, t->i);
            PUSH(ROTOR_BACKWARD, t->i);
        }
    } else if (t->kind == 1) {
        PUSH(ROTOR_FWD_ENABLE, t->i);
        tree_ops(c, t->a, s);
        PUSH(ROTOR_BACKWARD, t->i);
    } else {
        PUSH(ROTOR_FWD_CHECK, t->i);
        for (uint32_t k = t->i + 1; k < t->j; k++)
            PUSH(ROTOR_FWD_NOGRAD, k);
        tree_ops(c, t->a, s);
        tree_ops(c, t->b, s);
    }
#undef PUSH
}

/* Operational memory of a sequence: what is resident, op by op (x_0 included). Each forward
 * needs its input x_i (alone, or inside xbar_i); ForwardNograd frees its input; Backward(i)
 * needs xbar_{i+1}, delta_{i+1} and x_i, makes delta_i and frees the other three (x_i only
 * where it is held alone); the Loss makes delta_L and frees x_L. -1 when an op lacks an
 * input. */
static int64_t op_peak(const rotor_chain *c, const rotor_sequence *s)
{
    uint32_t L = c->length;
    int x[10] = {0}, xb[10] = {0}, dl[10] = {0};
    ck_assert_uint_le(L, 8);
    x[0] = 1;
    uint64_t cur = c->cw[0], peak = cur;
#define AVAIL(i) (x[i] || xb[i])
#define PEAK(v) (peak = (v) > peak ? (v) : peak)
    for (size_t k = 0; k < s->n; k++) {
        uint32_t i = s->ops[k].index;
        switch (s->ops[k].kind) {
        case ROTOR_FWD_ENABLE:
            if (!AVAIL(i))
                return -1;
            PEAK(cur + c->cbw[i + 1] + c->fwd_tmp[i]);
            xb[i + 1] = 1, cur += c->cbw[i + 1];
            break;
        case ROTOR_FWD_CHECK:
        case ROTOR_FWD_NOGRAD:
            if (!AVAIL(i))
                return -1;
            PEAK(cur + c->cw[i + 1] + c->fwd_tmp[i]);
            x[i + 1] = 1, cur += c->cw[i + 1];
            if (s->ops[k].kind == ROTOR_FWD_NOGRAD && x[i])
                x[i] = 0, cur -= c->cw[i];
            break;
        case ROTOR_LOSS:
            if (!AVAIL(L))
                return -1;
            PEAK(cur + c->fwd_tmp[L]);
            PEAK(cur + c->cw[L] + c->bwd_tmp[L]);
            dl[L] = 1, cur += c->cw[L];
            if (x[L])
                x[L] = 0, cur -= c->cw[L];
            break;
        case ROTOR_BACKWARD:
            if (!xb[i + 1] || !dl[i + 1] || !AVAIL(i))
                return -1;
            PEAK(cur + c->cw[i] + c->bwd_tmp[i]);
            dl[i] = 1, cur += c->cw[i];
            xb[i + 1] = 0, cur -= c->cbw[i + 1];
            dl[i + 1] = 0, cur -= c->cw[i + 1];
            if (x[i])
                x[i] = 0, cur -= c->cw[i];
            break;
        }
    }
#undef AVAIL
#undef PEAK
    return (int64_t)peak;
}

static rotor_table *table(const rotor_chain *c, uint32_t mmax)
{
    rotor_table *t = NULL;
    gms_error err = {0};
    ck_assert_msg(rotor_table_build(c, mmax, (size_t)1 << 30, &t, &err) == 0, "%s", err.msg);
    return t;
}

/* On 300 random chains of 1 to 5 layers, with temporaries, at every memory up to what
 * checkpointing nothing needs: the table's optimum is the cheapest persistent schedule that
 * fits by the paper's equations, infinity exactly when none fits, and the sequence rebuilt
 * from it costs exactly that. */
START_TEST(test_rotor_optimum_equals_brute_force_over_persistent_schedules)
{
    uint32_t seed = 7;
    for (int round = 0; round < 300; round++) {
        uint32_t L = 1 + round % 5;
        rotor_chain *c = random_chain(L, &seed, 1);
        reset_memo();
        forest *f = all(0, L);
        uint32_t mmax = 60;
        rotor_table *t = table(c, mmax);
        for (uint32_t m = 0; m <= mmax; m++) {
            double best = INFINITY;
            for (size_t k = 0; k < f->n; k++)
                if (fits_model(c, f->t[k], m)) {
                    double v = tree_time(c, f->t[k]);
                    best = v < best ? v : best;
                }
            double dp = rotor_table_opt(t, m, 0, L);
            ck_assert_msg(dp == best || fabs(dp - best) < 1e-9,
                          "round %d L %u m %u: dp %g brute %g", round, L, m, dp, best);
            if (isfinite(dp)) {
                rotor_sequence s;
                gms_error err = {0};
                ck_assert_int_eq(rotor_persistent(c, t, m + (uint32_t)c->cw[0], &s, &err), 0);
                ck_assert(fabs(s.makespan - dp) < 1e-9);
                rotor_sequence_clear(&s);
            }
        }
        rotor_table_free(t);
        rotor_chain_free(c);
    }
    reset_memo();
}
END_TEST

/* Without forward temporaries the paper's equations never under-count: every schedule the
 * table returns fits when replayed op by op (x_0 and every held x, xbar and gradient
 * counted), and the best schedule that fits op by op is never dearer than the table's (the
 * equations are conservative where a ForwardEnable's check uses delta_{i+1} for the gradient
 * held). */
START_TEST(test_rotor_schedules_fit_when_replayed_op_by_op)
{
    uint32_t seed = 11;
    /* sanitizer builds: the first 50, each chain length 10 times */
    for (int round = 0; round < gms_test_rounds(200, 50); round++) {
        uint32_t L = 1 + round % 5;
        rotor_chain *c = random_chain(L, &seed, 0);
        for (uint32_t i = 0; i <= L; i++)
            c->bwd_tmp[i] = rnd(&seed) % 3;
        reset_memo();
        forest *f = all(0, L);
        uint32_t mmax = 60;
        rotor_table *t = table(c, mmax);
        for (uint32_t M = (uint32_t)c->cw[0] + 1; M <= mmax; M++) {
            rotor_sequence s;
            gms_error err = {0};
            double dp = INFINITY;
            if (rotor_persistent(c, t, M, &s, &err) == 0) {
                int64_t p = op_peak(c, &s);
                ck_assert_msg(p >= 0 && (uint64_t)p <= M, "round %d M %u: peak %lld", round, M,
                              (long long)p);
                dp = s.makespan;
                rotor_sequence_clear(&s);
            }
            double best = INFINITY;
            for (size_t k = 0; k < f->n; k++) {
                rotor_sequence q = {0};
                tree_ops(c, f->t[k], &q);
                int64_t p = op_peak(c, &q);
                ck_assert_int_ge(p, 0);
                if ((uint64_t)p <= M) {
                    double v = rotor_sequence_time(c, &q);
                    best = v < best ? v : best;
                }
                free(q.ops);
            }
            ck_assert_msg(best <= dp + 1e-9, "round %d M %u: op-by-op best %g > dp %g", round,
                          M, best, dp);
        }
        rotor_table_free(t);
        rotor_chain_free(c);
    }
    reset_memo();
}
END_TEST

/* Ties: a uniform chain of 3 layers where checkpointing anything costs the same as keeping
 * it is impossible (a recomputation costs), so build the tie by hand: with fw = 0 every
 * schedule costs the backward sum; the table must then pick a leaf (leaf wins a tie against
 * a chain checkpoint) at its smallest j (Python's min keeps the first). */
START_TEST(test_rotor_ties_pick_a_leaf_then_the_smallest_j)
{
    rotor_chain *c = rotor_chain_new(3);
    for (uint32_t i = 0; i <= 3; i++) {
        c->fw[i] = 0, c->bw[i] = 1, c->cw[i] = 1;
        if (i > 0)
            c->cbw[i] = 2;
    }
    rotor_table *t = table(c, 40);
    for (uint32_t m = 10; m <= 40; m++) {
        ck_assert_double_eq(rotor_table_opt(t, m, 0, 3), 4);
        ck_assert_uint_eq(rotor_table_what(t, m, 0, 3), 1);
        ck_assert_uint_eq(rotor_table_what(t, m, 1, 3), 2);
    }
    rotor_table_free(t);
    rotor_chain_free(c);
}
END_TEST

/* Plenty of memory and recomputation costs: every layer is ForwardEnable (nothing is
 * recomputed) and the makespan is sum(fw) + sum(bw); the least memory is reported when too
 * little is given. */
START_TEST(test_rotor_with_room_recomputes_nothing_and_too_little_says_the_least)
{
    rotor_chain *c = rotor_chain_new(4);
    for (uint32_t i = 0; i <= 4; i++) {
        c->fw[i] = 1 + i, c->bw[i] = 2, c->cw[i] = 2;
        if (i > 0)
            c->cbw[i] = 5;
    }
    rotor_table *t = table(c, 200);
    rotor_sequence s;
    gms_error err = {0};
    ck_assert_int_eq(rotor_persistent(c, t, 200, &s, &err), 0);
    ck_assert_double_eq(s.makespan, (1 + 2 + 3 + 4 + 5) + 5 * 2);
    for (size_t k = 0; k < s.n; k++)
        ck_assert(s.ops[k].kind == ROTOR_FWD_ENABLE || s.ops[k].kind == ROTOR_BACKWARD ||
                  s.ops[k].kind == ROTOR_LOSS);
    rotor_sequence_clear(&s);
    uint32_t least = rotor_min_memory(c, t);
    ck_assert_uint_lt(least, 200);
    ck_assert_int_eq(rotor_persistent(c, t, least, &s, &err), 0);
    ck_assert_uint_gt(s.makespan, (1 + 2 + 3 + 4 + 5) + 5 * 2);
    rotor_sequence_clear(&s);
    ck_assert_int_eq(rotor_persistent(c, t, least - 1, &s, &err), GMS_EINVAL);
    char want[64];
    snprintf(want, sizeof want, "the least that fits is %u", least);
    ck_assert_msg(strstr(err.msg, want), "%s", err.msg);
    rotor_table_free(t);
    rotor_chain_free(c);
}
END_TEST

/* Discretization as Rotor: unit = budget / slots, sizes rounded up; a table too large for
 * the cap is refused with a way out. */
START_TEST(test_rotor_discretize_rounds_up_and_big_tables_are_refused)
{
    rotor_chain *c = rotor_chain_new(1);
    c->cw[0] = 1000, c->cw[1] = 1001, c->cbw[1] = 2999, c->fwd_tmp[0] = 1;
    uint64_t unit = 0;
    rotor_chain *d = rotor_discretize(c, 500000, 500, &unit);
    ck_assert_uint_eq(unit, 1000);
    ck_assert_uint_eq(d->cw[0], 1);
    ck_assert_uint_eq(d->cw[1], 2);
    ck_assert_uint_eq(d->cbw[1], 3);
    ck_assert_uint_eq(d->fwd_tmp[0], 1);
    rotor_table *t = NULL;
    gms_error err = {0};
    ck_assert_int_eq(rotor_table_build(d, 500, 1000, &t, &err), GMS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "fewer slots"));
    rotor_chain_free(d);
    rotor_chain_free(c);
}
END_TEST

/* The chain as a Checkmate graph, counting memory as Rotor does when xbar = x and there are
 * no temporaries: x_0 constant; F_i (i < L) makes x_{i+1} from x_i; the loss reads x_L and
 * makes delta_L; B_i reads x_i (F_{i-1}), x_{i+1} (F_i) and delta_{i+1} and makes delta_i. */
static opt_graph *checkmate_chain(const rotor_chain *c)
{
    uint32_t L = c->length, n = 2 * L + 1;
    opt_graph *g = opt_graph_new(n);
    gms_error err = {0};
    ck_assert_ptr_nonnull(g);
    g->constant_bytes = c->cw[0];
    char name[32];
    for (uint32_t i = 0; i < L; i++) {
        uint32_t in[1] = {i - 1};
        snprintf(name, sizeof name, "F%u", i);
        ck_assert_int_eq(opt_graph_set_node(g, i, name, c->fw[i], c->cw[i + 1], in, i > 0, &err),
                         0);
    }
    uint32_t lin[1] = {L - 1};
    ck_assert_int_eq(opt_graph_set_node(g, L, "loss", c->fw[L] + c->bw[L], c->cw[L], lin, 1,
                                        &err), 0);
    for (uint32_t k = 0; k < L; k++) {
        uint32_t i = L - 1 - k, node = L + 1 + k, in[3], ni = 0;
        if (i > 0)
            in[ni++] = i - 1;
        in[ni++] = i;
        in[ni++] = node - 1; /* delta_{i+1}: the loss or B_{i+1} */
        snprintf(name, sizeof name, "B%u", i);
        ck_assert_int_eq(opt_graph_set_node(g, node, name, c->bw[i], c->cw[i], in, ni, &err), 0);
    }
    ck_assert_msg(opt_graph_finish(g, &err) == 0, "%s", err.msg);
    return g;
}

/* Checkmate's program is more general (any schedule of the graph, not only persistent ones),
 * so on the same chain, memory counted the same way, Rotor's makespan is never below its
 * optimum; where Checkmate finds nothing, Rotor finds nothing either. The gap is printed. */
START_TEST(test_rotor_is_never_below_checkmate_on_the_same_chain_graph)
{
    uint32_t seed = 3;
    double worst = 0;
    int compared = 0;
    for (int round = 0; round < 9; round++) {
        uint32_t L = 2 + round % 3;
        rotor_chain *c = random_chain(L, &seed, 0);
        for (uint32_t i = 1; i <= L; i++)
            c->cbw[i] = c->cw[i];
        rotor_table *t = table(c, 64);
        opt_graph *g = checkmate_chain(c);
        for (uint32_t M = (uint32_t)c->cw[0] + 1; M <= 40; M += 4) {
            opt_request rq = {.budget = M, .mode = OPT_MODE_MILP};
            opt_answer a;
            gms_error err = {0};
            ck_assert_msg(opt_solve(g, &rq, &a, &err) == 0, "%s", err.msg);
            rotor_sequence s;
            int rc = rotor_persistent(c, t, M, &s, &err);
            if (a.status != OPT_STATUS_OPTIMAL) {
                ck_assert_msg(rc != 0, "round %d M %u: rotor %g, checkmate none", round, M,
                              rc == 0 ? s.makespan : 0.0);
            } else if (rc == 0) {
                ck_assert_msg(s.makespan >= a.objective - 1e-6,
                              "round %d M %u: rotor %g < checkmate %g", round, M, s.makespan,
                              a.objective);
                double gap = (s.makespan - a.objective) / a.objective;
                worst = gap > worst ? gap : worst;
                compared++;
                rotor_sequence_clear(&s);
            }
            opt_answer_clear(&a);
        }
        opt_graph_free(g);
        rotor_table_free(t);
        rotor_chain_free(c);
    }
    ck_assert_int_gt(compared, 25);
    printf("rotor vs checkmate: %d budgets compared, worst gap %.4f%%\n", compared, 100 * worst);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("rotor");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_rotor_optimum_equals_brute_force_over_persistent_schedules);
    tcase_add_test(tc, test_rotor_schedules_fit_when_replayed_op_by_op);
    tcase_add_test(tc, test_rotor_ties_pick_a_leaf_then_the_smallest_j);
    tcase_add_test(tc, test_rotor_with_room_recomputes_nothing_and_too_little_says_the_least);
    tcase_add_test(tc, test_rotor_discretize_rounds_up_and_big_tables_are_refused);
    tcase_add_test(tc, test_rotor_is_never_below_checkmate_on_the_same_chain_graph);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
