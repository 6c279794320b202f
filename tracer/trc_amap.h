/*
 * trc_amap: the tracer's live-allocation map (base -> size), for the launch parameter scan.
 *
 * Sorted blocks of at most TRC_AMAP_BLOCK entries: insert and remove move at most one block's
 * entries (plus, on a split or an emptied block, the block pointers), lookups are two binary
 * searches. A sorted flat array moved every entry above the change (review D15: 7 us per
 * allocation+free at 30,000 live allocations). No locking and no CUDA: the caller locks; unit
 * tested and benchmarked without a GPU. Allocations are not expected to overlap. The lifter
 * (lift.c) keeps its live allocations in one too. Iterate in address order over
 * blocks[0..n_blocks)->e[0..n).
 */
#ifndef TRC_AMAP_H
#define TRC_AMAP_H

#include <stddef.h>
#include <stdint.h>

#define TRC_AMAP_BLOCK 256

typedef struct trc_amap_range {
    uint64_t base, size;
    uint64_t tag; /* the caller's (the lifter: its allocation instance) */
} trc_amap_range;

typedef struct trc_amap_block {
    size_t n;
    trc_amap_range e[TRC_AMAP_BLOCK];
} trc_amap_block;

typedef struct trc_amap {
    trc_amap_block **blocks; /* sorted, none empty */
    size_t n_blocks, cap_blocks;
    size_t count;
    uint64_t max_end; /* largest base + size ever inserted: a cheap prefilter */
} trc_amap;

/* Adds [base, base + size) (size 0 counts as 1) with tag. Returns 1 when added, 0 when base
 * was there already (its size and tag are updated), -1 when out of memory (map unchanged). */
int trc_amap_insert(trc_amap *m, uint64_t base, uint64_t size, uint64_t tag);
/* The live allocation containing v, into *out (may be NULL); 0 when none. */
int trc_amap_find(const trc_amap *m, uint64_t v, trc_amap_range *out);
/* Removes the allocation at base; returns 1 and its size in *size (may be NULL) when found. */
int trc_amap_remove(trc_amap *m, uint64_t base, uint64_t *size);
/* 1 when v lies inside a live allocation. */
int trc_amap_hit(const trc_amap *m, uint64_t v);
void trc_amap_free(trc_amap *m);

#endif
