/*
 * sim_regions_sweep: the multi-base sweep of simrd's region rebuilds (sim_regions.c defers
 * the reverse rebuilds and hands each batch here; a sweep rebuilds up to 64 bases' regions
 * at once and gives each the sets and sums rebuild() would, bit for bit). Moved out of
 * sim_regions.c unchanged: the sweep and its bookkeeping are one concern.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "sim_pool_min.h"
#include "sim_regions_priv.h"

/* ------------------------------------------------------------------------------------------
 * Multi-base rebuilds (bitset mode, storage graph ordered by index).
 *
 * The regions of up to 64 bases in one direction from a single sweep: each storage carries
 * a 64-bit mask of the bases whose walk reaches it (bit i = bases[i]). Every edge points to
 * a lower index in the reverse direction (higher in the forward one), so visiting storages
 * in decreasing (increasing) index order sees every storage after all the storages it is
 * reached from: its mask is complete when it is visited. An evicted storage joins the
 * interior of every base in its mask and passes the mask on to its neighbours; a material,
 * unpinned one joins their frontiers (a base passes on its own bit only). That is the set
 * of storages rebuild() would find from each base, with the same sums, but every edge of
 * the union is followed once instead of once per base reaching it: the bases of one
 * deferred batch run back through largely the same evicted part of the graph.
 */
typedef struct mb_ctx {
    sim_view *v;
    int lists;                 /* windowed sets: words go to v->mb_list, not to bits */
    uint64_t *ib[64], *fb[64]; /* the bases' interior / frontier bits */
    uint64_t comp[64];
    uint32_t icnt[64], fcnt[64];
    uint32_t ilo[64], ihi[64], flo[64], fhi[64]; /* words written */
    uint32_t tlo, thi;                           /* words of mb_todo that may be non-zero */
    /* the word being swept: each base's new interior / frontier bits in it, and which
     * bases have any */
    uint64_t curi[64], curf[64];
    uint64_t tmi, tmf;
    /* consecutive interior storages with the same mask (a chain): their bits and sum, added
     * to the bases once */
    uint64_t run_mask, run_bits, run_sum;
} mb_ctx;

/* Adds the pending run of same-mask interior storages to its bases. */
static inline void mb_flush_run(mb_ctx *c)
{
    c->tmi |= c->run_mask;
    for (uint64_t t = c->run_mask; t; t &= t - 1) {
        uint32_t j = (uint32_t)__builtin_ctzll(t);
        c->curi[j] |= c->run_bits;
        c->comp[j] += c->run_sum;
    }
    c->run_mask = c->run_bits = c->run_sum = 0;
}

/* Passes mask mi to neighbour y of the storage being visited (mb_visit). */
static inline void mb_reach(sim_view *v, mb_ctx *c, uint32_t y, uint64_t mi)
{
    uint8_t f = v->fl[y];
    if (f & SIM_FL_RMAT) {
        if (f & SIM_FL_PINNED)
            return; /* pinned: see rebuild_walk() */
        v->mb_fr[y] |= mi;
    } else {
        v->mb_in[y] |= mi;
    }
    uint32_t wy = y >> 6;
    v->mb_todo[wy] |= UINT64_C(1) << (y & 63);
    c->tlo = wy < c->tlo ? wy : c->tlo;
    c->thi = wy + 1 > c->thi ? wy + 1 : c->thi;
}

/* Visits storage x of a multi-base sweep (see above). A group of the walk graph (an op's
 * members) collects the masks of the storages that reach it and waits at its key storage
 * (tr->gkey: its members all lie on the far side of it, every storage reaching it on the
 * near side), where it passes them to its members, once, before the key is visited. */
static inline void mb_visit(sim_view *v, mb_ctx *c, uint32_t x, const uint32_t *off,
                            const sim_edge *all, int forward)
{
    const sim_trace *tr = v->tr;
    const uint32_t *goff = forward ? tr->gfwd_off : tr->grev_off;
    const uint32_t *gmem = forward ? tr->gfwd : tr->grev;
    for (uint32_t g = v->wg_head[x]; g != SIM_NONE; g = v->wg_next[g]) {
        uint64_t gm = v->wg_mask[g];
        v->wg_mask[g] = 0;
        for (uint32_t i = goff[g], ie = goff[g + 1]; i < ie; i++) {
            uint32_t y = gmem[i];
            if (y != x) {
                mb_reach(v, c, y, gm);
            } else if (!(v->fl[x] & SIM_FL_PINNED)) { /* x is being visited: no todo bit */
                if (v->fl[x] & SIM_FL_RMAT)
                    v->mb_fr[x] |= gm;
                else
                    v->mb_in[x] |= gm;
            }
        }
    }
    v->wg_head[x] = SIM_NONE;
    uint64_t *in = v->mb_in, *fr = v->mb_fr;
    const uint8_t *fl = v->fl;
    uint64_t m = UINT64_C(1) << (x & 63);
    uint64_t mi = in[x], mf = fr[x];
    in[x] = fr[x] = 0;
    if (fl[x] & SIM_FL_RMAT) {
        mf &= ~mi; /* "unless it is the base" */
        c->tmf |= mf;
        for (; mf; mf &= mf - 1)
            c->curf[__builtin_ctzll(mf)] |= m;
        if (!mi)
            return; /* a frontier storage: the walks stop here */
    } else {
        if (!mi)
            return; /* only a group's key, reached by none of the bases */
        if (mi != c->run_mask)
            mb_flush_run(c);
        c->run_mask = mi;
        c->run_bits |= m;
        c->run_sum += v->scomp[x];
    }
    const uint32_t created = v->created_ops;
    const uint32_t kd = forward ? 0 : 1;
    for (const sim_edge *e = all + off[x], *end = all + off[x + 1]; e < end && e->time < created;
         e++) {
        uint32_t y = e->s;
        if (!(y & SIM_WG_GROUP)) {
            mb_reach(v, c, y, mi);
            continue;
        }
        uint32_t g = y & ~SIM_WG_GROUP;
        if (!v->wg_mask[g]) { /* the first base to reach it: it waits at its key */
            uint32_t k = tr->gkey[2 * g + kd], wk = k >> 6;
            v->wg_next[g] = v->wg_head[k];
            v->wg_head[k] = g;
            v->mb_todo[wk] |= UINT64_C(1) << (k & 63);
            c->tlo = wk < c->tlo ? wk : c->tlo;
            c->thi = wk + 1 > c->thi ? wk + 1 : c->thi;
        }
        v->wg_mask[g] |= mi;
    }
}

/* Grows list k for mb_append; 0 or -1 (out of memory: the run fails). */
static __attribute__((noinline)) int mb_grow(sim_view *v, uint32_t k, uint32_t n)
{
    if (sim_grow((void **)&v->mb_list[k], &v->mb_list_cap[k], 2 * (n + 1), sizeof(uint64_t))) {
        sim_regions_fail(v);
        return -1;
    }
    return 0;
}

/* Appends word w (bits) to list k (see mb_ctx.lists); n counts the list's words. */
static inline void mb_append(mb_ctx *c, uint32_t k, uint32_t *n, uint32_t w, uint64_t bits)
{
    sim_view *v = c->v;
    if (2 * (*n + 1) > v->mb_list_cap[k] && mb_grow(v, k, *n))
        return;
    v->mb_list[k][2 * *n] = w;
    v->mb_list[k][2 * *n + 1] = bits;
    ++*n;
}

/* The sweep leaves word w, with windowed sets: lists the words the bases gained; ilo/flo
 * count each base's listed words meanwhile. */
static void mb_flush_word_lists(mb_ctx *c, uint32_t w)
{
    for (uint64_t t = c->tmi; t; t &= t - 1) {
        uint32_t j = (uint32_t)__builtin_ctzll(t);
        mb_append(c, j, &c->ilo[j], w, c->curi[j]);
        c->icnt[j] += (uint32_t)sim_popcount64(c->curi[j]);
        c->curi[j] = 0;
    }
    for (uint64_t t = c->tmf; t; t &= t - 1) {
        uint32_t j = (uint32_t)__builtin_ctzll(t);
        mb_append(c, 64 + j, &c->flo[j], w, c->curf[j]);
        c->fcnt[j] += (uint32_t)sim_popcount64(c->curf[j]);
        c->curf[j] = 0;
    }
    c->tmi = c->tmf = 0;
}

/* Makes set the words of list k (n pairs, in either order of word index). 0 or -1. */
static int mb_take_list(sim_view *v, sim_set *set, uint32_t k, uint32_t n, uint32_t count)
{
    if (n == 0) {
        sim_set_clear(set);
        return 0;
    }
    const uint64_t *l = v->mb_list[k];
    uint32_t a = (uint32_t)l[0], b = (uint32_t)l[2 * (n - 1)];
    uint32_t lo = a < b ? a : b, hi = (a < b ? b : a) + 1;
    for (uint32_t i = 0; i < n; i++)
        v->win_in[l[2 * i]] = l[2 * i + 1];
    return sim_set_take_words(set, &v->set_pool, v->win_in, lo, hi, count);
}

/* The sweep leaves word w: writes the bits the bases gained in it. */
static inline void mb_flush_word(mb_ctx *c, uint32_t w)
{
    if (c->run_mask)
        mb_flush_run(c);
    if (c->lists) {
        mb_flush_word_lists(c, w);
        return;
    }
    for (uint64_t t = c->tmi; t; t &= t - 1) {
        uint32_t j = (uint32_t)__builtin_ctzll(t);
        c->ib[j][w] |= c->curi[j];
        c->icnt[j] += (uint32_t)sim_popcount64(c->curi[j]);
        c->curi[j] = 0;
        c->ilo[j] = w < c->ilo[j] ? w : c->ilo[j];
        c->ihi[j] = w + 1 > c->ihi[j] ? w + 1 : c->ihi[j];
    }
    for (uint64_t t = c->tmf; t; t &= t - 1) {
        uint32_t j = (uint32_t)__builtin_ctzll(t);
        c->fb[j][w] |= c->curf[j];
        c->fcnt[j] += (uint32_t)sim_popcount64(c->curf[j]);
        c->curf[j] = 0;
        c->flo[j] = w < c->flo[j] ? w : c->flo[j];
        c->fhi[j] = w + 1 > c->fhi[j] ? w + 1 : c->fhi[j];
    }
    c->tmi = c->tmf = 0;
}

/* Rebuilds the regions of bases[0..k) (k <= 64, distinct, material) in one direction. */
SIM_POPCNT_CLONES static void rebuild_multi(sim_view *v, const uint32_t *bases, uint32_t k,
                                            int forward)
{
    const sim_trace *tr = v->tr;
    const uint32_t *off = forward ? tr->wfwd_off : tr->wrev_off;
    const sim_edge *all = forward ? tr->wfwd_adj : tr->wrev_adj;
    mb_ctx c;
    uint32_t W = (tr->n_storages + 63) / 64;
    c.v = v;
    c.lists = sim_set_pool_windowed(&v->set_pool);
    if ((c.lists && sim_regions_win_scratch(v)) || sim_regions_wg_scratch(v)) {
        sim_regions_fail(v);
        return;
    }
    for (uint32_t i = 0; i < k && !c.lists; i++) {
        sim_region *R = forward ? &v->fwd[bases[i]] : &v->rev[bases[i]];
        sim_region_clear(R);
        *sim_rcomp(v, bases[i], forward) = 0; /* MSPS scores: below, with the sums */
        if (sim_set_cover(&R->interior, &v->set_pool, 0, W) ||
            sim_set_cover(&R->frontier, &v->set_pool, 0, W)) {
            sim_regions_fail(v);
            return;
        }
        c.ib[i] = R->interior.bits;
        c.fb[i] = R->frontier.bits;
    }
    for (uint32_t i = 0; i < k; i++) {
        c.comp[i] = 0;
        c.icnt[i] = c.fcnt[i] = 0;
        c.ilo[i] = c.flo[i] = c.lists ? 0 : W;
        c.ihi[i] = c.fhi[i] = 0;
        c.curi[i] = c.curf[i] = 0;
    }
    c.tlo = W;
    c.thi = 0;
    c.tmi = c.tmf = 0;
    c.run_mask = c.run_bits = c.run_sum = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t b = bases[i], wb = b >> 6;
        v->mb_in[b] |= UINT64_C(1) << i;
        v->mb_todo[wb] |= UINT64_C(1) << (b & 63);
        c.tlo = wb < c.tlo ? wb : c.tlo;
        c.thi = wb + 1 > c.thi ? wb + 1 : c.thi;
    }
    uint64_t *todo = v->mb_todo;
    if (forward) {
        for (uint32_t w = c.tlo; w < c.thi; w++) { /* c.thi grows as the sweep goes */
            while (todo[w]) {
                uint32_t bit = (uint32_t)__builtin_ctzll(todo[w]);
                todo[w] &= todo[w] - 1;
                mb_visit(v, &c, w * 64 + bit, off, all, forward);
            }
            mb_flush_word(&c, w);
        }
    } else {
        for (uint32_t w = c.thi; w-- > c.tlo;) { /* c.tlo shrinks as the sweep goes */
            while (todo[w]) {
                uint32_t bit = 63 - (uint32_t)__builtin_clzll(todo[w]);
                todo[w] &= ~(UINT64_C(1) << bit);
                mb_visit(v, &c, w * 64 + bit, off, all, forward);
            }
            mb_flush_word(&c, w);
        }
    }
    for (uint32_t i = 0; i < k && c.lists; i++) {
        sim_region *R = forward ? &v->fwd[bases[i]] : &v->rev[bases[i]];
        if (v->failed_alloc || mb_take_list(v, &R->interior, i, c.ilo[i], c.icnt[i]) ||
            mb_take_list(v, &R->frontier, 64 + i, c.flo[i], c.fcnt[i])) {
            sim_regions_fail(v);
            return;
        }
        *sim_rcomp(v, bases[i], forward) = c.comp[i];
        sim_region_summed(v, bases[i], forward);
        if (!forward)
            sim_mscore_update(v, bases[i]);
        else
            sim_pkb_note(v, bases[i]); /* dtr's bounds read forward sums too */
    }
    for (uint32_t i = 0; i < k && !c.lists; i++) {
        sim_region *R = forward ? &v->fwd[bases[i]] : &v->rev[bases[i]];
        sim_set_touch(&R->interior, c.ilo[i], c.ihi[i]);
        sim_set_touch(&R->frontier, c.flo[i], c.fhi[i]);
        R->interior.count = c.icnt[i];
        R->frontier.count = c.fcnt[i];
        *sim_rcomp(v, bases[i], forward) = c.comp[i];
        sim_region_summed(v, bases[i], forward);
        if (!forward)
            sim_mscore_update(v, bases[i]);
        else
            sim_pkb_note(v, bases[i]); /* dtr's bounds read forward sums too */
    }
}

/* The group that is base's only live reverse entry in the walk graph, or SIM_NONE. */
static uint32_t single_group(const sim_view *v, uint32_t base)
{
    const sim_trace *tr = v->tr;
    const sim_edge *e = tr->wrev_adj + tr->wrev_off[base];
    uint32_t n = tr->wrev_off[base + 1] - tr->wrev_off[base];
    if (n == 0 || !(e[0].s & SIM_WG_GROUP) || e[0].time >= v->created_ops ||
        (n > 1 && e[1].time < v->created_ops))
        return SIM_NONE;
    return e[0].s & ~SIM_WG_GROUP;
}

/* dst = src (regions of the same direction), word for word; 0 or -1 when out of memory. */
static int set_copy(sim_view *v, sim_set *dst, const sim_set *src)
{
    sim_set_clear(dst);
    if (src->count == 0)
        return 0;
    if (sim_set_cover(dst, &v->set_pool, src->wlo, src->whi))
        return -1;
    memcpy(sim_set_word(dst, src->wlo), sim_set_word(src, src->wlo),
           (size_t)(src->whi - src->wlo) * sizeof *src->bits);
    dst->count = src->count;
    dst->wlo = src->wlo;
    dst->whi = src->whi;
    return 0;
}

/* Multi-base rebuilds of bases[0..n) in chunks of 64; 0, or -1 when they do not apply (an
 * unordered graph) and nothing was done. */
int sim_regions_rebuild_multi_all(sim_view *v, const uint32_t *bases, uint32_t n, int forward)
{
    const sim_trace *tr = v->tr;
    if (!tr->graph_ordered)
        return -1;
    if (!v->mb_in) {
        v->mb_in = calloc((size_t)tr->n_storages + 1, sizeof *v->mb_in);
        v->mb_fr = calloc((size_t)tr->n_storages + 1, sizeof *v->mb_fr);
        v->mb_todo = calloc(((size_t)tr->n_storages + 63) / 64 + 1, sizeof *v->mb_todo);
        if (!v->mb_in || !v->mb_fr || !v->mb_todo) {
            free(v->mb_in);
            free(v->mb_fr);
            free(v->mb_todo);
            v->mb_in = v->mb_fr = v->mb_todo = NULL;
            return -1;
        }
    }
    if (forward) {
        for (uint32_t i = 0; i < n && !v->failed_alloc; i += 64)
            rebuild_multi(v, bases + i, n - i < 64 ? n - i : 64, forward);
        return 0;
    }
    /* Bases whose only parent entry is one group (outputs of one wide op, nothing else
     * writing into their storages) have the same reverse region: the group's members and
     * what lies behind them, all below every output of the op in an ordered graph, so no
     * such base can be reached from another and "unless it is the base" never applies.
     * One of them is swept, the others copy its region. */
    if (sim_regions_wg_scratch(v) ||
        sim_grow((void **)&v->scratch2, &v->cap_scratch2, n + 1, sizeof(uint32_t))) {
        sim_regions_fail(v);
        return 0;
    }
    uint32_t k = 0, ns = 0, *shared = v->scratch2;
    uint32_t *sweep = v->rev_pend == bases ? v->rev_pend : NULL;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = bases[i], g = single_group(v, b);
        if (g != SIM_NONE && v->wg_rep[g] != SIM_NONE) {
            shared[ns++] = b;
            continue;
        }
        if (g != SIM_NONE)
            v->wg_rep[g] = b;
        if (sweep)
            sweep[k] = b;
        k++;
    }
    if (!sweep) /* bases is not the pending list: sweep them all, share nothing */
        k = n, ns = 0;
    for (uint32_t i = 0; i < k && !v->failed_alloc; i += 64)
        rebuild_multi(v, bases + i, k - i < 64 ? k - i : 64, forward);
    for (uint32_t i = 0; i < ns && !v->failed_alloc; i++) {
        uint32_t b = shared[i], r = v->wg_rep[single_group(v, b)];
        if (set_copy(v, &v->rev[b].interior, &v->rev[r].interior) ||
            set_copy(v, &v->rev[b].frontier, &v->rev[r].frontier)) {
            sim_regions_fail(v);
            break;
        }
        *sim_rcomp(v, b, 0) = *sim_rcomp(v, r, 0);
        if (sim_region_sum_exact(v, r, 0)) /* r's region, as exact as r's */
            sim_region_summed(v, b, 0);
        sim_mscore_update(v, b);
    }
    for (uint32_t i = 0; i < k; i++) { /* wg_rep stays SIM_NONE between flushes */
        uint32_t g = single_group(v, bases[i]);
        if (g != SIM_NONE)
            v->wg_rep[g] = SIM_NONE;
    }
    return 0;
}
