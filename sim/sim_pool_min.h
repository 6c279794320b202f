/*
 * sim_pool_min: MSPS's cached pool scores (v->pool_sc, one per pool slot, NaN in holes) with
 * a summary per block of 64 slots: the block's minimum score (+inf when it holds none; NaN
 * while stale, recomputed when read: sim_psc_min) and a mask of its zero scores. The exact scan (simrd's choose: the last minimum in pool order
 * wins, the first zero ends it) then reads the summaries and only the blocks that hold the
 * answer, instead of every slot at every eviction (issue 15).
 *
 * Invariant: slots in [pool_len, psc_hw) hold NaN; slots at or above psc_hw were never
 * written in this run and are not read.
 */
#ifndef SIM_POOL_MIN_H
#define SIM_POOL_MIN_H

#include <math.h>

#include "sim_internal.h"
#include "sim_pool_bound.h"

/* Block b's minimum from its slots. */
void sim_psc_block(sim_view *v, uint32_t b);

/* Block b's minimum. A write that raises or removes the minimum leaves NaN there (stale),
 * recomputed here when a scan reads it: many writes between two choices cost one pass. */
static inline double sim_psc_min(sim_view *v, uint32_t b)
{
    if (isnan(v->psc_min[b]))
        sim_psc_block(v, b);
    return v->psc_min[b];
}

/* Slot i's score changed from old to c: keeps its block's summary. */
static inline void sim_psc_note(sim_view *v, uint32_t i, double old, double c)
{
    uint32_t b = i >> 6;
    uint64_t bit = UINT64_C(1) << (i & 63);
    if (c == 0)
        v->psc_zero[b] |= bit;
    else
        v->psc_zero[b] &= ~bit;
    if (c < v->psc_min[b]) /* (false when stale: it stays stale) */
        v->psc_min[b] = c;
    else if (old == v->psc_min[b] && !(c == old))
        v->psc_min[b] = NAN; /* stale: sim_psc_min recomputes it */
}

/* Writes slot i's score. */
static inline void sim_psc_set(sim_view *v, uint32_t i, double c)
{
    if (v->psc_dirty) /* written now: no longer owed */
        v->psc_dirty[i >> 6] &= ~(UINT64_C(1) << (i & 63));
    double old = v->pool_sc[i];
    v->pool_sc[i] = c;
    sim_psc_note(v, i, old, c);
}

/* Refreshes pool member s's cached MSPS score after its compute or reverse sum changed (a
 * storage out of the pool gets it when it enters), and the block bounds of the other scans
 * after its compute or a region sum changed (sim_pool_bound.h). */
static inline void sim_mscore_update(sim_view *v, uint32_t s)
{
    uint32_t i;
    sim_pkb_note(v, s);
    if (!v->pool_sc || (i = v->ss[s].pool_idx) == SIM_NONE)
        return;
    if (v->psc_dirty) { /* lazily: scored when its block is read (sim_psc_block) */
        v->psc_dirty[i >> 6] |= UINT64_C(1) << (i & 63);
        v->psc_min[i >> 6] = NAN;
        return;
    }
    sim_psc_set(v, i, sim_ratio_inline((int64_t)(v->scomp[s] + v->rcomp[2 * (size_t)s + 1]),
                                           v->tr->st_size[s], 1));
}

/* Block maxima of the sizes of the pool's members that a model op reads again
 * (v->pool_bmax, one per block of 64 slots; NULL when not kept): a swapping choose's bounds
 * per block (sim_view_pool_block_max_size). A member counts when it enters the pool with a
 * use ahead (one without never gets one back: no use after some op means none after a later
 * one); a member leaving with the block's largest size leaves it stale (SIM_PBM_STALE), to be
 * recomputed from the members' uses when read (sim_pbm_max). So the value read is at least
 * the size of every member with a use ahead. */
#define SIM_PBM_STALE UINT64_MAX
static inline void sim_pbm_add(sim_view *v, uint32_t i, uint32_t s)
{
    uint64_t size = v->tr->st_size[s], m = v->pool_bmax[i >> 6];
    if (m != SIM_PBM_STALE && size > m && sim_view_next_use(v, s) != SIM_NONE)
        v->pool_bmax[i >> 6] = size;
}
void sim_pbm_block(sim_view *v, uint32_t b);
static inline void sim_pbm_remove(sim_view *v, uint32_t i, uint64_t size)
{
    if (size == v->pool_bmax[i >> 6])
        v->pool_bmax[i >> 6] = SIM_PBM_STALE;
}
static inline uint64_t sim_pbm_max(sim_view *v, uint32_t b)
{
    if (v->pool_bmax[b] == SIM_PBM_STALE)
        sim_pbm_block(v, b);
    return v->pool_bmax[b];
}
/* Keeps them for a run when on (0, or -1 when out of memory), else frees them. */
int sim_pbm_reset(sim_view *v, int on);
/* After a compaction from old_len slots: every block's maximum stale. */
void sim_pbm_compacted(sim_view *v, uint32_t old_len);

/* Empties the summaries for a new run (0, or -1 when out of memory). lazy: the scores of a
 * choose that reads the last minimum only (sim_view_msps_last_min), few times per op at
 * most: a write marks its slot owed (psc_dirty) and its block's minimum stale, and the block
 * scores its owed slots when read, so a run with few choices pays few divisions. The zero
 * masks are then not kept (nothing reads them). */
int sim_psc_reset(sim_view *v, int lazy);
/* Scores every owed slot (before the pool is compacted: the scores move with their slots). */
void sim_psc_flush(sim_view *v);
/* Slot pool_len is about to be used: makes sure it is initialised (NaN). */
static inline void sim_psc_extend(sim_view *v)
{
    if (v->pool_len >= v->psc_hw)
        v->pool_sc[v->psc_hw++] = NAN;
}
/* After the pool was compacted from old_len slots to pool_len: slots [pool_len, old_len) are
 * NaN again and every summary is recomputed. */
void sim_psc_compacted(sim_view *v, uint32_t old_len);
/* SCAN_POOL over the cached scores with the summaries: the chosen storage (SIM_NONE if
 * none) and its score in *best_cost (which comes in as +inf); *scored += the members a
 * plain scan visits. */
uint32_t sim_psc_scan(const sim_view *v, double *best_cost, uint64_t *scored);
/* The member with the least cached score, the last in pool order among equals, with no stop
 * at a zero (a choose that weighs MSPS's choice, sim_view_msps_last_min); SIM_NONE when the
 * pool is empty. */
uint32_t sim_psc_last_min(const sim_view *v);
void sim_psc_free(sim_view *v);
/* 1 (default): the MSPS scan reads the block summaries; 0: it reads every slot in order.
 * Same results; tests compare. Set it only while no simulation runs. */
extern int sim_psc_summaries;

#endif
