/*
 * The helpers sim_regions.c and sim_regions_sweep.c share (private to the two files).
 */
#ifndef GMS_SIM_REGIONS_PRIV_H
#define GMS_SIM_REGIONS_PRIV_H

#include "sim_internal.h"

/* An allocation failed: the run stops with its status (sim_runner_run). */
static inline void sim_regions_fail(sim_view *v)
{
    v->failed_alloc = 1;
}

static inline void sim_region_clear(sim_region *r)
{
    sim_set_clear(&r->interior);
    sim_set_clear(&r->frontier);
}

static inline uint64_t sim_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (x * UINT64_C(0x0101010101010101)) >> 56;
}

/* The universe-sized scratch bitsets a windowed rebuild walks into (sim_view.win_in,
 * win_fr; zero between uses). 0, or -1 when out of memory. */
int sim_regions_win_scratch(sim_view *v);
/* The walk graph's per-group scratch (sim_view.wg_*). 0, or -1 when out of memory. */
int sim_regions_wg_scratch(sim_view *v);

/* Rebuilds the regions of bases[0..n) in one direction (forward: 1) by multi-base sweeps of
 * up to 64 bases each (sim_regions_sweep.c). 0, or -1 when they do not apply (an unordered
 * storage graph) and nothing was done. When bases is v->rev_pend, the list is reordered in
 * place (bases that share one swept region copy it). */
int sim_regions_rebuild_multi_all(sim_view *v, const uint32_t *bases, uint32_t n, int forward);

/* rebuild(base, forward) of sim_regions.c: the region by the walk. */
void sim_regions_rebuild_one(sim_view *v, uint32_t base, int forward);

/* 1 when the storages st[0..n) that just became material left no region's interior: none
 * was ever evicted for the regions and none has an evicted parent (sim_regions_fresh.c). */
int sim_regions_fresh_applies(const sim_view *v, const uint32_t *st, uint32_t n);
/* For such storages, the forward regions of bases[0..nb) (the storages their reverse
 * frontiers name) made what rebuilding them by walks makes, without walks. */
void sim_regions_fresh_forward(sim_view *v, const uint32_t *st, uint32_t n,
                               const uint32_t *bases, uint32_t nb);

#endif
