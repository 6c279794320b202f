/*
 * sim_set: a set of uint32 ids (storage indices) for the interior and frontier sets of DTR
 * regions (spec section 6). Two representations behind one interface:
 *   - a bitset over a known universe (sim_set_use_bits), when the trace is small enough
 *     (every real model log: a few thousand storages): add/has/remove are single bit
 *     operations, union and difference are word loops, clearing is a short memset;
 *   - otherwise an open-addressing hash set (linear probing, backward-shift deletion, no
 *     tombstones; clearing keeps the memory).
 * Sets are emptied and refilled constantly during a run, so both keep their memory.
 */
#ifndef SIM_SET_H
#define SIM_SET_H

#include <stdint.h>

#define SIM_SET_EMPTY UINT32_MAX

typedef struct sim_set {
    uint32_t *slots; /* hash mode: cap entries, SIM_SET_EMPTY where free */
    uint64_t *bits;  /* bitset mode: words entries (allocated on first add) */
    uint32_t cap;    /* hash mode: 0 or a power of two */
    uint32_t words;  /* 0 = hash mode, else bitset mode over ids < 64 * words */
    uint32_t count;
    uint32_t wlo, whi; /* bitset mode: every set bit lies in words [wlo, whi) (empty: equal) */
} sim_set;

/* Bitset mode: records that words [lo, hi) may now hold set bits (for code that writes
 * s->bits directly). */
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

/* Switches an empty, never-used set to bitset mode for ids < 64 * words. */
static inline void sim_set_use_bits(sim_set *s, uint32_t words)
{
    s->words = words;
}

int sim_set_has_slow(const sim_set *s, uint32_t x);

/* 1 when x is in s. */
static inline int sim_set_has(const sim_set *s, uint32_t x)
{
    if (s->count == 0)
        return 0;
    if (s->words)
        return (int)((s->bits[x >> 6] >> (x & 63)) & 1);
    return sim_set_has_slow(s, x);
}

/* Adds x. Returns 1 when added, 0 when already present, -1 when out of memory. */
int sim_set_add(sim_set *s, uint32_t x);
/* Hash mode: makes room for n more ids without growing again. 0, or -1 when out of memory. */
int sim_set_reserve(sim_set *s, uint32_t n);

/* Hash mode, after sim_set_reserve made room: adds x; 1 when added, 0 when already there. */
static inline int sim_set_add_reserved(sim_set *s, uint32_t x)
{
    uint32_t mask = s->cap - 1;
    for (uint32_t i = (x * 2654435761u) & mask;; i = (i + 1) & mask) {
        uint32_t v = s->slots[i];
        if (v == x)
            return 0;
        if (v == SIM_SET_EMPTY) {
            s->slots[i] = x;
            s->count++;
            return 1;
        }
    }
}

/* Removes x if present. */
void sim_set_remove(sim_set *s, uint32_t x);
/* Empties s, keeping its memory (a hash set much larger than its use shrinks). */
void sim_set_clear(sim_set *s);
/* Makes s (hash mode) the set of ids[0..n), which are distinct, sizing its table once. 0, or
 * -1 when out of memory (s is then empty). */
int sim_set_assign(sim_set *s, const uint32_t *ids, uint32_t n);
/* Empties s for a while: a hash set gives its memory back, a bitset keeps it (as clear). */
void sim_set_release(sim_set *s);
void sim_set_free(sim_set *s);

/* Iteration (any order; s must not change meanwhile):
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
    it->i = s->words ? s->wlo : 0;
    it->w = (s->words && s->count && s->wlo < s->whi) ? s->bits[s->wlo] : 0;
}

static inline int sim_set_iter_next(sim_set_iter *it, uint32_t *x)
{
    const sim_set *s = it->s;
    if (s->count == 0)
        return 0;
    if (s->words) {
        while (it->w == 0) {
            if (++it->i >= s->whi)
                return 0;
            it->w = s->bits[it->i];
        }
        *x = it->i * 64 + (uint32_t)__builtin_ctzll(it->w);
        it->w &= it->w - 1;
        return 1;
    }
    while (it->i < s->cap) {
        uint32_t v = s->slots[it->i++];
        if (v != SIM_SET_EMPTY) {
            *x = v;
            return 1;
        }
    }
    return 0;
}

#endif
