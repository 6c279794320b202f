/*
 * memory: the memory-model seam of the replay (ARCHITECTURE.md, "Engine, wave 2").
 *
 * The default model, `ideal`, is no model at all: memory is the sum of the resident storages'
 * bytes and the budget caps that sum, exactly as simrd counts it (every reference row depends
 * on it, so the engine keeps that path untouched). Any other model places each storage in a
 * simulated device address space: the engine asks it for a block when a storage becomes
 * resident and gives the block back when the storage is evicted or freed, and the budget caps
 * what the model has reserved from the device (as torch.cuda.set_per_process_memory_fraction
 * caps PyTorch's caching allocator). When the model cannot place a block within the budget the
 * engine evicts a victim and asks again.
 *
 * Models:
 *   caching   PyTorch's CUDACachingAllocator (memory_caching.c; docs/memory.md cites each rule)
 *   lifetime  SmartPool: offsets planned offline from the trace's tensor lifetimes
 *             (memory_lifetime.c)
 */
#ifndef SIM_MEMORY_H
#define SIM_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

/* "No block": a model's handle for a zero-byte request, and a free block's owner. */
#define SIM_MEM_NONE UINT32_MAX

/* Options shared by the models (each reads what applies to it). */
#define SIM_ROUNDUP_INTERVALS 16 /* PyTorch's kRoundUpPowerOfTwoIntervals: 1 MiB .. 64 GiB */

typedef struct sim_memory_options {
    uint64_t max_split_size;     /* caching: max_split_size_mb in bytes; UINT64_MAX = unset */
    int expandable_segments;     /* caching: expandable_segments:True */
    int first_fit;               /* lifetime: first fit instead of best fit */
    /* caching: roundup_power2_divisions per power-of-two interval of the size (interval i
     * holds sizes in [2^(20+i), 2^(21+i)), the first also everything below, the last
     * everything above); 0 or 1 = plain 512-byte rounding */
    uint32_t roundup_divisions[SIM_ROUNDUP_INTERVALS];
    /* caching: garbage_collection_threshold in (0, 1), 0 = off; acts only under a limit
     * (PyTorch: only with set_per_process_memory_fraction) */
    double gc_threshold;
} sim_memory_options;

void sim_memory_options_init(sim_memory_options *o);

/* A block in address order, as fragmentation-aware policies walk them. */
typedef struct sim_mem_block {
    uint64_t addr;
    uint64_t size;    /* bytes the block spans (rounded) */
    uint32_t owner;   /* the storage it holds, SIM_MEM_NONE when free */
    uint32_t segment; /* blocks of one segment are contiguous; a new segment starts a new run */
} sim_mem_block;

/* A real allocator's state to start a model from (seed): its segments, and the allocated
 * blocks inside them; whatever a segment holds besides those blocks is free (cached). */
typedef struct sim_mem_seed_segment {
    uint64_t addr, size;
    int small; /* caching: the small pool's segment (segment_type 'small') */
} sim_mem_seed_segment;

typedef struct sim_mem_seed_block {
    uint64_t addr, size; /* the block's real address and (rounded) size */
    uint64_t requested;  /* the size asked for */
    uint32_t owner;
} sim_mem_seed_block;

/* What a model reports about itself. */
typedef struct sim_memory_stats {
    uint64_t reserved;      /* bytes held from the device (segments) */
    uint64_t allocated;     /* bytes of allocated blocks (rounded sizes) */
    uint64_t requested;     /* bytes asked for (unrounded) */
    uint64_t largest_free;  /* the largest free block */
    uint64_t segments;      /* segments held now */
    uint64_t device_allocs; /* segments ever reserved (cudaMalloc calls) */
    uint64_t device_frees;  /* segments given back (cudaFree calls) */
} sim_memory_stats;

typedef struct sim_memory_model {
    const char *name;
    const char *description;
    /* Creates a model state; limit caps reserved bytes (UINT64_MAX = none). The trace hook
     * (may be NULL) is for models planned offline from the whole trace. */
    int (*create)(const sim_memory_options *o, uint64_t limit, const void *trace, void **state,
                  gms_error *err);
    void (*destroy)(void *state);
    /* Places `size` bytes for storage `owner`: 0 and *handle on success, 1 when it does not fit
     * within the limit (the state is then as if never asked, except that cached segments may
     * have been given back), -1 when out of host memory. */
    int (*reserve)(void *state, uint64_t size, uint32_t owner, uint32_t *handle);
    void (*release)(void *state, uint32_t handle);
    void (*stats)(const void *state, sim_memory_stats *out);
    /* The block behind a handle (addr, size, owner). */
    sim_mem_block (*block)(const void *state, uint32_t handle);
    /* Free bytes directly before and after the block in its segment. */
    uint64_t (*free_around)(const void *state, uint32_t handle);
    /* Lists every block (free and allocated) in address order into out[0..cap); returns how
     * many there are (call again with a larger array when that exceeds cap). */
    size_t (*list_blocks)(const void *state, sim_mem_block *out, size_t cap);
    /* Optional (NULL: the model cannot start from a given state). Starts a model that holds
     * nothing yet from a real allocator's state: segments in address order, not
     * overlapping; blocks in address order, each inside a segment, not overlapping; gaps
     * become free blocks as the allocator would hold them (merged). handles[i] gets block
     * i's handle, to release it later. Addresses are the real ones, and segments the model
     * reserves afterwards lie above all of them. 0, or an error naming what is wrong. */
    int (*seed)(void *state, const sim_mem_seed_segment *seg, size_t nseg,
                const sim_mem_seed_block *blk, size_t nblk, uint32_t *handles, gms_error *err);
    /* Optional: the next segment the model reserves (if any, before the next reserve
     * returns) lies at addr, as the real cudaMalloc placed it, unless that overlaps a
     * segment the model holds. Exact replays use it, so that ties the allocator breaks by
     * address (best fit: lowest address) break as they did in the real run. */
    void (*next_segment_at)(void *state, uint64_t addr);
    /* Optional: gives every wholly free cached segment back to the device, as the allocator's
     * release_cached_blocks does when cudaMalloc fails, before it reports an OOM (replays of
     * a snapshot's `oom` events). */
    void (*release_cached)(void *state);
} sim_memory_model;

/* The models by name; NULL when unknown. "ideal" gives *model = NULL and returns 0. Returns 0
 * when the name is known, -1 otherwise. */
int sim_memory_find(const char *name, const sim_memory_model **model);
/* Reads settings for model *m (NULL = ideal) written as PYTORCH_CUDA_ALLOC_CONF is:
 * "max_split_size_mb:128,expandable_segments:True" (caching), "first_fit:True" (lifetime).
 * A setting that changes the model itself (expandable_segments:True) replaces *m.
 * canon gets the run key's name of the model with its settings: "caching",
 * "caching{max_split_size_mb:128}" (settings equal to the defaults are left out). */
int sim_memory_parse_conf(const sim_memory_model **m, const char *conf, sim_memory_options *o,
                          char *canon, size_t len, gms_error *err);

/* "ideal, caching, lifetime" (for messages and --help). */
const char *sim_memory_names(void);

extern const sim_memory_model sim_memory_caching;
extern const sim_memory_model sim_memory_lifetime;
extern const sim_memory_model sim_memory_caching_expandable; /* caching, expandable_segments */

/* The lifetime pool's plan for a trace: the arena it needs and the lower bound of any
 * placement (the most bytes live at once), unconstrained (memory_lifetime.c). */
struct sim_trace;
int sim_lifetime_plan(const struct sim_trace *tr, int first_fit, uint64_t *arena,
                      uint64_t *bound, gms_error *err);

/* PyTorch's size rules (memory_caching.c), exposed for the Kineto replay and tests.
 * sim_caching_round_size is the default rounding; sim_caching_round_size_opt applies
 * o's roundup_power2_divisions (round_size with roundup_power2_next_division). */
uint64_t sim_caching_round_size(uint64_t size);
uint64_t sim_caching_round_size_opt(const sim_memory_options *o, uint64_t size);
uint64_t sim_caching_allocation_size(uint64_t rounded);

#endif
