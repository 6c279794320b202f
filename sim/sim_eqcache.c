/*
 * sim_eqcache: DTR-eq's class cost of every storage, cached between choices (issue 15).
 *
 * The exact scan scores every pool member at every choice, and DTR-eq's score needs the
 * distinct class roots of the member's evicted neighbours (spec section 7): a walk of its
 * edges and a union-find lookup per neighbour. Between two choices only the classes next to
 * the last eviction or rematerialization change, so the cost of most members is what it was.
 *
 * A storage's cost depends on (1) its live edges, (2) which neighbours are evicted and their
 * class nodes, (3) which nodes are roots and (4) the roots' values. The engine reports (1)
 * with sim_eqc_dirty, (2) with sim_eqc_dirty_around (a storage evicted or made material:
 * every storage next to it), and (3), (4) with sim_eqc_node_changed. For (3) and (4) a
 * storage whose cost is cached subscribes to each root it summed; a change of that root
 * marks its subscribers dirty and drops the list. A dirty storage's cost is recomputed from
 * scratch on its next evaluation, by the same walk as sim_view_eqclass_cost, so the cached
 * value is always the value that walk would return: the scores, and so the runs, are
 * unchanged. Storages with more than SIM_EQC_ROOTS distinct roots are not cached.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* Sets up head/chg for every node that exists. 0 or -1. */
static int nodes_ready(sim_view *v)
{
    if (v->eqc_nodes >= v->eq_n)
        return 0;
    if (v->eq_n > v->eqc_node_cap) {
        uint32_t cap = v->eqc_node_cap;
        if (sim_grow((void **)&v->eqc_head, &cap, v->eq_n, sizeof *v->eqc_head))
            return -1;
        uint32_t cap2 = v->eqc_node_cap;
        if (sim_grow((void **)&v->eqc_chg, &cap2, v->eq_n, sizeof *v->eqc_chg))
            return -1;
        v->eqc_node_cap = cap < cap2 ? cap : cap2;
    }
    for (uint32_t i = v->eqc_nodes; i < v->eq_n; i++) {
        v->eqc_head[i] = SIM_NONE;
        v->eqc_chg[i] = 0;
    }
    v->eqc_nodes = v->eq_n;
    return 0;
}

int sim_eqc_reset(sim_view *v)
{
    uint32_t n = v->tr->n_storages;
    if (!v->eqc) {
        v->eqc = calloc((size_t)n + 1, sizeof *v->eqc);
        v->eqc_sum = malloc(((size_t)n + 1) * sizeof *v->eqc_sum);
        if (!v->eqc || !v->eqc_sum) {
            sim_eqc_free(v);
            return -1;
        }
    }
    for (uint32_t s = 0; s <= n; s++) {
        v->eqc_sum[s] = SIM_EQC_DIRTY;
        v->eqc[s].n = 0;
    }
    v->eqc_nodes = 0;
    v->eqc_sub_n = 0;
    v->eqc_sub_free = SIM_NONE;
    return 0;
}

void sim_eqc_free(sim_view *v)
{
    free(v->eqc);
    free(v->eqc_sum);
    free(v->eqc_head);
    free(v->eqc_chg);
    free(v->eqc_sub);
    v->eqc = NULL;
    v->eqc_sum = NULL;
    v->eqc_head = v->eqc_chg = v->eqc_sub = NULL;
    v->eqc_node_cap = v->eqc_sub_cap = v->eqc_nodes = v->eqc_sub_n = 0;
}

/* Only live edges: an edge that comes to exist later dirties both its ends then. */
void sim_eqc_dirty_around(sim_view *v, uint32_t s)
{
    const sim_trace *tr = v->tr;
    int64_t *sum = v->eqc_sum;
    sum[s] = SIM_EQC_DIRTY;
    const sim_edge *adj = tr->fwd_adj + tr->fwd_off[s];
    for (uint32_t j = 0, n = v->live_fwd[s]; j < n; j++)
        sum[adj[j].s] = SIM_EQC_DIRTY;
    adj = tr->rev_adj + tr->rev_off[s];
    for (uint32_t j = 0, n = v->live_rev[s]; j < n; j++)
        sum[adj[j].s] = SIM_EQC_DIRTY;
}

void sim_eqc_node_changed(sim_view *v, uint32_t node)
{
    if (node >= v->eqc_nodes)
        return; /* never subscribed to */
    uint32_t *sub = v->eqc_sub;
    uint32_t i = v->eqc_head[node];
    while (i != SIM_NONE) {
        uint32_t next = sub[2 * i + 1];
        v->eqc_sum[sub[2 * i]] = SIM_EQC_DIRTY;
        sub[2 * i + 1] = v->eqc_sub_free;
        v->eqc_sub_free = i;
        i = next;
    }
    v->eqc_head[node] = SIM_NONE;
    v->eqc_chg[node]++;
}

/* Puts s on root r's list. 0 or -1. */
static int subscribe(sim_view *v, uint32_t s, uint32_t r)
{
    uint32_t i = v->eqc_sub_free;
    if (i != SIM_NONE) {
        v->eqc_sub_free = v->eqc_sub[2 * i + 1];
    } else {
        uint32_t cap = v->eqc_sub_cap;
        if (v->eqc_sub_n >= SIM_NONE / 2 ||
            sim_grow((void **)&v->eqc_sub, &cap, 2 * (v->eqc_sub_n + 1), sizeof *v->eqc_sub))
            return -1;
        v->eqc_sub_cap = cap;
        i = v->eqc_sub_n++;
    }
    v->eqc_sub[2 * i] = s;
    v->eqc_sub[2 * i + 1] = v->eqc_head[r];
    v->eqc_head[r] = i;
    return 0;
}

int64_t sim_eqc_refresh(sim_view *v, uint32_t s)
{
    const sim_trace *tr = v->tr;
    uint32_t roots[SIM_EQC_ROOTS], nr = 0;
    int64_t sum = 0;
    for (int dir = 0; dir < 2; dir++) {
        const sim_edge *adj;
        uint32_t ne = dir ? sim_live_edges(tr->fwd_off, tr->fwd_adj, v->live_fwd, s, &adj)
                          : sim_live_edges(tr->rev_off, tr->rev_adj, v->live_rev, s, &adj);
        for (uint32_t j = 0; j < ne; j++) {
            uint32_t y = adj[j].s;
            if (v->fl[y] & SIM_FL_MAT)
                continue;
            uint32_t e = v->ss[y].ecn;
            if (e == SIM_NONE)
                continue;
            uint32_t r = sim_eq_find(v, e);
            uint32_t i = 0;
            while (i < nr && roots[i] != r)
                i++;
            if (i < nr)
                continue; /* class counted already */
            if (nr == SIM_EQC_ROOTS)
                return sim_view_eqclass_cost(v, s); /* too many classes to cache */
            roots[nr++] = r;
            sum += v->eq_value[r];
        }
    }
    if (nodes_ready(v) != 0) {
        v->failed_alloc = 1;
        return sum;
    }
    /* subscribe to the roots, except those it is still subscribed to (same root, unchanged
     * since): the lists then hold each storage about once */
    sim_eqc_entry *en = &v->eqc[s];
    for (uint32_t i = 0; i < nr; i++) {
        uint32_t r = roots[i], k = 0;
        while (k < en->n && !(en->root[k] == r && en->chg[k] == v->eqc_chg[r]))
            k++;
        if (k == en->n && subscribe(v, s, r) != 0) {
            v->failed_alloc = 1;
            return sum;
        }
    }
    for (uint32_t i = 0; i < nr; i++) {
        en->root[i] = roots[i];
        en->chg[i] = v->eqc_chg[roots[i]];
    }
    en->n = nr;
    v->eqc_sum[s] = sum; /* stays dirty in the (theoretical) case sum == SIM_EQC_DIRTY */
    return sum;
}
