/* checkmate_peak: a solved schedule's peak by category (checkmate_peak.h). */
#include "checkmate_peak.h"

#include <stdlib.h>
#include <string.h>

#include "opt_extract.h"
#include "opt_size.h"

struct checkmate_peak {
    const sim_trace *t;
    const sim_categories *c;
    const opt_node_map *m;
    uint32_t n;
    uint64_t (*node_cat)[SIM_CAT_COUNT]; /* each node's bytes by category */
    uint8_t *copies;                     /* per node: resident copies (0, 1, 2 while recomputed) */
    uint64_t by[SIM_CAT_COUNT];          /* resident now */
    uint32_t last_op;
    int have;
    sim_peak best;
    opt_graph *own_g; /* checkmate_peak_for_trace's */
    opt_node_map *own_m;
};

/* The sizes of storages st[0..n) by category into out, made up to bytes as unknown. */
static void split(const sim_categories *c, const uint32_t *st, uint32_t n, uint64_t bytes,
                  uint64_t out[SIM_CAT_COUNT])
{
    uint64_t sum = sim_categories_add(c, st, n, out);
    if (sum < bytes)
        out[SIM_CAT_UNKNOWN] += bytes - sum;
}

int checkmate_peak_new(const sim_trace *t, const sim_categories *c, const opt_graph *g,
                       const opt_node_map *m, checkmate_peak **out, gms_error *err)
{
    *out = NULL;
    if (m->n != g->n)
        return gms_error_set(err, GMS_EINVAL, "the node map has %u nodes and the graph %u",
                             m->n, g->n);
    checkmate_peak *k = calloc(1, sizeof *k);
    if (k) {
        k->node_cat = calloc((size_t)g->n + 1, sizeof *k->node_cat);
        k->copies = calloc((size_t)g->n + 1, 1);
    }
    if (!k || !k->node_cat || !k->copies) {
        checkmate_peak_free(k);
        return gms_error_set(err, GMS_ENOMEM, "out of memory following the schedule's peak");
    }
    k->t = t, k->c = c, k->m = m, k->n = g->n;
    for (uint32_t v = 0; v < g->n; v++)
        split(c, m->st + m->st_off[v], m->st_off[v + 1] - m->st_off[v], g->nodes[v].bytes,
              k->node_cat[v]);
    split(c, m->constants, m->n_constants, g->constant_bytes, k->by);
    k->best.op = "";
    sim_peak_largest_op(t, &k->best);
    *out = k;
    return 0;
}

int checkmate_peak_for_trace(const sim_trace *t, const sim_categories *c, uint32_t iteration,
                             const char *coarsen, uint64_t budget, double time_limit,
                             checkmate_peak **out, gms_error *err)
{
    *out = NULL;
    opt_coarsen cz;
    if (opt_coarsen_parse(coarsen, &cz))
        return gms_error_set(err, GMS_EINVAL, "coarsening '%s': give auto, layers, outputs "
                             "or none", coarsen ? coarsen : "");
    char why[8];
    int rc = cz == OPT_COARSEN_AUTO ? opt_graph_auto(t, iteration, budget, time_limit, NULL,
                                                     &cz, why, sizeof why, err) : 0;
    opt_graph *g = NULL;
    opt_node_map *m = NULL;
    if (rc || (rc = opt_graph_from_trace_map(t, iteration, cz, &g, &m, err)) != 0 ||
        (rc = checkmate_peak_new(t, c, g, m, out, err)) != 0) {
        opt_graph_free(g);
        opt_node_map_free(m);
        return rc;
    }
    (*out)->own_g = g;
    (*out)->own_m = m;
    return 0;
}

void checkmate_peak_observe(void *ctx, const sim_event *ev)
{
    checkmate_peak *k = ctx;
    uint32_t v = ev->op_index < k->n ? (uint32_t)ev->op_index : UINT32_MAX;
    if (v != UINT32_MAX) {
        if (ev->kind == SIM_EV_COMPUTE || ev->kind == SIM_EV_REMAT) {
            k->copies[v]++;
            for (int i = 0; i < SIM_CAT_COUNT; i++)
                k->by[i] += k->node_cat[v][i];
            k->last_op = k->m->last_op[v];
        } else if ((ev->kind == SIM_EV_EVICT || ev->kind == SIM_EV_EVICT_EAGER) &&
                   k->copies[v]) {
            k->copies[v]--;
            for (int i = 0; i < SIM_CAT_COUNT; i++)
                k->by[i] -= k->node_cat[v][i];
        }
    }
    if (!k->have || ev->memory > k->best.memory) {
        sim_peak_at(&k->best, k->t, k->c, ev->memory, k->last_op, k->by);
        k->have = 1;
    }
}

void checkmate_peak_now(const checkmate_peak *k, uint64_t out[SIM_CAT_COUNT])
{
    memcpy(out, k->by, sizeof k->by);
}

void checkmate_peak_result(const checkmate_peak *k, sim_peak *out)
{
    *out = k->best;
}

void checkmate_peak_free(checkmate_peak *k)
{
    if (!k)
        return;
    free(k->node_cat);
    free(k->copies);
    opt_graph_free(k->own_g);
    opt_node_map_free(k->own_m);
    free(k);
}
