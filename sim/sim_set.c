/* sim_set: the uint32 set behind DTR regions, bitset or hash set (see sim_set.h). */
#include "sim_set.h"

#include <stdlib.h>
#include <string.h>

int sim_set_has_slow(const sim_set *s, uint32_t x)
{
    uint32_t mask = s->cap - 1;
    for (uint32_t i = (x * 2654435761u) & mask;; i = (i + 1) & mask) {
        uint32_t v = s->slots[i];
        if (v == x)
            return 1;
        if (v == SIM_SET_EMPTY)
            return 0;
    }
}

/* Bitset mode: add/remove/clear. */
static int bits_add(sim_set *s, uint32_t x)
{
    if (!s->bits) {
        s->bits = calloc(s->words, sizeof *s->bits);
        if (!s->bits)
            return -1;
    }
    uint64_t m = UINT64_C(1) << (x & 63);
    uint64_t *w = &s->bits[x >> 6];
    if (*w & m)
        return 0;
    *w |= m;
    s->count++;
    sim_set_touch(s, x >> 6, (x >> 6) + 1);
    return 1;
}

static uint32_t slot_of(uint32_t x, uint32_t mask)
{
    return (x * 2654435761u) & mask;
}

/* Rehashes into a table of new_cap slots (a power of two larger than count). */
static int resize(sim_set *s, uint32_t new_cap)
{
    uint32_t *n = malloc((size_t)new_cap * sizeof *n);
    if (!n)
        return -1;
    memset(n, 0xff, (size_t)new_cap * sizeof *n);
    uint32_t mask = new_cap - 1;
    for (uint32_t i = 0; i < s->cap; i++) {
        uint32_t v = s->slots[i];
        if (v == SIM_SET_EMPTY)
            continue;
        uint32_t j = slot_of(v, mask);
        while (n[j] != SIM_SET_EMPTY)
            j = (j + 1) & mask;
        n[j] = v;
    }
    free(s->slots);
    s->slots = n;
    s->cap = new_cap;
    return 0;
}

int sim_set_reserve(sim_set *s, uint32_t n)
{
    uint64_t need = ((uint64_t)s->count + n) * 2; /* the load factor sim_set_add keeps */
    uint32_t cap = s->cap ? s->cap : 8;
    while (cap < need) {
        if (cap > UINT32_MAX / 2)
            return -1;
        cap *= 2;
    }
    return cap == s->cap ? 0 : resize(s, cap);
}

int sim_set_add(sim_set *s, uint32_t x)
{
    if (s->words)
        return bits_add(s, x);
    /* keep the load factor <= 1/2 */
    if ((s->count + 1) * 2 > s->cap && resize(s, s->cap ? s->cap * 2 : 8) != 0)
        return -1;
    uint32_t mask = s->cap - 1;
    for (uint32_t i = slot_of(x, mask);; i = (i + 1) & mask) {
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

/* Backward-shift deletion: after emptying slot i, move later entries of the same probe run
 * back so that every lookup still finds them without tombstones. */
void sim_set_remove(sim_set *s, uint32_t x)
{
    if (s->count == 0)
        return;
    if (s->words) {
        uint64_t m = UINT64_C(1) << (x & 63);
        if (s->bits[x >> 6] & m) {
            s->bits[x >> 6] &= ~m;
            s->count--;
        }
        return;
    }
    uint32_t mask = s->cap - 1;
    uint32_t i = slot_of(x, mask);
    for (;; i = (i + 1) & mask) {
        uint32_t v = s->slots[i];
        if (v == SIM_SET_EMPTY)
            return;
        if (v == x)
            break;
    }
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        uint32_t v = s->slots[j];
        if (v == SIM_SET_EMPTY)
            break;
        uint32_t home = slot_of(v, mask);
        /* v may move to i when its home is not cyclically within (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            s->slots[i] = v;
            i = j;
        }
    }
    s->slots[i] = SIM_SET_EMPTY;
    s->count--;
}

void sim_set_clear(sim_set *s)
{
    if (s->words) {
        if (s->wlo < s->whi)
            memset(s->bits + s->wlo, 0, (size_t)(s->whi - s->wlo) * sizeof *s->bits);
        s->count = 0;
        s->wlo = s->whi = 0;
        return;
    }
    if (s->cap == 0)
        return;
    if (s->cap > 64 && s->count * 16 < s->cap) {
        /* mostly empty: give the memory back instead of sweeping it again and again */
        free(s->slots);
        s->slots = NULL;
        s->cap = 0;
        s->count = 0;
        return;
    }
    if (s->count)
        memset(s->slots, 0xff, (size_t)s->cap * sizeof *s->slots);
    s->count = 0;
}

int sim_set_assign(sim_set *s, const uint32_t *ids, uint32_t n)
{
    if (n == 0) { /* most frontiers and many interiors: no table at all */
        sim_set_release(s);
        return 0;
    }
    uint32_t cap = 8;
    while (cap < 2 * n) /* load factor <= 1/2, as sim_set_add keeps it */
        cap *= 2;
    if (s->cap < cap || s->cap > 4 * cap) {
        free(s->slots);
        s->slots = malloc((size_t)cap * sizeof *s->slots);
        s->cap = s->slots ? cap : 0;
        if (!s->slots) {
            s->count = 0;
            return -1;
        }
    }
    memset(s->slots, 0xff, (size_t)s->cap * sizeof *s->slots);
    uint32_t mask = s->cap - 1;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = slot_of(ids[k], mask);
        while (s->slots[i] != SIM_SET_EMPTY)
            i = (i + 1) & mask;
        s->slots[i] = ids[k];
    }
    s->count = n;
    return 0;
}

void sim_set_release(sim_set *s)
{
    if (s->words) {
        sim_set_clear(s);
        return;
    }
    free(s->slots);
    s->slots = NULL;
    s->cap = 0;
    s->count = 0;
}

void sim_set_free(sim_set *s)
{
    free(s->slots);
    free(s->bits);
    s->bits = NULL;
    s->slots = NULL;
    s->cap = 0;
    s->count = 0;
}
