/*
 * sim_pool_bound: lower bounds per block of 64 pool slots for the scanning scores that are not
 * cached (lru, size, dtr-local, and dtr with regions), so that the exact choice scores only
 * the blocks that can hold it (issue 26 goal 3).
 *
 * simrd's choice (spec section 5) keeps the LAST minimum in pool order and stops at the first
 * zero. A block whose bound is STRICTLY above the best score found before it, and above zero,
 * cannot change that choice: none of its members wins (a later tie would, so ties are never
 * skipped) and none is zero, so none ends the scan (lru's scores go below zero: a member never
 * accessed scores INT64_MIN, and a zero after it still ends the plain scan). So the scan walks
 * the blocks in order, skips those, scores the others exactly as the plain scan does, and
 * chooses what it chooses.
 *
 * Per block, and per sub-block of 16 slots (four to a block), keys that only loosen between
 * two visits (a visit recomputes a sub-block's keys from its members and its block's from
 * its sub-blocks', a compaction recomputes all from the members), so that a bound never
 * lies:
 *   lru: l, the least last access of its members (the bound is (double)l);
 *   size: r, the least 1/size (the bound is r, exact);
 *   dtr-local, dtr: K and L with K / (t - L) <= each member's r_i / (t - l_i) at every later
 *     time t, r_i the static part of the score (compute / size; with both region sums for
 *     dtr) and l_i its last access (sim_pkb_fold_stale). At a visit K / (now - L) is the
 *     block's least score (up to roundings); it decreases as the members age as their scores
 *     do. The bound is shrunk by 2^-40 relative so that its roundings (a few units in the
 *     last place) can never skip a member the exact score would keep.
 * A block's keys taken from its sub-blocks' (those that hold members) are the least of each
 * key: K / (t - L) is then at most each sub-block's bound, so at most each member's score.
 * A scan picks blocks by their bounds and, inside a block, scores only the sub-blocks whose
 * own bounds can hold the choice.
 *
 * Every write that can lower a member's keys folds it in through sim_pkb_note, which also
 * caches its ratio key (and its inverse) per storage for the visits (size's and dtr's fold
 * into the sub-block and leave the block's keys stale, rebuilt from its sub-blocks' when a
 * scan reads them: many notes between two choices cost one rebuild): its entry into the pool,
 * and every region sum rebuilt or copied (sim_mscore_update for the reverse ones, as MSPS's
 * cached scores; the forward rebuilds call it directly). Writes that only raise a score need
 * not: an absorb grows a sum (the cached ratio stays below it, still a bound), an access
 * raises the last access (a pool member's last access never goes down: a storage gets
 * INT64_MIN only when its op first creates it, out of the pool).
 */
#ifndef SIM_POOL_BOUND_H
#define SIM_POOL_BOUND_H

#include <math.h>

#include "sim_internal.h"

/* The score kind the bounds serve (SIM_SCORE_CUSTOM: none, the scan reads every member). */
static inline int sim_pkb_on(const sim_view *v)
{
    return v->pkb_kind != SIM_SCORE_CUSTOM;
}

/* Storage s's ratio key for the run's score kind (+inf for a zero size, as the score is;
 * -inf for a negative numerator, which the bound cannot order: never skipped). */
static inline double sim_pkb_ratio(const sim_view *v, uint32_t s)
{
    uint64_t m = v->tr->st_size[s];
    int64_t c;
    switch (v->pkb_kind) {
    case SIM_SCORE_SIZE:
        return sim_ratio_inline(1, m, 1); /* the score itself: its bound is exact */
    case SIM_SCORE_DTR_LOCAL:
        c = (int64_t)v->scomp[s];
        break;
    case SIM_SCORE_DTR:
        c = (int64_t)(v->scomp[s] + v->rcomp[2 * (size_t)s] + v->rcomp[2 * (size_t)s + 1]);
        break;
    default:
        return 0;
    }
    if (c < 0)
        return -INFINITY;
    return m == 0 ? INFINITY : (double)c / (double)m;
}

/* now - ceil(q), rounded down with room for q's roundings; INT64_MIN when out of range. */
static inline int64_t sim_pkb_l(uint64_t now, double q)
{
    if (!(q < 0x1p62))
        return INT64_MIN;
    return (int64_t)now - (int64_t)ceil(q * (1 + 0x1p-40)) - 1;
}

/* dtr-local and dtr: folds a member with ratio r (ri = 1 / r, 0 for +inf) and last access l
 * (now = v->clock) into the keys K (*kr) and L (*kl) of its sub-block, which promise
 * K / (t - L) <= r_i / (t - l_i) for every member i at every t >= now: K <= r and
 * L <= now - K (now - l) / r (lowering K keeps the promise to the others: t - l_i >= 0). */
static inline void sim_pkb_fold_stale(const sim_view *v, double *kr, int64_t *kl, double r,
                                      double ri, int64_t l)
{
    if (!(r >= 0)) { /* a negative numerator: never skipped */
        *kr = -INFINITY;
        return;
    }
    if (r < *kr)
        *kr = r;
    double k = *kr;
    if (r == INFINITY || k <= 0)
        return; /* its score is +inf; or the bound is zero whatever L is */
    int64_t lj = l == INT64_MIN ? INT64_MIN /* never accessed: staleness "infinite" */
                                : sim_pkb_l(v->clock, k * (double)(v->clock - (uint64_t)l) * ri);
    if (lj < *kl)
        *kl = lj;
}

/* sim_pkb_note's part for the ratio keys (size, dtr-local, dtr), member s in pool slot i: out
 * of line, so that the note stays small where it is inlined (every pool entry). */
void sim_pkb_note_ratio(sim_view *v, uint32_t s, uint32_t i);

/* Pool member s entered, or its compute or region sums were written: caches its ratio key
 * and folds it into the keys of its block (64 slots) and of its sub-block (16 slots). Any
 * storage may be passed (one out of the pool is ignored). */
static inline void sim_pkb_note(sim_view *v, uint32_t s)
{
    uint32_t i;
    if (!sim_pkb_on(v) || (i = v->ss[s].pool_idx) == SIM_NONE)
        return;
    if (v->pkb_kind != SIM_SCORE_LRU) {
        sim_pkb_note_ratio(v, s, i);
        return;
    }
    int64_t l = v->last[s];
    if (l < v->pkb_l[i >> 6])
        v->pkb_l[i >> 6] = l;
    if (l < v->pkb_sl[i >> 4])
        v->pkb_sl[i >> 4] = l;
}

/* Sets up the bounds for a run of policy kind `kind` (SIM_SCORE_CUSTOM: off). 0, or -1 when
 * out of memory. */
int sim_pkb_reset(sim_view *v, unsigned kind);
/* After the pool was compacted from old_len slots: every block's keys recomputed. */
void sim_pkb_compacted(sim_view *v, uint32_t old_len);
/* The exact choice of the run's score kind over the pool, skipping the blocks whose bound is
 * above the best so far: the chosen storage (SIM_NONE if none), its score in *best_cost
 * (which comes in as +inf); *scored += the members the plain scan would have scored. */
uint32_t sim_pkb_scan(sim_view *v, double *best_cost, uint64_t *scored);
void sim_pkb_free(sim_view *v);
/* 1 (default): lru, size, dtr-local and dtr scans skip blocks by their bounds; 0: they score
 * every member. Same results; tests compare. Set it only while no simulation runs. */
extern int sim_pkb_bounds;

#endif
