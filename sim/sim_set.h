/*
 * sim_set: a small open-addressing hash set of uint32 ids (storage indices), used for the
 * interior and frontier sets of DTR regions (spec section 6). Linear probing with
 * backward-shift deletion, so there are no tombstones and clearing keeps the capacity for the
 * next use (sets are emptied and refilled constantly during a run).
 */
#ifndef SIM_SET_H
#define SIM_SET_H

#include <stdint.h>

#define SIM_SET_EMPTY UINT32_MAX

typedef struct sim_set {
    uint32_t *slots; /* cap entries, SIM_SET_EMPTY where free; NULL while cap == 0 */
    uint32_t cap;    /* 0 or a power of two */
    uint32_t count;
} sim_set;

/* 1 when x is in s. */
static inline int sim_set_has(const sim_set *s, uint32_t x)
{
    if (s->count == 0)
        return 0;
    uint32_t mask = s->cap - 1;
    for (uint32_t i = (x * 2654435761u) & mask;; i = (i + 1) & mask) {
        uint32_t v = s->slots[i];
        if (v == x)
            return 1;
        if (v == SIM_SET_EMPTY)
            return 0;
    }
}

/* Adds x. Returns 1 when added, 0 when already present, -1 when out of memory. */
int sim_set_add(sim_set *s, uint32_t x);
/* Removes x if present. */
void sim_set_remove(sim_set *s, uint32_t x);
/* Empties s, keeping its memory (shrinks it when it is much larger than it was used for). */
void sim_set_clear(sim_set *s);
void sim_set_free(sim_set *s);

/* Iteration: for (uint32_t i = 0; i < s->cap; i++) if (s->slots[i] != SIM_SET_EMPTY) ... */

#endif
