/*
 * opt_moccasin: MOCCASIN's program for CBC (opt_moccasin.h says how it follows from theirs):
 * the tightened Checkmate program plus one row per node that could be computed more than C
 * times, sum over t > v of R[t,v] <= C - 1.
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
