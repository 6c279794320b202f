/*
 * memory_caching_impl: the caching model's state, shared by memory_caching.c (the allocator)
 * and memory_caching_seed.c (starting it from a recorded state). Private to sim/.
 */
#ifndef SIM_MEMORY_CACHING_IMPL_H
#define SIM_MEMORY_CACHING_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "memory.h"

#define KMIN_BLOCK 512u
#define KSMALL_SIZE (UINT64_C(1) << 20)       /* largest small request: 1 MiB */
#define KSMALL_BUFFER (UINT64_C(2) << 20)     /* small-pool segment: 2 MiB */
#define KLARGE_BUFFER (UINT64_C(20) << 20)    /* large-pool segment for < 10 MiB: 20 MiB */
#define KMIN_LARGE_ALLOC (UINT64_C(10) << 20) /* requests from here on get their own size */
#define KROUND_LARGE (UINT64_C(2) << 20)      /* ... rounded up to 2 MiB */
#define NONE SIM_MEM_NONE

/* Where segments start in the simulated address space (cudaMalloc's are 2 MiB aligned). */
#define VA_BASE UINT64_C(0x7f0000000000)

typedef struct cblock {
    uint64_t ptr, size, requested;
    uint64_t gc_base; /* the pool's get_free_block count when the block entered it */
    uint32_t prev, next; /* address neighbours inside the segment */
    uint32_t owner;
    uint8_t allocated, small, used;
} cblock;

typedef struct pool {
    uint32_t *ids; /* free blocks sorted by (size, ptr) */
    uint32_t n, cap;
    uint64_t calls; /* get_free_blocks_call_count (counted only with GC on) */
} pool;

typedef struct caching {
    sim_memory_options opt;
    uint64_t limit;
    cblock *b;
    uint32_t nb, capb;
    uint32_t *spare; /* recycled block slots */
    uint32_t nspare, capspare;
    pool small, large;
    uint32_t *segs; /* segment head blocks in address order */
    uint32_t nsegs, capsegs;
    uint64_t next_va;
    uint64_t hint_va; /* where the next segment goes (next_segment_at), 0 = next_va */
    sim_memory_stats st;
} caching;

/* Grows *arr to hold need elements of sz bytes (doubling). 0, or -1 out of memory. */
int caching_grow(void **arr, uint32_t *cap, uint32_t need, size_t sz);
/* A fresh block slot (recycled or new); NONE when out of memory. May move c->b. */
uint32_t caching_new_block(caching *c);
/* Inserts free block id into pool p in (size, address) order. 0 or -1. */
int caching_pool_insert(caching *c, pool *p, uint32_t id);
/* Adds segment head block `head` to c->segs in address order. 0 or -1. */
int caching_segs_add(caching *c, uint32_t head);

/* memory_caching_seed.c: the model's seed and next_segment_at entries. */
int caching_seed(void *state, const sim_mem_seed_segment *seg, size_t nseg,
                 const sim_mem_seed_block *blk, size_t nblk, uint32_t *handles, gms_error *err);
void caching_next_segment_at(void *state, uint64_t addr);

#endif
