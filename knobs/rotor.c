/*
 * rotor: Rotor's persistent dynamic program (rotor.h). Each function names the function of the
 * authors' rotor/persistent.py it reproduces; the arithmetic is done in the same order, so
 * that ties break the same way (a leaf checkpoint wins a tie against a chain checkpoint, and
 * among leaves the smallest j: Python's min keeps the first of equal keys).
 */
#include "rotor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rotor_table {
    uint32_t L, mmax;
    size_t stride;   /* mmax + 1 */
    double *opt;     /* [pair(i, l)][m] */
    uint32_t *what;  /* same layout: 0 chain, j leaf */
    uint32_t *fin;   /* [pair(i, l)]: the least m with a finite opt (mmax + 1: none) */
};

rotor_chain *rotor_chain_new(uint32_t length)
{
    rotor_chain *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    size_t n = (size_t)length + 1;
    c->length = length;
    c->fw = calloc(n, sizeof *c->fw);
    c->bw = calloc(n, sizeof *c->bw);
    c->cw = calloc(n, sizeof *c->cw);
    c->cbw = calloc(n, sizeof *c->cbw);
    c->fwd_tmp = calloc(n, sizeof *c->fwd_tmp);
    c->bwd_tmp = calloc(n, sizeof *c->bwd_tmp);
    if (!c->fw || !c->bw || !c->cw || !c->cbw || !c->fwd_tmp || !c->bwd_tmp) {
        rotor_chain_free(c);
        return NULL;
    }
    return c;
}

void rotor_chain_free(rotor_chain *c)
{
    if (!c)
        return;
    free(c->fw), free(c->bw), free(c->cw), free(c->cbw), free(c->fwd_tmp), free(c->bwd_tmp);
    free(c);
}

static uint64_t ceil_div(uint64_t v, uint64_t u)
{
    return v / u + (v % u != 0);
}

/* Rotor's Checkpointable.compute_sequence: mem_unit = mem_limit // mem_slots, then every
 * size of the chain in whole units, rounded up. */
rotor_chain *rotor_discretize(const rotor_chain *c, uint64_t budget, uint32_t slots,
                              uint64_t *unit)
{
    rotor_chain *d = rotor_chain_new(c->length);
    if (!d)
        return NULL;
    uint64_t u = slots ? budget / slots : budget;
    if (u == 0)
        u = 1;
    size_t n = (size_t)c->length + 1;
    memcpy(d->fw, c->fw, n * sizeof *d->fw);
    memcpy(d->bw, c->bw, n * sizeof *d->bw);
    for (size_t i = 0; i < n; i++) {
        d->cw[i] = ceil_div(c->cw[i], u);
        d->cbw[i] = ceil_div(c->cbw[i], u);
        d->fwd_tmp[i] = ceil_div(c->fwd_tmp[i], u);
        d->bwd_tmp[i] = ceil_div(c->bwd_tmp[i], u);
    }
    if (unit)
        *unit = u;
    return d;
}

/* Index of the pair (i, l), 0 <= i <= l <= L, in a triangle of (L + 1) rows. */
static size_t pair(uint32_t L, uint32_t i, uint32_t l)
{
    size_t n = (size_t)L + 1;
    return (size_t)i * n - (size_t)i * ((size_t)i - 1) / 2 + (l - i);
}

static size_t pairs(uint32_t L)
{
    size_t n = (size_t)L + 1;
    return n * (n + 1) / 2;
}

/* The chain's arrays with the authors' "+ [0]" padding: index L + 1 reads 0. */
static uint64_t at(const uint64_t *a, uint32_t L, uint32_t i)
{
    return i <= L ? a[i] : 0;
}

/* One leaf candidate j over n memories: best = min(best, pre + A + B), keeping the first
 * minimum (strict <). Restrict pointers and one element type let the compiler vectorize it:
 * the table's O(slots x L^3) work is all here. */
static void leaf_pass(double *restrict best, double *restrict bestj, const double *restrict A,
                      const double *restrict B, double pre, double j, uint32_t n)
{
    for (uint32_t m = 0; m < n; m++) {
        double v = pre + A[m] + B[m], b = best[m], bj = bestj[m];
        int lt = isless(v, b); /* quiet: lets the compiler if-convert and vectorize */
        bestj[m] = lt ? j : bj;
        best[m] = lt ? v : b;
    }
}

/* compute_table(chain, mmax). */
int rotor_table_build(const rotor_chain *c, uint32_t mmax, size_t max_bytes, rotor_table **out,
                      gms_error *err)
{
    *out = NULL;
    uint32_t L = c->length;
    size_t stride = (size_t)mmax + 1, np = pairs(L);
    if (np > SIZE_MAX / stride / (sizeof(double) + sizeof(uint32_t)) ||
        np * stride * (sizeof(double) + sizeof(uint32_t)) > max_bytes)
        return gms_error_set(err, GMS_EINVAL,
                             "rotor: the table for %u layers and %u memory slots needs more "
                             "than %zu MiB; give fewer slots (slots=N)",
                             L, mmax, max_bytes >> 20);
    rotor_table *t = calloc(1, sizeof *t);
    double *best = malloc(stride * sizeof *best);
    double *bestj = malloc(stride * sizeof *bestj);
    uint32_t *first = malloc(stride * sizeof *first);
    if (t) {
        t->opt = malloc(np * stride * sizeof *t->opt);
        t->what = calloc(np * stride, sizeof *t->what);
        t->fin = malloc(np * sizeof *t->fin);
    }
    if (!t || !t->opt || !t->what || !t->fin || !best || !bestj || !first) {
        free(best), free(bestj), free(first);
        rotor_table_free(t);
        return gms_error_set(err, GMS_ENOMEM, "rotor: out of memory for the table");
    }
    t->L = L, t->mmax = mmax, t->stride = stride;

    /* Borders, lmax - lmin = 0: Equation (1). */
    for (uint32_t i = 0; i <= L; i++) {
        uint64_t a = at(c->cw, L, i + 1) + at(c->cbw, L, i + 1) + c->fwd_tmp[i];
        uint64_t b = c->cw[i] + at(c->cw, L, i + 1) + at(c->cbw, L, i + 1) + c->bwd_tmp[i];
        uint64_t limit = a > b ? a : b;
        double *o = t->opt + pair(L, i, i) * stride;
        for (uint32_t m = 0; m <= mmax; m++)
            o[m] = m >= limit ? c->fw[i] + c->bw[i] : INFINITY;
        t->fin[pair(L, i, i)] = limit > mmax ? mmax + 1 : (uint32_t)limit;
    }
    /* Everything else, for one (i, l) every m at once, so the inner loop runs over contiguous
     * memory. The authors loop m outermost, then lmax - lmin; (i, l) reads (j, l) for j > i
     * and (i, k) for k < l, so going l up and i down computes the same values, with the
     * rows (j, l) of the current l still in cache. */
    for (uint32_t l = 1; l <= L; l++) {
        for (uint32_t i = l; i-- > 0;) {
            uint64_t mmin = at(c->cw, L, l + 1) + c->cw[i + 1] + c->fwd_tmp[i];
            for (uint32_t j = i + 1; j < l; j++) {
                uint64_t v = at(c->cw, L, l + 1) + c->cw[j] + c->cw[j + 1] + c->fwd_tmp[j];
                if (v > mmin)
                    mmin = v;
            }
            double *o = t->opt + pair(L, i, l) * stride;
            uint32_t *w = t->what + pair(L, i, l) * stride;
            uint32_t m0 = mmin > mmax ? mmax + 1 : (uint32_t)mmin;
            for (uint32_t m = 0; m < m0 && m <= mmax; m++)
                o[m] = INFINITY, w[m] = 0;
            t->fin[pair(L, i, l)] = mmax + 1;
            if (m0 > mmax)
                continue;
            /* leaf_checkpoints: (j, sum(fw[i:j]) + opt[m-cw[j]][j][l] + opt[m][i][j-1]) for
             * every j with m >= cw[j]; min keeps the first of equal values. The loop over m
             * is branch-free (strict <, j ascending); first[m], the first j that qualifies,
             * is the answer where every candidate is infinite. */
            for (uint32_t m = m0; m <= mmax; m++)
                best[m] = INFINITY, bestj[m] = 0, first[m] = 0;
            uint64_t cmin = (uint64_t)mmax + 1;
            double pre = 0;
            for (uint32_t j = i + 1; j <= l; j++) {
                pre += c->fw[j - 1]; /* Python's sum: 0 + fw[i] + ... in order */
                const double *A = t->opt + pair(L, j, l) * stride;
                const double *B = t->opt + pair(L, i, j - 1) * stride;
                uint64_t cj = c->cw[j];
                uint32_t from = cj > m0 ? (cj > mmax ? mmax + 1 : (uint32_t)cj) : m0;
                if (cj < cmin) {
                    for (uint64_t m = from; m < cmin; m++)
                        first[m] = j;
                    cmin = cj;
                }
                /* below either part's first finite m every candidate is infinite and cannot
                 * win a strict < (first[] covers the case where all are) */
                uint64_t fa = t->fin[pair(L, j, l)] + cj, fb = t->fin[pair(L, i, j - 1)];
                if (fa > from)
                    from = fa > mmax ? mmax + 1 : (uint32_t)fa;
                if (fb > from)
                    from = fb > mmax ? mmax + 1 : (uint32_t)fb;
                if (from <= mmax)
                    leaf_pass(best + from, bestj + from, A + (from - cj), B + from, pre,
                              (double)j, mmax + 1 - from);
            }
            for (uint32_t m = m0; m <= mmax; m++)
                if (bestj[m] == 0)
                    bestj[m] = first[m];
            /* chain_checkpoint = opt[m][i][i] + opt[m - cbw[i+1]][i+1][l]; leaf on a tie */
            const double *Oii = t->opt + pair(L, i, i) * stride;
            const double *Orest = t->opt + pair(L, i + 1, l) * stride;
            uint64_t cb = c->cbw[i + 1];
            for (uint32_t m = m0; m <= mmax; m++) {
                double chain = m >= cb ? Oii[m] + Orest[m - cb] : INFINITY;
                if (bestj[m] != 0 && best[m] <= chain)
                    o[m] = best[m], w[m] = (uint32_t)bestj[m];
                else
                    o[m] = chain, w[m] = 0;
                if (t->fin[pair(L, i, l)] > mmax && isfinite(o[m]))
                    t->fin[pair(L, i, l)] = m;
            }
        }
    }
    free(best), free(bestj), free(first);
    *out = t;
    return 0;
}

void rotor_table_free(rotor_table *t)
{
    if (!t)
        return;
    free(t->opt), free(t->what), free(t->fin);
    free(t);
}

double rotor_table_opt(const rotor_table *t, uint32_t m, uint32_t i, uint32_t l)
{
    return t->opt[pair(t->L, i, l) * t->stride + m];
}

uint32_t rotor_table_what(const rotor_table *t, uint32_t m, uint32_t i, uint32_t l)
{
    return t->what[pair(t->L, i, l) * t->stride + m];
}

static int push(rotor_sequence *s, rotor_op_kind k, uint32_t index)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        rotor_op *p = realloc(s->ops, cap * sizeof *p);
        if (!p)
            return -1;
        s->ops = p, s->cap = cap;
    }
    s->ops[s->n++] = (rotor_op){k, index};
    return 0;
}

/* persistent_rec(chain, lmin, lmax, cmem, opt_table). The table was checked finite at the
 * top; every sub-call it selects is finite by construction. */
static int rec(const rotor_chain *c, const rotor_table *t, uint32_t lmin, uint32_t lmax,
               uint32_t cmem, rotor_sequence *s)
{
    if (lmin == lmax) {
        if (lmin == c->length)
            return push(s, ROTOR_LOSS, lmin);
        if (push(s, ROTOR_FWD_ENABLE, lmin) || push(s, ROTOR_BACKWARD, lmin))
            return -1;
        return 0;
    }
    uint32_t j = rotor_table_what(t, cmem, lmin, lmax);
    if (j == 0) {
        if (push(s, ROTOR_FWD_ENABLE, lmin) ||
            rec(c, t, lmin + 1, lmax, cmem - (uint32_t)c->cbw[lmin + 1], s) ||
            push(s, ROTOR_BACKWARD, lmin))
            return -1;
        return 0;
    }
    if (push(s, ROTOR_FWD_CHECK, lmin))
        return -1;
    for (uint32_t k = lmin + 1; k < j; k++)
        if (push(s, ROTOR_FWD_NOGRAD, k))
            return -1;
    if (rec(c, t, j, lmax, cmem - (uint32_t)c->cw[j], s) || rec(c, t, lmin, j - 1, cmem, s))
        return -1;
    return 0;
}

uint32_t rotor_min_memory(const rotor_chain *c, const rotor_table *t)
{
    for (uint32_t m = 0; m <= t->mmax; m++)
        if (isfinite(rotor_table_opt(t, m, 0, c->length)))
            return m + (uint32_t)c->cw[0];
    return UINT32_MAX;
}

/* persistent(chain, memory_limit): persistent_rec(chain, 0, L, memory_limit - cw[0]). */
int rotor_persistent(const rotor_chain *c, const rotor_table *t, uint32_t memory,
                     rotor_sequence *out, gms_error *err)
{
    memset(out, 0, sizeof *out);
    if (memory <= c->cw[0])
        return gms_error_set(err, GMS_EINVAL,
                             "rotor: %u memory slots leave nothing beside the chain's input "
                             "(%llu slots)", memory, (unsigned long long)c->cw[0]);
    uint32_t cmem = memory - (uint32_t)c->cw[0];
    if (cmem > t->mmax)
        cmem = t->mmax;
    if (!isfinite(rotor_table_opt(t, cmem, 0, c->length))) {
        uint32_t least = rotor_min_memory(c, t);
        if (least == UINT32_MAX)
            return gms_error_set(err, GMS_EINVAL,
                                 "rotor: no persistent schedule of the chain fits in %u slots "
                                 "(nor in any up to the table's %u)", memory, t->mmax);
        return gms_error_set(err, GMS_EINVAL,
                             "rotor: no persistent schedule of the chain fits in %u slots; "
                             "the least that fits is %u", memory, least);
    }
    if (rec(c, t, 0, c->length, cmem, out) != 0) {
        rotor_sequence_clear(out);
        return gms_error_set(err, GMS_ENOMEM, "rotor: out of memory for the sequence");
    }
    out->makespan = rotor_sequence_time(c, out);
    return 0;
}

void rotor_sequence_clear(rotor_sequence *s)
{
    free(s->ops);
    memset(s, 0, sizeof *s);
}

double rotor_sequence_time(const rotor_chain *c, const rotor_sequence *s)
{
    double t = 0;
    for (size_t k = 0; k < s->n; k++) {
        const rotor_op *o = &s->ops[k];
        switch (o->kind) {
        case ROTOR_FWD_ENABLE:
        case ROTOR_FWD_CHECK:
        case ROTOR_FWD_NOGRAD:
            t += c->fw[o->index];
            break;
        case ROTOR_BACKWARD:
            t += c->bw[o->index];
            break;
        case ROTOR_LOSS:
            t += c->fw[c->length] + c->bw[c->length];
            break;
        }
    }
    return t;
}
