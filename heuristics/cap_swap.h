/*
 * cap_swap: capuchin's swap candidate (heuristics/capuchin.c): the pool member with the least
 * swap overhead per byte it frees, then the longest idle time until its next use, then the
 * first in pool order; members no model op reads again are none. The plain pass scores every
 * member; the bounded one visits the pool's blocks of 64 slots least bound first and stops at
 * a bound above the best found, with the same answer (issue 26: on the GPT-2 ET capuchin
 * scored all ~1,250 members at each of its ~5,800 choices).
 */
#ifndef POL_CAP_SWAP_H
#define POL_CAP_SWAP_H

#include <stdint.h>

#include "policy.h"

/* What a choice's scoring reads: the profile (prefix sums of the ops' costs over n_ops ops),
 * the op running now (SIM_NONE before the first), the wait for the device-to-host queue, and
 * the per-storage cache of copy times (0 = not known yet). */
typedef struct cap_swap_ctx {
    const uint64_t *start;
    uint32_t n_ops, now;
    uint64_t d2h_wait;
    uint64_t *copy;
} cap_swap_ctx;

/* The best so far: storage s (SIM_NONE: none yet) in pool slot k, its overhead per byte w,
 * its overhead and idle time. */
typedef struct cap_swap_best {
    uint32_t s, k;
    double w;
    uint64_t over, idle;
} cap_swap_best;

/* Per run scratch of the bounded pass (zeroed = empty): the blocks' order, and per storage
 * its next model use as found when the current op was `from` (valid while no op between
 * then and now read it: the cursor's answer then is its answer now). */
typedef struct cap_swap_scratch {
    void *blocks;
    uint32_t cap;
    uint32_t *next, *from; /* from: UINT32_MAX = not known */
} cap_swap_scratch;

/* Compute from the end of op `now` (SIM_NONE: from the start) to the start of op `next`. */
static inline uint64_t cap_idle(const uint64_t *start, uint32_t now, uint32_t next)
{
    uint64_t from = now == SIM_NONE ? 0 : start[now + 1];
    return start[next] > from ? start[next] - from : 0;
}

/* Member s (size bytes) in pool slot k against the best so far. */
void cap_swap_consider(const sim_view *v, const cap_swap_ctx *x, uint32_t k, uint32_t s,
                       uint64_t size, cap_swap_best *b);
/* Sets up the scratch for a run over n_storages storages: 0, or -1 when out of memory. */
int cap_swap_scratch_init(cap_swap_scratch *sc, uint32_t n_storages);
/* The bounded pass over the pool: 1 when done (the answer in *b, which comes in empty), 0 when
 * the engine keeps no block sizes (then do the plain pass), -1 when out of memory. */
int cap_swap_bounded(const sim_view *v, const cap_swap_ctx *x, const sim_view_columns *col,
                     cap_swap_scratch *sc, cap_swap_best *b);
void cap_swap_scratch_free(cap_swap_scratch *sc);
/* The members the bounded passes of this thread scored in full (its tests read it). */
extern _Thread_local uint64_t cap_swap_scored;

#endif
