/*
 * opt_program: Checkmate's program as rows of a sparse matrix (opt_program.h says what it is
 * and how it differs from the authors' in form only). Row order follows theirs: correctness,
 * FREE_E bounds, memory.
 */
#include "opt_program.h"

#include <errno.h>
#include "gms_tmpfile.h"
#include "gmt_outfile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct builder {
    opt_program *p;
    size_t cap_rows, cap_ent;
    int failed;
} builder;

static void row_begin(builder *b, double lb, double ub)
{
    opt_program *p = b->p;
    if (b->failed)
        return;
    if (p->n_rows + 2 > b->cap_rows) {
        size_t cap = b->cap_rows ? b->cap_rows * 2 : 1024;
        double *lo = realloc(p->row_lb, cap * sizeof *lo);
        if (lo)
            p->row_lb = lo;
        double *hi = realloc(p->row_ub, cap * sizeof *hi);
        if (hi)
            p->row_ub = hi;
        size_t *st = realloc(p->row_start, (cap + 1) * sizeof *st);
        if (st)
            p->row_start = st;
        if (!lo || !hi || !st) {
            b->failed = 1;
            return;
        }
        b->cap_rows = cap;
    }
    p->row_lb[p->n_rows] = lb;
    p->row_ub[p->n_rows] = ub;
    p->row_start[p->n_rows] = p->n_ent;
    p->n_rows++;
    p->row_start[p->n_rows] = p->n_ent;
}

static void entry(builder *b, uint32_t col, double val)
{
    opt_program *p = b->p;
    if (b->failed)
        return;
    if (p->n_ent == b->cap_ent) {
        size_t cap = b->cap_ent ? b->cap_ent * 2 : 4096;
        uint32_t *c = realloc(p->ent_col, cap * sizeof *c);
        if (c)
            p->ent_col = c;
        double *v = realloc(p->ent_val, cap * sizeof *v);
        if (v)
            p->ent_val = v;
        if (!c || !v) {
            b->failed = 1;
            return;
        }
        b->cap_ent = cap;
    }
    p->ent_col[p->n_ent] = col;
    p->ent_val[p->n_ent] = val;
    p->n_ent++;
    p->row_start[p->n_rows] = p->n_ent;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static uint32_t col_F(const opt_program *p, uint32_t t, uint32_t e)
{
    return p->f_base + p->f_stage_off[t] + e;
}

int opt_program_build(const opt_graph *g, uint64_t budget, int integral, int tighten,
                      opt_program **out, gms_error *err)
{
    *out = NULL;
    uint32_t T = g->n;
    uint64_t tri = (uint64_t)T * (T + 1) / 2, fcount = 0;
    for (uint32_t t = 0; t < T; t++)
        fcount += g->pred_edge_off[t]; /* edges into nodes before t */
    uint64_t cols = 3 * tri - T + fcount;
    if (cols > INT32_MAX / 2)
        return gms_error_set(err, GMS_EINVAL,
                             "the program for %u nodes would have %llu variables, more than "
                             "the solver takes; coarsen the graph (--coarsen layers)",
                             T, (unsigned long long)cols);
    opt_program *p = calloc(1, sizeof *p);
    builder b = {p, 0, 0, 0};
    if (!p)
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the program");
    p->n = T;
    p->integral = integral;
    p->n_cols = (uint32_t)cols;
    p->r_base = 0;
    p->s_base = (uint32_t)tri;
    p->u_base = (uint32_t)(2 * tri - T);
    p->f_base = (uint32_t)(3 * tri - T);
    p->col_lb = calloc(cols + 1, sizeof *p->col_lb);
    p->col_ub = calloc(cols + 1, sizeof *p->col_ub);
    p->obj = calloc(cols + 1, sizeof *p->obj);
    p->col_int = calloc(cols + 1, 1);
    p->f_stage_off = calloc((size_t)T + 1, sizeof *p->f_stage_off);
    if (!p->col_lb || !p->col_ub || !p->obj || !p->col_int || !p->f_stage_off) {
        opt_program_free(p);
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the program");
    }
    for (uint32_t t = 0; t < T; t++)
        p->f_stage_off[t + 1] = p->f_stage_off[t] + g->pred_edge_off[t];

    /* Memory unit: the authors divide by the gcd of the sizes and the budget, which leaves
     * coefficients up to 1e9 when the gcd is small, and CBC's cuts then cut off feasible
     * schedules (we saw it prove a non-optimum "optimal"). Dividing by the budget instead
     * scales the same rows by a constant: U in [0, 1], the same feasible set. */
    double unit = budget > 0 ? (double)budget : 1;
    if (getenv("GMS_OPT_GCD_UNIT")) { /* the authors' unit, for comparison */
        uint64_t gu = budget;
        for (uint32_t i = 0; i < T; i++)
            gu = gcd64(gu, g->nodes[i].bytes);
        unit = gu ? (double)gu : 1;
    }
    p->ram_unit = unit;
    p->budget_units = (double)budget / unit;
    double *m = malloc(((size_t)T + 1) * sizeof *m);
    if (!m) {
        opt_program_free(p);
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the program");
    }
    for (uint32_t i = 0; i < T; i++)
        m[i] = (double)g->nodes[i].bytes / unit;

    for (uint32_t c = 0; c < p->u_base; c++) {
        p->col_ub[c] = 1;
        p->col_int[c] = (uint8_t)integral;
    }
    for (uint32_t c = p->f_base; c < p->n_cols; c++) {
        p->col_ub[c] = 1;
        p->col_int[c] = (uint8_t)(integral && !tighten); /* tightened: integral when R, S are */
    }
    for (uint32_t c = p->u_base; c < p->f_base; c++)
        p->col_ub[c] = p->budget_units;
    for (uint32_t t = 0; t < T; t++) {
        p->col_lb[opt_col_R(p, t, t)] = 1; /* the full imposed schedule: stage t computes t */
        for (uint32_t i = 0; i <= t; i++)
            p->obj[opt_col_R(p, t, i)] = g->nodes[i].cost;
    }

    /* correctness: checkpoints were kept or computed in the stage before */
    for (uint32_t t = 0; t + 1 < T; t++)
        for (uint32_t i = 0; i <= t; i++) {
            row_begin(&b, -1e30, 0);
            entry(&b, opt_col_S(p, t + 1, i), 1);
            if (i < t)
                entry(&b, opt_col_S(p, t, i), -1);
            entry(&b, opt_col_R(p, t, i), -1);
        }
    /* correctness: a computed node's inputs are computed or kept */
    for (uint32_t t = 0; t < T; t++)
        for (uint32_t e = 0; e < g->pred_edge_off[t + 1]; e++) {
            uint32_t u = g->edges[e].u, v = g->edges[e].v;
            row_begin(&b, -1e30, 0);
            entry(&b, opt_col_R(p, t, v), 1);
            entry(&b, opt_col_R(p, t, u), -1);
            entry(&b, opt_col_S(p, t, u), -1);
        }
    /* FREE_E[t,(i,k)] = 1 exactly when the hazard count is 0:
     * hazards = 1 - R[t,k] + S[t+1,i] + sum of R[t,j] over consumers j > k of i */
    for (uint32_t t = 0; t < T; t++)
        for (int bound = 0; bound < 2; bound++)
            for (uint32_t e = 0; e < g->pred_edge_off[t]; e++) {
                uint32_t i = g->edges[e].u, k = g->edges[e].v;
                uint32_t after = 0;
                for (uint32_t q = g->succ_off[i]; q < g->succ_off[i + 1]; q++)
                    after += g->succ[q] > k;
                double maxh = (t + 1 < T ? 2 : 1) + (double)after;
                /* bound 0: 1 - F <= hazards; bound 1: maxh (1 - F) >= hazards, or
                 * tightened, each hazard alone: F <= R[t,k], F <= 1 - S[t+1,i],
                 * F <= 1 - R[t,j] */
                if (bound == 1 && tighten) {
                    row_begin(&b, -1e30, 0);
                    entry(&b, col_F(p, t, e), 1);
                    entry(&b, opt_col_R(p, t, k), -1);
                    if (t + 1 < T) {
                        row_begin(&b, -1e30, 1);
                        entry(&b, col_F(p, t, e), 1);
                        entry(&b, opt_col_S(p, t + 1, i), 1);
                    }
                    for (uint32_t q = g->succ_off[i]; q < g->succ_off[i + 1]; q++)
                        if (g->succ[q] > k && g->succ[q] <= t) {
                            row_begin(&b, -1e30, 1);
                            entry(&b, col_F(p, t, e), 1);
                            entry(&b, opt_col_R(p, t, g->succ[q]), 1);
                        }
                    continue;
                }
                if (bound == 0)
                    row_begin(&b, -1e30, 0);
                else
                    row_begin(&b, 1 - maxh, 1e30);
                entry(&b, col_F(p, t, e), bound == 0 ? -1 : -maxh);
                entry(&b, opt_col_R(p, t, k), 1);
                if (t + 1 < T)
                    entry(&b, opt_col_S(p, t + 1, i), -1);
                for (uint32_t q = g->succ_off[i]; q < g->succ_off[i + 1]; q++)
                    if (g->succ[q] > k && g->succ[q] <= t)
                        entry(&b, opt_col_R(p, t, g->succ[q]), -1);
            }
    /* memory: the stage starts with its checkpoints, then runs its nodes in order */
    for (uint32_t t = 0; t < T; t++) {
        row_begin(&b, 0, 0);
        entry(&b, opt_col_U(p, t, 0), 1);
        entry(&b, opt_col_R(p, t, 0), -m[0]);
        for (uint32_t i = 0; i < t; i++)
            if (m[i] != 0)
                entry(&b, opt_col_S(p, t, i), -m[i]);
        for (uint32_t k = 0; k < t; k++) {
            row_begin(&b, 0, 0);
            entry(&b, opt_col_U(p, t, k + 1), 1);
            entry(&b, opt_col_U(p, t, k), -1);
            if (m[k + 1] != 0)
                entry(&b, opt_col_R(p, t, k + 1), -m[k + 1]);
            for (uint32_t e = g->pred_edge_off[k]; e < g->pred_edge_off[k + 1]; e++)
                if (m[g->edges[e].u] != 0)
                    entry(&b, col_F(p, t, e), m[g->edges[e].u]);
        }
    }
    free(m);
    if (b.failed) {
        opt_program_free(p);
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the program");
    }
    *out = p;
    return 0;
}

void opt_program_free(opt_program *p)
{
    if (!p)
        return;
    free(p->col_lb);
    free(p->col_ub);
    free(p->obj);
    free(p->col_int);
    free(p->row_lb);
    free(p->row_ub);
    free(p->row_start);
    free(p->ent_col);
    free(p->ent_val);
    free(p->f_stage_off);
    for (uint32_t c = 0; p->col_names && c < p->n_cols; c++)
        free(p->col_names[c]);
    free(p->col_names);
    free(p);
}

/* The (t, i) of an index into a triangular block whose row t has t + d entries (d = 1: R, U;
 * d = 0: S): row t starts at t (t - 1 + 2d) / 2. */
static void tri_pos(uint32_t idx, int d, uint32_t *t, uint32_t *i)
{
    double x = (double)idx;
    uint64_t r = d ? (uint64_t)((sqrt(8 * x + 1) - 1) / 2) : (uint64_t)((sqrt(8 * x + 1) + 1) / 2);
    uint64_t start;
    for (;;) { /* correct the float guess by a step either way */
        start = r * (r - 1 + 2 * (uint64_t)d) / 2;
        if (start > idx)
            r--;
        else if (idx - start >= r + (uint64_t)d)
            r++;
        else
            break;
    }
    *t = (uint32_t)r;
    *i = (uint32_t)(idx - start);
}

void opt_program_col_name(const opt_program *p, const opt_graph *g, uint32_t col, char *buf,
                          size_t len)
{
    uint32_t t, i;
    if (p->col_names) {
        snprintf(buf, len, "%s", p->col_names[col] ? p->col_names[col] : "x");
        return;
    }
    if (col < p->s_base) {
        tri_pos(col - p->r_base, 1, &t, &i);
        snprintf(buf, len, "R_%u_%u", t, i);
    } else if (col < p->u_base) {
        tri_pos(col - p->s_base, 0, &t, &i);
        snprintf(buf, len, "S_%u_%u", t, i);
    } else if (col < p->f_base) {
        tri_pos(col - p->u_base, 1, &t, &i);
        snprintf(buf, len, "U_%u_%u", t, i);
    } else {
        uint32_t x = col - p->f_base;
        for (t = 0; t + 1 < p->n && p->f_stage_off[t + 1] <= x; t++)
            ;
        uint32_t e = x - p->f_stage_off[t];
        snprintf(buf, len, "FREE_E_%u_%u", t, e);
        (void)g;
    }
}

void opt_program_start(const opt_program *p, const opt_graph *g, const opt_schedule *s,
                       double *x)
{
    uint32_t T = p->n;
    memset(x, 0, (size_t)p->n_cols * sizeof *x);
    for (uint32_t t = 0; t < T; t++) {
        for (uint32_t i = 0; i <= t; i++) {
            x[opt_col_R(p, t, i)] = s->R[(size_t)t * T + i];
            if (i < t)
                x[opt_col_S(p, t, i)] = s->S[(size_t)t * T + i];
        }
        for (uint32_t e = 0; e < g->pred_edge_off[t]; e++)
            x[col_F(p, t, e)] = opt_schedule_frees(g, s, t, g->edges[e].u, g->edges[e].v);
    }
}

void opt_program_schedule(const opt_program *p, const opt_graph *g, const double *x,
                          double s_threshold, int prune, opt_schedule *s)
{
    uint32_t T = p->n;
    memset(s->S, 0, (size_t)T * T);
    memset(s->R, 0, (size_t)T * T);
    for (uint32_t t = 0; t < T; t++)
        for (uint32_t i = 0; i <= t; i++) {
            if (i < t)
                s->S[(size_t)t * T + i] = x[opt_col_S(p, t, i)] >= s_threshold;
            s->R[(size_t)t * T + i] = x[opt_col_R(p, t, i)] >= 0.5;
        }
    if (prune)
        opt_schedule_solve_r(g, s);
}

/* One term " + 2.5 R_3_1" of a row or the objective, wrapped every few terms. */
static void lp_term(FILE *f, const opt_program *p, const opt_graph *g, uint32_t col, double v,
                    int *first, int *on_line)
{
    char name[64];
    opt_program_col_name(p, g, col, name, sizeof name);
    if (*on_line >= 6) {
        fputs("\n ", f);
        *on_line = 0;
    }
    if (v < 0)
        fprintf(f, " - ");
    else if (!*first)
        fprintf(f, " + ");
    else
        fprintf(f, " ");
    double a = fabs(v);
    if (a != 1)
        fprintf(f, "%.17g ", a);
    fputs(name, f);
    *first = 0;
    (*on_line)++;
}

int opt_program_write_lp(const opt_program *p, const opt_graph *g, const char *path,
                         gms_error *err)
{
    FILE *f;
    char *tmp;
    int rc = gmt_outfile_create(path, &f, &tmp, err);
    if (rc)
        return rc;
    char name[64];
    fprintf(f, "\\ Checkmate's program (Jain et al., MLSys 2020) for %u nodes, written by "
            "gpumemsim;\n\\ memory in units of %.17g bytes (docs/optimal.md)\n", p->n, p->ram_unit);
    fprintf(f, "Minimize\n obj:");
    int first = 1, on_line = 0;
    for (uint32_t c = 0; c < p->n_cols; c++)
        if (p->obj[c] != 0)
            lp_term(f, p, g, c, p->obj[c], &first, &on_line);
    fprintf(f, "\nSubject To\n");
    for (uint32_t r = 0; r < p->n_rows; r++) {
        int ranged = p->row_lb[r] > -1e29 && p->row_ub[r] < 1e29 && p->row_lb[r] != p->row_ub[r];
        for (int side = 0; side <= ranged; side++) {
            fprintf(f, " c%u%s:", r, ranged ? (side ? "_hi" : "_lo") : "");
            first = 1, on_line = 0;
            for (size_t k = p->row_start[r]; k < p->row_start[r + 1]; k++)
                lp_term(f, p, g, p->ent_col[k], p->ent_val[k], &first, &on_line);
            if (first)
                fprintf(f, " 0 %s", "R_0_0"); /* an empty row: keep the file valid */
            if (p->row_lb[r] == p->row_ub[r])
                fprintf(f, " = %.17g\n", p->row_lb[r]);
            else if (p->row_lb[r] > -1e29 && (!ranged || side == 0))
                fprintf(f, " >= %.17g\n", p->row_lb[r]);
            else
                fprintf(f, " <= %.17g\n", p->row_ub[r]);
        }
    }
    fprintf(f, "Bounds\n");
    for (uint32_t c = 0; c < p->n_cols; c++) {
        opt_program_col_name(p, g, c, name, sizeof name);
        if (p->col_lb[c] == p->col_ub[c])
            fprintf(f, " %s = %.17g\n", name, p->col_lb[c]);
        else
            fprintf(f, " %.17g <= %s <= %.17g\n", p->col_lb[c], name, p->col_ub[c]);
    }
    int any = 0;
    for (uint32_t c = 0; c < p->n_cols; c++)
        if (p->col_int[c]) {
            opt_program_col_name(p, g, c, name, sizeof name);
            fprintf(f, "%s %s\n", any ? "" : "Binaries\n", name);
            any = 1;
        }
    fprintf(f, "End\n");
    if (ferror(f))
        rc = gms_error_set(err, GMS_EIO, "%s: write error", path);
    if (fclose(f) != 0 && rc == 0)
        rc = gms_error_set(err, GMS_EIO, "%s: write error", path);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = gms_error_set(err, GMS_EIO, "%s: %s", path, strerror(errno));
    if (rc)
        remove(tmp);
    gms_tmp_done(tmp);
    free(tmp);
    return rc;
}
