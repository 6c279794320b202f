/*
 * opt_window: the program of a window of stages and free nodes around an incumbent
 * (opt_window.h). The rows are opt_program.c's for the window's stages, every variable that is
 * not free replaced by the incumbent's value (moved to the row's bounds); rows with nothing
 * free are left out (the incumbent satisfies them).
 */
#include "opt_window.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct wbuild {
    const opt_graph *g;
    const opt_schedule *inc;
    opt_window *w;
    opt_program *p;
    uint32_t *slot;        /* node -> slot in w->nodes, or NONE */
    uint32_t *u_col;       /* (t - a) * n_nodes + j: U[t, nodes[j]] */
    uint32_t *f_col;       /* (t - a) * n_edges + e: FREE_E[t, e], or NONE */
    double *m;             /* bytes in budget units */
    const uint8_t *quiet;  /* per stage of the window: the free nodes' R fixed; NULL: none */
    size_t cap_cols, cap_rows, cap_ent;
    /* the row being built */
    double konst;
    size_t row_first;
    int failed;
} wbuild;

static int grow(void **a, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    void *q = realloc(*a, c * size);
    if (!q)
        return -1;
    *a = q;
    *cap = c;
    return 0;
}

static uint32_t new_col(wbuild *b, double lb, double ub, double obj, int integral)
{
    opt_program *p = b->p;
    size_t need = (size_t)p->n_cols + 2, c0 = b->cap_cols, c1 = c0, c2 = c0, c3 = c0;
    if (b->failed || grow((void **)&p->col_lb, &c0, need, sizeof *p->col_lb) ||
        grow((void **)&p->col_ub, &c1, need, sizeof *p->col_ub) ||
        grow((void **)&p->obj, &c2, need, sizeof *p->obj) ||
        grow((void **)&p->col_int, &c3, need, 1)) {
        b->failed = 1;
        return NONE;
    }
    b->cap_cols = c0;
    uint32_t c = p->n_cols++;
    p->col_lb[c] = lb, p->col_ub[c] = ub, p->obj[c] = obj, p->col_int[c] = (uint8_t)integral;
    return c;
}

static void row_open(wbuild *b)
{
    b->konst = 0;
    b->row_first = b->p->n_ent;
}

/* coef x col, or coef x the fixed value v when col is NONE */
static void term(wbuild *b, uint32_t col, double v, double coef)
{
    opt_program *p = b->p;
    if (col == NONE) {
        b->konst += coef * v;
        return;
    }
    size_t c0 = b->cap_ent, c1 = c0;
    if (b->failed || grow((void **)&p->ent_col, &c0, p->n_ent + 1, sizeof *p->ent_col) ||
        grow((void **)&p->ent_val, &c1, p->n_ent + 1, sizeof *p->ent_val)) {
        b->failed = 1;
        return;
    }
    b->cap_ent = c0;
    p->ent_col[p->n_ent] = col;
    p->ent_val[p->n_ent++] = coef;
}

/* lb <= sum <= ub, its fixed part moved to the bounds; a row of constants only is dropped
 * (the incumbent satisfies it) */
static void row_close(wbuild *b, double lb, double ub)
{
    opt_program *p = b->p;
    if (b->failed || p->n_ent == b->row_first)
        return;
    size_t c0 = b->cap_rows, c1 = c0, c2 = c0;
    if (grow((void **)&p->row_lb, &c0, (size_t)p->n_rows + 2, sizeof *p->row_lb) ||
        grow((void **)&p->row_ub, &c1, (size_t)p->n_rows + 2, sizeof *p->row_ub) ||
        grow((void **)&p->row_start, &c2, (size_t)p->n_rows + 2, sizeof *p->row_start)) {
        b->failed = 1;
        return;
    }
    b->cap_rows = c0;
    p->row_lb[p->n_rows] = lb > -1e29 ? lb - b->konst : lb;
    p->row_ub[p->n_rows] = ub < 1e29 ? ub - b->konst : ub;
    p->row_start[p->n_rows] = b->row_first;
    p->n_rows++;
    p->row_start[p->n_rows] = p->n_ent;
}

static uint8_t inc_R(const wbuild *b, uint32_t t, uint32_t i)
{
    return b->inc->R[(size_t)t * b->g->n + i];
}

static uint8_t inc_S(const wbuild *b, uint32_t t, uint32_t i)
{
    return b->inc->S[(size_t)t * b->g->n + i];
}

/* R[t, i] for t in the window: its column, or NONE with *v the incumbent's value */
static uint32_t colR(const wbuild *b, uint32_t t, uint32_t i, double *v)
{
    uint32_t j = b->slot[i];
    *v = 0;
    if (i > t)
        return NONE;
    uint32_t c = j == NONE ? NONE : b->w->r_col[(size_t)(t - b->w->a) * b->w->n_nodes + j];
    if (c == NONE) /* not free, or free in a quiet stage: the incumbent's */
        *v = inc_R(b, t, i);
    return c;
}

/* S[t, i] for t in [a, b]: its column, or NONE with *v the incumbent's value */
static uint32_t colS(const wbuild *b, uint32_t t, uint32_t i, double *v)
{
    const opt_window *w = b->w;
    *v = 0;
    if (i >= t || t >= b->g->n)
        return NONE;
    uint32_t j = b->slot[i];
    if (t == w->a || t == w->b || j == NONE) {
        *v = inc_S(b, t, i);
        return NONE;
    }
    return w->s_col[(size_t)(t - w->a) * w->n_nodes + j];
}

/* coef x R[t, i] (a column or the incumbent's value) */
static void termR(wbuild *b, uint32_t t, uint32_t i, double coef)
{
    double v;
    uint32_t c = colR(b, t, i, &v);
    term(b, c, v, coef);
}

static void termS(wbuild *b, uint32_t t, uint32_t i, double coef)
{
    double v;
    uint32_t c = colS(b, t, i, &v);
    term(b, c, v, coef);
}

static int is_free(const wbuild *b, uint32_t i)
{
    return b->slot[i] != NONE;
}

void opt_window_stage_nodes(const opt_graph *g, const opt_schedule *inc, uint32_t a, uint32_t b,
                            uint32_t depth, uint8_t *mark)
{
    uint32_t n = g->n;
    memset(mark, 0, n);
    for (uint32_t t = a; t < b; t++) {
        mark[t] = 1;
        for (uint32_t i = 0; i <= t; i++)
            if (inc->R[(size_t)t * n + i] || (i < t && inc->S[(size_t)t * n + i]))
                mark[i] = 1;
    }
    for (uint32_t i = 0; b < n && i < b; i++)
        if (inc->S[(size_t)b * n + i])
            mark[i] = 1;
    for (uint32_t d = 0; d < depth; d++) {
        for (uint32_t v = n; v-- > 0;) /* one level per pass: new marks are 2 */
            if (mark[v] == 1)
                for (uint32_t k = 0; k < g->nodes[v].n_inputs; k++)
                    if (!mark[g->nodes[v].inputs[k]])
                        mark[g->nodes[v].inputs[k]] = 2;
        for (uint32_t v = 0; v < n; v++)
            mark[v] = mark[v] ? 1 : 0;
    }
}

/* The free nodes below b, in slots. */
static int slot_nodes(wbuild *b, const uint8_t *free_nodes)
{
    const opt_graph *g = b->g;
    opt_window *w = b->w;
    w->n_nodes = 0;
    for (uint32_t i = 0; i < w->b; i++)
        w->n_nodes += free_nodes[i] != 0;
    w->nodes = malloc(((size_t)w->n_nodes + 1) * sizeof *w->nodes);
    if (!w->nodes)
        return -1;
    uint32_t j = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        b->slot[i] = NONE;
        if (i < w->b && free_nodes[i]) {
            b->slot[i] = j;
            w->nodes[j++] = i;
        }
    }
    return 0;
}

/* FREE_E[t, (i, k)] (k < t) is a variable when one of what decides it is: R[t,k],
 * S[t+1,i] or R[t,j] of a later consumer j of i in the stage */
static int free_edge_varies(const wbuild *b, uint32_t t, uint32_t i, uint32_t k)
{
    const opt_graph *g = b->g;
    double v;
    if (colR(b, t, k, &v) != NONE)
        return 1;
    if (v == 0) /* k is not computed here (a quiet stage): nothing is freed after it */
        return 0;
    /* S[t + 1, i] is a column (stage t + 1's columns are not made yet: by the window) */
    if (is_free(b, i) && t + 1 > b->w->a && t + 1 < b->w->b)
        return 1;
    for (uint32_t q = g->succ_off[i]; q < g->succ_off[i + 1]; q++)
        if (g->succ[q] > k && g->succ[q] <= t && colR(b, t, g->succ[q], &v) != NONE)
            return 1;
    return 0;
}

/* Stage t and the one before it are quiet: nothing reads a free node in either, so keeping
 * it through the run and dropping it where the run starts are the only choices worth having
 * (dropping it later only holds memory longer, at the same cost): one S column per free node
 * serves the whole run of quiet stages. */
static int quiet_run(const wbuild *b, uint32_t t)
{
    return b->quiet && t > b->w->a && b->quiet[t - b->w->a] && b->quiet[t - 1 - b->w->a];
}

/* The columns: R, S per stage and free node, U per stage and node that may run there,
 * FREE_E per stage and edge that a free variable decides. */
static void make_columns(wbuild *b)
{
    const opt_graph *g = b->g;
    opt_window *w = b->w;
    size_t J = w->n_nodes;
    for (uint32_t t = w->a; t < w->b && !b->failed; t++) {
        size_t row = (size_t)(t - w->a) * J;
        for (size_t j = 0; j < J; j++) {
            uint32_t i = w->nodes[j];
            w->r_col[row + j] = w->s_col[row + j] = NONE;
            if (i > t)
                continue;
            if (!b->quiet || !b->quiet[t - w->a])
                w->r_col[row + j] = new_col(b, i == t, 1, g->nodes[i].cost, 1);
            if (i < t && t > w->a && quiet_run(b, t) && w->s_col[row - J + j] != NONE)
                w->s_col[row + j] = w->s_col[row - J + j]; /* the run's one column */
            else if (i < t && t > w->a)
                w->s_col[row + j] = new_col(b, 0, 1, 0, 1);
        }
        for (uint32_t k = 0; k <= t; k++) {
            double v;
            b->u_col[(size_t)(t - w->a) * g->n + k] =
                colR(b, t, k, &v) != NONE || v != 0 ? new_col(b, 0, b->p->budget_units, 0, 0)
                                                    : NONE;
        }
        for (uint32_t e = 0; e < g->pred_edge_off[t]; e++) {
            uint32_t i = g->edges[e].u, k = g->edges[e].v;
            b->f_col[(size_t)(t - w->a) * g->n_edges + e] =
                free_edge_varies(b, t, i, k) ? new_col(b, 0, 1, 0, 0) : NONE;
        }
    }
}

/* opt_program.c's rows for stage t that hold a free variable, the tightened FREE_E bounds */
static void stage_rows(wbuild *b, uint32_t t)
{
    const opt_graph *g = b->g;
    const opt_window *w = b->w;
    uint32_t T = g->n, J = w->n_nodes;
    /* checkpoints were kept or computed in the stage before */
    for (uint32_t j = 0; j < J && t + 1 < T; j++) {
        uint32_t i = w->nodes[j];
        if (i > t)
            break;
        double v1, v0;
        uint32_t c1 = colS(b, t + 1, i, &v1), c0 = colS(b, t, i, &v0);
        if (c1 != NONE && c1 == c0)
            continue; /* one column through a quiet run, R[t, i] the incumbent's 0 there */
        row_open(b);
        termS(b, t + 1, i, 1);
        termS(b, t, i, -1);
        termR(b, t, i, -1);
        row_close(b, -1e30, 0);
    }
    /* a computed node's inputs are computed or kept */
    for (uint32_t e = 0; e < g->pred_edge_off[t + 1]; e++) {
        uint32_t u = g->edges[e].u, k = g->edges[e].v;
        double v;
        if ((!is_free(b, u) && !is_free(b, k)) || (colR(b, t, k, &v) == NONE && v == 0))
            continue; /* nothing free, or k is not computed here: the row holds */
        row_open(b);
        termR(b, t, k, 1);
        termR(b, t, u, -1);
        termS(b, t, u, -1);
        row_close(b, -1e30, 0);
    }
    /* FREE_E[t,(i,k)] = 1 exactly when no hazard holds (opt_program.c, tightened) */
    for (uint32_t e = 0; e < g->pred_edge_off[t]; e++) {
        uint32_t f = b->f_col[(size_t)(t - w->a) * g->n_edges + e];
        if (f == NONE)
            continue;
        uint32_t i = g->edges[e].u, k = g->edges[e].v;
        row_open(b); /* 1 - F <= hazards */
        term(b, f, 0, -1);
        termR(b, t, k, 1);
        if (t + 1 < T)
            termS(b, t + 1, i, -1);
        for (uint32_t q = g->succ_off[i]; q < g->succ_off[i + 1]; q++)
            if (g->succ[q] > k && g->succ[q] <= t)
                termR(b, t, g->succ[q], -1);
        row_close(b, -1e30, 0);
        row_open(b);
        term(b, f, 0, 1);
        termR(b, t, k, -1);
        row_close(b, -1e30, 0);
        if (t + 1 < T) {
            row_open(b);
            term(b, f, 0, 1);
            termS(b, t + 1, i, 1);
            row_close(b, -1e30, 1);
        }
        for (uint32_t q = g->succ_off[i]; q < g->succ_off[i + 1]; q++)
            if (g->succ[q] > k && g->succ[q] <= t) {
                row_open(b);
                term(b, f, 0, 1);
                termR(b, t, g->succ[q], 1);
                row_close(b, -1e30, 1);
            }
    }
    /* memory after each node that may run: the checkpoints, then the stage's nodes in order;
     * between two such nodes nothing runs and nothing is freed */
    const uint32_t *u = b->u_col + (size_t)(t - w->a) * g->n;
    uint32_t prev = NONE;
    for (uint32_t k = 0; k <= t; k++) {
        if (u[k] == NONE)
            continue;
        row_open(b);
        term(b, u[k], 0, 1);
        termR(b, t, k, -b->m[k]);
        if (prev == NONE) {
            for (uint32_t i = 0; i < t; i++)
                if (b->m[i] != 0)
                    termS(b, t, i, -b->m[i]);
        } else {
            term(b, u[prev], 0, -1);
            for (uint32_t e = g->pred_edge_off[prev]; e < g->pred_edge_off[prev + 1]; e++) {
                uint32_t f = b->f_col[(size_t)(t - w->a) * g->n_edges + e];
                double fv = f == NONE ? opt_schedule_frees(g, b->inc, t, g->edges[e].u, prev) : 0;
                if (b->m[g->edges[e].u] != 0)
                    term(b, f, fv, b->m[g->edges[e].u]);
            }
        }
        row_close(b, 0, 0);
        prev = k;
    }
}

void opt_window_quiet_stages(const opt_graph *g, const opt_schedule *inc, uint32_t a,
                             uint32_t b, const uint8_t *free_nodes, uint8_t *quiet)
{
    uint32_t n = g->n;
    for (uint32_t t = a; t < b; t++) {
        int busy = free_nodes[t] != 0;
        for (uint32_t i = 0; i < t && !busy; i++) {
            if (!inc->R[(size_t)t * n + i])
                continue;
            busy = free_nodes[i] != 0;
            for (uint32_t k = 0; k < g->nodes[i].n_inputs && !busy; k++)
                busy = free_nodes[g->nodes[i].inputs[k]] != 0;
        }
        for (uint32_t k = 0; k < g->nodes[t].n_inputs && !busy; k++)
            busy = free_nodes[g->nodes[t].inputs[k]] != 0;
        quiet[t - a] = (uint8_t)!busy;
    }
}

int opt_window_build(const opt_graph *g, const opt_schedule *inc, uint64_t act, uint32_t a,
                     uint32_t b, const uint8_t *free_nodes, const uint8_t *quiet,
                     opt_window **out, gms_error *err)
{
    *out = NULL;
    if (a >= b || b > g->n)
        return gms_error_set(err, GMS_EINVAL, "window [%u, %u) of %u stages", a, b, g->n);
    opt_window *w = calloc(1, sizeof *w);
    wbuild bd = {.g = g, .inc = inc, .w = w, .quiet = quiet};
    if (!w || !(w->p = calloc(1, sizeof *w->p)) ||
        !(bd.slot = malloc(((size_t)g->n + 1) * sizeof *bd.slot)))
        goto oom;
    bd.p = w->p;
    w->a = a, w->b = b;
    w->p->n = g->n;
    w->p->integral = 1;
    w->p->ram_unit = act > 0 ? (double)act : 1;
    w->p->budget_units = (double)act / w->p->ram_unit;
    if (slot_nodes(&bd, free_nodes))
        goto oom;
    size_t cells = (size_t)(b - a) * w->n_nodes + 1;
    w->r_col = malloc(cells * sizeof *w->r_col);
    w->s_col = malloc(cells * sizeof *w->s_col);
    bd.u_col = malloc(((size_t)(b - a) * g->n + 1) * sizeof *bd.u_col);
    bd.f_col = malloc(((size_t)(b - a) * g->n_edges + 1) * sizeof *bd.f_col);
    bd.m = malloc(((size_t)g->n + 1) * sizeof *bd.m);
    if (!w->r_col || !w->s_col || !bd.u_col || !bd.f_col || !bd.m ||
        !(w->p->row_start = calloc(1, sizeof *w->p->row_start)))
        goto oom;
    for (uint32_t i = 0; i < g->n; i++)
        bd.m[i] = (double)g->nodes[i].bytes / w->p->ram_unit;
    make_columns(&bd);
    for (uint32_t t = a; t < b && !bd.failed; t++) {
        stage_rows(&bd, t);
        for (uint32_t j = 0; j < w->n_nodes && w->nodes[j] <= t; j++)
            if (w->r_col[(size_t)(t - a) * w->n_nodes + j] != NONE)
                w->incumbent_cost += inc_R(&bd, t, w->nodes[j]) ? g->nodes[w->nodes[j]].cost : 0;
    }
    if (bd.failed)
        goto oom;
    free(bd.slot), free(bd.u_col), free(bd.f_col), free(bd.m);
    *out = w;
    return 0;
oom:
    free(bd.slot), free(bd.u_col), free(bd.f_col), free(bd.m);
    opt_window_free(w);
    return gms_error_set(err, GMS_ENOMEM, "out of memory building a window program");
}

void opt_window_free(opt_window *w)
{
    if (!w)
        return;
    opt_program_free(w->p);
    free(w->nodes), free(w->r_col), free(w->s_col);
    free(w);
}

void opt_window_start(const opt_window *w, const opt_graph *g, const opt_schedule *inc,
                      double *x)
{
    memset(x, 0, (size_t)w->p->n_cols * sizeof *x);
    /* a run's S column is kept only if inc keeps the node through the whole run (else it
     * is dropped where the run starts: as feasible, at the same cost) */
    for (size_t c = 0; c < (size_t)(w->b - w->a) * w->n_nodes; c++)
        if (w->s_col[c] != NONE)
            x[w->s_col[c]] = 1;
    for (uint32_t t = w->a; t < w->b; t++)
        for (uint32_t j = 0; j < w->n_nodes; j++) {
            size_t cell = (size_t)(t - w->a) * w->n_nodes + j;
            uint32_t i = w->nodes[j];
            if (w->r_col[cell] != NONE)
                x[w->r_col[cell]] = inc->R[(size_t)t * g->n + i];
            if (w->s_col[cell] != NONE && !inc->S[(size_t)t * g->n + i])
                x[w->s_col[cell]] = 0;
        }
}

void opt_window_apply(const opt_window *w, const opt_graph *g, const double *x,
                      opt_schedule *s)
{
    uint32_t n = g->n;
    for (uint32_t t = w->a; t < w->b; t++)
        for (uint32_t j = 0; j < w->n_nodes; j++) {
            size_t cell = (size_t)(t - w->a) * w->n_nodes + j;
            uint32_t i = w->nodes[j];
            if (w->r_col[cell] != NONE)
                s->R[(size_t)t * n + i] = x[w->r_col[cell]] >= 0.5;
            if (w->s_col[cell] != NONE)
                s->S[(size_t)t * n + i] = x[w->s_col[cell]] >= 0.5;
        }
}
