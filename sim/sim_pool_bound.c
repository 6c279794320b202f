/* sim_pool_bound: block bounds for the exact scans of lru, size, dtr-local, dtr (see
 * sim_pool_bound.h). */
#include "sim_pool_bound.h"

#include <stdlib.h>

int sim_pkb_bounds = 1;

/* A block and its bound, in the best-first part of a scan. */
typedef struct {
    double bound;
    uint32_t b;
} pkb_entry;

/* Block b's keys from its k members m[] now (none: l INT64_MAX, r +inf), from their cached
 * ratio keys: K the least ratio, L = now - K max((now - l_i) / r_i), as folding each member
 * with that K would give (sim_pkb_fold_stale), in one pass. */
static void keys_from(sim_view *v, uint32_t b, const uint32_t *m, uint32_t k)
{
    const int64_t *last = v->last;
    int64_t lm = INT64_MAX;
    double rm = INFINITY;
    if (v->pkb_kind == SIM_SCORE_LRU) {
        for (uint32_t j = 0; j < k; j++)
            lm = last[m[j]] < lm ? last[m[j]] : lm;
        v->pkb_l[b] = lm;
        return;
    }
    double *rs = v->pkb_rs;
    if (v->pkb_kind == SIM_SCORE_DTR) /* absorbs raised region sums unnoted: read them anew */
        for (uint32_t j = 0; j < k; j++) {
            double r = sim_pkb_ratio(v, m[j]);
            rs[m[j]] = r;
            v->pkb_ri[m[j]] = r == INFINITY ? 0 : 1 / r;
        }
    for (uint32_t j = 0; j < k; j++)
        rm = rs[m[j]] < rm ? rs[m[j]] : rm;
    v->pkb_r[b] = !(rm >= 0) ? -INFINITY : rm; /* a NaN or negative ratio: never skipped */
    if (v->pkb_kind == SIM_SCORE_SIZE || !(rm > 0) || rm == INFINITY)
        return; /* L: unused, or the bound is 0, -inf or +inf whatever it is */
    const double *ri = v->pkb_ri;
    const uint64_t now = v->clock;
    double mx = 0;
    int never = 0;
    for (uint32_t j = 0; j < k; j++) {
        int64_t l = last[m[j]];
        never |= l == INT64_MIN;
        double x = (double)(now - (uint64_t)l) * ri[m[j]];
        mx = x > mx ? x : mx;
    }
    v->pkb_l[b] = never ? INT64_MIN : sim_pkb_l(now, rm * mx);
}

static void block_keys(sim_view *v, uint32_t b)
{
    uint32_t m[64];
    uint32_t k = 0, hi = b * 64 + 64 < v->pool_len ? b * 64 + 64 : v->pool_len;
    for (uint32_t i = b * 64; i < hi; i++)
        if (v->pool_ord[i] != SIM_NONE)
            m[k++] = v->pool_ord[i];
    keys_from(v, b, m, k);
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
        v->pkb_heap = malloc(nb * sizeof(pkb_entry));
        if (!v->pkb_l || !v->pkb_r || !v->pkb_heap) {
            sim_pkb_free(v);
            return -1;
        }
    }
    for (size_t b = 0; b < nb; b++) {
        v->pkb_l[b] = INT64_MAX;
        v->pkb_r[b] = INFINITY;
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

void sim_pkb_compacted(sim_view *v, uint32_t old_len)
{
    if (!sim_pkb_on(v))
        return;
    for (uint32_t b = 0; b < (old_len + 63) / 64; b++)
        block_keys(v, b);
}

void sim_pkb_free(sim_view *v)
{
    free(v->pkb_l);
    free(v->pkb_r);
    free(v->pkb_heap);
    free(v->pkb_rs);
    free(v->pkb_ri);
    v->pkb_rs = NULL;
    v->pkb_ri = NULL;
    v->pkb_l = NULL;
    v->pkb_r = NULL;
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

/* Whether a block with entry x can hold a member that beats the best so far, `best` at pool
 * slot bpos: its bound is below best, or equal and the block lies after bpos's (the last of
 * equal scores wins). A block that cannot never can again in this scan: best only goes down,
 * and while it stays, bpos only moves later. */
static inline int pkb_may_win(pkb_entry x, double best, uint32_t bpos)
{
    return !(x.bound > best || (x.bound == best && x.b < bpos / 64));
}

/* Keeps the entries of h[0..*n) that may still win (pkb_may_win), in place, and returns the
 * index of the one that comes first among them (*n is then 0 when none is left). One pass
 * after each visited block, so that the passes that follow the first visit run over the few
 * blocks whose bounds reach the best found, not over all of them. */
static inline uint32_t pkb_keep(pkb_entry *h, uint32_t *n, double best, uint32_t bpos)
{
    uint32_t k = 0, f = 0;
    for (uint32_t i = 0; i < *n; i++) {
        if (!pkb_may_win(h[i], best, bpos))
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

/* A block's keys gathered while its members are scored, as keys_from gathers them from its
 * member list (same operations in the same order, so the same keys): KIND is a constant in
 * each scan function, so the branches on it fold away. */
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

/* keys_from's last step: block b's keys from what acc_add gathered. */
static inline void acc_store(sim_view *v, unsigned kind, uint32_t b, const pkb_acc *a,
                             uint64_t now)
{
    if (kind == SIM_SCORE_LRU) {
        v->pkb_l[b] = a->lm;
        return;
    }
    double rm = a->rm;
    v->pkb_r[b] = !(rm >= 0) ? -INFINITY : rm;
    if (kind == SIM_SCORE_SIZE || !(rm > 0) || rm == INFINITY)
        return;
    v->pkb_l[b] = a->never ? INT64_MIN : sim_pkb_l(now, rm * a->mx);
}

/* One scan function per score kind: SCORE the score of member s (the plain scan's
 * expression, read against the running best), BOUND block b's bound from its keys bl and br,
 * MAYZERO whether a block's keys allow a zero score. A block scanned in full gets its keys
 * anew (keys_from's, gathered as it is scored).
 *
 * The plain scan keeps the last minimum and stops at the first zero. Before the first block
 * that may hold a zero (block z) no scan stops, so the state the plain scan has after those
 * blocks is their last minimum, which any visiting order finds when it compares positions on
 * ties: the blocks are visited least bound first (later block first among equal bounds), and
 * the visits end when every block left has a bound above the best, or equal to it in a block
 * before the best's (a tie there loses to the later member): after each visit the list keeps
 * only the others (pkb_keep), so the next picks run over a few blocks, not all. So
 * the many blocks that hold a member of the largest size (size) are skipped, as are all but
 * the oldest block (lru) and all but the few that hold the least scores (dtr's). From block z
 * on, the scan goes forwards as the plain one, from that state, skipping a block only when
 * its bound is above the best and above zero. A zero met before block z (keys that lie:
 * never, by the invariant) redoes the whole choice plainly. What the plain scan counts as
 * scored is every member, or those up to the zero it stopped at (members_through). */
#define PKB_SCAN_FN(NAME, KIND, SCORE, BOUND, MAYZERO)                                \
    static uint32_t NAME(sim_view *v, double *best_cost, uint64_t *scored)                   \
    {                                                                                         \
        const uint32_t *ord = v->pool_ord;                                                    \
        const uint64_t *occ = v->pool_occ, *size = v->tr->st_size, *scomp = v->scomp;         \
        const uint64_t *rcomp = v->rcomp;                                                     \
        const int64_t *last = v->last;                                                        \
        const uint64_t clock = v->clock;                                                      \
        uint64_t visited = 0, count = v->pool_size;                                           \
        double best = *best_cost;                                                             \
        uint32_t bi = SIM_NONE, bpos = 0, n = v->pool_len, nb = (n + 63) / 64, z, nh = 0;     \
        int plain = 0;                                                                        \
        pkb_acc acc;                                                                          \
        pkb_entry *h = v->pkb_heap;                                                           \
        (void)size, (void)scomp, (void)rcomp, (void)clock, (void)last;                        \
        uint32_t f = 0; /* the entry that comes first */                                      \
        for (z = 0; z < nb; z++) { /* the blocks before z: their bounds */                    \
            if (!occ[z])                                                                      \
                continue;                                                                     \
            const int64_t bl = v->pkb_l[z];                                                   \
            const double br = v->pkb_r[z];                                                    \
            (void)bl, (void)br;                                                               \
            if (MAYZERO)                                                                      \
                break;                                                                        \
            h[nh] = (pkb_entry){.bound = (BOUND), .b = z};                                    \
            if (pkb_before(h[nh], h[f]))                                                      \
                f = nh;                                                                       \
            nh++;                                                                             \
        }                                                                                     \
        while (nh > 0) { /* before z, least bound first, while a block may hold a winner */   \
            pkb_entry top = h[f];                                                             \
            h[f] = h[--nh];                                                                   \
            uint32_t b = top.b, hi = b * 64 + 64 < n ? b * 64 + 64 : n;                       \
            acc_init(&acc);                                                                   \
            for (uint32_t i = b * 64; i < hi; i++) {                                          \
                uint32_t s = ord[i];                                                          \
                if (s == SIM_NONE)                                                            \
                    continue;                                                                 \
                double c = SCORE;                                                             \
                visited++;                                                                    \
                if (c == 0)                                                                   \
                    plain = 1;                                                                \
                if (bi == SIM_NONE || c < best || (c == best && i > bpos)) {                  \
                    best = c;                                                                 \
                    bi = s;                                                                   \
                    bpos = i;                                                                 \
                }                                                                             \
                acc_add(v, KIND, &acc, s, clock);                                             \
            }                                                                                 \
            acc_store(v, KIND, b, &acc, clock);                                               \
            if (plain)                                                                        \
                break;                                                                        \
            f = pkb_keep(h, &nh, best, bpos); /* (a visited block holds a member: bi set) */  \
        }                                                                                     \
        if (plain) { /* from the start, every member */                                      \
            z = 0, best = *best_cost, bi = SIM_NONE;                                          \
        }                                                                                     \
        for (uint32_t b = z; b < nb; b++) { /* from z, forwards */                            \
            if (!occ[b])                                                                      \
                continue;                                                                     \
            const int64_t bl = v->pkb_l[b];                                                   \
            const double br = v->pkb_r[b];                                                    \
            (void)bl, (void)br;                                                               \
            if (!plain) {                                                                     \
                const double bound = BOUND;                                                   \
                if (bound > best && bound > 0) /* no member wins, none is zero */           \
                    continue;                                                                 \
            }                                                                                 \
            uint32_t hi = b * 64 + 64 < n ? b * 64 + 64 : n;                                  \
            acc_init(&acc);                                                                   \
            for (uint32_t i = b * 64; i < hi; i++) {                                          \
                uint32_t s = ord[i];                                                          \
                if (s == SIM_NONE)                                                            \
                    continue;                                                                 \
                visited++;                                                                    \
                double c = SCORE;                                                             \
                if (c <= best) {                                                              \
                    best = c;                                                                 \
                    bi = s;                                                                   \
                }                                                                             \
                if (c == 0) { /* the block's keys stay as they were: still bounds */          \
                    count = members_through(v, i);                                            \
                    goto done;                                                                \
                }                                                                             \
                acc_add(v, KIND, &acc, s, clock);                                             \
            }                                                                                 \
            acc_store(v, KIND, b, &acc, clock);                                               \
        }                                                                                     \
    done:                                                                                     \
        v->pkb_scored += visited;                                                             \
        *scored += count;                                                                     \
        *best_cost = best;                                                                    \
        return bi;                                                                            \
    }

#define STALE(s) (last[s] == INT64_MIN ? UINT64_MAX : clock - (uint64_t)last[s])
/* lru: a zero is a member last accessed at clock 0, a bound at or below zero may hold one;
 * size: 1/size is never zero (+inf for size zero) */
PKB_SCAN_FN(scan_lru, SIM_SCORE_LRU, (double)last[s], (double)bl, bl <= 0)
PKB_SCAN_FN(scan_size, SIM_SCORE_SIZE, sim_ratio_inline(1, size[s], 1), br, 0)
/* dtr-local, dtr: a score is zero only with a zero numerator, i.e. a zero ratio key */
PKB_SCAN_FN(scan_dtr_local, SIM_SCORE_DTR_LOCAL,
            sim_score_ratio_above((int64_t)scomp[s], size[s], STALE(s), best),
            stale_bound(br, bl, clock), !(br > 0))
PKB_SCAN_FN(scan_dtr, SIM_SCORE_DTR,
            sim_score_ratio_above((int64_t)(scomp[s] + rcomp[2 * s] + rcomp[2 * s + 1]),
                                  size[s], STALE(s), best),
            stale_bound(br, bl, clock), !(br > 0))
#undef STALE

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
