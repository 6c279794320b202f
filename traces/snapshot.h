/*
 * snapshot: PyTorch CUDA memory snapshots (torch.cuda.memory._dump_snapshot) as allocator
 * event streams: the second kind of input beside op traces (ARCHITECTURE.md, "Wave 3"). No op
 * graph: the allocator's own allocs and frees, with sizes, streams and stacks, replayed by the
 * memory models directly (cli memcheck), never forced into a .gmt trace.
 *
 * The file (plain or gzip) is read with the pickle reader (pickle.h); its fields are the ones
 * torch/cuda/memory.py documents (`_snapshot`: segments, device_traces, allocator_settings):
 *   segments[]        device address total_size stream segment_type segment_pool_id
 *                     is_expandable blocks[] (address size requested_size state frames)
 *   device_traces[d]  action addr (oom: device_free) size stream time_us frames
 *
 * The recording keeps only the last events (a ring buffer), so the allocator usually held
 * memory before the first event. snap_initial_state reconstructs it, per device, from the
 * final segments minus what the events did (snapshot_state.c).
 */
#ifndef GMS_SNAPSHOT_H
#define GMS_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gms_error.h"
#include "pickle.h"

typedef enum snap_action {
    SNAP_ALLOC,
    SNAP_FREE_REQUESTED,
    SNAP_FREE_COMPLETED,
    SNAP_SEGMENT_ALLOC,
    SNAP_SEGMENT_FREE,
    SNAP_SEGMENT_MAP,
    SNAP_SEGMENT_UNMAP,
    SNAP_SNAPSHOT,
    SNAP_OOM,
    SNAP_USER_DEFINED,
    SNAP_N_ACTIONS
} snap_action;

const char *snap_action_name(int a);

typedef struct snap_event {
    uint8_t action;
    uint64_t addr;   /* oom: the device's free bytes (device_free) */
    uint64_t size;   /* alloc/free: the requested size; segment_*: the segment's bytes */
    int64_t stream;
    int64_t time_us; /* 0 when not recorded */
    pk_ref frames;   /* the stack: a list of {name, filename, line} (PK_NULL: none) */
} snap_event;

typedef enum snap_block_state { SNAP_INACTIVE, SNAP_ACTIVE_ALLOCATED, SNAP_ACTIVE_PENDING_FREE }
    snap_block_state;

typedef struct snap_block {
    uint64_t addr, size, requested;
    uint8_t state;
    pk_ref frames;
} snap_block;

typedef struct snap_segment {
    int device;
    uint64_t addr, size;
    int64_t stream;
    uint8_t small;      /* segment_type 'small' (the small pool) */
    uint8_t expandable; /* is_expandable */
    int64_t pool[2];    /* segment_pool_id; (0, 0) is the default pool, others CUDA graphs */
    size_t first_block, n_blocks; /* into snapshot.blocks, address order */
} snap_segment;

/* allocator_settings (newer PyTorch; absent from older snapshots: present = 0). */
typedef struct snap_settings {
    int present;
    char conf[512];            /* PYTORCH_CUDA_ALLOC_CONF as recorded */
    uint64_t max_split_size;   /* UINT64_MAX when unset (-1 in the file) */
    double gc_threshold;       /* garbage_collection_threshold, 0 = off */
    int expandable_segments;
    int roundup_divisions_set; /* any roundup_power2_divisions entry non-zero */
    uint32_t roundup[16];      /* roundup_power2_divisions by interval ('1', '2', ... '32768'
                                * MiB: index log2 of the key) */
} snap_settings;

typedef struct snapshot {
    pk_doc *doc; /* owns the strings the frames point to */
    snap_segment *seg;
    size_t nseg;
    snap_block *blk;
    size_t nblk;
    snap_event *ev;     /* every device's events, device by device, in recorded order */
    size_t nev;
    size_t *dev_first;  /* device d's events: ev[dev_first[d] .. dev_first[d] + dev_n[d]) */
    size_t *dev_n;
    int ndev;
    snap_settings set;
    size_t counts[SNAP_N_ACTIONS];
    size_t unknown_actions; /* events with an action this reader does not know (kept out) */
} snapshot;

/* 1 when path is a pickle (plain or gzip): the sniff for info and memcheck. */
int snap_sniff(const char *path);
/* Reads a snapshot. Errors (one line: file, what, where): not a pickle or code in it (from
 * the pickle reader), a required key missing or of the wrong type (naming the key, and the
 * segment or event index), blocks that do not tile their segment. */
int snap_load(const char *path, snapshot **out, gms_error *err);
/* The same from a document already read (takes ownership of doc, also on failure). */
int snap_from_doc(pk_doc *doc, const char *name, snapshot **out, gms_error *err);
void snap_free(snapshot *s);

/* The device with the most events (ties: the lowest); -1 when there are no devices. */
int snap_main_device(const snapshot *s);

/* What a replay of device d cannot model yet, one line each into buf (joined by '\n'):
 * several streams, CUDA-graph pools, a GC threshold (it acts against the memory fraction's
 * limit, which the snapshot does not record), expandable segments mixed with others, unknown
 * actions. Returns how many. */
int snap_unmodelled(const snapshot *s, int device, char *buf, size_t len);

/* ---- the state before the first event (snapshot_state.c) -------------------------------- */

typedef struct snap_seed_segment {
    uint64_t addr, size;
    uint8_t small;
} snap_seed_segment;

typedef struct snap_seed_block {
    uint64_t addr, size, requested;
    uint8_t size_known; /* 1: from the final segments; 0: inferred from the request */
} snap_seed_block;

typedef struct snap_state {
    snap_seed_segment *seg; /* address order */
    size_t nseg;
    snap_seed_block *blk;   /* live blocks, address order */
    size_t nblk;
    uint64_t reserved, allocated, requested;
    size_t freed_unallocated; /* live blocks the trace frees without having allocated them */
    size_t problems;          /* events the final state contradicts (see msg) */
    char msg[512];            /* the first such contradiction */
} snap_state;

/* Device d's allocator state before its first event: final segments minus those the events
 * created plus those they gave back; live blocks = final active blocks minus the events'
 * allocations plus the blocks they freed. A block freed in the trace gets the size the
 * allocator's rules give its request (round_size; in the large pool the remainder up to the
 * next block when it is 1 MiB or less, which the allocator never splits off). */
int snap_initial_state(const snapshot *s, int device, snap_state *out, gms_error *err);
void snap_state_free(snap_state *st);

/* ---- frames ------------------------------------------------------------------------------ */

/* Writes the top `max` frames of a stack to f, one per line with `indent`, trimmed: the
 * allocator's and the interpreter's own frames are left out (user code first: Python files,
 * then C++ not in c10/torch internals), names cut to 100 characters. Nothing when there are
 * no frames. */
void snap_print_frames(const snapshot *s, pk_ref frames, int max, const char *indent, FILE *f);
/* The frames snap_print_frames shows (Python code first, then C++ frames that are not the
 * allocator's internals), at most max, into out; returns how many. */
size_t snap_top_frames(const snapshot *s, pk_ref frames, size_t max, pk_ref *out);
/* A frame's name, filename ("?" when absent) and line (0). */
void snap_frame_fields(const snapshot *s, pk_ref fr, const char **name, const char **file,
                       int64_t *line);

#endif
