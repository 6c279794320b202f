/*
 * remat_owed: the recomputation a swap-or-recompute policy's drops still owe, priced as their
 * recomputations will find their chains, and whether a chain fits (docs/swap.md, capuchin's
 * "Recomputation budget" and "Chains that fit"; shared by capuchin and hybrid, issue 30).
 */
#ifndef POL_REMAT_OWED_H
#define POL_REMAT_OWED_H

#include <stdint.h>

#include "policy.h"

/* The policy's drops that may still be recomputed and their next uses. Zeroed = empty. */
typedef struct remat_owed {
    uint32_t *s, *at;
    uint32_t n, cap;
} remat_owed;

void remat_owed_free(remat_owed *o);

/* Forgets the drops recomputed since, swapped or dead, then prices the rest and s together
 * (sim_view_remat_cost_at: each at its next use, each storage once) and leaves s staged for
 * remat_owed_commit. UINT64_MAX when out of memory. */
uint64_t remat_owed_with(const sim_view *v, remat_owed *o, uint32_t s);

/* s, staged by the last remat_owed_with, was dropped: it is owed from now on. */
void remat_owed_commit(remat_owed *o);

/* 1 when the recomputation of s at its next use can be expected to fit: s alone (no ancestor
 * gone by then), or its chain's ancestors (their bytes) beside `fixed`, the bytes that cannot
 * be evicted now (resident but not in the pool: locked and pinned). */
int remat_chain_fits(const sim_view *v, uint32_t s, uint64_t fixed);

#endif
