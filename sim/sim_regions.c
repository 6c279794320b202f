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
#include <string.h>

#include "sim_internal.h"
#include "sim_pool_min.h"
#include "sim_regions_priv.h"

static void add(sim_view *v, sim_set *set, uint32_t x)
{
    if (sim_set_add(set, &v->set_pool, x) < 0)
        sim_regions_fail(v);
}

/* An evicted storage's regions stay empty until it is material again (then rebuilt):
 * windowed sets give their memory back, or every storage that ever bordered a long evicted
 * chain would keep a window of its high-water size (issue 15). */
static void region_release(sim_view *v, sim_region *r)
{
    sim_set_release(&r->interior, &v->set_pool);
    sim_set_release(&r->frontier, &v->set_pool);
}

uint32_t sim_region_bitset_max = SIM_REGION_BITSET_MAX;
int sim_region_full_ordered;
int sim_region_defer = 1;
int sim_region_by_difference = 1;


int sim_region_defer_absorbs = 1;
/* Absorbs of regions this small sum member by member: counting the shared members first
 * would cost about what it saves */
#define SIM_DIFF_MIN 8
/* An absorb into a reverse region waits (defer_rev) only while the region and the absorbed
 * one hold fewer interior members than this together: a wait ends in a walk of the region
 * (at the flush, or at its base's eviction), which costs about one absorb while the region
 * is small, and many where it is large (every member's edges again) */
#define SIM_DEFER_MAX 64
int sim_region_exact_check;
uint64_t sim_region_exact_taken, sim_region_exact_diff;
uint64_t sim_region_evict_waits;

void sim_regions_init(sim_view *v)
{
    uint32_t n = v->tr->n_storages;
    uint32_t words = (n + 63) / 64 + 1; /* + 1: never 0, even with no storage */
    /* Full sets only where the reverse batches need the memoised closures: an unordered
     * storage graph, which the multi-base sweep does not take (sim_regions_sweep.c). Over an
     * ordered one the full layout only saves the windowed rebuild's copy (~2% of the
     * instructions) and costs up to 4 n^2 bits, nearly all written: 2.4 MB for DenseNet's
     * 3,041 storages where windowed sets hold 0.3 MB, and its page faults and cache misses
     * made the small logs' replays slower than windowed ones (issue 26) */
    if (n <= sim_region_bitset_max && (!v->tr->graph_ordered || sim_region_full_ordered)) {
        v->memo_gen = calloc((size_t)n + 1, sizeof *v->memo_gen);
        v->memo_slot = calloc((size_t)n + 1, sizeof *v->memo_slot);
        if (!v->memo_gen || !v->memo_slot) { /* windowed sets then: same results */
            free(v->memo_gen);
            free(v->memo_slot);
            v->memo_gen = v->memo_slot = NULL;
        }
    }
    /* fwd and rev come zeroed (calloc): all-zero sets are empty, so a million storages'
     * regions cost no pass and no page until used (issue 15) */
    sim_set_pool_layout(&v->set_pool, words, v->memo_gen == NULL);
    if (!v->rg_gone) /* none: every compute rebuilds by walks (same results) */
        v->rg_gone = calloc((size_t)n + 1, 1);
    /* none: no region is known exact, absorbs sum member by member (same results). Only
     * for an ordered storage graph (DTR logs, most imports): with a cycle (in-place ops)
     * simrd's absorbs count a member twice and the walks differ from them in ways not
     * followed here */
    if (!v->rg_summed && v->tr->graph_ordered)
        v->rg_summed = calloc(2 * ((size_t)n + 1), sizeof *v->rg_summed);
    v->rg_bumps = 0;
    if (v->memo_n && v->memo) /* as sim_regions_reset: a half-done batch's closures */
        memset(v->memo, 0, v->memo_cap * 2 * words * sizeof *v->memo);
    v->memo_n = 0;
    v->n_rev_pend = 0;
}

/* The universe-sized scratch bitsets a windowed rebuild walks into (zero between uses). 0,
 * or -1 when out of memory. */
int sim_regions_win_scratch(sim_view *v)
{
    if (v->win_in)
        return 0;
    size_t words = (size_t)v->tr->n_storages / 64 + 2;
    v->win_in = calloc(words, sizeof *v->win_in);
    v->win_fr = calloc(words, sizeof *v->win_fr);
    if (!v->win_in || !v->win_fr) {
        free(v->win_in);
        free(v->win_fr);
        v->win_in = v->win_fr = NULL;
        return -1;
    }
    return 0;
}

/* The walk graph's per-group scratch (sim_view.wg_*). 0, or -1 when out of memory. */
int sim_regions_wg_scratch(sim_view *v)
{
    if (v->wg_stamp)
        return 0;
    uint32_t ng = v->tr->n_groups, ns = v->tr->n_storages;
    v->wg_stamp = calloc((size_t)ng + 1, sizeof *v->wg_stamp);
    v->wg_mask = calloc((size_t)ng + 1, sizeof *v->wg_mask);
    v->wg_next = malloc(((size_t)ng + 1) * sizeof *v->wg_next);
    v->wg_rep = malloc(((size_t)ng + 1) * sizeof *v->wg_rep);
    v->wg_head = malloc(((size_t)ns + 1) * sizeof *v->wg_head);
    if (!v->wg_stamp || !v->wg_mask || !v->wg_next || !v->wg_rep || !v->wg_head) {
        free(v->wg_stamp);
        free(v->wg_mask);
        free(v->wg_next);
        free(v->wg_rep);
        free(v->wg_head);
        v->wg_stamp = v->wg_next = v->wg_rep = v->wg_head = NULL;
        v->wg_mask = NULL;
        return -1;
    }
    memset(v->wg_head, 0xff, ((size_t)ns + 1) * sizeof *v->wg_head);
    memset(v->wg_rep, 0xff, ((size_t)ng + 1) * sizeof *v->wg_rep);
    v->wg_gen = 0;
    return 0;
}

/* A fresh generation for wg_stamp (one per walk). */
static uint32_t wg_next_gen(sim_view *v)
{
    if (++v->wg_gen == 0) { /* stamps of generation 0 would look current */
        memset(v->wg_stamp, 0, ((size_t)v->tr->n_groups + 1) * sizeof *v->wg_stamp);
        v->wg_gen = 1;
    }
    return v->wg_gen;
}

void sim_regions_reset(sim_view *v)
{
    if (v->memo_n && v->memo) /* a batch that stopped half-way left closures behind */
        memset(v->memo, 0, v->memo_cap * 2 * sim_set_pool_words(&v->set_pool) * sizeof *v->memo);
    v->memo_n = 0;
    if (v->rev_pend_on)
        memset(v->rev_pend_on, 0, v->tr->n_storages);
    if (v->rg_gone)
        memset(v->rg_gone, 0, v->tr->n_storages);
    if (v->rg_summed) /* every region empty with sum 0: exact */
        memset(v->rg_summed, 0, 2 * ((size_t)v->tr->n_storages + 1) * sizeof *v->rg_summed);
    v->rg_bumps = 0;
    v->n_rev_pend = 0;
    if (v->wg_head) { /* a sweep that stopped half-way (out of memory) left groups waiting */
        memset(v->wg_head, 0xff, ((size_t)v->tr->n_storages + 1) * sizeof *v->wg_head);
        memset(v->wg_mask, 0, ((size_t)v->tr->n_groups + 1) * sizeof *v->wg_mask);
        memset(v->wg_rep, 0xff, ((size_t)v->tr->n_groups + 1) * sizeof *v->wg_rep);
    }
    for (uint32_t s = 0; s < v->tr->n_storages; s++) {
        sim_region_clear(&v->fwd[s]);
        sim_region_clear(&v->rev[s]);
    }
    memset(v->rcomp, 0, 2 * (size_t)v->tr->n_storages * sizeof *v->rcomp);
}

void sim_regions_free(sim_view *v)
{
    free(v->mb_in);
    free(v->mb_fr);
    free(v->mb_todo);
    v->mb_in = v->mb_fr = v->mb_todo = NULL;
    for (int i = 0; i < 128; i++) {
        free(v->mb_list[i]);
        v->mb_list[i] = NULL;
        v->mb_list_cap[i] = 0;
    }
    free(v->win_in);
    free(v->win_fr);
    v->win_in = v->win_fr = NULL;
    free(v->wg_stamp);
    free(v->wg_mask);
    free(v->wg_next);
    free(v->wg_rep);
    free(v->wg_head);
    v->wg_stamp = v->wg_next = v->wg_rep = v->wg_head = NULL;
    v->wg_mask = NULL;
    free(v->rev_pend);
    free(v->rev_pend_on);
    v->rev_pend = NULL;
    v->rev_pend_on = NULL;
    v->n_rev_pend = 0;
    free(v->rg_gone);
    v->rg_gone = NULL;
    free(v->rg_summed);
    v->rg_summed = NULL;
    if (!v->fwd)
        return;
    /* once every set's words left lie in the pool's chunks, freeing those is enough: no pass
     * over the four sets of a million storages at exit (issue 15) */
    for (uint32_t s = 0; !sim_set_pool_holds_all(&v->set_pool) && s < v->tr->n_storages; s++) {
        sim_set_free(&v->fwd[s].interior, &v->set_pool);
        sim_set_free(&v->fwd[s].frontier, &v->set_pool);
        sim_set_free(&v->rev[s].interior, &v->set_pool);
        sim_set_free(&v->rev[s].frontier, &v->set_pool);
    }
    sim_set_pool_free(&v->set_pool);
    free(v->fwd);
    free(v->rev);
    free(v->rcomp);
    v->fwd = v->rev = NULL;
    v->rcomp = NULL;
}

/* Region.rebuild: DFS from base through evicted storages; forward follows children,
 * reverse follows parents (the trace's de-duplicated storage graph: visiting a neighbour
 * twice changes nothing, so the sets and the sum are exactly simrd's).
 *
 * Pinned storages are left out of frontiers: a pinned storage is never scored nor evicted
 * again, so its own regions are never read, and a frontier member only ever serves to update
 * its regions. Leaving them out changes no score and saves rebuilding, on every op, the
 * regions of weights that have hundreds of children.
 *
 * Full sets are written in place; windowed ones are walked into universe-sized scratch
 * bitsets and take the words the walk wrote (every interior storage is pushed once, so the
 * stack holds at most n_storages). Set bits are counted at the end. */
static inline __attribute__((always_inline)) void rebuild_walk(sim_view *v, uint32_t base,
                                                               int forward, int sums)
{
    const sim_trace *tr = v->tr;
    sim_region *R = forward ? &v->fwd[base] : &v->rev[base];
    const uint32_t *off = forward ? tr->wfwd_off : tr->wrev_off;
    const sim_edge *all = forward ? tr->wfwd_adj : tr->wrev_adj;
    const uint32_t *goff = forward ? tr->gfwd_off : tr->grev_off;
    const uint32_t *gmem = forward ? tr->gfwd : tr->grev;
    sim_region_clear(R);
    *sim_rcomp(v, base, forward) = 0; /* its MSPS score: at the end (a failure stops the run) */
    int win = sim_set_pool_windowed(&v->set_pool);
    uint32_t words = sim_set_pool_words(&v->set_pool);
    if (sim_grow((void **)&v->scratch, &v->cap_scratch, tr->n_storages + 1, sizeof(uint32_t)) ||
        sim_regions_wg_scratch(v) ||
        (win ? sim_regions_win_scratch(v)
             : (sim_set_cover(&R->interior, &v->set_pool, 0, words) ||
                sim_set_cover(&R->frontier, &v->set_pool, 0, words)))) {
        sim_regions_fail(v);
        return;
    }
    uint32_t gen = wg_next_gen(v);
    uint32_t *gst = v->wg_stamp;
    uint64_t *ib = win ? v->win_in : R->interior.bits, *fb = win ? v->win_fr : R->frontier.bits;
    uint32_t *stack = v->scratch;
    uint32_t n = 0;
    stack[n++] = base;
    const uint8_t *fl = v->fl;
    const uint64_t *scomp = v->scomp;
    const uint32_t created = v->created_ops;
    uint64_t compute = 0;
    uint32_t lo = base, hi = base; /* storage ids written lie in [lo, hi] */
/* one neighbour su of the walk: a frontier or a new interior member */
#define WALK_NEIGHBOUR(SU)                                                                  \
    do {                                                                                    \
        uint32_t su_ = (SU);                                                                \
        uint64_t m_ = UINT64_C(1) << (su_ & 63);                                            \
        uint8_t f_ = fl[su_];                                                               \
        if (f_ & SIM_FL_RMAT) {                                                             \
            if (!(f_ & SIM_FL_PINNED)) {                                                    \
                fb[su_ >> 6] |= m_; /* the base itself: cleared below */                   \
                lo = su_ < lo ? su_ : lo;                                                   \
                hi = su_ > hi ? su_ : hi;                                                   \
            }                                                                               \
        } else if (!(ib[su_ >> 6] & m_)) {                                                  \
            ib[su_ >> 6] |= m_;                                                             \
            lo = su_ < lo ? su_ : lo;                                                       \
            hi = su_ > hi ? su_ : hi;                                                       \
            if (sums) /* a random read per interior storage: skipped when unused */         \
                compute += scomp[su_];                                                      \
            stack[n++] = su_;                                                               \
        }                                                                                   \
    } while (0)
    while (n > 0) {
        uint32_t x = stack[--n];
        for (const sim_edge *e = all + off[x], *end = all + off[x + 1];
             e < end && e->time < created; e++) {
            uint32_t su = e->s;
            if (!(su & SIM_WG_GROUP)) {
                WALK_NEIGHBOUR(su);
                continue;
            }
            uint32_t g = su & ~SIM_WG_GROUP; /* a group: its members once per walk */
            if (gst[g] == gen)
                continue;
            gst[g] = gen;
            for (uint32_t i = goff[g], ie = goff[g + 1]; i < ie; i++)
                WALK_NEIGHBOUR(gmem[i]);
        }
    }
#undef WALK_NEIGHBOUR
    fb[base >> 6] &= ~(UINT64_C(1) << (base & 63));
    uint32_t icount = 0, fcount = 0;
    for (uint32_t w = lo >> 6; w <= hi >> 6; w++) {
        if (sums && ib[w])
            icount += (uint32_t)sim_popcount64(ib[w]);
        if (fb[w])
            fcount += (uint32_t)sim_popcount64(fb[w]);
    }
    if (!sums) {
        for (uint32_t w = lo >> 6; w <= hi >> 6; w++)
            ib[w] = 0; /* the walk's visited marks only */
        icount = 0;
        compute = 0;
    }
    *sim_rcomp(v, base, forward) = compute;
    sim_region_summed(v, base, forward);
    if (!forward)
        sim_mscore_update(v, base);
    else
        sim_pkb_note(v, base); /* dtr's bounds read forward sums too */
    if (win) {
        if (sim_set_take_words(&R->interior, &v->set_pool, ib, lo >> 6, (hi >> 6) + 1, icount) ||
            sim_set_take_words(&R->frontier, &v->set_pool, fb, lo >> 6, (hi >> 6) + 1, fcount))
            sim_regions_fail(v);
        return;
    }
    if (icount)
        sim_set_touch(&R->interior, lo >> 6, (hi >> 6) + 1);
    if (fcount)
        sim_set_touch(&R->frontier, lo >> 6, (hi >> 6) + 1);
    R->interior.count = icount;
    R->frontier.count = fcount;
}

/* rebuild_walk without the interior's sum and count where nothing reads them (forward
 * regions kept as frontiers only, sim_view.fwd_frontier_only). */
SIM_POPCNT_CLONES static void rebuild(sim_view *v, uint32_t base, int forward)
{
    const uint32_t *off = forward ? v->tr->wfwd_off : v->tr->wrev_off;
    const sim_edge *all = forward ? v->tr->wfwd_adj : v->tr->wrev_adj;
    if (off[base] == off[base + 1] || all[off[base]].time >= v->created_ops) {
        /* no neighbour yet (a new output's forward region): the walk's empty region,
         * without its set-up (edges are in time order) */
        sim_region *R = forward ? &v->fwd[base] : &v->rev[base];
        sim_region_clear(R);
        *sim_rcomp(v, base, forward) = 0;
        sim_region_summed(v, base, forward);
        if (!forward)
            sim_mscore_update(v, base);
        else
            sim_pkb_note(v, base);
        return;
    }
    if (forward && v->fwd_frontier_only)
        rebuild_walk(v, base, 1, 0);
    else
        rebuild_walk(v, base, forward, 1);
}

void sim_regions_rebuild_one(sim_view *v, uint32_t base, int forward)
{
    rebuild(v, base, forward);
}

/* Σ compute over the members of S's interior (count members in words sb, n of them) not
 * in R's (words rb), when S's cached sum ssum is exact (sim_region_sum_exact) and R already
 * holds fewer than half of them: ssum less the shared members' compute, walking the fewer
 * bits (sums are integers: the order does not matter). Sets *done to 0 when the plain
 * member-by-member sum is cheaper. Inline: counted with absorb's popcnt instructions. */
static inline __attribute__((always_inline)) uint64_t
sum_new_by_difference(const uint64_t *sb, const uint64_t *rb, uint32_t n, uint32_t count,
                      const uint64_t *scomp, uint64_t ssum, int *done)
{
    uint32_t nold = 0;
    for (uint32_t i = 0; i < n; i++)
        nold += (uint32_t)sim_popcount64(sb[i] & rb[i]);
    *done = 2 * nold < count;
    if (!*done)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint64_t w = sb[i] & rb[i]; w; w &= w - 1)
            ssum -= scomp[i * 64 + (uint32_t)__builtin_ctzll(w)];
    return ssum;
}

/* Region.absorb(s): R's base borders s, which was just evicted; s (and its same-direction
 * region S) joins R's interior and S's frontier joins R's frontier, as word-wide unions.
 * Members that became pinned since they joined S's frontier may come along, which is
 * harmless (every use skips pinned storages). */
SIM_POPCNT_CLONES static void absorb(sim_view *v, sim_region *R, uint64_t *compute,
                                     uint32_t s, const sim_region *S, int forward,
                                     int frontier_only)
{
    sim_set_remove(&R->frontier, s);
    uint64_t sum = 0;
    const sim_set *SF = &S->frontier, *SI = &S->interior;
    sim_set *RF = &R->frontier, *RI = &R->interior;
    if (SF->count) {
        if (sim_set_cover(RF, &v->set_pool, SF->wlo, SF->whi)) {
            sim_regions_fail(v);
            return;
        }
        const uint64_t *sb = sim_set_word(SF, SF->wlo);
        uint64_t *rb = sim_set_word(RF, SF->wlo);
        uint32_t added = 0;
        for (uint32_t i = 0, nw = SF->whi - SF->wlo; i < nw; i++) {
            uint64_t w = sb[i] & ~rb[i];
            rb[i] |= w;
            if (w)
                added += (uint32_t)sim_popcount64(w);
        }
        RF->count += added;
        sim_set_touch(RF, SF->wlo, SF->whi);
    }
    if (frontier_only)
        return; /* S's interior is not kept either (sim_view.fwd_frontier_only) */
    /* s in its own region (a cycle: an in-place op's input reached from its output) is
     * summed twice, as simrd does: R's sum is then no longer its interior's */
    if (SI->count && sim_set_has(SI, s) && !sim_set_has(RI, s))
        sim_region_inexact(v, (uint32_t)(R - (forward ? v->fwd : v->rev)), forward);
    if (SI->count) {
        if (sim_set_cover(RI, &v->set_pool, SI->wlo, SI->whi)) {
            sim_regions_fail(v);
            return;
        }
        const uint64_t *sb = sim_set_word(SI, SI->wlo);
        uint64_t *rb = sim_set_word(RI, SI->wlo);
        const uint64_t *scomp = v->scomp + (size_t)SI->wlo * 64;
        uint32_t added = 0, nw = SI->whi - SI->wlo;
        int done = 0;
        if (sim_region_by_difference && SI->count >= SIM_DIFF_MIN && sim_region_sum_exact(v, s, forward))
            sum += sum_new_by_difference(sb, rb, nw, SI->count, scomp, *sim_rcomp(v, s, forward),
                                         &done);
        for (uint32_t i = 0; i < nw; i++) {
            uint64_t w = sb[i] & ~rb[i];
            rb[i] |= w;
            if (done) {
                added += (uint32_t)sim_popcount64(w);
                continue;
            }
            for (; w; w &= w - 1) {
                sum += scomp[i * 64 + (uint32_t)__builtin_ctzll(w)];
                added++;
            }
        }
        RI->count += added;
        sim_set_touch(RI, SI->wlo, SI->whi);
    }
    add(v, RI, s);
    sum += v->scomp[s]; /* D = (S.interior - R.interior) | {s} */
    *compute += sum;
}

static void defer_rev(sim_view *v, const uint32_t *bases, uint32_t n);

/* Tests only (sim_region_exact_check): every region whose sum is claimed exact, summed
 * from scratch over its interior and compared; the counters are shared. */
static void check_exact_sums(sim_view *v)
{
    for (uint32_t b = 0; b < v->tr->n_storages; b++)
        for (int d = 0; d < 2; d++) {
            if (!sim_region_sum_exact(v, b, d))
                continue;
            const sim_set *I = d ? &v->fwd[b].interior : &v->rev[b].interior;
            uint64_t all = 0;
            for (uint32_t w = I->count ? I->wlo : I->whi; w < I->whi; w++)
                for (uint64_t m = *sim_set_word(I, w); m; m &= m - 1)
                    all += v->scomp[(size_t)w * 64 + (uint32_t)__builtin_ctzll(m)];
            sim_region_exact_taken++;
            sim_region_exact_diff += all != *sim_rcomp(v, b, d);
        }
}

/* Region x's members (interior, then frontier less pinned ones and x) and sum, into a
 * malloc'd array (*n of them); NULL when out of memory. */
static uint32_t *region_members(sim_view *v, uint32_t x, uint32_t *n, uint64_t *sum)
{
    const sim_region *R = &v->rev[x];
    uint32_t *m = malloc(((size_t)R->interior.count + R->frontier.count + 2) * sizeof *m), y;
    *n = 0;
    *sum = *sim_rcomp(v, x, 0);
    if (!m)
        return NULL;
    sim_set_iter it;
    for (sim_set_iter_init(&it, &R->interior); sim_set_iter_next(&it, &y);)
        m[(*n)++] = y;
    m[(*n)++] = UINT32_MAX; /* between the two sets */
    for (sim_set_iter_init(&it, &R->frontier); sim_set_iter_next(&it, &y);)
        if (y != x && !(v->fl[y] & SIM_FL_PINNED))
            m[(*n)++] = y;
    return m;
}

/* Tests only (sim_region_exact_check): the absorb a deferral replaces, done, and compared
 * with the walk the flush will do (no state changes in between that either could see). */
static void check_deferral(sim_view *v, uint32_t x, uint32_t s)
{
    absorb(v, &v->rev[x], sim_rcomp(v, x, 0), s, &v->rev[s], 0, 0);
    uint32_t na, nw;
    uint64_t sa, sw;
    uint32_t *a = region_members(v, x, &na, &sa);
    sim_regions_rebuild_one(v, x, 0);
    uint32_t *w = region_members(v, x, &nw, &sw);
    if (a && w) {
        sim_region_exact_taken++;
        sim_region_exact_diff += sa != sw || na != nw || memcmp(a, w, na * sizeof *a) != 0;
    }
    free(a);
    free(w);
}

void sim_regions_on_evict(sim_view *v, uint32_t s)
{
    if (sim_region_exact_check)
        check_exact_sums(v);
    if (v->rg_gone)
        v->rg_gone[s] = 1; /* it may join interiors now (sim_regions_fresh.c) */
    sim_set_iter it;
    uint32_t x;
    for (sim_set_iter_init(&it, &v->rev[s].frontier); sim_set_iter_next(&it, &x);)
        if (!(v->fl[x] & SIM_FL_PINNED))
            absorb(v, &v->fwd[x], sim_rcomp(v, x, 1), s, &v->fwd[s], 1, v->fwd_frontier_only);
    /* with swaps, flags change that the regions do not follow: no deferral (evict). Before
     * the first swap-out (sim_swap_started) it would be exact, as in a plain run, but on the
     * GPT synth capuchin's walks at the flushes then cost more than the absorbs they save */
    int defer = sim_region_defer && sim_region_defer_absorbs && !v->sw.on;
    for (sim_set_iter_init(&it, &v->fwd[s].frontier); sim_set_iter_next(&it, &x);) {
        if ((v->fl[x] & SIM_FL_PINNED) || (v->n_rev_pend && v->rev_pend_on[x]))
            continue; /* pending: see sim_regions_before_evict */
        if (defer && v->rev[x].interior.count + v->rev[s].interior.count < SIM_DEFER_MAX &&
            sim_region_sum_exact(v, x, 0)) { /* see defer_rev */
            if (sim_region_exact_check)
                check_deferral(v, x, s);
            defer_rev(v, &x, 1);
            continue;
        }
        absorb(v, &v->rev[x], sim_rcomp(v, x, 0), s, &v->rev[s], 0, 0);
        sim_mscore_update(v, x);
    }
    region_release(v, &v->fwd[s]);
    region_release(v, &v->rev[s]);
    *sim_rcomp(v, s, 1) = *sim_rcomp(v, s, 0) = 0; /* s left the pool: its MSPS score is
                                                      * refreshed when it comes back */
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
            sim_regions_fail(v);
            return;
        }
        v->scratch2[v->n_scratch2++] = x;
    }
}

/* ------------------------------------------------------------------------------------------
 * Batched rebuilds with memoised closures (bitset mode).
 *
 * All the rebuilds at the end of one _compute see the same state (they only write regions),
 * and the bases of one batch usually reach into the same evicted storages: the reverse
 * regions of the storages downstream of a rematerialized one all run back through the dead
 * part of the graph. So within a batch, the closure of an evicted storage q in one direction
 * (A(q): q and every evicted storage reachable from it through evicted storages; F(q): the
 * material, unpinned neighbours of A(q); S(q): compute summed over A(q)) is computed once and
 * reused: a region's interior is the union of the closures of its base's evicted neighbours,
 * its frontier the base's material neighbours plus their F, minus the base. That is exactly
 * the set the DFS of rebuild() finds, so results do not change.
 *
 * Used for the reverse batch (the regions of storages downstream of what was just
 * recomputed), where bases share most: it halves DenseNet's and the Transformer's DTR time;
 * the forward batch measured slower with it, so it walks plainly. Every base of a reverse
 * batch goes through the memo, shared closures or not. Since the deferred batches go to the
 * multi-base sweep below, this serves eager rebuilds (sim_region_defer = 0) and graphs the
 * sweep does not apply to.
 */
#define SIM_MEMO_MIN_BATCH 2 /* bases in a batch before closures are worth keeping */

/* The memo slot holding q's closure in direction `forward` for this batch, computing it
 * (a DFS that jumps over storages whose closure is already known). SIM_NONE when out of
 * memory. */
static uint32_t closure(sim_view *v, uint32_t q, int forward)
{
    if (v->memo_gen[q] == v->memo_batch)
        return v->memo_slot[q];
    const sim_trace *tr = v->tr;
    uint32_t W = sim_set_pool_words(&v->set_pool);
    uint32_t slot = v->memo_n;
    if (slot >= v->memo_cap) {
        size_t cap = v->memo_cap ? v->memo_cap * 2 : 64;
        uint64_t *m = realloc(v->memo, cap * 2 * W * sizeof *m);
        uint64_t *sm = realloc(v->memo_sum, cap * 2 * sizeof *sm); /* sum, word range */
        if (m)
            v->memo = m;
        if (sm)
            v->memo_sum = sm;
        if (!m || !sm) {
            sim_regions_fail(v);
            return SIM_NONE;
        }
        /* slots are kept zero between batches (see rebuild_batch); new ones start zero */
        memset(m + v->memo_cap * 2 * W, 0, (cap - v->memo_cap) * 2 * W * sizeof *m);
        v->memo_cap = cap;
    }
    v->memo_n++;
    uint64_t *A = v->memo + (size_t)slot * 2 * W, *F = A + W;
    const uint32_t *off = forward ? tr->fwd_off : tr->rev_off;
    const sim_edge *all = forward ? tr->fwd_adj : tr->rev_adj;
    const uint32_t *live = forward ? v->live_fwd : v->live_rev;
    const uint8_t *fl = v->fl;
    const uint64_t *scomp = v->scomp;
    uint32_t *stack = v->scratch; /* sized n_storages + 1 by the caller */
    uint32_t n = 0;
    uint64_t sum = scomp[q];
    uint32_t lo = q >> 6, hi = (q >> 6) + 1; /* words [lo, hi) may be non-zero */
    A[q >> 6] |= UINT64_C(1) << (q & 63);
    stack[n++] = q;
    while (n > 0) {
        uint32_t x = stack[--n];
        const sim_edge *adj;
        uint32_t ne = sim_live_edges(off, all, live, x, &adj);
        for (uint32_t j = 0; j < ne; j++) {
            uint32_t su = adj[j].s;
            uint64_t m = UINT64_C(1) << (su & 63);
            uint8_t f = fl[su];
            if (f & SIM_FL_RMAT) {
                if (!(f & SIM_FL_PINNED)) {
                    F[su >> 6] |= m;
                    lo = (su >> 6) < lo ? su >> 6 : lo;
                    hi = (su >> 6) >= hi ? (su >> 6) + 1 : hi;
                }
            } else if (!(A[su >> 6] & m)) {
                if (v->memo_gen[su] == v->memo_batch) {
                    uint32_t s2 = v->memo_slot[su];
                    const uint64_t *A2 = v->memo + (size_t)s2 * 2 * W, *F2 = A2 + W;
                    uint32_t lo2 = (uint32_t)(v->memo_sum[2 * s2 + 1] >> 32);
                    uint32_t hi2 = (uint32_t)v->memo_sum[2 * s2 + 1];
                    lo = lo2 < lo ? lo2 : lo;
                    hi = hi2 > hi ? hi2 : hi;
                    for (uint32_t w = lo2; w < hi2; w++) {
                        uint64_t nw = A2[w] & ~A[w];
                        A[w] |= nw;
                        F[w] |= F2[w];
                        for (; nw; nw &= nw - 1)
                            sum += scomp[w * 64 + (uint32_t)__builtin_ctzll(nw)];
                    }
                } else {
                    A[su >> 6] |= m;
                    lo = (su >> 6) < lo ? su >> 6 : lo;
                    hi = (su >> 6) >= hi ? (su >> 6) + 1 : hi;
                    sum += scomp[su];
                    stack[n++] = su;
                }
            }
        }
    }
    v->memo_sum[2 * slot] = sum;
    v->memo_sum[2 * slot + 1] = ((uint64_t)lo << 32) | hi;
    v->memo_slot[q] = slot;
    v->memo_gen[q] = v->memo_batch;
    return slot;
}

/* rebuild(base, forward) from memoised closures (bitset mode). */
static void rebuild_memo(sim_view *v, uint32_t base, int forward)
{
    const sim_trace *tr = v->tr;
    sim_region *R = forward ? &v->fwd[base] : &v->rev[base];
    sim_region_clear(R);
    uint32_t W = sim_set_pool_words(&v->set_pool);
    if (sim_set_cover(&R->interior, &v->set_pool, 0, W) ||
        sim_set_cover(&R->frontier, &v->set_pool, 0, W)) {
        sim_regions_fail(v);
        return;
    }
    uint64_t *ib = R->interior.bits, *fb = R->frontier.bits;
    const sim_edge *adj;
    uint32_t ne = sim_live_edges(forward ? tr->fwd_off : tr->rev_off,
                                 forward ? tr->fwd_adj : tr->rev_adj,
                                 forward ? v->live_fwd : v->live_rev, base, &adj);
    uint64_t sum = 0;
    uint32_t icount = 0, rlo = W, rhi = 0; /* words written */
    for (uint32_t j = 0; j < ne; j++) {
        uint32_t su = adj[j].s;
        uint8_t f = v->fl[su];
        if (f & SIM_FL_RMAT) {
            if (!(f & SIM_FL_PINNED)) {
                fb[su >> 6] |= UINT64_C(1) << (su & 63);
                rlo = (su >> 6) < rlo ? su >> 6 : rlo;
                rhi = (su >> 6) >= rhi ? (su >> 6) + 1 : rhi;
            }
            continue;
        }
        if (ib[su >> 6] & (UINT64_C(1) << (su & 63)))
            continue; /* inside a closure already taken */
        uint32_t slot = closure(v, su, forward);
        if (slot == SIM_NONE)
            return;
        const uint64_t *A = v->memo + (size_t)slot * 2 * W, *F = A + W;
        uint32_t lo = (uint32_t)(v->memo_sum[2 * slot + 1] >> 32);
        uint32_t hi = (uint32_t)v->memo_sum[2 * slot + 1];
        for (uint32_t w = lo; w < hi; w++) {
            uint64_t nw = A[w] & ~ib[w];
            ib[w] |= nw;
            fb[w] |= F[w];
            for (; nw; nw &= nw - 1) {
                sum += v->scomp[w * 64 + (uint32_t)__builtin_ctzll(nw)];
                icount++;
            }
        }
        if (lo < hi) {
            rlo = lo < rlo ? lo : rlo;
            rhi = hi > rhi ? hi : rhi;
        }
    }
    fb[base >> 6] &= ~(UINT64_C(1) << (base & 63)); /* "unless it is the base" */
    uint32_t fcount = 0;
    for (uint32_t w = rlo; w < rhi; w++)
        if (fb[w])
            fcount += (uint32_t)sim_popcount64(fb[w]);
    sim_set_touch(&R->interior, rlo, rhi);
    sim_set_touch(&R->frontier, rlo, rhi);
    R->interior.count = icount;
    R->frontier.count = fcount;
    *sim_rcomp(v, base, forward) = sum;
    sim_region_summed(v, base, forward);
    if (!forward)
        sim_mscore_update(v, base);
    else
        sim_pkb_note(v, base); /* dtr's bounds read forward sums too */
}

/* Rebuilds the regions of bases[0..n) in one direction, as one batch. */
SIM_POPCNT_CLONES static void rebuild_batch(sim_view *v, const uint32_t *bases, uint32_t n,
                                            int forward)
{
    if (!v->memo_gen || n < SIM_MEMO_MIN_BATCH || forward) {
        for (uint32_t i = 0; i < n && !v->failed_alloc; i++)
            rebuild(v, bases[i], forward);
        return;
    }
    if (sim_grow((void **)&v->scratch, &v->cap_scratch, v->tr->n_storages + 1, sizeof(uint32_t))) {
        sim_regions_fail(v);
        return;
    }
    if (++v->memo_batch == 0) { /* memo_gen entries of batch 0 would look current */
        memset(v->memo_gen, 0, (size_t)v->tr->n_storages * sizeof *v->memo_gen);
        v->memo_batch = 1;
    }
    v->memo_n = 0;
    for (uint32_t i = 0; i < n && !v->failed_alloc; i++)
        rebuild_memo(v, bases[i], forward);
    /* zero the words the batch's closures used, for the next batch */
    uint32_t W = sim_set_pool_words(&v->set_pool);
    for (uint32_t k = 0; k < v->memo_n; k++) {
        uint64_t *A = v->memo + (size_t)k * 2 * W;
        uint32_t lo = (uint32_t)(v->memo_sum[2 * k + 1] >> 32);
        uint32_t hi = (uint32_t)v->memo_sum[2 * k + 1];
        if (lo < hi) {
            memset(A + lo, 0, (size_t)(hi - lo) * sizeof *A);
            memset(A + W + lo, 0, (size_t)(hi - lo) * sizeof *A);
        }
    }
    v->memo_n = 0;
}

/* End of _compute: the storages that became material rebuild both regions, then every
 * storage bordering them rebuilds the region facing them (the reverse ones deferred). */
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
    if (v->n_scratch2 == 0) /* scratch2 may still be NULL: no offset from it (C11 6.5.6) */
        return;
    if (sim_regions_fresh_applies(v, st, n)) /* first computes: no walk needed */
        sim_regions_fresh_forward(v, st, n, v->scratch2, n_parents);
    else
        rebuild_batch(v, v->scratch2, n_parents, 1);
    if (sim_region_defer)
        defer_rev(v, v->scratch2 + n_parents, v->n_scratch2 - n_parents);
    else
        rebuild_batch(v, v->scratch2 + n_parents, v->n_scratch2 - n_parents, 0);
}

/* Reverse rebuilds wait in v->rev_pend until sim_regions_flush. Deferring is exact: a
 * region is only read by a choice (scores) or an eviction (absorb, frontier walks), and both
 * flush first. Until then the only state changes are storages becoming material and new
 * ops. A storage that becomes material inside a pending region has that region's base in
 * its own (just rebuilt) forward frontier, which re-requests the region. A new op adds no
 * parent edge to an existing storage (its outputs are new storages without children yet;
 * a view's parent is in its own storage) and changes no existing storage's compute, except
 * a view op: it adds to its storage's compute and, with arguments in other storages, to its
 * parents, so sim_regions_on_new_op flushes first when that can matter. So the rebuild done
 * at the flush sees the same region simrd's rebuild saw at the (last) request: the same
 * sets and sum. Waiting merges the requests of a rematerialization chain into one batch,
 * each region built once (forward regions gain children with every new op, and deferring
 * them measured no gain: they stay eager).
 *
 * An eviction's absorb into a reverse region waits the same way when that region's sum is
 * exact (sim_region_sum_exact): its sets are at all times the walk's (the interior is the
 * evicted storages reachable from the base through evicted ones, and every absorb and
 * rebuild keeps it so; the frontier may hold members pinned since, which every use skips),
 * and its sum is then the walk's sum too. Absorbing adds the members' compute now, and no
 * compute changes before the flush (sim_regions_on_new_op), so absorbing now and rebuilding
 * at the flush give the same sets and sum. A region whose sum may be stale (a view op raised
 * an interior member's compute since it was summed) keeps absorbing: a rebuild would
 * refresh the stale part, which simrd's absorbs do not. Releases, most of a run's
 * evictions, then leave one rebuild per region and flush instead of one absorb per release
 * and region. */
static void defer_rev(sim_view *v, const uint32_t *bases, uint32_t n)
{
    uint32_t ns = v->tr->n_storages;
    if (!v->rev_pend_on) {
        v->rev_pend = malloc(((size_t)ns + 1) * sizeof *v->rev_pend);
        v->rev_pend_on = calloc((size_t)ns + 1, 1);
        if (!v->rev_pend || !v->rev_pend_on) {
            free(v->rev_pend);
            free(v->rev_pend_on);
            v->rev_pend = NULL;
            v->rev_pend_on = NULL;
            rebuild_batch(v, bases, n, 0); /* no memory to wait: rebuild now */
            return;
        }
    }
    if (v->n_rev_pend + n > ns) { /* drop the entries rebuilt at evictions meanwhile */
        uint32_t k = 0;
        for (uint32_t i = 0; i < v->n_rev_pend; i++)
            if (v->rev_pend_on[v->rev_pend[i]])
                v->rev_pend[k++] = v->rev_pend[i];
        v->n_rev_pend = k;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = bases[i];
        if (!v->rev_pend_on[b]) {
            v->rev_pend_on[b] = 1;
            v->rev_pend[v->n_rev_pend++] = b;
        }
    }
}

/* Evicting s reads s's reverse region, and changes the reverse regions that border it;
 * the pending ones among those need not be brought up to date first. A pending region is
 * rebuilt at the flush from the state then, and rebuilding after s's eviction gives what
 * rebuilding before it and absorbing s gives (the interior is the evicted storages reachable
 * from the base through evicted ones, and s's own region, rebuilt here, is exactly those
 * reachable from s; the frontier follows; no compute changes while a rebuild is pending, see
 * sim_regions_on_new_op). So only s's own pending reverse region is rebuilt now, and
 * sim_regions_on_evict leaves the pending ones alone: the flushes that every eviction used
 * to do now wait for the next choice, and merge (issue 15). */
void sim_regions_before_evict(sim_view *v, uint32_t s)
{
    if (!v->n_rev_pend)
        return;
    sim_region_evict_waits++;
    if (!v->rev_pend_on[s])
        return;
    v->rev_pend_on[s] = 0; /* its entry in rev_pend is skipped by the flush */
    rebuild(v, s, 0);
}

void sim_regions_flush(sim_view *v)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < v->n_rev_pend; i++) {
        uint32_t b = v->rev_pend[i];
        if (!v->rev_pend_on[b])
            continue; /* rebuilt at its eviction (sim_regions_before_evict) */
        v->rev_pend_on[b] = 0;
        /* a base pinned since its request: its regions are never read again */
        if (!(v->fl[b] & SIM_FL_PINNED))
            v->rev_pend[n++] = b;
    }
    v->n_rev_pend = 0;
    if (sim_regions_rebuild_multi_all(v, v->rev_pend, n, 0) != 0)
        rebuild_batch(v, v->rev_pend, n, 0);
}

void sim_regions_on_op_created(sim_view *v, uint32_t o)
{
    const sim_trace *tr = v->tr;
    const sim_op *op = &tr->ops[o];
    const uint32_t *ast = tr->arg_st + op->args_off;
    for (uint32_t k = 0; k < op->n_out; k++) {
        const sim_tensor *te = &tr->tensors[op->out_first + k];
        uint32_t st = te->storage;
        if (tr->tensors[tr->storages[st].root].op == o)
            continue; /* a new storage: no region holds it yet */
        /* a view op adds to an evicted storage's compute, a non-view output sets it */
        if (!(v->fl[st] & SIM_FL_MAT) && (te->is_view ? op->cost != 0 : v->scomp[st] != op->cost)) {
            v->rg_bumps++;
            return;
        }
        for (uint32_t i = 0; i < op->n_args; i++)
            if (ast[i] != st) { /* a parent edge into an existing storage */
                v->rg_bumps++;
                return;
            }
    }
}

void sim_regions_on_new_op(sim_view *v, uint32_t o)
{
    const sim_trace *tr = v->tr;
    const sim_op *op = &tr->ops[o];
    for (uint32_t k = 0; k < op->n_out; k++) {
        const sim_tensor *te = &tr->tensors[op->out_first + k];
        int evicted = !(v->fl[te->storage] & SIM_FL_MAT);
        /* a non-view output of an existing evicted storage changes its compute too (as
         * run_compute counts in rg_bumps) */
        if ((te->is_view && (op->n_args > 1 || evicted)) ||
            (!te->is_view && evicted && op->out_first + k != tr->storages[te->storage].root)) {
            sim_regions_flush(v);
            return;
        }
    }
}
