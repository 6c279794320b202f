/*
 * cap_swap: see cap_swap.h.
 *
 * The bound. A member's overhead is at least its copy out, over >= d2h_wait + copy, and the
 * link's copy time (sim_link_copy_ns: the latency plus ceil(bytes / bandwidth), both capped)
 * is non-decreasing in the size and below latency + size / bandwidth + 1 ns, so for every
 * candidate (a member with a model use ahead) of a block whose candidates' sizes are at most S
 * (sim_view_pool_block_max_size):
 *     copy_i / size_i >= latency / size_i + 1 / bandwidth >= (copy(S) - 1) / S
 * (a capped copy only lowers the right side), hence over_i / size_i >= (d2h_wait + copy(S) -
 * 1) / S. Its double is shrunk by 2^-40 relative against its roundings and those of the exact
 * score (sim_score_ratio, correctly rounded) and of the ceil's quotient, a few units in the
 * last place. A block whose bound is strictly above the best so far holds no member that
 * wins, nor ties (ties go to the longer idle time, then the earlier slot, which the pass
 * compares): so visiting blocks least bound first, and stopping at the first bound above the
 * best, finds the plain pass's answer. Past 2^61 ns (a queue or copy of 70 years) the
 * overheads could wrap in the score's int64: no bound then.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cap_swap.h"

_Thread_local uint64_t cap_swap_scored;

typedef struct {
    double bound;
    uint32_t b;
} blk;

static uint64_t copy_ns(const sim_view *v, uint64_t *copy, uint32_t s, uint64_t size)
{
    if (!copy[s])
        copy[s] = sim_view_copy_ns(v, size);
    return copy[s];
}

/* Scores member s (slot k, next model use `next`) against the best so far. */
static inline void cap_swap_score(const sim_view *v, const cap_swap_ctx *x, uint32_t k,
                                  uint32_t s, uint64_t size, uint32_t next, cap_swap_best *b)
{
    /* never read again by a model op: no use swapping it (a recompute of a child may still
     * need it, which MSPS prices) */
    if (next >= x->n_ops)
        return;
    /* the op waiting for the room waits for the copy out; the copy back is prefetched, so
     * only what the idle time after the copy out cannot cover of it is overhead */
    uint64_t copy = copy_ns(v, x->copy, s, size), out = x->d2h_wait + copy;
    uint64_t free_time = cap_idle(x->start, x->now, next);
    uint64_t left = free_time > out ? free_time - out : 0;
    uint64_t over = out + (copy > left ? copy - left : 0);
    double w = sim_score_ratio((int64_t)over, size, 1); /* overhead per byte freed */
    if (b->s == SIM_NONE || w < b->w ||
        (w == b->w && (free_time > b->idle || (free_time == b->idle && k < b->k)))) {
        b->s = s;
        b->k = k;
        b->w = w;
        b->over = over;
        b->idle = free_time;
    }
}

void cap_swap_consider(const sim_view *v, const cap_swap_ctx *x, uint32_t k, uint32_t s,
                       uint64_t size, cap_swap_best *b)
{
    uint32_t next = sim_view_next_use(v, s);
    cap_swap_score(v, x, k, s, size, next, b);
}

/* sim_view_next_use(v, s), remembered: the first model use after the op `from` that is not
 * after now either, when now is before it, is still the first after now. (The cursors'
 * "now" is op 0 before the first op, as here.) */
static inline uint32_t next_use(const sim_view *v, const cap_swap_ctx *x, cap_swap_scratch *sc,
                                uint32_t s)
{
    uint32_t now = x->now == SIM_NONE ? 0 : x->now;
    if (sc->from[s] <= now && (sc->next[s] == SIM_NONE || sc->next[s] > now))
        return sc->next[s];
    sc->from[s] = now;
    return sc->next[s] = sim_view_next_use(v, s);
}

/* The member's own bound (as the block's, with its own copy): when (d2h_wait + copy) / size
 * is above a finite best by more than the roundings, its score is too; no next use needed. */
static inline void consider_bounded(const sim_view *v, const cap_swap_ctx *x,
                                    cap_swap_scratch *sc, uint32_t k, uint32_t s, uint64_t size,
                                    cap_swap_best *b)
{
    uint32_t now = x->now == SIM_NONE ? 0 : x->now;
    if (sc->from[s] <= now && sc->next[s] == SIM_NONE)
        return; /* no model use ahead, for good: not a candidate (cheaply, as most are) */
    if (b->s != SIM_NONE && size > 0 && b->w < INFINITY) {
        uint64_t out = x->d2h_wait + copy_ns(v, x->copy, s, size);
        if (out < (UINT64_C(1) << 62) && (double)out * (1 - 0x1p-40) > b->w * (double)size)
            return;
    }
    cap_swap_scored++;
    cap_swap_score(v, x, k, s, size, next_use(v, x, sc, s), b);
}

/* A min-heap of the blocks by bound (the earlier block first among equal bounds, any order
 * would do: the pass compares slots on ties), popped only as far as the bounds allow. */
static inline int blk_before(blk x, blk y)
{
    return x.bound < y.bound || (x.bound == y.bound && x.b < y.b);
}

static void blk_sift(blk *h, uint32_t n, uint32_t i)
{
    blk e = h[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && blk_before(h[c + 1], h[c]))
            c++;
        if (!blk_before(h[c], e))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

int cap_swap_bounded(const sim_view *v, const cap_swap_ctx *x, const sim_view_columns *col,
                     cap_swap_scratch *sc, cap_swap_best *b)
{
    uint32_t nb = (col->pool_len + 63) / 64;
    if (nb == 0 || sim_view_pool_block_max_size(v, 0) == UINT64_MAX)
        return 0;
    if (cap_swap_scratch_init(sc, sim_view_storage_count(v)))
        return -1;
    if (nb > sc->cap) {
        blk *n = realloc(sc->blocks, (size_t)nb * sizeof *n);
        if (!n)
            return -1;
        sc->blocks = n;
        sc->cap = nb;
    }
    blk *bl = sc->blocks;
    const uint64_t lim = UINT64_C(1) << 61;
    uint32_t n = 0;
    for (uint32_t i = 0; i < nb; i++) {
        uint64_t S = sim_view_pool_block_max_size(v, i);
        double bound = -INFINITY; /* no bound: visited first */
        if (S == 0) { /* no candidate, or only empty ones (their score is +inf) */
            bound = INFINITY;
        } else {
            uint64_t cs = sim_view_copy_ns(v, S);
            if (x->d2h_wait < lim && cs < lim)
                bound = (double)(x->d2h_wait + (cs ? cs - 1 : 0)) / (double)S * (1 - 0x1p-40);
        }
        bl[n++] = (blk){.bound = bound, .b = i};
    }
    for (uint32_t i = n / 2; i-- > 0;)
        blk_sift(bl, n, i);
    while (n > 0) {
        blk top = bl[0];
        if (b->s != SIM_NONE && top.bound > b->w)
            break; /* neither this block nor any left holds a winner */
        bl[0] = bl[--n];
        blk_sift(bl, n, 0);
        uint32_t lo = top.b * 64, hi = lo + 64 < col->pool_len ? lo + 64 : col->pool_len;
        for (uint32_t k = lo; k < hi; k++) {
            uint32_t s = col->pool[k];
            if (s != SIM_NONE)
                consider_bounded(v, x, sc, k, s, col->size[s], b);
        }
    }
    return 1;
}

int cap_swap_scratch_init(cap_swap_scratch *sc, uint32_t n_storages)
{
    if (sc->next)
        return 0;
    sc->next = malloc(((size_t)n_storages + 1) * sizeof *sc->next);
    sc->from = malloc(((size_t)n_storages + 1) * sizeof *sc->from);
    if (!sc->next || !sc->from)
        return -1;
    memset(sc->from, 0xff, ((size_t)n_storages + 1) * sizeof *sc->from);
    return 0;
}

void cap_swap_scratch_free(cap_swap_scratch *sc)
{
    free(sc->next);
    free(sc->from);
    free(sc->blocks);
    *sc = (cap_swap_scratch){0};
}
