/*
 * sim_eqclass: simrd's equivalence classes of evicted storages for DTR-eq (spec section 7).
 *
 * A union-find whose roots hold a compute sum. Evicting a storage gives it a fresh node
 * (value = its compute) and merges the classes of its evicted neighbours into it; a storage
 * becoming material subtracts its compute from its class root and leaves the class (which is
 * never split). New outputs start with an isolated node of value 0, so while in flight they
 * count as evicted neighbours, quirks included.
 */
#include <stdlib.h>

#include "sim_internal.h"

uint32_t sim_eq_new_node(sim_view *v, int64_t value)
{
    if (v->eq_n >= v->eq_cap) {
        uint32_t cap = v->eq_cap;
        if (sim_grow((void **)&v->eq_parent, &cap, v->eq_n + 1, sizeof *v->eq_parent)) {
            v->failed_alloc = 1;
            return SIM_NONE;
        }
        uint32_t cap2 = v->eq_cap;
        if (sim_grow((void **)&v->eq_value, &cap2, v->eq_n + 1, sizeof *v->eq_value)) {
            v->failed_alloc = 1;
            return SIM_NONE;
        }
        v->eq_cap = cap < cap2 ? cap : cap2;
    }
    uint32_t n = v->eq_n++;
    v->eq_parent[n] = n;
    v->eq_value[n] = value;
    return n;
}

static uint32_t find(sim_view *v, uint32_t x)
{
    return sim_eq_find(v, x);
}

/* Puts the evicted neighbours of s into v->scratch (repeats possible): the storages of the
 * parents and children of all of s's tensors that are not material, s excluded. Returns
 * their number, or 0 with v->failed_alloc set when out of memory. */
static uint32_t evicted_neighbours(sim_view *v, uint32_t s)
{
    const sim_trace *tr = v->tr;
    v->n_scratch = 0;
    const sim_edge *pa, *ch;
    uint32_t np = sim_live_edges(tr->rev_off, tr->rev_adj, v->live_rev, s, &pa);
    uint32_t nc = sim_live_edges(tr->fwd_off, tr->fwd_adj, v->live_fwd, s, &ch);
    if (sim_grow((void **)&v->scratch, &v->cap_scratch, np + nc + 1, sizeof(uint32_t))) {
        v->failed_alloc = 1;
        return 0;
    }
    for (uint32_t j = 0; j < np; j++)
        if (!(v->fl[pa[j].s] & SIM_FL_MAT))
            v->scratch[v->n_scratch++] = pa[j].s;
    for (uint32_t j = 0; j < nc; j++)
        if (!(v->fl[ch[j].s] & SIM_FL_MAT))
            v->scratch[v->n_scratch++] = ch[j].s;
    return v->n_scratch;
}

void sim_eq_on_evict(sim_view *v, uint32_t s)
{
    uint32_t me = sim_eq_new_node(v, (int64_t)v->scomp[s]);
    if (me == SIM_NONE)
        return;
    v->ss[s].ecn = me;
    uint32_t nn = evicted_neighbours(v, s);
    for (uint32_t i = 0; i < nn; i++) {
        uint32_t e = v->ss[v->scratch[i]].ecn;
        if (e == SIM_NONE)
            continue;
        uint32_t l = find(v, e), r = find(v, me);
        if (l != r) {
            v->eq_parent[l] = r;
            v->eq_value[r] += v->eq_value[l];
            if (v->eqc)
                sim_eqc_node_changed(v, l); /* r is s's fresh node: nobody uses it yet */
        }
    }
    if (v->eqc)
        sim_eqc_dirty_around(v, s);
}

void sim_eq_on_material(sim_view *v, uint32_t s)
{
    uint32_t e = v->ss[s].ecn;
    if (e == SIM_NONE)
        return;
    uint32_t r = find(v, e);
    v->eq_value[r] -= (int64_t)v->scomp[s];
    v->ss[s].ecn = SIM_NONE;
    if (v->eqc) { /* compute() told s's neighbours already; other paths (swap-ins) did not */
        sim_eqc_node_changed(v, r);
        sim_eqc_dirty_around(v, s);
    }
}

/* The score term: the values of the distinct classes of s's evicted neighbours. Called for
 * every pool member at every choice, so it walks the edges directly and de-duplicates the
 * (usually few) roots in a small local list, switching to stamps when there are many. */
int64_t sim_view_eqclass_cost(const sim_view *cv, uint32_t s)
{
    if (!cv->eq_on)
        return 0;
    sim_view *v = (sim_view *)cv; /* the cache (path halving, stamps) is not observable */
    const sim_trace *tr = v->tr;
    uint32_t roots[16], nr = 0, gen = 0;
    int stamped = 0;
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
            uint32_t r = find(v, e);
            if (!stamped) {
                uint32_t i = 0;
                while (i < nr && roots[i] != r)
                    i++;
                if (i < nr)
                    continue; /* class counted already */
                if (nr < 16) {
                    roots[nr++] = r;
                    sum += v->eq_value[r];
                    continue;
                }
                gen = sim_stamp_next(v, v->eq_n);
                if (v->failed_alloc)
                    return 0;
                for (i = 0; i < nr; i++)
                    v->stamp[roots[i]] = gen;
                stamped = 1;
            }
            if (v->stamp[r] != gen) {
                v->stamp[r] = gen;
                sum += v->eq_value[r];
            }
        }
    }
    return sum;
}
