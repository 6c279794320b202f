/*
 * import_et_lifetimes: when the Kineto trace joined to an Execution Trace carries the real
 * caching allocator's [memory] events (torch.profiler with profile_memory=True), the storages'
 * real lifetimes and the kernels' own workspaces come from them instead of the ET's lower
 * bound (release after the last use). docs/import-pytorch.md ("Lifetimes from the Kineto
 * memory events") states the rules.
 *
 * This header pairs the raw events into allocations (for import_et_kineto.c); the matching to
 * the ET's storages is the event builder's (import_et_ops_priv.h).
 */
#ifndef IMPORT_ET_LIFETIMES_H
#define IMPORT_ET_LIFETIMES_H

#include <stddef.h>
#include <stdint.h>

#include "import_et.h"

/* One CUDA [memory] event as read (Bytes > 0 an allocation, < 0 a free). */
typedef struct et_memev {
    int64_t ts, tid, device, ev_idx; /* ev_idx: torch's "Ev Idx", -1 when absent */
    uint64_t addr;
    int64_t bytes;
    size_t seq; /* its place in the file */
} et_memev;

/* The allocations of device among ev (sorted here by time, then Ev Idx, then file order):
 * each allocation with the time its address was next freed (INT64_MAX when never). A free
 * with no allocation before it (a block from before the trace) is left out. *out is malloc'd
 * (NULL when none). 0, or -1 when out of memory. */
int et_allocs_pair(et_memev *ev, size_t n, int64_t device, et_alloc **out, size_t *n_out);

/* The block PyTorch's caching allocator hands out for a request of size bytes: at least 512,
 * a multiple of 512 (c10/cuda/CUDACachingAllocator.cpp, round_size). */
uint64_t et_alloc_block(uint64_t size);

#endif
