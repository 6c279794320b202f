/* opt_size: programs sized before they are built; the auto coarsening (see opt_size.h). */
#include "opt_size.h"

#include <stdio.h>
#include <stdlib.h>

#include "opt_solver.h"

double opt_size_memory_cap(void)
{
    const char *env = getenv("GMS_OPT_MEMORY_CAP");
    char *end;
    double v = env && *env ? strtod(env, &end) : 0;
    return env && *env && !*end && v > 0 && v < 1e18 ? v : OPT_SIZE_MEMORY_CAP;
}

void opt_size_program(const opt_graph *g, opt_size *o)
{
    uint64_t T = g->n, cols = 0, rows = 0, nz = 0;
    cols = T * (T + 1) / 2 + (T ? T * (T - 1) / 2 : 0) + T * (T + 1) / 2; /* R, S, U */
    for (uint32_t t = 0; t < g->n; t++) {
        uint64_t fe = g->pred_edge_off[t]; /* FREE_E[t, e] for edges into nodes before t */
        cols += fe;
        /* correctness S[t+1,i] <= S[t,i] + R[t,i]: 3 entries per (t, i <= t) */
        if (t + 1 < g->n)
            rows += t + 1, nz += 3 * (uint64_t)(t + 1);
        /* edges R[t,v] <= R[t,u] + S[t,u] for v <= t */
        rows += g->pred_edge_off[t + 1], nz += 3 * (uint64_t)g->pred_edge_off[t + 1];
        /* two hazard rows per FREE_E: R[t,k], S[t+1,i], FREE_E and the later consumers */
        for (uint32_t e = 0; e < g->pred_edge_off[t]; e++) {
            uint32_t i = g->edges[e].u, k = g->edges[e].v;
            uint64_t later = 0; /* consumers j of i with k < j <= t: R[t,j] exists */
            for (uint32_t q = g->succ_off[i]; q < g->succ_off[i + 1]; q++)
                later += g->succ[q] > k && g->succ[q] <= t;
            rows += 2, nz += 2 * (2 + (t + 1 < g->n) + later);
        }
        /* memory: U[t,0] (R, the S of t's predecessors in time) and U[t,k+1] per k < t */
        rows += 1, nz += 2 + t;
        for (uint32_t k = 0; k < t; k++)
            rows += 1, nz += 3 + (g->pred_edge_off[k + 1] - g->pred_edge_off[k]);
    }
    o->cols = cols;
    o->rows = rows;
    o->nonzeros = nz;
    o->bytes = (double)nz * opt_solver_bytes_per_nonzero();
    o->lp_seconds = (double)nz / OPT_SIZE_LP_RATE;
}

int opt_graph_auto(const sim_trace *t, uint32_t iteration, uint64_t budget, double time_limit,
                   opt_graph **out, opt_coarsen *picked, char *why, size_t len, gms_error *err)
{
    if (out)
        *out = NULL;
    opt_graph *g;
    int rc = opt_graph_from_trace(t, iteration, OPT_COARSEN_OUTPUTS, &g, NULL, err);
    if (rc)
        return rc;
    opt_size sz;
    opt_size_program(g, &sz);
    double cap = opt_size_memory_cap(), time = time_limit > 0 ? time_limit : 600;
    uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
    if (budget >= peak)
        snprintf(why, len, "coarsen auto: outputs (%u nodes, the finest graph): the budget "
                 "holds its unconstrained peak, so nothing is recomputed and no solver runs",
                 g->n);
    else if (sz.bytes <= cap && sz.lp_seconds <= time / 4)
        snprintf(why, len, "coarsen auto: outputs (%u nodes, the finest graph): its program "
                 "(%llu nonzeros) needs about %.2f GB of the %.0f GB allowed and its LP about "
                 "%.0f s of CPU, within a quarter of %.0f s%s", g->n,
                 (unsigned long long)sz.nonzeros, sz.bytes / 1e9, cap / 1e9, sz.lp_seconds, time,
                 time_limit > 0 ? "" : " (no --time-limit: 600 s assumed)");
    if (budget >= peak || (sz.bytes <= cap && sz.lp_seconds <= time / 4)) {
        *picked = OPT_COARSEN_OUTPUTS;
        if (out)
            *out = g;
        else
            opt_graph_free(g);
        return 0;
    }
    char first[320];
    snprintf(first, sizeof first, "the outputs graph (%u nodes) would need about %.2f GB "
             "(%.0f GB allowed) and its LP about %.0f s of CPU (a quarter of %.0f s allowed%s)",
             g->n, sz.bytes / 1e9, cap / 1e9, sz.lp_seconds, time,
             time_limit > 0 ? "" : "; no --time-limit: 600 s assumed");
    int too_big = sz.bytes > cap;
    opt_graph_free(g);
    if ((rc = opt_graph_from_trace(t, iteration, OPT_COARSEN_LAYERS, &g, NULL, err)))
        return rc;
    opt_size_program(g, &sz);
    uint64_t lfloor = opt_graph_floor(g);
    int n = snprintf(why, len, "coarsen auto: layers (%u nodes, about %.3f GB): %s", g->n,
                     sz.bytes / 1e9, first);
    if (budget < lfloor && budget >= floor && n > 0 && (size_t)n < len)
        snprintf(why + n, len - (size_t)n, "; at this budget the layer graph is infeasible (a "
                 "layer with its inputs needs %llu B) where the outputs graph is not (its "
                 "floor is %llu B)%s", (unsigned long long)lfloor, (unsigned long long)floor,
                 too_big ? ", but its program is too large to solve (no decomposition yet)"
                         : ": give --coarsen outputs with a --time-limit");
    *picked = OPT_COARSEN_LAYERS;
    if (out)
        *out = g;
    else
        opt_graph_free(g);
    return 0;
}
