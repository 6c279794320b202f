/*
 * opt_bound: the boundary bound (opt_bound.h), as an LP handed to the solver binding.
 */
#include "opt_bound.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opt_program.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct gap {
    uint32_t node, first, last; /* stages first .. last, where dropping node saves memory */
} gap;

int opt_boundary_bound(const opt_graph *g, uint64_t budget, double time_limit,
                       opt_bound_result *r, gms_error *err)
{
    memset(r, 0, sizeof *r);
    double t0 = now_s();
    uint32_t n = g->n;
    double unit = budget > 0 ? (double)budget : 1; /* memory in budgets, as opt_program */
    double base = opt_graph_compute(g);
    /* the gaps: between i and its first consumer, and between consecutive consumers; a
     * stage strictly inside a gap is not a consumer of i, so i is not an input there */
    gap *gaps = malloc(((size_t)g->n_edges + 1) * sizeof *gaps);
    double *need = calloc((size_t)n + 1, sizeof *need);   /* m_t + inputs - budget */
    double *held = calloc((size_t)n + 1, sizeof *held);   /* sum of m_i over open gaps */
    uint32_t *count = calloc((size_t)n + 1, sizeof *count);
    opt_program *p = calloc(1, sizeof *p);
    if (!gaps || !need || !held || !count || !p) {
        free(gaps), free(need), free(held), free(count), free(p);
        return gms_error_set(err, GMS_ENOMEM, "out of memory building the boundary bound");
    }
    uint32_t ng = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t prev = i;
        double m = (double)g->nodes[i].bytes / unit;
        for (uint32_t q = g->succ_off[i]; q < g->succ_off[i + 1]; q++) {
            uint32_t j = g->succ[q];
            if (j > prev + 1 && m > 0 && g->nodes[i].cost > 0) {
                gaps[ng++] = (gap){i, prev + 1, j - 1};
                for (uint32_t t = prev + 1; t < j; t++)
                    held[t] += m, count[t]++;
            } /* a free recomputation (cost 0) is never worth holding: not counted */
            prev = j;
        }
    }
    for (uint32_t t = 0; t < n; t++) {
        need[t] = (double)g->nodes[t].bytes / unit - 1;
        for (uint32_t e = g->pred_edge_off[t]; e < g->pred_edge_off[t + 1]; e++)
            need[t] += (double)g->nodes[g->edges[e].u].bytes / unit;
    }
    /* rows only where the gaps can overflow the budget: sum m D >= need + held */
    uint32_t *row_of = malloc(((size_t)n + 1) * sizeof *row_of);
    size_t ents = 0;
    uint32_t rows = 0;
    int infeasible = 0;
    for (uint32_t t = 0; t < n && row_of; t++) {
        row_of[t] = UINT32_MAX;
        if (need[t] > 1e-12)
            infeasible = 1; /* t with its inputs alone exceeds the budget */
        if (need[t] + held[t] > 1e-12) {
            row_of[t] = rows++;
            ents += count[t];
        }
    }
    p->n_cols = ng;
    p->n_rows = rows;
    p->col_lb = calloc((size_t)ng + 1, sizeof *p->col_lb);
    p->col_ub = malloc(((size_t)ng + 1) * sizeof *p->col_ub);
    p->obj = malloc(((size_t)ng + 1) * sizeof *p->obj);
    p->col_int = calloc((size_t)ng + 1, 1);
    p->row_lb = malloc(((size_t)rows + 1) * sizeof *p->row_lb);
    p->row_ub = malloc(((size_t)rows + 1) * sizeof *p->row_ub);
    p->row_start = calloc((size_t)rows + 2, sizeof *p->row_start);
    p->ent_col = malloc((ents + 1) * sizeof *p->ent_col);
    p->ent_val = malloc((ents + 1) * sizeof *p->ent_val);
    int rc = 0;
    if (!row_of || !p->col_lb || !p->col_ub || !p->obj || !p->col_int || !p->row_lb ||
        !p->row_ub || !p->row_start || !p->ent_col || !p->ent_val) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory building the boundary bound");
        goto done;
    }
    r->columns = ng;
    r->rows = rows;
    if (infeasible) {
        r->status = OPT_STATUS_INFEASIBLE;
        goto done;
    }
    for (uint32_t c = 0; c < ng; c++) {
        p->col_ub[c] = 1;
        p->obj[c] = g->nodes[gaps[c].node].cost;
    }
    /* rows filled stage by stage: count the entries first, then place them */
    for (uint32_t t = 0; t < n; t++)
        if (row_of[t] != UINT32_MAX) {
            p->row_lb[row_of[t]] = need[t] + held[t];
            p->row_ub[row_of[t]] = 1e30;
            p->row_start[row_of[t] + 1] = count[t];
        }
    for (uint32_t k = 0; k < rows; k++)
        p->row_start[k + 1] += p->row_start[k];
    size_t *fill = malloc(((size_t)rows + 1) * sizeof *fill);
    if (!fill) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory building the boundary bound");
        goto done;
    }
    memcpy(fill, p->row_start, ((size_t)rows + 1) * sizeof *fill);
    for (uint32_t c = 0; c < ng; c++)
        for (uint32_t t = gaps[c].first; t <= gaps[c].last; t++)
            if (row_of[t] != UINT32_MAX) {
                size_t at = fill[row_of[t]]++;
                p->ent_col[at] = c;
                p->ent_val[at] = (double)g->nodes[gaps[c].node].bytes / unit;
            }
    free(fill);
    p->n_ent = ents;
    if (rows == 0) { /* everything fits at every node's event: no recomputation needed */
        r->status = OPT_STATUS_OPTIMAL;
        r->value = base;
        goto done;
    }
    opt_solver_opts o = {.time_limit = time_limit};
    opt_solver_result s;
    rc = opt_solver_solve(p, g, &o, &s, err);
    if (rc == 0) {
        r->status = s.status;
        if (s.status == OPT_STATUS_OPTIMAL)
            r->value = base + s.objective;
        free(s.x);
    }
done:
    r->seconds = now_s() - t0;
    free(gaps), free(need), free(held), free(count), free(row_of);
    opt_program_free(p);
    return rc;
}
