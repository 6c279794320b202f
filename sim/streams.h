/*
 * streams: the compute stream and the two copy engines of a swapping run (docs/swap.md).
 *
 * The run's clock is the compute stream. Each copy engine (device-to-host, host-to-device)
 * serves its copies in the order they were queued, one at a time, each taking the link's
 * time (link.h); copies overlap compute. A storage swapped out keeps its device bytes until
 * its copy ends; a swap-in takes device bytes when it is queued and the op that needs the
 * storage waits until it has arrived. Compute waiting for a copy is stall time.
 *
 * Only runs whose policy has SIM_NEEDS_SWAP turn the streams on; every other run never
 * calls past the `on` test, so the replay stays simrd's.
 */
#ifndef SIM_STREAMS_H
#define SIM_STREAMS_H

#include <stdint.h>

#include "gms_error.h"
#include "link.h"

struct sim_view;
struct sim_result;

/* Where a storage's data is, beyond the engine's material flag. */
enum { SIM_SW_DEVICE = 0, SIM_SW_OUTGOING = 1, SIM_SW_HOST = 2 };

/* A queued swap-out whose device bytes are not freed yet. */
typedef struct sim_swap_pending {
    uint64_t end;      /* when its copy ends */
    uint64_t size;
    uint32_t s;
    uint8_t dead;      /* the storage was released or recomputed meanwhile: free the host
                        * copy too when the copy ends */
    uint8_t reclaimed; /* needed again before the copy ended: it stayed resident */
} sim_swap_pending;

typedef struct sim_streams {
    int on;
    sim_link link;
    uint64_t host_cap, host_used;
    uint64_t d2h_free, h2d_free; /* each engine is busy until then */
    /* swap-outs in queue order (their ends never decrease) from head on */
    sim_swap_pending *pend;
    uint32_t pend_head, pend_n, pend_cap;
    uint64_t pend_bytes;       /* device bytes the live pending copies will free */
    uint8_t *where;            /* per storage: SIM_SW_* */
    uint32_t *pend_idx;        /* per storage: its pending entry when OUTGOING */
    uint64_t *ready;           /* per storage: when its last swap-in ends */
    uint8_t *was_defined;      /* per tensor: defined when its storage was swapped out */
    uint32_t n_storages, n_tensors;
    /* the trace's reads per storage (sim_view_next_use), built on first use and kept by
     * the runner: use_ops[use_off[s] .. use_off[s+1]) in op order; use_cur per run */
    uint32_t *use_off, *use_ops, *use_cur;
    int use_built, use_reset;
    uint64_t *load;      /* per op: resident bytes after it with no budget (built on first use) */
    int force_swap;      /* sim_view_swap_out in progress: swap whatever the action says */
    /* figures for sim_result */
    uint64_t swaps_out, swaps_in, out_bytes, in_bytes, prefetches, fallbacks;
    uint64_t stall_ns, d2h_busy, h2d_busy, host_peak;
} sim_streams;

/* Per run: turns the streams on for a swapping policy (checking the config), else off. */
int sim_streams_reset(struct sim_view *v, gms_error *err);
void sim_streams_free(sim_streams *sw);
void sim_streams_finish(const struct sim_view *v, struct sim_result *res);

/* Storage s is being evicted (eager: its last reference died). For a victim the policy
 * chose, asks the policy's action and, for a swap with room on the host, queues the copy.
 * 1 = swapped (the caller keeps its device bytes counted until the copy ends), 0 = dropped. */
int sim_swap_on_evict(struct sim_view *v, uint32_t s, int eager);
/* Makes room for `need` more bytes once: frees finished swap-outs, waits for queued ones when
 * they suffice, else evicts one victim. 0, or -1 when the run stops. */
int sim_swap_make_room(struct sim_view *v, uint64_t need);
/* Tensor t is needed but undefined: if its storage is on the host (or on its way), brings it
 * back (queuing a swap-in; wait = the compute stream waits for it at once). 0, or -1 when the
 * run stops. t may still be undefined after (a view that was not defined when swapped). */
int sim_swap_in(struct sim_view *v, uint32_t t, int wait);
/* Op o is about to run: the compute stream waits for its arguments' swap-ins. */
void sim_swap_wait_args(struct sim_view *v, uint32_t o);
/* Storage s became resident by recomputation, or its last reference died while it was not
 * resident: its host copy (or queued swap-out) is no longer needed. */
void sim_swap_forget(struct sim_view *v, uint32_t s);

/* 1 once this run has queued a swap-out; until then every storage is on the device (no
 * SIM_FL_HOST, no host copy to forget), so an eviction may leave the pending reverse
 * rebuilds waiting for the next flush as in a plain run (sim_run.c, evict): capuchin's and
 * hybrid's runs that free memory by drops alone. */
static inline int sim_swap_started(const sim_streams *sw)
{
    return sw->on && sw->swaps_out != 0;
}
#endif
