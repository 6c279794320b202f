/* sim_pool_bound: block bounds for the exact scans of lru, size, dtr-local, dtr (see
 * sim_pool_bound.h). */
#include "sim_pool_bound.h"

#include <stdlib.h>

int sim_pkb_bounds = 1;

/* A block (or sub-block) and its bound, in the best-first part of a scan. */
typedef struct {
    double bound;
    uint32_t b;
} pkb_entry;

void sim_pkb_note_ratio(sim_view *v, uint32_t s, uint32_t i)
{
    uint32_t sb = i >> 4;
    double r = sim_pkb_ratio(v, s);
    v->pkb_rs[s] = r;
    v->pkb_r[i >> 6] = NAN; /* the block's keys: from its sub-blocks' when next read */
    if (v->pkb_kind == SIM_SCORE_SIZE) {
        if (r < v->pkb_sr[sb])
            v->pkb_sr[sb] = r;
        return;
    }
    double ri = r == INFINITY ? 0 : 1 / r;
    v->pkb_ri[s] = ri;
    sim_pkb_fold_stale(v, &v->pkb_sr[sb], &v->pkb_sl[sb], r, ri, v->last[s]);
}

int sim_pkb_reset(sim_view *v, unsigned kind)
{
    v->pkb_kind = SIM_SCORE_CUSTOM;
    v->pkb_scored = 0;
    if (kind == SIM_SCORE_CUSTOM) {
        sim_pkb_free(v);
        return 0;
    }
    size_t nb = (size_t)v->pool_cap / 64 + 1;
    if (!v->pkb_l) {
        v->pkb_l = malloc(nb * sizeof *v->pkb_l);
        v->pkb_r = malloc(nb * sizeof *v->pkb_r);
        v->pkb_sl = malloc(4 * nb * sizeof *v->pkb_sl);
        v->pkb_sr = malloc(4 * nb * sizeof *v->pkb_sr);
        v->pkb_heap = malloc(nb * sizeof(pkb_entry));
        if (!v->pkb_l || !v->pkb_r || !v->pkb_sl || !v->pkb_sr || !v->pkb_heap) {
            sim_pkb_free(v);
            return -1;
        }
    }
    for (size_t b = 0; b < nb; b++) {
        v->pkb_l[b] = INT64_MAX;
        v->pkb_r[b] = INFINITY;
    }
    for (size_t sb = 0; sb < 4 * nb; sb++) {
        v->pkb_sl[sb] = INT64_MAX;
        v->pkb_sr[sb] = INFINITY;
    }
    if (kind != SIM_SCORE_LRU && !v->pkb_rs) {
        v->pkb_rs = malloc((size_t)v->tr->n_storages * sizeof *v->pkb_rs + 1);
        v->pkb_ri = malloc((size_t)v->tr->n_storages * sizeof *v->pkb_ri + 1);
        if (!v->pkb_rs || !v->pkb_ri) {
            sim_pkb_free(v);
            return -1;
        }
    }
    v->pkb_kind = kind;
    return 0;
}

void sim_pkb_free(sim_view *v)
{
    free(v->pkb_l);
    free(v->pkb_r);
    free(v->pkb_sl);
    free(v->pkb_sr);
    free(v->pkb_heap);
    free(v->pkb_rs);
    free(v->pkb_ri);
    v->pkb_rs = NULL;
    v->pkb_ri = NULL;
    v->pkb_l = NULL;
    v->pkb_r = NULL;
    v->pkb_sl = NULL;
    v->pkb_sr = NULL;
    v->pkb_heap = NULL;
    v->pkb_kind = SIM_SCORE_CUSTOM;
}

/* A dtr score's bound from a block's keys K (r) and L (l): K / (clock - L) (L INT64_MIN:
 * simrd's "infinite" staleness of a member never accessed), shrunk by 2^-40 relative against
 * its own roundings; +inf when clock = L (every score is +inf); -inf for a key that cannot be
 * ordered. */
static inline double stale_bound(double r, int64_t l, uint64_t clock)
{
    if (!(r >= 0))
        return -INFINITY;
    uint64_t st = l == INT64_MIN ? UINT64_MAX : clock - (uint64_t)l;
    if (st == 0)
        return INFINITY;
    return r / (double)st * (1 - 0x1p-40);
}

/* Visiting order of the best-first part of a scan: the least bound first, the later block
 * first among equal bounds. */
static inline int pkb_before(pkb_entry x, pkb_entry y)
{
    return x.bound < y.bound || (x.bound == y.bound && x.b > y.b);
}

/* Whether a block (shift 6) or sub-block (shift 4) with entry x can hold a member that beats
 * the best so far, `best` at pool slot bpos: its bound is below best, or equal and it lies
 * after bpos's (the last of equal scores wins). One that cannot never can again in this
 * scan: best only goes down, and while it stays, bpos only moves later. */
static inline int pkb_may_win(pkb_entry x, double best, uint32_t bpos, unsigned shift)
{
    return !(x.bound > best || (x.bound == best && x.b < bpos >> shift));
}

/* Keeps the entries of h[0..*n) that may still win (pkb_may_win), in place, and returns the
 * index of the one that comes first among them (*n is then 0 when none is left). One pass
 * after each visit, so that the passes that follow the first visit run over the few blocks
 * whose bounds reach the best found, not over all of them. */
static inline uint32_t pkb_keep(pkb_entry *h, uint32_t *n, double best, uint32_t bpos,
                                unsigned shift)
{
    uint32_t k = 0, f = 0;
    for (uint32_t i = 0; i < *n; i++) {
        if (!pkb_may_win(h[i], best, bpos, shift))
            continue;
        h[k] = h[i];
        if (k > 0 && pkb_before(h[k], h[f]))
            f = k;
        k++;
    }
    *n = k;
    return f;
}

/* The members in pool slots [0, i]: what the plain scan scored when it stopped at slot i. */
static uint64_t members_through(const sim_view *v, uint32_t i)
{
    uint64_t k = 0;
    for (uint32_t w = 0; w < i / 64; w++)
        k += (uint64_t)__builtin_popcountll(v->pool_occ[w]);
    uint32_t r = i % 64 + 1;
    uint64_t m = r == 64 ? ~UINT64_C(0) : (UINT64_C(1) << r) - 1;
    return k + (uint64_t)__builtin_popcountll(v->pool_occ[i / 64] & m);
}

/* A sub-block's keys from its members now (none: l INT64_MAX, r +inf), from their cached
 * ratio keys: K the least ratio, L = now - K max((now - l_i) / r_i), as folding each member
 * with that K would give (sim_pkb_fold_stale), gathered in one pass (acc_add per member, then
 * acc_store), while a scan scores them or at a compaction; kind is a constant in each scan
 * function, so the branches on it fold away there. */
typedef struct {
    int64_t lm;
    double rm, mx;
    int never;
} pkb_acc;

static inline void acc_init(pkb_acc *a)
{
    a->lm = INT64_MAX;
    a->rm = INFINITY;
    a->mx = 0;
    a->never = 0;
}

static inline void acc_add(sim_view *v, unsigned kind, pkb_acc *a, uint32_t s, uint64_t now)
{
    int64_t l = v->last[s];
    if (kind == SIM_SCORE_LRU) {
        a->lm = l < a->lm ? l : a->lm;
        return;
    }
    if (kind == SIM_SCORE_DTR) { /* absorbs raised region sums unnoted: read them anew */
        double r = sim_pkb_ratio(v, s);
        v->pkb_rs[s] = r;
        v->pkb_ri[s] = r == INFINITY ? 0 : 1 / r;
    }
    double r = v->pkb_rs[s];
    a->rm = r < a->rm ? r : a->rm;
    if (kind == SIM_SCORE_SIZE)
        return;
    a->never |= l == INT64_MIN;
    double x = (double)(now - (uint64_t)l) * v->pkb_ri[s];
    a->mx = x > a->mx ? x : a->mx;
}

/* Sub-block sb's keys from what acc_add gathered. */
static inline void acc_store(sim_view *v, unsigned kind, uint32_t sb, const pkb_acc *a,
                             uint64_t now)
{
    if (kind == SIM_SCORE_LRU) {
        v->pkb_sl[sb] = a->lm;
        return;
    }
    double rm = a->rm;
    v->pkb_sr[sb] = !(rm >= 0) ? -INFINITY : rm;
    if (kind == SIM_SCORE_SIZE || !(rm > 0) || rm == INFINITY)
        return;
    v->pkb_sl[sb] = a->never ? INT64_MIN : sim_pkb_l(now, rm * a->mx);
}

/* Block b's keys from those of its sub-blocks that hold members (the nonzero 16-bit parts
 * of its occupancy word w), now: lru's l and size's r the least of theirs; dtr's K the least
 * K_j and L folded from each (K_j, L_j) as from a member of ratio K_j last accessed at L_j
 * (L <= now - K (now - L_j) / K_j), which keeps the promise to each sub-block's members:
 * K / (t - L) <= K_j / (t - L_j) at every t >= now. So the block's bound is about the least
 * of its sub-blocks' when they were computed, not the least key over the least L, which
 * would be much looser. */
static inline void block_from_subs(sim_view *v, unsigned kind, uint32_t b, uint64_t w,
                                   uint64_t now)
{
    int64_t l = INT64_MAX;
    double r = INFINITY;
    for (uint32_t j = 0; j < 4; j++) {
        if (!((w >> (16 * j)) & 0xffff))
            continue;
        uint32_t sb = 4 * b + j;
        if (kind == SIM_SCORE_LRU)
            l = v->pkb_sl[sb] < l ? v->pkb_sl[sb] : l;
        else
            r = v->pkb_sr[sb] < r ? v->pkb_sr[sb] : r; /* (never NaN: acc_store, the folds) */
    }
    if (kind == SIM_SCORE_LRU) {
        v->pkb_l[b] = l;
        return;
    }
    v->pkb_r[b] = r;
    if (kind == SIM_SCORE_SIZE || !(r > 0) || r == INFINITY)
        return; /* L: unused, or the bound is 0, -inf or +inf whatever it is */
    double mx = 0;
    int never = 0;
    for (uint32_t j = 0; j < 4; j++) {
        uint32_t sb = 4 * b + j;
        if (!((w >> (16 * j)) & 0xffff) || v->pkb_sr[sb] == INFINITY)
            continue; /* no members, or all of them score +inf */
        int64_t lj = v->pkb_sl[sb];
        never |= lj == INT64_MIN;
        double x = (double)(now - (uint64_t)lj) / v->pkb_sr[sb];
        mx = x > mx ? x : mx;
    }
    v->pkb_l[b] = never ? INT64_MIN : sim_pkb_l(now, r * mx);
}

/* Block b's four sub-blocks' keys from their members, and the block's from theirs. */
static void block_keys(sim_view *v, uint32_t b)
{
    const unsigned kind = v->pkb_kind;
    for (uint32_t j = 0; j < 4; j++) {
        uint32_t lo = b * 64 + 16 * j, hi = lo + 16 < v->pool_len ? lo + 16 : v->pool_len;
        pkb_acc acc;
        acc_init(&acc);
        for (uint32_t i = lo; i < hi; i++)
            if (v->pool_ord[i] != SIM_NONE)
                acc_add(v, kind, &acc, v->pool_ord[i], v->clock);
        acc_store(v, kind, 4 * b + j, &acc, v->clock);
    }
    block_from_subs(v, kind, b, v->pool_occ[b], v->clock);
}

void sim_pkb_compacted(sim_view *v, uint32_t old_len)
{
    if (!sim_pkb_on(v))
        return;
    for (uint32_t b = 0; b < (old_len + 63) / 64; b++)
        block_keys(v, b);
}

/* The columns a scan reads, loaded once. */
typedef struct {
    const uint32_t *ord;
    const uint64_t *size, *scomp, *rcomp;
    const int64_t *last;
    uint64_t clock;
} pkb_cols;

/* The plain scan's score of member s, against the running best (sim_score_ratio_above). */
static inline double member_score(const pkb_cols *c, unsigned kind, uint32_t s, double best)
{
    const int64_t l = c->last[s];
    const uint64_t stale = l == INT64_MIN ? UINT64_MAX : c->clock - (uint64_t)l;
    switch (kind) {
    case SIM_SCORE_LRU:
        return (double)l;
    case SIM_SCORE_SIZE:
        return sim_ratio_inline(1, c->size[s], 1);
    case SIM_SCORE_DTR_LOCAL:
        return sim_score_ratio_above((int64_t)c->scomp[s], c->size[s], stale, best);
    default: /* SIM_SCORE_DTR */
        return sim_score_ratio_above(
            (int64_t)(c->scomp[s] + c->rcomp[2 * s] + c->rcomp[2 * s + 1]), c->size[s], stale,
            best);
    }
}

/* A block's or sub-block's bound from its keys l and r. */
static inline double keys_bound(unsigned kind, int64_t l, double r, uint64_t clock)
{
    switch (kind) {
    case SIM_SCORE_LRU:
        return (double)l;
    case SIM_SCORE_SIZE:
        return r;
    default:
        return stale_bound(r, l, clock);
    }
}

/* Whether keys l and r allow a zero score. lru: a zero is a member last accessed at clock 0,
 * a bound at or below zero may hold one; size: 1/size is never zero (+inf for size zero);
 * dtr-local, dtr: a score is zero only with a zero numerator, i.e. a zero ratio key. */
static inline int keys_may_zero(unsigned kind, int64_t l, double r)
{
    switch (kind) {
    case SIM_SCORE_LRU:
        return l <= 0;
    case SIM_SCORE_SIZE:
        return 0;
    default:
        return !(r > 0);
    }
}

/* Block b's bound now, its keys first rebuilt from its sub-blocks' where a note left them
 * stale (pkb_r NaN: sim_pkb_note_ratio); in *may_zero whether they allow a zero score. */
static inline double block_bound(sim_view *v, unsigned kind, uint32_t b, uint64_t w,
                                 uint64_t now, int *may_zero)
{
    if (kind != SIM_SCORE_LRU && isnan(v->pkb_r[b]))
        block_from_subs(v, kind, b, w, now);
    *may_zero = keys_may_zero(kind, v->pkb_l[b], v->pkb_r[b]);
    return keys_bound(kind, v->pkb_l[b], v->pkb_r[b], now);
}

/* The running choice of a scan: the best score, its storage and pool slot; whether a zero
 * was met in the best-first part; the members scored. */
typedef struct {
    double best;
    uint32_t bi, bpos;
    int zero;
    uint64_t visited;
} pkb_run;

/* Best-first part: scores sub-block sb (slots [lo, hi)) in full, keeping the last minimum
 * by position (any visiting order finds it), and stores its keys anew. */
static inline void visit_any_order(sim_view *v, const pkb_cols *c, unsigned kind, pkb_run *run,
                                   uint32_t sb, uint32_t lo, uint32_t hi)
{
    pkb_acc acc;
    acc_init(&acc);
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t s = c->ord[i];
        if (s == SIM_NONE)
            continue;
        double x = member_score(c, kind, s, run->best);
        run->visited++;
        if (x == 0)
            run->zero = 1;
        if (run->bi == SIM_NONE || x < run->best || (x == run->best && i > run->bpos)) {
            run->best = x;
            run->bi = s;
            run->bpos = i;
        }
        acc_add(v, kind, &acc, s, c->clock);
    }
    acc_store(v, kind, sb, &acc, c->clock);
}

/* Best-first part: block b (occupancy word w, pool length n), its sub-blocks least bound
 * first while one may hold a winner; then the block's keys from its sub-blocks'. */
static inline void visit_block_any_order(sim_view *v, const pkb_cols *c, unsigned kind,
                                         pkb_run *run, uint32_t b, uint64_t w, uint32_t n)
{
    pkb_entry e[4];
    uint32_t ne = 0;
    for (uint32_t j = 0; j < 4; j++) {
        uint32_t sb = 4 * b + j;
        if ((w >> (16 * j)) & 0xffff)
            e[ne++] = (pkb_entry){
                .bound = keys_bound(kind, v->pkb_sl[sb], v->pkb_sr[sb], c->clock), .b = sb};
    }
    while (ne > 0) {
        uint32_t f = pkb_keep(e, &ne, run->best, run->bpos, 4);
        if (ne == 0)
            break;
        uint32_t sb = e[f].b, lo = sb * 16, hi = lo + 16 < n ? lo + 16 : n;
        e[f] = e[--ne];
        visit_any_order(v, c, kind, run, sb, lo, hi);
        if (run->zero)
            break;
    }
    block_from_subs(v, kind, b, w, c->clock);
}

/* Forwards part: scores sub-block sb (slots [lo, hi)) in order as the plain scan does; at
 * a zero it stops (1, *count the members the plain scan scored), its keys left as they
 * were (still bounds); else stores them anew (0). */
static inline int visit_in_order(sim_view *v, const pkb_cols *c, unsigned kind, pkb_run *run,
                                 uint32_t sb, uint32_t lo, uint32_t hi, uint64_t *count)
{
    pkb_acc acc;
    acc_init(&acc);
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t s = c->ord[i];
        if (s == SIM_NONE)
            continue;
        run->visited++;
        double x = member_score(c, kind, s, run->best);
        if (x <= run->best) {
            run->best = x;
            run->bi = s;
        }
        if (x == 0) {
            *count = members_through(v, i);
            return 1;
        }
        acc_add(v, kind, &acc, s, c->clock);
    }
    acc_store(v, kind, sb, &acc, c->clock);
    return 0;
}

/* The scan of one score kind (a constant in each caller, so that the branches on it fold).
 *
 * The plain scan keeps the last minimum and stops at the first zero. Before the first block
 * that may hold a zero (block z) no scan stops, so the state the plain scan has after those
 * blocks is their last minimum, which any visiting order finds when it compares positions on
 * ties: the blocks are visited least bound first (later block first among equal bounds), and
 * inside a block its sub-blocks the same way, and the visits end when every block and
 * sub-block left has a bound above the best, or equal to it before the best's slot (a tie
 * there loses to the later member): after each visit the list keeps only the others
 * (pkb_keep), so the next picks run over a few blocks, not all. So the many blocks that
 * hold a member of the largest size (size) are skipped, as are all but the oldest block
 * (lru) and all but the few that hold the least scores (dtr's), and inside a block all but
 * the sub-blocks that can hold them. From block z on, the scan goes forwards as the plain
 * one, from that state, skipping a block or sub-block only when its bound is above the best
 * and above zero. A zero met before block z (keys that lie: never, by the invariant) redoes
 * the whole choice plainly. What the plain scan counts as scored is every member, or those
 * up to the zero it stopped at (members_through). */
static inline __attribute__((always_inline)) uint32_t
scan_kind(sim_view *v, unsigned kind, double *best_cost, uint64_t *scored)
{
    const pkb_cols c = {.ord = v->pool_ord,
                        .size = v->tr->st_size,
                        .scomp = v->scomp,
                        .rcomp = v->rcomp,
                        .last = v->last,
                        .clock = v->clock};
    const uint64_t *occ = v->pool_occ;
    uint64_t count = v->pool_size;
    uint32_t n = v->pool_len, nb = (n + 63) / 64, z, nh = 0, f = 0;
    pkb_run run = {.best = *best_cost, .bi = SIM_NONE};
    pkb_entry *h = v->pkb_heap;
    for (z = 0; z < nb; z++) { /* the blocks before z: their bounds, and the first of them */
        if (!occ[z])
            continue;
        int may_zero;
        double bound = block_bound(v, kind, z, occ[z], c.clock, &may_zero);
        if (may_zero)
            break;
        h[nh] = (pkb_entry){.bound = bound, .b = z};
        if (pkb_before(h[nh], h[f]))
            f = nh;
        nh++;
    }
    while (nh > 0) { /* before z, least bound first, while a block may hold a winner */
        uint32_t b = h[f].b;
        h[f] = h[--nh];
        visit_block_any_order(v, &c, kind, &run, b, occ[b], n);
        if (run.zero)
            break;
        f = pkb_keep(h, &nh, run.best, run.bpos, 6); /* (a visited block holds a member) */
    }
    int plain = run.zero;
    if (plain) { /* from the start, every member */
        z = 0;
        run.best = *best_cost;
        run.bi = SIM_NONE;
    }
    for (uint32_t b = z; b < nb; b++) { /* from z, forwards */
        const uint64_t w = occ[b];
        if (!w)
            continue;
        if (!plain) {
            int may_zero;
            const double bound = block_bound(v, kind, b, w, c.clock, &may_zero);
            if (bound > run.best && bound > 0) /* no member wins, none is zero */
                continue;
        }
        for (uint32_t j = 0; j < 4; j++) {
            uint32_t sb = 4 * b + j, lo = sb * 16, hi = lo + 16 < n ? lo + 16 : n;
            if (!((w >> (16 * j)) & 0xffff))
                continue;
            if (!plain) {
                const double bound = keys_bound(kind, v->pkb_sl[sb], v->pkb_sr[sb], c.clock);
                if (bound > run.best && bound > 0)
                    continue;
            }
            if (visit_in_order(v, &c, kind, &run, sb, lo, hi, &count))
                goto done; /* the block's keys stay as they were: still bounds */
        }
        block_from_subs(v, kind, b, w, c.clock);
    }
done:
    v->pkb_scored += run.visited;
    *scored += count;
    *best_cost = run.best;
    return run.bi;
}

static uint32_t scan_lru(sim_view *v, double *best_cost, uint64_t *scored)
{
    return scan_kind(v, SIM_SCORE_LRU, best_cost, scored);
}

static uint32_t scan_size(sim_view *v, double *best_cost, uint64_t *scored)
{
    return scan_kind(v, SIM_SCORE_SIZE, best_cost, scored);
}

static uint32_t scan_dtr_local(sim_view *v, double *best_cost, uint64_t *scored)
{
    return scan_kind(v, SIM_SCORE_DTR_LOCAL, best_cost, scored);
}

static uint32_t scan_dtr(sim_view *v, double *best_cost, uint64_t *scored)
{
    return scan_kind(v, SIM_SCORE_DTR, best_cost, scored);
}

uint32_t sim_pkb_scan(sim_view *v, double *best_cost, uint64_t *scored)
{
    switch (v->pkb_kind) {
    case SIM_SCORE_LRU: return scan_lru(v, best_cost, scored);
    case SIM_SCORE_SIZE: return scan_size(v, best_cost, scored);
    case SIM_SCORE_DTR_LOCAL: return scan_dtr_local(v, best_cost, scored);
    case SIM_SCORE_DTR: return scan_dtr(v, best_cost, scored);
    }
    return SIM_NONE;
}
