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

void sim_regions_init(sim_view *v)
{
    uint32_t n = v->tr->n_storages;
    if (n > SIM_REGION_BITSET_MAX)
        return;
    uint32_t words = (n + 63) / 64;
    for (uint32_t s = 0; s < n; s++) {
        sim_set_use_bits(&v->fwd[s].interior, words);
        sim_set_use_bits(&v->fwd[s].frontier, words);
        sim_set_use_bits(&v->rev[s].interior, words);
        sim_set_use_bits(&v->rev[s].frontier, words);
    }
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
    if (v->fl[su] & SIM_FL_MAT) {
        if (su != base && !(v->fl[su] & SIM_FL_PINNED))
            add(v, &R->frontier, su);
        return;
    }
    int r = sim_set_add(&R->interior, su);
    if (r <= 0) {
        if (r < 0)
            fail(v);
        return;
    }
    R->compute += v->scomp[su];
    if (sim_grow((void **)&v->scratch, &v->cap_scratch, v->n_scratch + 1, sizeof(uint32_t))) {
        fail(v);
        return;
    }
    v->scratch[v->n_scratch++] = su;
}

/* Region.rebuild: DFS from base through evicted storages; forward follows children,
 * reverse follows parents (the trace's de-duplicated storage graph: visiting a neighbour
 * twice changes nothing, so the sets and the sum are exactly simrd's). */
static void rebuild(sim_view *v, uint32_t base, int forward)
{
    const sim_trace *tr = v->tr;
    sim_region *R = forward ? &v->fwd[base] : &v->rev[base];
    const uint32_t *off = forward ? tr->fwd_off : tr->rev_off;
    const sim_edge *all = forward ? tr->fwd_adj : tr->rev_adj;
    region_clear(R);
    if (sim_grow((void **)&v->scratch, &v->cap_scratch, tr->n_storages + 1, sizeof(uint32_t))) {
        fail(v);
        return;
    }
    uint32_t *stack = v->scratch;
    uint32_t n = 0;
    stack[n++] = base;
    const uint8_t *fl = v->fl;
    const uint64_t *scomp = v->scomp;
    if (R->interior.words && (R->interior.bits || sim_set_add(&R->interior, base) >= 0) &&
        (R->frontier.bits || sim_set_add(&R->frontier, base) >= 0)) {
        /* bitset fast path (every interior storage is pushed once: n <= n_storages) */
        sim_set_clear(&R->interior);
        sim_set_clear(&R->frontier);
        uint64_t *ib = R->interior.bits, *fb = R->frontier.bits;
        uint32_t icount = 0, fcount = 0;
        uint64_t compute = 0;
        while (n > 0) {
            uint32_t x = stack[--n];
            const sim_edge *adj;
            uint32_t ne = sim_live_edges(v, off, all, x, &adj);
            for (uint32_t j = 0; j < ne; j++) {
                uint32_t su = adj[j].s;
                uint64_t m = UINT64_C(1) << (su & 63);
                uint8_t f = fl[su];
                if (f & SIM_FL_MAT) {
                    if (su != base && !(f & SIM_FL_PINNED) && !(fb[su >> 6] & m)) {
                        fb[su >> 6] |= m;
                        fcount++;
                    }
                } else if (!(ib[su >> 6] & m)) {
                    ib[su >> 6] |= m;
                    icount++;
                    compute += scomp[su];
                    stack[n++] = su;
                }
            }
        }
        R->interior.count = icount;
        R->frontier.count = fcount;
        R->compute = compute;
        return;
    }
    v->n_scratch = n;
    while (v->n_scratch > 0 && !v->failed_alloc) {
        uint32_t x = v->scratch[--v->n_scratch];
        const sim_edge *adj;
        uint32_t ne = sim_live_edges(v, off, all, x, &adj);
        for (uint32_t j = 0; j < ne; j++)
            visit(v, R, base, adj[j].s);
    }
}

/* Region.absorb(s): R's base borders s, which was just evicted; s (and its same-direction
 * region S) joins R's interior and S's frontier joins R's frontier. */
static void absorb(sim_view *v, sim_region *R, uint32_t s, const sim_region *S)
{
    sim_set_remove(&R->frontier, s);
    uint64_t sum = 0;
    if (R->interior.words && S->interior.count + S->frontier.count > 0 &&
        (R->interior.bits || sim_set_add(&R->interior, s) >= 0) &&
        (R->frontier.bits || sim_set_add(&R->frontier, s) >= 0)) {
        /* bitsets: word-wide unions; members that became pinned since they joined S's
         * frontier may come along, which is harmless (every use skips pinned storages) */
        sim_set_remove(&R->frontier, s);
        if (S->frontier.count)
            for (uint32_t w = 0; w < R->frontier.words; w++) {
                uint64_t nw = S->frontier.bits[w] & ~R->frontier.bits[w];
                R->frontier.bits[w] |= nw;
                for (; nw; nw &= nw - 1)
                    R->frontier.count++;
            }
        if (S->interior.count)
            for (uint32_t w = 0; w < R->interior.words; w++) {
                uint64_t nw = S->interior.bits[w] & ~R->interior.bits[w];
                R->interior.bits[w] |= nw;
                for (; nw; nw &= nw - 1) {
                    sum += v->scomp[w * 64 + (uint32_t)__builtin_ctzll(nw)];
                    R->interior.count++;
                }
            }
    } else {
        sim_set_iter it;
        uint32_t x;
        for (sim_set_iter_init(&it, &S->frontier); sim_set_iter_next(&it, &x);)
            if (!(v->fl[x] & SIM_FL_PINNED)) /* pinned: see visit() */
                add(v, &R->frontier, x);
        for (sim_set_iter_init(&it, &S->interior); sim_set_iter_next(&it, &x);) {
            int r = sim_set_add(&R->interior, x);
            if (r < 0)
                fail(v);
            else if (r > 0)
                sum += v->scomp[x];
        }
    }
    add(v, &R->interior, s);
    sum += v->scomp[s]; /* D = (S.interior - R.interior) | {s} */
    R->compute += sum;
}

void sim_regions_on_evict(sim_view *v, uint32_t s)
{
    sim_set_iter it;
    uint32_t x;
    for (sim_set_iter_init(&it, &v->rev[s].frontier); sim_set_iter_next(&it, &x);)
        if (!(v->fl[x] & SIM_FL_PINNED))
            absorb(v, &v->fwd[x], s, &v->fwd[s]);
    for (sim_set_iter_init(&it, &v->fwd[s].frontier); sim_set_iter_next(&it, &x);)
        if (!(v->fl[x] & SIM_FL_PINNED))
            absorb(v, &v->rev[x], s, &v->rev[s]);
    region_clear(&v->fwd[s]);
    region_clear(&v->rev[s]);
}

/* Appends the members of set to scratch2, once each (stamp generation gen). */
static void collect(sim_view *v, const sim_set *set, uint32_t gen)
{
    sim_set_iter it;
    uint32_t x;
    for (sim_set_iter_init(&it, set); sim_set_iter_next(&it, &x);) {
        if (v->stamp[x] == gen || (v->fl[x] & SIM_FL_PINNED))
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
