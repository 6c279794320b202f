/*
 * trc_tmap: Hopper TMA descriptors (CUtensorMap, 128 opaque bytes) -> the global address they
 * were encoded with (review D5). cuBLASLt, CUTLASS 3, cuDNN 9, FlashAttention-3 and Triton pass
 * GEMM/convolution operands inside such descriptors, whose encoding may not hold the address
 * verbatim, so the 8-byte pointer scan misses them. The tracer records every host-side
 * cuTensorMapEncode* / cuTensorMapReplaceAddress result here, and the launch scan looks up
 * each 64-byte-aligned 128-byte window of a launch's parameters. Descriptors built on the
 * device (tensormap.replace, Triton's on-device descriptors) stay invisible.
 * A fixed table (TRC_TMAP_SLOTS entries, the oldest overwritten when full); no locking, no
 * CUDA: the caller locks; unit tested without a GPU.
 */
#ifndef TRC_TMAP_H
#define TRC_TMAP_H

#include <stddef.h>
#include <stdint.h>

#define TRC_TMAP_BYTES 128
#define TRC_TMAP_SLOTS 8192

typedef struct trc_tmap_entry {
    uint8_t desc[TRC_TMAP_BYTES];
    uint64_t addr; /* 0 = empty slot */
} trc_tmap_entry;

typedef struct trc_tmap {
    trc_tmap_entry *slots; /* TRC_TMAP_SLOTS, allocated on first insert */
    size_t n;              /* entries stored (at most TRC_TMAP_SLOTS / 2) */
    uint64_t inserted;     /* descriptors seen */
} trc_tmap;

/* Remembers that the 128 bytes at desc encode addr; -1 when out of memory. */
int trc_tmap_insert(trc_tmap *t, const void *desc, uint64_t addr);
/* The address the 128 bytes at desc were encoded with, or 0. */
uint64_t trc_tmap_lookup(const trc_tmap *t, const void *desc);
void trc_tmap_free(trc_tmap *t);

#endif
