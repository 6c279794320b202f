/*
 * opt_moccasin: MOCCASIN's program for CBC (opt_moccasin.h says how it follows from theirs):
 * the tightened Checkmate program plus one row per node that could be computed more than C
 * times, sum over t > v of R[t,v] <= C - 1; optionally MOCCASIN's single end per interval
 * as inequalities on the frees.
 */
#include "opt_moccasin.h"

#include <stdlib.h>

/* Grows p's row and entry arrays by rows and ents. 0 or -1. */
static int grow(opt_program *p, uint32_t rows, size_t ents)
{
    size_t nr = (size_t)p->n_rows + rows, ne = p->n_ent + ents;
    double *lo = realloc(p->row_lb, (nr + 1) * sizeof *lo);
    if (lo)
        p->row_lb = lo;
    double *hi = realloc(p->row_ub, (nr + 1) * sizeof *hi);
    if (hi)
        p->row_ub = hi;
    size_t *st = realloc(p->row_start, (nr + 2) * sizeof *st);
    if (st)
        p->row_start = st;
    uint32_t *c = realloc(p->ent_col, (ne + 1) * sizeof *c);
    if (c)
        p->ent_col = c;
    double *v = realloc(p->ent_val, (ne + 1) * sizeof *v);
    if (v)
        p->ent_val = v;
    return lo && hi && st && c && v ? 0 : -1;
}

/* The column FREE_E[t, e] (edge e = (i, k), k < t), laid out as opt_program.c lays it. */
static uint32_t col_free(const opt_program *p, uint32_t t, uint32_t e)
{
    return p->f_base + p->f_stage_off[t] + e;
}

/* One interval ends once: in stage t, i is freed after at most one consumer, not at all when
 * kept into t + 1, and only when it is there (computed in t or kept into t):
 *   sum over consumers k < t of FREE_E[t,(i,k)] + S[t+1,i] <= 1
 *   sum over consumers k < t of FREE_E[t,(i,k)] - S[t,i] - R[t,i] <= 0
 * Both hold in every schedule (FREE_E is 1 after i's last consumer in the stage alone); with
 * one consumer they follow from the tightened rows, so they are added for two or more. */
static int add_single_end(opt_program *p, const opt_graph *g, gms_error *err)
{
    uint32_t n = g->n, m = g->n_edges;
    uint32_t *off = calloc((size_t)n + 2, sizeof *off), *out = malloc(((size_t)m + 1) * sizeof *out);
    if (!off || !out) {
        free(off), free(out);
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the program");
    }
    for (uint32_t e = 0; e < m; e++) /* each node's out-edges, by consumer */
        off[g->edges[e].u + 2]++;
    for (uint32_t i = 0; i < n; i++)
        off[i + 2] += off[i + 1];
    for (uint32_t e = 0; e < m; e++)
        out[off[g->edges[e].u + 1]++] = e;
    /* off[i] .. off[i + 1]: i's out-edges, consumers ascending (edges are ordered by v) */
    uint32_t rows = 0;
    size_t ents = 0;
    for (uint32_t t = 0; t < n; t++)
        for (uint32_t i = 0; i < t; i++) {
            uint32_t c = 0;
            for (uint32_t q = off[i]; q < off[i + 1] && g->edges[out[q]].v < t; q++)
                c++;
            if (c >= 2) {
                rows += 2;
                ents += 2 * (size_t)c + 3;
            }
        }
    int rc = 0;
    if (rows && grow(p, rows, ents)) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory building the program");
        goto done;
    }
    for (uint32_t t = 0; t < n; t++)
        for (uint32_t i = 0; i < t; i++) {
            uint32_t c = 0;
            for (uint32_t q = off[i]; q < off[i + 1] && g->edges[out[q]].v < t; q++)
                c++;
            if (c < 2)
                continue;
            for (int side = 0; side < 2; side++) {
                uint32_t r = p->n_rows++;
                p->row_lb[r] = -1e30;
                p->row_ub[r] = side == 0 ? 1 : 0;
                p->row_start[r] = p->n_ent;
                for (uint32_t q = off[i]; q < off[i] + c; q++) {
                    p->ent_col[p->n_ent] = col_free(p, t, out[q]);
                    p->ent_val[p->n_ent++] = 1;
                }
                if (side == 0 && t + 1 < n) {
                    p->ent_col[p->n_ent] = opt_col_S(p, t + 1, i);
                    p->ent_val[p->n_ent++] = 1;
                } else if (side == 1) {
                    p->ent_col[p->n_ent] = opt_col_S(p, t, i);
                    p->ent_val[p->n_ent++] = -1;
                    p->ent_col[p->n_ent] = opt_col_R(p, t, i);
                    p->ent_val[p->n_ent++] = -1;
                }
                p->row_start[r + 1] = p->n_ent;
            }
        }
done:
    free(off), free(out);
    return rc;
}

int opt_moccasin_build(const opt_graph *g, uint64_t budget, int integral, uint32_t copies,
                       opt_program **out, gms_error *err)
{
    if (copies < 1)
        return gms_error_set(err, GMS_EINVAL, "MOCCASIN's C (copies) must be at least 1");
    opt_program *p;
    int rc = opt_program_build(g, budget, integral, 1, &p, err);
    if (rc)
        return rc;
    uint32_t n = g->n, rows = 0;
    size_t ents = 0;
    for (uint32_t v = 0; v < n; v++)
        if (n - v > copies) { /* v can be computed in n - v stages */
            rows++;
            ents += n - 1 - v;
        }
    if (rows && grow(p, rows, ents)) {
        opt_program_free(p);
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the program");
    }
    for (uint32_t v = 0; v < n; v++) {
        if (n - v <= copies)
            continue;
        uint32_t r = p->n_rows++;
        p->row_lb[r] = -1e30;
        p->row_ub[r] = (double)copies - 1; /* recomputations: the first is R[v,v] = 1 */
        p->row_start[r] = p->n_ent;
        for (uint32_t t = v + 1; t < n; t++) {
            p->ent_col[p->n_ent] = opt_col_R(p, t, v);
            p->ent_val[p->n_ent] = 1;
            p->n_ent++;
        }
        p->row_start[r + 1] = p->n_ent;
    }
    /* GMS_MOCCASIN_SINGLE_END=1: with those rows; off by default, as they moved the LP bound
     * of the 65-node benchmark graph by 5e-6 relative at most (docs/optimal.md) */
    const char *on = getenv("GMS_MOCCASIN_SINGLE_END");
    if (on && *on && (rc = add_single_end(p, g, err)) != 0) {
        opt_program_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

int opt_moccasin_fits(const opt_schedule *s, uint32_t copies)
{
    uint32_t n = s->n;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t c = 0;
        for (uint32_t t = v; t < n; t++)
            c += s->R[(size_t)t * n + v];
        if (c > copies)
            return 0;
    }
    return 1;
}
