/*
 * sim_set: a set of uint32 ids (storage indices) for the interior and frontier sets of DTR
 * regions (spec section 6): a bitset over a known universe of ids, in one of two layouts:
 *   - full (sim_set_pool_layout(p, words, 0)): the words of the whole universe, allocated on
 *     first add; for traces small enough (every real model log: a few thousand storages);
 *   - windowed (sim_set_pool_layout(p, words, 1)): only the words [base, base + wcap) that
 *     hold members, grown on demand and given back when the set is released. Regions are
 *     local in storage index (they run through neighbouring, mostly consecutive storages),
 *     so a window is a few words where the universe is a million ids: memory stays linear
 *     in the trace.
 * Either way add/has/remove are single bit operations, union and difference are word loops
 * over the words in use, clearing is a short memset. Sets are emptied and refilled
 * constantly during a run, so they keep their memory until released.
 * Functions that allocate or free take the run's sim_set_pool (sim_set_pool.h), which also
 * holds the layout and universe its sets share: a set must be used with the same pool
 * throughout. An all-zero sim_set is an empty set.
 */
#ifndef SIM_SET_H
#define SIM_SET_H

#include <stddef.h>
#include <stdint.h>

#include "sim_set_pool.h"

typedef struct sim_set {
    uint64_t *bits;    /* words [base, base + wcap) of the bitset (NULL until first needed) */
    uint32_t base;     /* first word held (0 for a full set) */
    uint32_t wcap;     /* words held */
    uint32_t count;
    uint32_t wlo, whi; /* every set bit lies in words [wlo, whi) (empty: equal) */
} sim_set;

/* Records that words [lo, hi) may now hold set bits (for code that writes the words
 * directly; they must lie in the window, see sim_set_cover). */
static inline void sim_set_touch(sim_set *s, uint32_t lo, uint32_t hi)
{
    if (lo >= hi)
        return;
    if (s->wlo >= s->whi) {
        s->wlo = lo;
        s->whi = hi;
        return;
    }
    if (lo < s->wlo)
        s->wlo = lo;
    if (hi > s->whi)
        s->whi = hi;
}

/* Word w (absolute index, inside the window) of s. */
static inline uint64_t *sim_set_word(const sim_set *s, uint32_t w)
{
    return s->bits + (w - s->base);
}

int sim_set_cover_slow(sim_set *s, sim_set_pool *pool, uint32_t lo, uint32_t hi);

/* Makes the words [lo, hi) addressable (allocating or growing the window; new words are
 * zero). 0, or -1 when out of memory (s unchanged). */
static inline int sim_set_cover(sim_set *s, sim_set_pool *pool, uint32_t lo, uint32_t hi)
{
    if (s->bits && lo >= s->base && hi <= s->base + s->wcap)
        return 0;
    return sim_set_cover_slow(s, pool, lo, hi);
}

/* 1 when x is in s. */
static inline int sim_set_has(const sim_set *s, uint32_t x)
{
    uint32_t w = x >> 6;
    if (s->count == 0 || w < s->wlo || w >= s->whi)
        return 0;
    return (int)((*sim_set_word(s, w) >> (x & 63)) & 1);
}

/* Adds x. Returns 1 when added, 0 when already present, -1 when out of memory. */
static inline int sim_set_add(sim_set *s, sim_set_pool *pool, uint32_t x)
{
    uint32_t w = x >> 6;
    if (sim_set_cover(s, pool, w, w + 1) != 0)
        return -1;
    uint64_t m = UINT64_C(1) << (x & 63);
    uint64_t *p = sim_set_word(s, w);
    if (*p & m)
        return 0;
    *p |= m;
    s->count++;
    sim_set_touch(s, w, w + 1);
    return 1;
}
/* Removes x if present. */
static inline void sim_set_remove(sim_set *s, uint32_t x)
{
    uint32_t w = x >> 6;
    if (s->count == 0 || w < s->wlo || w >= s->whi)
        return;
    uint64_t m = UINT64_C(1) << (x & 63);
    uint64_t *p = sim_set_word(s, w);
    if (*p & m) {
        *p &= ~m;
        s->count--;
    }
}

/* Empties s, keeping its memory (inline: called for every region rebuild, usually on a few
 * words). */
static inline void sim_set_clear(sim_set *s)
{
    if (s->bits && s->wlo < s->whi) {
        uint64_t *p = sim_set_word(s, s->wlo);
        uint32_t n = s->whi - s->wlo;
        if (n <= 8)
            for (uint32_t i = 0; i < n; i++)
                p[i] = 0;
        else
            __builtin_memset(p, 0, (size_t)n * sizeof *p);
    }
    s->count = 0;
    s->wlo = s->whi = 0;
}
/* Makes s the set whose words [lo, hi) are src[lo..hi) (absolute word indices), with count
 * members, and zeroes those words of src. 0, or -1 when out of memory (s is then empty). */
int sim_set_take_words(sim_set *s, sim_set_pool *pool, uint64_t *src, uint32_t lo, uint32_t hi,
                       uint32_t count);
/* Empties s for a while: a windowed set gives its memory back, a full one keeps it. */
void sim_set_release(sim_set *s, sim_set_pool *pool);
void sim_set_free(sim_set *s, sim_set_pool *pool);

/* Iteration in increasing order (s must not change meanwhile):
 *   sim_set_iter it; uint32_t x;
 *   for (sim_set_iter_init(&it, s); sim_set_iter_next(&it, &x);) ... */
typedef struct sim_set_iter {
    const sim_set *s;
    uint32_t i;
    uint64_t w;
} sim_set_iter;

static inline void sim_set_iter_init(sim_set_iter *it, const sim_set *s)
{
    it->s = s;
    it->i = s->wlo;
    it->w = (s->count && s->wlo < s->whi) ? *sim_set_word(s, s->wlo) : 0;
}

static inline int sim_set_iter_next(sim_set_iter *it, uint32_t *x)
{
    const sim_set *s = it->s;
    if (s->count == 0)
        return 0;
    while (it->w == 0) {
        if (++it->i >= s->whi)
            return 0;
        it->w = *sim_set_word(s, it->i);
    }
    *x = it->i * 64 + (uint32_t)__builtin_ctzll(it->w);
    it->w &= it->w - 1;
    return 1;
}

#endif
