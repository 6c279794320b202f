/*
 * sim_regions: simrd's evicted-neighbourhood regions (spec section 6), kept for DTR and MSPS.
 *
 * Each storage has a forward region (through children) and a reverse one (through parents):
 * the evicted storages reachable from it through evicted storages (interior), the material
 * storages bordering them (frontier), and a cached compute sum. The cache is what simrd
 * scores with, and it can go stale (a view op created on an evicted interior storage raises
 * that storage's compute without touching the sum), so the rebuild/absorb scheme is
 * implemented literally: from-scratch neighbourhoods would not be bit-exact.
 */
#include <stdlib.h>

#include "sim_internal.h"

static void fail(sim_view *v)
{
    v->failed_alloc = 1;
}

static void add(sim_view *v, sim_set *set, uint32_t x)
{
    if (sim_set_add(set, x) < 0)
        fail(v);
}

static void region_clear(sim_region *r)
{
    sim_set_clear(&r->interior);
    sim_set_clear(&r->frontier);
    r->compute = 0;
}

void sim_regions_reset(sim_view *v)
{
    for (uint32_t s = 0; s < v->tr->n_storages; s++) {
        region_clear(&v->fwd[s]);
        region_clear(&v->rev[s]);
    }
}

void sim_regions_free(sim_view *v)
{
    if (!v->fwd)
        return;
    for (uint32_t s = 0; s < v->tr->n_storages; s++) {
        sim_set_free(&v->fwd[s].interior);
        sim_set_free(&v->fwd[s].frontier);
        sim_set_free(&v->rev[s].interior);
        sim_set_free(&v->rev[s].frontier);
    }
    free(v->fwd);
    free(v->rev);
    v->fwd = v->rev = NULL;
}

/* Visits neighbour storage su of the region being rebuilt from `base`.
 *
 * Pinned storages are left out of frontiers: a pinned storage is never scored nor evicted
 * again, so its own regions are never read, and a frontier member only ever serves to update
 * its regions. Leaving them out changes no score and saves rebuilding, on every op, the
 * regions of weights that have hundreds of children. */
static void visit(sim_view *v, sim_region *R, uint32_t base, uint32_t su)
{
    if (v->ss[su].material) {
        if (su != base && !v->ss[su].pinned)
            add(v, &R->frontier, su);
    } else if (!sim_set_has(&R->interior, su)) {
        add(v, &R->interior, su);
        R->compute += v->ss[su].compute;
        if (sim_grow((void **)&v->scratch, &v->cap_scratch, v->n_scratch + 1, sizeof(uint32_t))) {
            fail(v);
            return;
        }
        v->scratch[v->n_scratch++] = su;
    }
}

/* Region.rebuild: DFS from base through evicted storages; forward follows children,
 * reverse follows parents. */
static void rebuild(sim_view *v, uint32_t base, int forward)
{
    const sim_trace *tr = v->tr;
    sim_region *R = forward ? &v->fwd[base] : &v->rev[base];
    region_clear(R);
    v->n_scratch = 0;
    if (sim_grow((void **)&v->scratch, &v->cap_scratch, 1, sizeof(uint32_t))) {
        fail(v);
        return;
    }
    v->scratch[v->n_scratch++] = base;
    while (v->n_scratch > 0 && !v->failed_alloc) {
        uint32_t x = v->scratch[--v->n_scratch];
        const uint32_t *ts;
        uint32_t nt = sim_storage_live_tensors(v, x, &ts);
        for (uint32_t i = 0; i < nt; i++) {
            uint32_t t = ts[i];
            if (forward) {
                const uint32_t *cs;
                uint32_t nc = sim_tensor_live_children(v, t, &cs);
                for (uint32_t j = 0; j < nc; j++)
                    visit(v, R, base, tr->tensors[cs[j]].storage);
            } else {
                const sim_op *op = &tr->ops[tr->tensors[t].op];
                const uint32_t *args = tr->args + op->args_off;
                for (uint32_t j = 0; j < op->n_args; j++)
                    visit(v, R, base, tr->tensors[args[j]].storage);
            }
        }
    }
}

/* Region.absorb(s): R's base borders s, which was just evicted; s (and its same-direction
 * region S) joins R's interior and S's frontier joins R's frontier. */
static void absorb(sim_view *v, sim_region *R, uint32_t s, const sim_region *S)
{
    sim_set_remove(&R->frontier, s);
    for (uint32_t i = 0; i < S->frontier.cap; i++) {
        uint32_t f = S->frontier.slots[i];
        if (f != SIM_SET_EMPTY && !v->ss[f].pinned) /* pinned: see visit() */
            add(v, &R->frontier, f);
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < S->interior.cap; i++) {
        uint32_t x = S->interior.slots[i];
        if (x == SIM_SET_EMPTY)
            continue;
        int r = sim_set_add(&R->interior, x);
        if (r < 0)
            fail(v);
        else if (r > 0)
            sum += v->ss[x].compute;
    }
    add(v, &R->interior, s);
    sum += v->ss[s].compute; /* D = (S.interior - R.interior) | {s} */
    R->compute += sum;
}

void sim_regions_on_evict(sim_view *v, uint32_t s)
{
    const sim_set *pf = &v->rev[s].frontier;
    for (uint32_t i = 0; i < pf->cap; i++) {
        uint32_t p = pf->slots[i];
        if (p != SIM_SET_EMPTY && !v->ss[p].pinned)
            absorb(v, &v->fwd[p], s, &v->fwd[s]);
    }
    const sim_set *cf = &v->fwd[s].frontier;
    for (uint32_t i = 0; i < cf->cap; i++) {
        uint32_t c = cf->slots[i];
        if (c != SIM_SET_EMPTY && !v->ss[c].pinned)
            absorb(v, &v->rev[c], s, &v->rev[s]);
    }
    region_clear(&v->fwd[s]);
    region_clear(&v->rev[s]);
}

/* Appends the members of set to scratch2, once each (stamp generation gen). */
static void collect(sim_view *v, const sim_set *set, uint32_t gen)
{
    for (uint32_t i = 0; i < set->cap; i++) {
        uint32_t x = set->slots[i];
        if (x == SIM_SET_EMPTY || v->stamp[x] == gen || v->ss[x].pinned)
            continue;
        v->stamp[x] = gen;
        if (sim_grow((void **)&v->scratch2, &v->cap_scratch2, v->n_scratch2 + 1,
                     sizeof(uint32_t))) {
            fail(v);
            return;
        }
        v->scratch2[v->n_scratch2++] = x;
    }
}

/* End of _compute: the storages that became material rebuild both regions, then every
 * storage bordering them rebuilds the region facing them. */
void sim_regions_on_compute(sim_view *v, const uint32_t *st, uint32_t n)
{
    if (n == 0)
        return;
    for (uint32_t i = 0; i < n; i++) {
        rebuild(v, st[i], 1);
        rebuild(v, st[i], 0);
    }
    uint32_t ns = v->tr->n_storages;
    v->n_scratch2 = 0;
    uint32_t gen = sim_stamp_next(v, ns);
    if (v->failed_alloc)
        return;
    for (uint32_t i = 0; i < n; i++)
        collect(v, &v->rev[st[i]].frontier, gen);
    uint32_t n_parents = v->n_scratch2;
    gen = sim_stamp_next(v, ns);
    if (v->failed_alloc)
        return;
    for (uint32_t i = 0; i < n; i++)
        collect(v, &v->fwd[st[i]].frontier, gen);
    for (uint32_t i = 0; i < n_parents && !v->failed_alloc; i++)
        rebuild(v, v->scratch2[i], 1);
    for (uint32_t i = n_parents; i < v->n_scratch2 && !v->failed_alloc; i++)
        rebuild(v, v->scratch2[i], 0);
}
