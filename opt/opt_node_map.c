/* opt_node_map: a graph's nodes as the trace's ops and storages (opt_node_map.h). */
#include "opt_node_map.h"

#include <stdlib.h>
#include <string.h>

void opt_node_map_free(opt_node_map *m)
{
    if (!m)
        return;
    free(m->last_op), free(m->st_off), free(m->st), free(m->constants);
    free(m);
}

opt_node_map *opt_node_map_build(const sim_flow *f, const uint32_t *node_of,
                                 const uint8_t *external, uint32_t n_nodes)
{
    opt_node_map *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    size_t held = 0;
    for (uint32_t i = 0; i < f->n_ops; i++)
        held += f->ops[i].n_held;
    m->n = n_nodes;
    m->last_op = calloc((size_t)n_nodes + 1, sizeof *m->last_op);
    m->st_off = calloc((size_t)n_nodes + 2, sizeof *m->st_off);
    m->st = malloc((held + 1) * sizeof *m->st);
    m->constants = malloc(((size_t)f->n_constants + 1) * sizeof *m->constants);
    if (!m->last_op || !m->st_off || !m->st || !m->constants) {
        opt_node_map_free(m);
        return NULL;
    }
    memcpy(m->constants, f->constants, (size_t)f->n_constants * sizeof *m->constants);
    m->n_constants = f->n_constants;
    /* count per node, then place (flow ops are in op order, so the last seen is the last op) */
    for (uint32_t i = 0; i < f->n_ops; i++) {
        uint32_t v = node_of ? node_of[i] : i;
        if (v >= n_nodes)
            continue;
        m->last_op[v] = f->ops[i].op;
        if (!node_of || external[i])
            m->st_off[v + 1] += f->ops[i].n_held;
    }
    for (uint32_t v = 0; v < n_nodes; v++)
        m->st_off[v + 1] += m->st_off[v];
    uint32_t *at = malloc(((size_t)n_nodes + 1) * sizeof *at);
    if (!at) {
        opt_node_map_free(m);
        return NULL;
    }
    memcpy(at, m->st_off, (size_t)n_nodes * sizeof *at);
    for (uint32_t i = 0; i < f->n_ops; i++) {
        uint32_t v = node_of ? node_of[i] : i;
        if (v >= n_nodes || (node_of && !external[i]))
            continue;
        for (uint32_t k = 0; k < f->ops[i].n_held; k++)
            m->st[at[v]++] = f->held[f->ops[i].held_off + k];
    }
    free(at);
    return m;
}
