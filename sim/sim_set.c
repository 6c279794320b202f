/* sim_set: the uint32 set behind DTR regions, a full or windowed bitset (see sim_set.h). */
#include "sim_set.h"

#include <stdlib.h>
#include <string.h>

/* Moves the window to [lo, lo + cap) (covering every word in use), new words zero. */
static int rewindow(sim_set *s, sim_set_pool *pool, uint32_t lo, uint32_t cap)
{
    uint64_t *n = sim_set_pool_get(pool, cap);
    if (!n)
        return -1;
    memset(n, 0, (size_t)cap * sizeof *n);
    if (s->bits && s->wlo < s->whi)
        memcpy(n + (s->wlo - lo), sim_set_word(s, s->wlo),
               (size_t)(s->whi - s->wlo) * sizeof *n);
    sim_set_pool_put(pool, s->bits, s->wcap);
    s->bits = n;
    s->base = lo;
    s->wcap = cap;
    return 0;
}

int sim_set_cover_slow(sim_set *s, sim_set_pool *pool, uint32_t lo, uint32_t hi)
{
    uint32_t words = sim_set_pool_words(pool);
    if (!sim_set_pool_windowed(pool)) {
        if (!s->bits) {
            s->bits = sim_set_pool_get(pool, words);
            if (!s->bits)
                return -1;
            memset(s->bits, 0, (size_t)words * sizeof *s->bits);
            s->base = 0;
            s->wcap = words;
        }
        return 0;
    }
    if (s->bits && lo >= s->base && hi <= s->base + s->wcap)
        return 0;
    /* the new window covers [lo, hi) and the words in use, with room to grow the same way
     * again (doubling: a set growing one word at a time is copied O(log) times) */
    uint32_t nlo = lo, nhi = hi;
    if (s->wlo < s->whi) {
        nlo = s->wlo < nlo ? s->wlo : nlo;
        nhi = s->whi > nhi ? s->whi : nhi;
    }
    uint64_t cap = (uint64_t)(nhi - nlo);
    if (cap < 2 * (uint64_t)s->wcap)
        cap = 2 * (uint64_t)s->wcap;
    if (cap < 4)
        cap = 4;
    if (cap > words)
        cap = words;
    uint32_t start = nlo;
    if (s->bits && lo < s->base) /* growing down: the room goes below */
        start = nhi > cap ? nhi - (uint32_t)cap : 0;
    if (start + cap > words)
        start = words - (uint32_t)cap;
    return rewindow(s, pool, start, (uint32_t)cap);
}

int sim_set_take_words(sim_set *s, sim_set_pool *pool, uint64_t *src, uint32_t lo, uint32_t hi,
                       uint32_t count)
{
    sim_set_clear(s);
    if (count == 0 || lo >= hi) {
        if (lo < hi)
            memset(src + lo, 0, (size_t)(hi - lo) * sizeof *src);
        return 0;
    }
    /* a window much larger than needed is given back, not kept at its high-water size */
    int windowed = sim_set_pool_windowed(pool);
    if (windowed && s->bits && (uint64_t)s->wcap > 8 * (uint64_t)(hi - lo) + 64) {
        sim_set_pool_put(pool, s->bits, s->wcap);
        s->bits = NULL;
        s->wcap = 0;
    }
    if (windowed && (!s->bits || lo < s->base || hi > s->base + s->wcap)) {
        sim_set_pool_put(pool, s->bits, s->wcap);
        s->bits = sim_set_pool_get(pool, hi - lo);
        s->base = lo;
        s->wcap = s->bits ? hi - lo : 0;
    } else if (!windowed && sim_set_cover(s, pool, lo, hi) != 0) {
        s->bits = NULL;
    }
    if (!s->bits) {
        memset(src + lo, 0, (size_t)(hi - lo) * sizeof *src);
        return -1;
    }
    uint64_t *dst = sim_set_word(s, lo);
    for (uint32_t w = lo; w < hi; w++) { /* usually a few words: no library calls */
        dst[w - lo] = src[w];
        src[w] = 0;
    }
    s->count = count;
    s->wlo = lo;
    s->whi = hi;
    return 0;
}

void sim_set_release(sim_set *s, sim_set_pool *pool)
{
    if (!sim_set_pool_windowed(pool)) {
        sim_set_clear(s);
        return;
    }
    sim_set_pool_put(pool, s->bits, s->wcap);
    s->bits = NULL;
    s->base = s->wcap = 0;
    s->count = 0;
    s->wlo = s->whi = 0;
}

void sim_set_free(sim_set *s, sim_set_pool *pool)
{
    sim_set_pool_put(pool, s->bits, s->wcap);
    s->bits = NULL;
    s->base = s->wcap = 0;
    s->count = 0;
    s->wlo = s->whi = 0;
}
