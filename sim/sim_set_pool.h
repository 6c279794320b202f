/*
 * sim_set_pool: where sim_set takes its words from during a run. DTR's regions create and
 * drop millions of small windowed bitsets (issue 15: ~3.5M malloc/free pairs on the 1M-op
 * GPT trace); the pool keeps a free list per power-of-two block size, carves new blocks
 * from large chunks (32 KiB first, doubling to 1 MiB, so that a small trace's regions do
 * not pay for a MiB of pages) and gives everything back at once when the run ends.
 *
 * A block of n words comes from the class 2^ceil(log2 n); the caller gives n back with the
 * block (sim_set knows it: its wcap). In the full layout every block is the universe's size
 * and is carved at that size. Blocks above SIM_SET_POOL_MAX_WORDS are plain
 * malloc/free. Built with GMS_SIM_SET_POOL_MALLOC defined (the sanitizer build defines it,
 * see sim/CMakeLists.txt), every block is plain malloc/free, so AddressSanitizer still sees
 * each set's words as their own allocation (overflows, use after release, leaks).
 */
#ifndef SIM_SET_POOL_H
#define SIM_SET_POOL_H

#include <stdint.h>

#define SIM_SET_POOL_CLASSES 13                 /* blocks of 1, 2, 4, ... 4096 words */
#define SIM_SET_POOL_MAX_WORDS (1u << (SIM_SET_POOL_CLASSES - 1))

typedef struct sim_set_pool {
    uint64_t *free_list[SIM_SET_POOL_CLASSES]; /* linked through each block's first word */
    uint64_t *chunks;    /* chunks, linked through their first word */
    uint64_t *next;      /* the unused rest of the newest chunk */
    uint64_t left;       /* its words */
    uint64_t chunk_words; /* the next chunk's size (0: the first chunk's): chunks double */
    uint64_t n_big;      /* blocks above SIM_SET_POOL_MAX_WORDS handed out, not given back */
    /* the universe its sets share, words << 1, | 1 for the windowed layout: kept here, not
     * in each set, so that an all-zero sim_set is a valid empty one and a million storages'
     * regions need no initialising pass (issue 15) */
    uint32_t layout;
} sim_set_pool;

/* Makes p's sets range over ids < 64 * words (< 2^31), in the full layout (windowed 0) or
 * the windowed one (sim_set.h). Set once, before any set of p is used; it outlives
 * sim_set_pool_free. */
static inline void sim_set_pool_layout(sim_set_pool *p, uint32_t words, int windowed)
{
    p->layout = words << 1 | (windowed ? 1u : 0u);
}

/* The universe's words (ids < 64 * words). */
static inline uint32_t sim_set_pool_words(const sim_set_pool *p)
{
    return p->layout >> 1;
}

/* 1 for the windowed layout, 0 for the full one. */
static inline int sim_set_pool_windowed(const sim_set_pool *p)
{
    return (int)(p->layout & 1);
}

/* Words for n (> 0) uninitialised words, or NULL when out of memory. */
uint64_t *sim_set_pool_get(sim_set_pool *p, uint32_t n);
/* Gives back a block of n words from sim_set_pool_get(p, n) (NULL: nothing). */
void sim_set_pool_put(sim_set_pool *p, uint64_t *b, uint32_t n);
/* 1 when every block handed out and not given back lies in p's chunks, so that
 * sim_set_pool_free frees them all (the owner need not give each back first); 0 when some
 * block is its own malloc (always so with GMS_SIM_SET_POOL_MALLOC). */
int sim_set_pool_holds_all(const sim_set_pool *p);
/* Frees every chunk: all blocks of p are gone; p is empty and usable again (same layout). */
void sim_set_pool_free(sim_set_pool *p);

#endif
