/*
 * mincut: Dinic's maximum flow, then networkx's partition (mincut.h).
 */
#include "mincut.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct mc_edge {
    uint32_t to, next;
    double cap; /* residual capacity */
} mc_edge;

struct mc_graph {
    uint32_t n;
    uint32_t *head; /* first edge of each vertex, UINT32_MAX = none */
    mc_edge *e;
    uint32_t n_e, cap_e;
    uint32_t *level, *it, *queue;
};

mc_graph *mc_new(uint32_t n)
{
    mc_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->n = n;
    g->head = malloc((n ? n : 1) * sizeof *g->head);
    g->level = malloc((n ? n : 1) * sizeof *g->level);
    g->it = malloc((n ? n : 1) * sizeof *g->it);
    g->queue = malloc((n ? n : 1) * sizeof *g->queue);
    if (!g->head || !g->level || !g->it || !g->queue) {
        mc_free(g);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        g->head[i] = UINT32_MAX;
    return g;
}

void mc_free(mc_graph *g)
{
    if (!g)
        return;
    free(g->head), free(g->e), free(g->level), free(g->it), free(g->queue);
    free(g);
}

static int push_edge(mc_graph *g, uint32_t u, uint32_t v, double cap)
{
    if (g->n_e == g->cap_e) {
        uint32_t c = g->cap_e ? 2 * g->cap_e : 64;
        mc_edge *p = realloc(g->e, (size_t)c * sizeof *p);
        if (!p)
            return -1;
        g->e = p, g->cap_e = c;
    }
    g->e[g->n_e] = (mc_edge){v, g->head[u], cap};
    g->head[u] = g->n_e++;
    return 0;
}

int mc_add_edge(mc_graph *g, uint32_t u, uint32_t v, double capacity)
{
    /* edge 2k and its reverse 2k + 1 (residual capacity 0, as networkx's residual) */
    if (push_edge(g, u, v, capacity) || push_edge(g, v, u, 0))
        return GMS_ENOMEM;
    return 0;
}

/* Levels from s over edges with residual capacity; 1 when t is reached. */
static int bfs(mc_graph *g, uint32_t s, uint32_t t)
{
    for (uint32_t i = 0; i < g->n; i++)
        g->level[i] = UINT32_MAX;
    uint32_t qh = 0, qt = 0;
    g->level[s] = 0;
    g->queue[qt++] = s;
    while (qh < qt) {
        uint32_t u = g->queue[qh++];
        for (uint32_t k = g->head[u]; k != UINT32_MAX; k = g->e[k].next)
            if (g->e[k].cap > 0 && g->level[g->e[k].to] == UINT32_MAX) {
                g->level[g->e[k].to] = g->level[u] + 1;
                g->queue[qt++] = g->e[k].to;
            }
    }
    return g->level[t] != UINT32_MAX;
}

/* One blocking-flow augmenting path, iteratively (graphs have tens of thousands of levels). */
static double augment(mc_graph *g, uint32_t s, uint32_t t, uint32_t *path)
{
    uint32_t depth = 0, u = s;
    for (;;) {
        if (u == t) {
            double f = INFINITY;
            for (uint32_t d = 0; d < depth; d++)
                f = g->e[path[d]].cap < f ? g->e[path[d]].cap : f;
            for (uint32_t d = 0; d < depth; d++) {
                g->e[path[d]].cap -= f;
                g->e[path[d] ^ 1].cap += f;
            }
            return f;
        }
        uint32_t k = g->it[u];
        while (k != UINT32_MAX &&
               !(g->e[k].cap > 0 && g->level[g->e[k].to] == g->level[u] + 1))
            k = g->e[k].next;
        g->it[u] = k;
        if (k != UINT32_MAX) {
            path[depth++] = k;
            u = g->e[k].to;
            continue;
        }
        if (depth == 0)
            return 0;
        g->level[u] = UINT32_MAX; /* dead end */
        u = g->e[path[--depth] ^ 1].to;
        g->it[u] = g->e[g->it[u]].next;
    }
}

int mc_solve(mc_graph *g, uint32_t s, uint32_t t, double *flow, uint8_t *side, gms_error *err)
{
    /* an uncuttable path: infinite edges only */
    for (uint32_t i = 0; i < g->n; i++)
        g->level[i] = 0;
    uint32_t qh = 0, qt = 0;
    g->queue[qt++] = s, g->level[s] = 1;
    while (qh < qt) {
        uint32_t u = g->queue[qh++];
        for (uint32_t k = g->head[u]; k != UINT32_MAX; k = g->e[k].next)
            if (isinf(g->e[k].cap) && !g->level[g->e[k].to])
                g->level[g->e[k].to] = 1, g->queue[qt++] = g->e[k].to;
    }
    if (g->level[t])
        return gms_error_set(err, GMS_EINVAL, "min cut: a path of infinite capacity joins the "
                             "source to the sink (nothing can be saved to cut it)");
    uint32_t *path = malloc((g->n ? g->n : 1) * sizeof *path);
    if (!path)
        return gms_error_set(err, GMS_ENOMEM, "min cut: out of memory");
    double total = 0;
    while (bfs(g, s, t)) {
        for (uint32_t i = 0; i < g->n; i++)
            g->it[i] = g->head[i];
        double f;
        while ((f = augment(g, s, t, path)) > 0)
            total += f;
    }
    free(path);
    /* the sink side: vertices with a residual path to t (reverse search from t) */
    for (uint32_t i = 0; i < g->n; i++)
        side[i] = 1;
    qh = qt = 0;
    g->queue[qt++] = t, side[t] = 0;
    while (qh < qt) {
        uint32_t v = g->queue[qh++];
        /* an edge u -> v with residual capacity is the reverse of one of v's edges */
        for (uint32_t k = g->head[v]; k != UINT32_MAX; k = g->e[k].next) {
            uint32_t u = g->e[k].to;
            if (side[u] && g->e[k ^ 1].cap > 0)
                side[u] = 0, g->queue[qt++] = u;
        }
    }
    *flow = total;
    return 0;
}
