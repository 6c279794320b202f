/*
 * memory_replay: a memory snapshot's allocator events replayed through a memory model
 * (ARCHITECTURE.md, "Wave 3": allocator event streams are replayed by the models directly,
 * not forced into an op trace).
 *
 * Two modes:
 *   exact  the model is seeded with the real state before the first event (segments and
 *          blocks, memory.h's seed entry point) and every event is checked against what the
 *          real allocator did: each allocation at the same segment and offset, each new
 *          segment where the real allocator reserved one, reserved and requested bytes after
 *          every event, and at the end the segments, reserved and allocated bytes and every
 *          live block's size against the final segments. The first event where model and
 *          reality part is kept (with its index, for its frames).
 *   cold   the model starts empty, takes the blocks live before the first event (address
 *          order), then replays the events: its peak reserved bytes predict the job's, under
 *          any settings (the what-ifs); with a device limit the first allocation that does
 *          not fit is the predicted OOM.
 */
#ifndef SIM_MEMORY_REPLAY_H
#define SIM_MEMORY_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "memory.h"
#include "snapshot.h"

typedef struct sim_replay_options {
    const sim_memory_model *model; /* caching, or the expandable variant (cold only) */
    const sim_memory_options *opt;
    int cold;
    uint64_t limit; /* cold: the device's memory (UINT64_MAX: none) */
} sim_replay_options;

typedef struct sim_replay_result {
    size_t events, allocs, frees;
    /* exact */
    size_t placed_same;       /* allocations at the real segment and offset */
    size_t reserved_checks, reserved_equal;   /* after every alloc and free */
    size_t requested_equal;   /* events after which requested bytes agree */
    size_t segs_real, segs_model;             /* segments reserved during the trace */
    size_t end_segments_real, end_segments_model;
    uint64_t end_reserved_real, end_reserved_model;
    uint64_t end_allocated_real, end_allocated_model;
    size_t end_blocks, end_blocks_same;       /* live blocks at the end, same address and size */
    long first_divergence;    /* event index (in the device's events), -1 when none */
    char divergence[320];     /* what happened there */
    /* both */
    uint64_t peak_reserved_real, peak_reserved_model, peak_allocated_model;
    uint64_t largest_free_at_peak; /* the model's largest free block when its reserved peaked */
    double frag;              /* mean over allocations that reserved a new segment of the share of
                               * reserved memory that was free and still could not hold them */
    size_t frag_allocs;
    long oom_event;           /* cold with a limit: the first allocation that did not fit */
    uint64_t oom_reserved;    /* the model's reserved bytes then */
} sim_replay_result;

/* Replays device d of s from its initial state st (snap_initial_state). Refuses (error)
 * what it cannot replay: exact mode with a model that cannot be seeded or a contradictory
 * initial state. */
int sim_replay_snapshot(const snapshot *s, int device, const snap_state *st,
                        const sim_replay_options *o, sim_replay_result *r, gms_error *err);

#endif
