/*
 * opt_xengine: the two-device program (opt_xengine.h; docs/optimal.md, "Two devices"), built
 * as rows of a solver-neutral opt_program and solved through opt_solver.h.
 *
 * Per device d (0 GPU, 1 host), stage t, node i <= t, edge e = (i, k):
 *   R[d,t,i], S[d,t,i] (i < t)  binary: computed in / kept into stage t on d
 *   Z[d,t,i] in [0,1]           R or S: i is on d in stage t (the authors' Z)
 *   F[d,t,e] in [0,1] (k < t)   i is freed on d after k runs
 *   U[d,t,k] in [0, budget_d]   d's memory after node k of stage t
 *   X[d,t,e] in [0,1] (k <= t)  i is copied to d for k (the authors' R * Z product)
 * minimize sum cost_d(i) R[d,t,i] + sum copy_ms(bytes_i) X[d,t,e].
 */
#include "opt_xengine.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opt_program.h"
#include "opt_schedule.h"
#include "opt_solve.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double opt_xe_copy_ms(const sim_link *link, uint64_t bytes)
{
    return (double)sim_link_copy_ns(link, bytes) / 1e6;
}

opt_xe_schedule *opt_xe_schedule_new(uint32_t n)
{
    opt_xe_schedule *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->n = n;
    size_t nn = (size_t)n * n + 1;
    for (int d = 0; d < 2; d++) {
        s->R[d] = calloc(nn, 1);
        s->S[d] = calloc(nn, 1);
        if (!s->R[d] || !s->S[d]) {
            opt_xe_schedule_free(s);
            return NULL;
        }
    }
    return s;
}

void opt_xe_schedule_free(opt_xe_schedule *s)
{
    if (!s)
        return;
    for (int d = 0; d < 2; d++) {
        free(s->R[d]);
        free(s->S[d]);
    }
    free(s);
}

static int fail(char *why, size_t len, const char *fmt, ...)
{
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The program's accounting of a schedule, with every free the program allows taken. */
int opt_xe_evaluate(const opt_graph *g, const sim_link *link, const opt_xe_schedule *s,
                    opt_xe_eval *e, char *why, size_t len)
{
    memset(e, 0, sizeof *e);
    uint32_t T = g->n;
#define R_(d, t, i) s->R[d][(size_t)(t) * T + (i)]
#define S_(d, t, i) s->S[d][(size_t)(t) * T + (i)]
#define ON(d, t, i) (R_(d, t, i) || ((i) < (t) && S_(d, t, i)))
    for (uint32_t t = 0; t < T; t++) {
        if (R_(0, t, t) + R_(1, t, t) != 1)
            return fail(why, len, "stage %u computes node %u on %u devices, not one", t, t,
                        R_(0, t, t) + R_(1, t, t));
        for (uint32_t i = 0; i < T; i++)
            for (int d = 0; d < 2; d++) {
                if ((i > t && R_(d, t, i)) || (i >= t && S_(d, t, i)))
                    return fail(why, len, "stage %u: node %u computed or kept before its stage", t, i);
                if (d == OPT_XE_HOST && R_(d, t, i) && g->nodes[i].cost_host < 0)
                    return fail(why, len, "stage %u: node %u runs on the host without a "
                                "cost_host", t, i);
                if (t + 1 < T && i < t + 1 && S_(d, t + 1, i) && !ON(d, t, i))
                    return fail(why, len, "stage %u: node %u kept on device %u but neither "
                                "computed nor kept there before", t + 1, i, (uint32_t)d);
            }
    }
    for (uint32_t t = 0; t < T; t++)
        for (int d = 0; d < 2; d++) {
            uint64_t mem = 0;
            for (uint32_t i = 0; i < t; i++)
                if (S_(d, t, i))
                    mem += g->nodes[i].bytes;
            for (uint32_t k = 0; k <= t; k++) {
                uint64_t copies = 0;
                if (R_(d, t, k)) {
                    mem += g->nodes[k].bytes;
                    e->compute[d] += d == OPT_XE_HOST ? g->nodes[k].cost_host : g->nodes[k].cost;
                    for (uint32_t q = 0; q < g->nodes[k].n_inputs; q++) {
                        uint32_t u = g->nodes[k].inputs[q];
                        if (ON(d, t, u))
                            continue;
                        if (!ON(1 - d, t, u))
                            return fail(why, len, "stage %u: node %u needs node %u, which is on "
                                        "neither device", t, k, u);
                        copies += g->nodes[u].bytes;
                        e->transfers[d]++;
                        e->transfer_bytes[d] += g->nodes[u].bytes;
                        e->transfer_ms += opt_xe_copy_ms(link, g->nodes[u].bytes);
                    }
                }
                if (mem + copies > e->peak[d])
                    e->peak[d] = mem + copies;
                if (k == t)
                    break;
                /* after k: free each input i of k held on d when k ran (on either device),
                 * i is not kept on d into the next stage and no later consumer runs */
                if (!R_(0, t, k) && !R_(1, t, k))
                    continue;
                for (uint32_t q = 0; q < g->nodes[k].n_inputs; q++) {
                    uint32_t i = g->nodes[k].inputs[q];
                    if (!ON(d, t, i) || (t + 1 < T && S_(d, t + 1, i)))
                        continue;
                    int later = 0;
                    for (uint32_t x = g->succ_off[i]; x < g->succ_off[i + 1] && !later; x++) {
                        uint32_t j = g->succ[x];
                        later = j > k && j <= t && (R_(0, t, j) || R_(1, t, j));
                    }
                    if (!later)
                        mem -= g->nodes[i].bytes;
                }
            }
        }
#undef R_
#undef S_
#undef ON
    e->total_ms = e->compute[0] + e->compute[1] + e->transfer_ms;
    return 0;
}

/* ---- the program ---- */

typedef struct xe_layout {
    uint32_t T;
    int32_t *R[2], *S[2], *Z[2], *U[2]; /* n x n: column index or -1 */
    int32_t *F[2], *X[2];               /* per (t, e): f_off[t] + e, x_off[t] + e */
    uint32_t *f_off, *x_off;            /* T + 1 */
} xe_layout;

typedef struct xe_builder {
    opt_program *p;
    size_t cap_cols, cap_rows, cap_ent;
    int failed;
} xe_builder;

static int grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    void *n = realloc(*ptr, c * elem);
    if (!n)
        return -1;
    *ptr = n;
    *cap = c;
    return 0;
}

/* A new column named after the authors' variables with the device spelled out: R_gpu_t_i,
 * F_host_t_e and so on (--write-model); -1 when out of memory. */
static int32_t col(xe_builder *b, double lb, double ub, double obj, int integral,
                   const char *var, int d, uint32_t t, uint32_t i)
{
    opt_program *p = b->p;
    if (b->failed)
        return -1;
    size_t need = (size_t)p->n_cols + 2, c0 = b->cap_cols;
    size_t c1 = c0, c2 = c0, c3 = c0, c4 = c0;
    if (grow((void **)&p->col_lb, &c0, need, sizeof *p->col_lb) ||
        grow((void **)&p->col_ub, &c1, need, sizeof *p->col_ub) ||
        grow((void **)&p->obj, &c2, need, sizeof *p->obj) ||
        grow((void **)&p->col_int, &c3, need, 1) ||
        grow((void **)&p->col_names, &c4, need, sizeof *p->col_names)) {
        b->failed = 1;
        return -1;
    }
    b->cap_cols = c0;
    char name[64];
    snprintf(name, sizeof name, "%s_%s_%u_%u", var, d == OPT_XE_HOST ? "host" : "gpu", t, i);
    if (!(p->col_names[p->n_cols] = strdup(name))) {
        b->failed = 1;
        return -1;
    }
    p->col_lb[p->n_cols] = lb;
    p->col_ub[p->n_cols] = ub;
    p->obj[p->n_cols] = obj;
    p->col_int[p->n_cols] = (uint8_t)integral;
    return (int32_t)p->n_cols++;
}

static void row(xe_builder *b, double lb, double ub)
{
    opt_program *p = b->p;
    if (b->failed)
        return;
    size_t need = (size_t)p->n_rows + 2, c0 = b->cap_rows, c1 = c0, c2 = c0;
    if (grow((void **)&p->row_lb, &c0, need, sizeof *p->row_lb) ||
        grow((void **)&p->row_ub, &c1, need, sizeof *p->row_ub) ||
        grow((void **)&p->row_start, &c2, need, sizeof *p->row_start)) {
        b->failed = 1;
        return;
    }
    b->cap_rows = c0;
    p->row_lb[p->n_rows] = lb;
    p->row_ub[p->n_rows] = ub;
    p->row_start[p->n_rows] = p->n_ent;
    p->n_rows++;
    p->row_start[p->n_rows] = p->n_ent;
}

static void ent(xe_builder *b, int32_t c, double v)
{
    opt_program *p = b->p;
    if (b->failed || c < 0)
        return;
    size_t need = p->n_ent + 1, c0 = b->cap_ent, c1 = c0;
    if (grow((void **)&p->ent_col, &c0, need, sizeof *p->ent_col) ||
        grow((void **)&p->ent_val, &c1, need, sizeof *p->ent_val)) {
        b->failed = 1;
        return;
    }
    b->cap_ent = c0;
    p->ent_col[p->n_ent] = (uint32_t)c;
    p->ent_val[p->n_ent] = v;
    p->n_ent++;
    p->row_start[p->n_rows] = p->n_ent;
}

static void layout_free(xe_layout *L)
{
    for (int d = 0; d < 2; d++) {
        free(L->R[d]), free(L->S[d]), free(L->Z[d]), free(L->U[d]);
        free(L->F[d]), free(L->X[d]);
    }
    free(L->f_off), free(L->x_off);
    memset(L, 0, sizeof *L);
}

static int layout_alloc(const opt_graph *g, xe_layout *L)
{
    uint32_t T = g->n;
    size_t nn = (size_t)T * T + 1;
    L->T = T;
    L->f_off = calloc((size_t)T + 1, sizeof *L->f_off);
    L->x_off = calloc((size_t)T + 1, sizeof *L->x_off);
    if (!L->f_off || !L->x_off)
        return -1;
    for (uint32_t t = 0; t < T; t++) {
        L->f_off[t + 1] = L->f_off[t] + g->pred_edge_off[t];     /* edges into k < t */
        L->x_off[t + 1] = L->x_off[t] + g->pred_edge_off[t + 1]; /* edges into k <= t */
    }
    for (int d = 0; d < 2; d++) {
        L->R[d] = malloc(nn * sizeof(int32_t));
        L->S[d] = malloc(nn * sizeof(int32_t));
        L->Z[d] = malloc(nn * sizeof(int32_t));
        L->U[d] = malloc(nn * sizeof(int32_t));
        L->F[d] = malloc(((size_t)L->f_off[T] + 1) * sizeof(int32_t));
        L->X[d] = malloc(((size_t)L->x_off[T] + 1) * sizeof(int32_t));
        if (!L->R[d] || !L->S[d] || !L->Z[d] || !L->U[d] || !L->F[d] || !L->X[d])
            return -1;
        memset(L->R[d], 0xff, nn * sizeof(int32_t));
        memset(L->S[d], 0xff, nn * sizeof(int32_t));
        memset(L->Z[d], 0xff, nn * sizeof(int32_t));
        memset(L->U[d], 0xff, nn * sizeof(int32_t));
        memset(L->F[d], 0xff, ((size_t)L->f_off[T] + 1) * sizeof(int32_t));
        memset(L->X[d], 0xff, ((size_t)L->x_off[T] + 1) * sizeof(int32_t));
    }
    return 0;
}

static int on_host(const opt_graph *g, uint32_t i)
{
    return g->nodes[i].cost_host >= 0;
}

/* Builds the program. act: GPU activation budget (bytes); host: host bytes or UINT64_MAX.
 * Columns that can only be 0 (the host's, for nodes without cost_host) are not created. */
static int build(const opt_graph *g, uint64_t act, uint64_t host, const sim_link *link,
                 int integral, double shrink, opt_program **out, xe_layout *L, gms_error *err)
{
    *out = NULL;
    uint32_t T = g->n;
    uint64_t cols = 0;
    for (uint32_t t = 0; t < T; t++)
        cols += 8 * ((uint64_t)t + 1) + 4 * (uint64_t)g->pred_edge_off[t + 1];
    if (cols > INT32_MAX / 2)
        return gms_error_set(err, GMS_EINVAL,
                             "the two-device program for %u nodes would have about %llu "
                             "variables, more than the solver takes; coarsen the graph", T,
                             (unsigned long long)cols);
    opt_program *p = calloc(1, sizeof *p);
    xe_builder b = {p, 0, 0, 0, 0};
    if (!p || layout_alloc(g, L)) {
        free(p);
        layout_free(L);
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the two-device program");
    }
    p->n = T;
    p->integral = integral;
    /* memory in units of the GPU's activation budget, as opt_program.c, for both devices */
    double unit = act > 0 ? (double)act : 1, total = 0;
    for (uint32_t i = 0; i < T; i++)
        total += (double)g->nodes[i].bytes;
    p->ram_unit = unit;
    p->budget_units = (double)act / unit;
    /* shrink: the budgets made smaller by a fraction, when the solver's feasibility tolerance
     * (1e-7) let a solution overrun a budget by a few bytes (opt_xe_solve) */
    double cap[2] = {(double)act / unit * (1 - shrink),
                     host == UINT64_MAX ? total / unit + 1 : (double)host / unit * (1 - shrink)};
    double *m = malloc(((size_t)T + 1) * sizeof *m);
    if (!m) {
        opt_program_free(p);
        layout_free(L);
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the two-device program");
    }
    for (uint32_t i = 0; i < T; i++)
        m[i] = (double)g->nodes[i].bytes / unit;
#define IX(t, i) ((size_t)(t) * T + (i))
    /* columns */
    for (int d = 0; d < 2; d++)
        for (uint32_t t = 0; t < T; t++)
            for (uint32_t i = 0; i <= t; i++) {
                if (d == OPT_XE_HOST && !on_host(g, i))
                    continue;
                double c = d == OPT_XE_HOST ? g->nodes[i].cost_host : g->nodes[i].cost;
                L->R[d][IX(t, i)] = col(&b, 0, 1, c, integral, "R", d, t, i);
                if (i < t)
                    L->S[d][IX(t, i)] = col(&b, 0, 1, 0, integral, "S", d, t, i);
                L->Z[d][IX(t, i)] = col(&b, 0, 1, 0, 0, "Z", d, t, i);
            }
    for (int d = 0; d < 2; d++)
        for (uint32_t t = 0; t < T; t++) {
            for (uint32_t k = 0; k <= t; k++)
                L->U[d][IX(t, k)] = col(&b, 0, cap[d], 0, 0, "U", d, t, k);
            for (uint32_t e = 0; e < g->pred_edge_off[t]; e++)
                if (d == OPT_XE_GPU || on_host(g, g->edges[e].u))
                    L->F[d][L->f_off[t] + e] = col(&b, 0, 1, 0, 0, "FREE_E", d, t, e);
            /* copies to d: the reader k must be able to run on d and the value i to be on
             * the other device */
            for (uint32_t e = 0; e < g->pred_edge_off[t + 1]; e++) {
                uint32_t i = g->edges[e].u, k = g->edges[e].v;
                int reader = d == OPT_XE_GPU || on_host(g, k);
                int other = d == OPT_XE_HOST || on_host(g, i);
                if (reader && other)
                    L->X[d][L->x_off[t] + e] =
                        col(&b, 0, 1, opt_xe_copy_ms(link, g->nodes[i].bytes), 0, "X", d, t,
                            e);
            }
        }
    /* stage t computes node t on exactly one device (the authors' two rows, sum >= 1 and
     * the total = T, say the same) */
    for (uint32_t t = 0; t < T; t++) {
        row(&b, 1, 1);
        ent(&b, L->R[0][IX(t, t)], 1);
        ent(&b, L->R[1][IX(t, t)], 1);
    }
    for (int d = 0; d < 2; d++)
        for (uint32_t t = 0; t < T; t++)
            for (uint32_t i = 0; i <= t; i++) {
                int32_t r = L->R[d][IX(t, i)], s = i < t ? L->S[d][IX(t, i)] : -1;
                int32_t z = L->Z[d][IX(t, i)];
                if (r < 0)
                    continue;
                /* Z = R or S: Z >= R, Z >= S, Z <= R + S */
                row(&b, 0, 1e30), ent(&b, z, 1), ent(&b, r, -1);
                if (s >= 0)
                    row(&b, 0, 1e30), ent(&b, z, 1), ent(&b, s, -1);
                row(&b, -1e30, 0), ent(&b, z, 1), ent(&b, r, -1), ent(&b, s, -1);
                /* a checkpoint on d was computed or kept on d in the stage before */
                if (t + 1 < T) {
                    row(&b, -1e30, 0);
                    ent(&b, L->S[d][IX(t + 1, i)], 1);
                    ent(&b, r, -1);
                    ent(&b, s, -1);
                }
            }
    /* a computed node's inputs are computed or kept on either device */
    for (int d = 0; d < 2; d++)
        for (uint32_t t = 0; t < T; t++)
            for (uint32_t e = 0; e < g->pred_edge_off[t + 1]; e++) {
                uint32_t u = g->edges[e].u, v = g->edges[e].v;
                if (L->R[d][IX(t, v)] < 0)
                    continue;
                row(&b, -1e30, 0);
                ent(&b, L->R[d][IX(t, v)], 1);
                for (int d2 = 0; d2 < 2; d2++) {
                    ent(&b, L->R[d2][IX(t, u)], -1);
                    if (u < t)
                        ent(&b, L->S[d2][IX(t, u)], -1);
                }
            }
    /* frees: F[d,t,(i,k)] <= R[.,t,k] (k ran), <= Z[d,t,i] (d holds i), <= 1 - S[d,t+1,i]
     * (not kept), <= 1 - R[.,t,j] for every later consumer j of i in the stage */
    for (int d = 0; d < 2; d++)
        for (uint32_t t = 0; t < T; t++)
            for (uint32_t e = 0; e < g->pred_edge_off[t]; e++) {
                int32_t f = L->F[d][L->f_off[t] + e];
                uint32_t i = g->edges[e].u, k = g->edges[e].v;
                if (f < 0)
                    continue;
                row(&b, -1e30, 0), ent(&b, f, 1);
                ent(&b, L->R[0][IX(t, k)], -1), ent(&b, L->R[1][IX(t, k)], -1);
                row(&b, -1e30, 0), ent(&b, f, 1), ent(&b, L->Z[d][IX(t, i)], -1);
                if (t + 1 < T)
                    row(&b, -1e30, 1), ent(&b, f, 1), ent(&b, L->S[d][IX(t + 1, i)], 1);
                for (uint32_t q = g->succ_off[i]; q < g->succ_off[i + 1]; q++) {
                    uint32_t j = g->succ[q];
                    if (j <= k || j > t)
                        continue;
                    for (int d2 = 0; d2 < 2; d2++)
                        if (L->R[d2][IX(t, j)] >= 0)
                            row(&b, -1e30, 1), ent(&b, f, 1), ent(&b, L->R[d2][IX(t, j)], 1);
                }
            }
    /* copies: X[d,t,(i,k)] >= R[d,t,k] + Z[o,t,i] - Z[d,t,i] - 1 (k on d reads i from the
     * other device o) */
    for (int d = 0; d < 2; d++)
        for (uint32_t t = 0; t < T; t++)
            for (uint32_t e = 0; e < g->pred_edge_off[t + 1]; e++) {
                int32_t x = L->X[d][L->x_off[t] + e];
                uint32_t i = g->edges[e].u, k = g->edges[e].v;
                if (x < 0)
                    continue;
                row(&b, -1, 1e30);
                ent(&b, x, 1);
                ent(&b, L->R[d][IX(t, k)], -1);
                ent(&b, L->Z[1 - d][IX(t, i)], -1);
                ent(&b, L->Z[d][IX(t, i)], 1);
            }
    /* memory, per device: the stage starts with its checkpoints, each computed node adds its
     * bytes, inputs freed after a node leave; a node's copied inputs sit beside it */
    for (int d = 0; d < 2; d++)
        for (uint32_t t = 0; t < T; t++) {
            row(&b, 0, 0);
            ent(&b, L->U[d][IX(t, 0)], 1);
            if (m[0] != 0)
                ent(&b, L->R[d][IX(t, 0)], -m[0]);
            for (uint32_t i = 0; i < t; i++)
                if (m[i] != 0)
                    ent(&b, L->S[d][IX(t, i)], -m[i]);
            for (uint32_t k = 0; k < t; k++) {
                row(&b, 0, 0);
                ent(&b, L->U[d][IX(t, k + 1)], 1);
                ent(&b, L->U[d][IX(t, k)], -1);
                if (m[k + 1] != 0)
                    ent(&b, L->R[d][IX(t, k + 1)], -m[k + 1]);
                for (uint32_t e = g->pred_edge_off[k]; e < g->pred_edge_off[k + 1]; e++)
                    if (m[g->edges[e].u] != 0)
                        ent(&b, L->F[d][L->f_off[t] + e], m[g->edges[e].u]);
            }
            for (uint32_t k = 0; k <= t; k++) {
                int any = 0;
                for (uint32_t e = g->pred_edge_off[k]; e < g->pred_edge_off[k + 1]; e++)
                    any |= L->X[d][L->x_off[t] + e] >= 0 && m[g->edges[e].u] != 0;
                if (!any)
                    continue;
                row(&b, -1e30, cap[d]);
                ent(&b, L->U[d][IX(t, k)], 1);
                for (uint32_t e = g->pred_edge_off[k]; e < g->pred_edge_off[k + 1]; e++)
                    if (m[g->edges[e].u] != 0)
                        ent(&b, L->X[d][L->x_off[t] + e], m[g->edges[e].u]);
            }
        }
#undef IX
    free(m);
    if (b.failed) {
        opt_program_free(p);
        layout_free(L);
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the two-device program");
    }
    *out = p;
    return 0;
}

/* ---- solving ---- */

void opt_xe_answer_clear(opt_xe_answer *a)
{
    opt_xe_schedule_free(a->schedule);
    memset(a, 0, sizeof *a);
}

static double remaining(const opt_xe_request *rq, double t0)
{
    if (rq->time_limit <= 0)
        return 0;
    double left = rq->time_limit - (now_s() - t0);
    return left > 0.05 ? left : 0.05;
}

/* The seed, the best of two schedules the program surely admits, as R and S of the integer
 * columns (CBC completes the rest):
 * - GPU alone: Checkmate's answer at the same budget (opt_solve: its MILP, seeded with the
 *   greedy schedule, within half the time left), so the two-device answer is never worse than
 *   the single-device one even when the search stops early;
 * - host alone: every node on the host, each output kept while needed (checkpoint-all), when
 *   every node has a cost_host and that fits the host memory.
 * NULL when neither exists. */
static double *seed_start(const opt_graph *g, const opt_xe_request *rq, uint64_t act,
                          double t0, const opt_program *p, const xe_layout *L, double *cost,
                          const char **kind, opt_xe_schedule **seed)
{
    uint32_t T = g->n;
    opt_schedule *gpu = NULL, *host = NULL;
    double limit = rq->time_limit > 0 ? remaining(rq, t0) / 2 : 0;
    opt_request sq = {.budget = act + g->constant_bytes, .mode = OPT_MODE_MILP,
                      .time_limit = limit};
    opt_answer sa;
    gms_error e2 = {0};
    if (opt_solve(g, &sq, &sa, &e2) == 0) {
        if (sa.schedule && opt_schedule_peak(g, sa.schedule) <= act) {
            gpu = sa.schedule;
            sa.schedule = NULL;
        }
        opt_answer_clear(&sa);
    }
    int all = 1;
    for (uint32_t i = 0; i < T; i++)
        all &= on_host(g, i);
    if (all && (host = opt_schedule_new(T)) != NULL) {
        opt_schedule_checkpoint_all(g, host);
        if (opt_schedule_peak(g, host) > rq->host_memory) {
            opt_schedule_free(host);
            host = NULL;
        }
    }
    double cg = gpu ? opt_schedule_cost(g, gpu) : INFINITY, ch = INFINITY;
    if (host) {
        ch = 0;
        for (uint32_t t = 0; t < T; t++)
            for (uint32_t i = 0; i <= t; i++)
                ch += host->R[(size_t)t * T + i] ? g->nodes[i].cost_host : 0;
    }
    double *x = NULL;
    if (gpu || host) {
        int d = ch < cg ? OPT_XE_HOST : OPT_XE_GPU;
        const opt_schedule *s = d == OPT_XE_HOST ? host : gpu;
        x = calloc((size_t)p->n_cols + 1, sizeof *x);
        *seed = opt_xe_schedule_new(T);
        if (*seed) {
            memcpy((*seed)->R[d], s->R, (size_t)T * T);
            memcpy((*seed)->S[d], s->S, (size_t)T * T);
        }
        for (uint32_t t = 0; x && t < T; t++)
            for (uint32_t i = 0; i <= t; i++) {
                x[L->R[d][(size_t)t * T + i]] = s->R[(size_t)t * T + i];
                if (i < t)
                    x[L->S[d][(size_t)t * T + i]] = s->S[(size_t)t * T + i];
            }
        *cost = d == OPT_XE_HOST ? ch : cg;
        *kind = d == OPT_XE_HOST ? "host-only" : "gpu-only";
    }
    opt_schedule_free(gpu);
    opt_schedule_free(host);
    return x;
}

static void read_schedule(const opt_graph *g, const xe_layout *L, const double *x,
                          opt_xe_schedule *s)
{
    uint32_t T = g->n;
    for (int d = 0; d < 2; d++)
        for (uint32_t t = 0; t < T; t++)
            for (uint32_t i = 0; i <= t; i++) {
                size_t at = (size_t)t * T + i;
                s->R[d][at] = L->R[d][at] >= 0 && x[L->R[d][at]] >= 0.5;
                s->S[d][at] = i < t && L->S[d][at] >= 0 && x[L->S[d][at]] >= 0.5;
            }
}

/* 1 when every node fits, with all its inputs (kept or copied), on a device it may run on:
 * the two-device floor (opt_graph_floor, for the GPU alone). Checked before the program, as
 * opt_solve does, since at the floor's very edge the solver's tolerance would let a schedule
 * overrun by a byte. */
static int fits_somewhere(const opt_graph *g, uint64_t act, uint64_t host)
{
    for (uint32_t k = 0; k < g->n; k++) {
        uint64_t need = g->nodes[k].bytes;
        for (uint32_t q = 0; q < g->nodes[k].n_inputs; q++)
            need += g->nodes[g->nodes[k].inputs[q]].bytes;
        if (need > act && !(on_host(g, k) && need <= host))
            return 0;
    }
    return 1;
}

/* One MILP solve at the given shrink of the budgets; the schedule read back and evaluated. */
static int solve_milp(const opt_graph *g, const opt_xe_request *rq, uint64_t act, double shrink,
                      double t0, opt_xe_answer *a, gms_error *err)
{
    xe_layout L = {0};
    opt_program *p = NULL;
    int rc = build(g, act, rq->host_memory, &rq->link, 1, shrink, &p, &L, err);
    if (rc)
        return rc;
    a->n_cols = p->n_cols, a->n_rows = p->n_rows;
    opt_xe_schedule *seed = NULL;
    double *start = rq->no_seed ? NULL : seed_start(g, rq, act, t0, p, &L, &a->seed_objective,
                                                    &a->seed_kind, &seed);
    a->seeded = start != NULL;
    if (rq->write_model)
        rc = opt_program_write_lp(p, g, rq->write_model, err);
    opt_solver_opts o = {.time_limit = remaining(rq, t0), .start = start, .log = rq->log};
    opt_solver_result r;
    memset(&r, 0, sizeof r);
    /* as opt_solve: CBC's root LP ignores the time limit, and when it stops there it says
     * "infeasible"; with less time left than 1.5 x the LP took, the seed is the answer */
    a->skipped_search = seed && rq->time_limit > 0 && o.time_limit < 1.5 * a->lp_seconds;
    if (a->skipped_search) {
        r.status = OPT_STATUS_FEASIBLE;
        r.bound = -1;
    } else if (rc == 0) {
        rc = opt_solver_solve(p, g, &o, &r, err);
    }
    free(start);
    if (rc) {
        opt_xe_schedule_free(seed);
        opt_program_free(p);
        layout_free(&L);
        return rc;
    }
    a->status = r.status;
    /* CBC stopped by the clock before any proof can report "infeasible" (opt_cbc.c reads a
     * finished status without a solution so); the LP was feasible, so say unknown */
    if (r.status == OPT_STATUS_INFEASIBLE && rq->time_limit > 0 && !a->skipped_search &&
        r.seconds >= 0.9 * o.time_limit)
        a->status = OPT_STATUS_UNKNOWN;
    a->nodes = r.nodes;
    a->solver_bound = r.bound;
    opt_xe_schedule_free(a->schedule);
    a->schedule = NULL;
    if (r.x && (a->schedule = opt_xe_schedule_new(g->n)) != NULL) {
        read_schedule(g, &L, r.x, a->schedule);
        char why[256];
        if (opt_xe_evaluate(g, &rq->link, a->schedule, &a->eval, why, sizeof why) != 0)
            rc = gms_error_set(err, GMS_EINVAL, "the solver's two-device schedule is not "
                               "correct (%s); please report it with the graph", why);
        a->objective = a->eval.total_ms;
    }
    /* the solver lost the seed (stopped before reading it, or numerics): the seed is still a
     * feasible answer, and a schedule exists, so nothing is "infeasible" */
    opt_xe_eval se;
    if (rc == 0 && seed && opt_xe_evaluate(g, &rq->link, seed, &se, NULL, 0) == 0 &&
        (!a->schedule || se.total_ms < a->objective - 1e-12)) {
        opt_xe_schedule_free(a->schedule);
        a->schedule = seed;
        seed = NULL;
        a->eval = se;
        a->objective = se.total_ms;
        if (a->status != OPT_STATUS_OPTIMAL)
            a->status = OPT_STATUS_FEASIBLE;
    }
    opt_xe_schedule_free(seed);
    free(r.x);
    opt_program_free(p);
    layout_free(&L);
    return rc;
}

int opt_xe_solve(const opt_graph *g, const opt_xe_request *rq, opt_xe_answer *a,
                 gms_error *err)
{
    memset(a, 0, sizeof *a);
    double t0 = now_s();
    a->lower_bound = a->solver_bound = -1;
    for (uint32_t i = 0; i < g->n; i++)
        a->host_capable += on_host(g, i);
    if (rq->budget < g->constant_bytes) {
        a->status = OPT_STATUS_INFEASIBLE;
        a->seconds = now_s() - t0;
        return 0;
    }
    uint64_t act = rq->budget - g->constant_bytes;
    if (!fits_somewhere(g, act, rq->host_memory)) {
        a->status = OPT_STATUS_INFEASIBLE;
        a->seconds = now_s() - t0;
        return 0;
    }
    xe_layout L = {0};
    opt_program *p = NULL;
    /* the LP relaxation: the bound, and the answer when relax */
    int rc = build(g, act, rq->host_memory, &rq->link, 0, 0, &p, &L, err);
    if (rc)
        return rc;
    a->n_cols = p->n_cols, a->n_rows = p->n_rows;
    if (rq->relax && rq->write_model)
        rc = opt_program_write_lp(p, g, rq->write_model, err);
    opt_solver_opts o = {.time_limit = remaining(rq, t0), .log = rq->log};
    opt_solver_result r;
    memset(&r, 0, sizeof r);
    if (rc == 0)
        rc = opt_solver_solve(p, g, &o, &r, err);
    opt_program_free(p);
    layout_free(&L);
    free(r.x);
    if (rc)
        return rc;
    a->lp_seconds = r.seconds;
    if (r.status == OPT_STATUS_OPTIMAL)
        a->lower_bound = r.objective;
    if (rq->relax || r.status == OPT_STATUS_INFEASIBLE) {
        a->status = r.status;
        a->objective = r.objective;
        a->seconds = now_s() - t0;
        return 0;
    }

    /* a schedule that overruns a budget by the solver's tolerance is solved again with the
     * budgets a millionth smaller, then refused */
    for (int attempt = 0; attempt < 3; attempt++) {
        double shrink = attempt == 0 ? 0 : attempt == 1 ? 1e-6 : 1e-5;
        if ((rc = solve_milp(g, rq, act, shrink, t0, a, err)) != 0) {
            opt_xe_answer_clear(a);
            return rc;
        }
        if (!a->schedule || (a->eval.peak[OPT_XE_GPU] <= act &&
                             a->eval.peak[OPT_XE_HOST] <= rq->host_memory))
            break;
        if (attempt == 2) {
            char b[160];
            snprintf(b, sizeof b, "the solver's schedule overruns a budget (GPU %llu of %llu, "
                     "host %llu bytes) beyond its tolerance", (unsigned long long)a->eval.peak[0],
                     (unsigned long long)act, (unsigned long long)a->eval.peak[1]);
            opt_xe_answer_clear(a);
            return gms_error_set(err, GMS_EINVAL, "%s; please report it with the graph", b);
        }
    }
    if (a->schedule) {
        a->eval.peak[OPT_XE_GPU] += g->constant_bytes;
        double bound = fmax(a->lower_bound, a->solver_bound);
        if (a->status == OPT_STATUS_OPTIMAL || bound < 0 || a->objective <= 0)
            a->gap = 0;
        else
            a->gap = fmax(0, (a->objective - bound) / a->objective);
    }
    a->seconds = now_s() - t0;
    return 0;
}
