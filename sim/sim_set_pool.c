/* sim_set_pool: size-class free lists for sim_set's words (see sim_set_pool.h). */
#include "sim_set_pool.h"

#include "sim_prefault.h"

#include <stdlib.h>
#include <string.h>

/* 1 MiB: one malloc per many thousand sets, populated in one call (sim_prefault.h): the
 * sets of a run write most of every chunk, and a fault per page cost a fifth of DenseNet's
 * replay (issue 26) */
#define CHUNK_WORDS (UINT64_C(1) << 17)
/* The first chunk of a pool, 32 KiB; each next one twice the last, up to CHUNK_WORDS. A
 * small trace's regions fill a few tens of KiB: populating a whole MiB for them was half
 * the wall time of capuchin's run on the unet log (the kernel zeroing pages nobody used). */
#define FIRST_CHUNK_WORDS (UINT64_C(1) << 12)

#ifndef GMS_SIM_SET_POOL_MALLOC

/* The class of n words: the smallest c with 2^c >= n. */
static unsigned size_class(uint32_t n)
{
    return n <= 1 ? 0 : 32 - (unsigned)__builtin_clz(n - 1);
}

uint64_t *sim_set_pool_get(sim_set_pool *p, uint32_t n)
{
    if (n > SIM_SET_POOL_MAX_WORDS) {
        uint64_t *big = malloc((size_t)n * sizeof(uint64_t));
        p->n_big += big != NULL;
        return big;
    }
    unsigned c = size_class(n);
    uint64_t *b = p->free_list[c];
    if (b) {
        memcpy(&p->free_list[c], b, sizeof(uint64_t *)); /* the next free block */
        return b;
    }
    /* a full-layout pool hands out only universe-sized blocks (sim_set_cover_slow), so one
     * class holds one size and needs no rounding: up to 2x less memory for the regions of
     * traces small enough for full sets */
    uint64_t size = sim_set_pool_windowed(p) ? UINT64_C(1) << c : n;
    if (p->left < size) { /* the rest of the chunk is left unused */
        uint64_t words = p->chunk_words ? p->chunk_words : FIRST_CHUNK_WORDS;
        if (words < size + 1) /* a full-layout universe larger than the chunk */
            words = size + 1;
        uint64_t *chunk = malloc(words * sizeof *chunk);
        if (!chunk)
            return NULL;
        sim_prefault(chunk, words * sizeof *chunk); /* from 1 MiB on (sim_prefault.h) */
        memcpy(chunk, &p->chunks, sizeof(uint64_t *)); /* the chunk list */
        p->chunks = chunk;
        p->next = chunk + 1;
        p->left = words - 1;
        p->chunk_words = words < CHUNK_WORDS ? 2 * words : words;
    }
    b = p->next;
    p->next += size;
    p->left -= size;
    return b;
}

void sim_set_pool_put(sim_set_pool *p, uint64_t *b, uint32_t n)
{
    if (!b)
        return;
    if (n > SIM_SET_POOL_MAX_WORDS) {
        p->n_big--;
        free(b);
        return;
    }
    unsigned c = size_class(n);
    memcpy(b, &p->free_list[c], sizeof(uint64_t *));
    p->free_list[c] = b;
}

int sim_set_pool_holds_all(const sim_set_pool *p)
{
    return p->n_big == 0;
}

void sim_set_pool_free(sim_set_pool *p)
{
    uint64_t *c = p->chunks;
    while (c) {
        uint64_t *next;
        memcpy(&next, c, sizeof next);
        free(c);
        c = next;
    }
    uint32_t layout = p->layout;
    memset(p, 0, sizeof *p);
    p->layout = layout;
}

#else /* every block its own allocation, for the sanitizers */

uint64_t *sim_set_pool_get(sim_set_pool *p, uint32_t n)
{
    (void)p;
    return malloc((size_t)n * sizeof(uint64_t));
}

void sim_set_pool_put(sim_set_pool *p, uint64_t *b, uint32_t n)
{
    (void)p;
    (void)n;
    free(b);
}

int sim_set_pool_holds_all(const sim_set_pool *p)
{
    (void)p;
    return 0;
}

void sim_set_pool_free(sim_set_pool *p)
{
    uint32_t layout = p->layout;
    memset(p, 0, sizeof *p);
    p->layout = layout;
}

#endif
