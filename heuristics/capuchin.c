/*
 * capuchin: a Capuchin-style swap/recompute policy (Peng et al., ASPLOS 2020; docs/swap.md).
 * Capuchin's exact hybrid rule was not verified from the paper, so this is our rule in its
 * spirit, not a reproduction:
 *   - the access profile: Capuchin measures the first iteration; here the trace itself is the
 *     profile (sim_view_next_use: the next op that reads a storage, and the ops' costs), so
 *     even the first iteration is planned as if it had been measured;
 *   - victims: the swap candidate with the least swap overhead per byte it frees (the copy
 *     out, which the op needing the room waits for, with the queue ahead of it, plus what of
 *     the prefetched copy back its idle time until its next use cannot hide; ties: idle
 *     longest) against the best MSPS candidate ((compute + evicted-ancestor compute) / size,
 *     lowest) and its recompute cost: the cheaper one is taken, swapped or dropped
 *     (recomputed on demand). Storages no model op reads again are never swap candidates.
 *     Ranking swaps per byte is MSPS's measure ("memory saving per second") applied to the
 *     copies: by the absolute overhead, the smallest storages came first, each freeing a few
 *     bytes for a full copy latency;
 *   - the recomputation budget (ours, issue 30): a drop is taken only while the recomputation
 *     measured so far plus what the drops still owe (this one included) stays within one
 *     iteration's compute (the profile's total). What they owe is priced at each choice as
 *     their recomputations will find their chains (sim_view_remat_cost_at): the ancestors
 *     evicted now and those released before the use, each counted once. MSPS does not see
 *     when a storage is needed again, so where ops are cheap next to their tensors it drops
 *     the same activations over and over, each drop cheap, the sum without bound (the demo's
 *     MLP: 1.2x of baseline compute recomputed at budget 0.9, where dtr needs 0.03x); and a
 *     price taken at the drop misses the ancestors released after it (resnet-small at 0.4).
 *     Past the budget memory is freed by swapping: the swap candidate, or when none has a
 *     model use ahead, the least recently used storage, as swap-lru does (copied back on
 *     demand);
 *   - chains that fit (ours, issue 30): a drop whose recomputation is a chain is taken only
 *     when the chain fits beside the bytes that cannot be evicted now; else it is swapped.
 *     A chain that does not fit is recomputed piece by piece, its links evicting each other,
 *     or not at all (oom where swapping alone runs);
 *   - prefetch (the "in-trigger"): after each op, every storage it swapped out is copied back
 *     once the compute left before its next use, minus the next op's, would no longer cover
 *     its copy back (with the host-to-device queue ahead of it), so the copy overlaps the last
 *     ops before the use. A prefetch that does not fit under the budget is tried again after
 *     the next op; a late one shows up as stall.
 */
#include <stdlib.h>
#include <string.h>

#include "policies.h"
#include "cap_swap.h"
#include "remat_owed.h"

typedef struct cap_state {
    uint64_t *start;   /* per op: compute of the ops before it (baseline time) */
    uint32_t n_ops;
    /* storages it swapped out that may still be on the host, by their next use (which does
     * not change while they are away), so the in-trigger looks at the first few only */
    uint32_t *host, *host_next;
    uint32_t n_host, cap_host;
    uint64_t max_copy; /* the longest copy of a storage it swapped (bounds the trigger scan) */
    uint64_t *copy;    /* per storage: its copy time, 0 = not known yet (a storage's size and
                        * the link never change within a run) */
    unsigned action;   /* what the last choice decided */
    /* The recomputation budget (one iteration's compute, the profile's total): the
     * recomputation measured so far (on_remat) and the drops it still owes. */
    uint64_t remat_ns;
    /* Its drops that may still be recomputed (evicted, a model use ahead) and those uses:
     * re-priced at each choice with their chains as they will be then. */
    remat_owed owed;
    cap_swap_scratch scratch; /* the bounded pass's */
} cap_state;

static int cap_init(const struct sim_config *cfg, void **state, gms_error *err)
{
    (void)cfg;
    cap_state *c = calloc(1, sizeof *c);
    if (!c)
        return gms_error_set(err, GMS_ENOMEM, "capuchin: out of memory");
    *state = c;
    return 0;
}

static void cap_free(void *state)
{
    cap_state *c = state;
    if (c) {
        free(c->start);
        free(c->copy);
        free(c->host);
        free(c->host_next);
        remat_owed_free(&c->owed);
        cap_swap_scratch_free(&c->scratch);
        free(c);
    }
}

/* The profile: prefix sums of the ops' costs, built on first use (init has no trace). */
static int profile(const sim_view *v, cap_state *c)
{
    if (c->start)
        return 0;
    uint32_t n = sim_view_op_count(v);
    if (!(c->copy = calloc((size_t)sim_view_storage_count(v) + 1, sizeof *c->copy)) ||
        !(c->start = malloc(((size_t)n + 1) * sizeof *c->start)))
        return -1;
    c->start[0] = 0;
    for (uint32_t i = 0; i < n; i++)
        c->start[i + 1] = c->start[i] + sim_view_op_cost(v, i);
    c->n_ops = n;
    return 0;
}

static uint64_t queue(uint64_t free_at, uint64_t now)
{
    return free_at > now ? free_at - now : 0;
}

/* The recomputation that dropping s would bring the run to: what was recomputed so far, plus
 * what the drops still owe with s (UINT64_MAX when unknown). */
static uint64_t spent_with(const sim_view *v, cap_state *c, uint32_t s)
{
    uint64_t owed = remat_owed_with(v, &c->owed, s);
    return owed == UINT64_MAX ? owed : c->remat_ns + owed;
}

/* The swap candidate (cap_swap.h) and MSPS's (the least (compute + evicted-ancestor compute)
 * / size, the last of equals) with the pool's bytes: from the engine's caches and the bounded
 * pass when it keeps them (SIM_NEEDS_MSPS_SCORES), else in one pass over the pool, read
 * through the columns, scoring each member both ways. Same answers either way. */
static uint32_t cap_choose(const sim_view *v, void *state)
{
    cap_state *c = state;
    uint32_t first = sim_view_pool_first(v);
    if (profile(v, c)) {
        c->action = SIM_ACTION_DROP;
        return first;
    }
    uint64_t clock = sim_view_clock(v);
    cap_swap_ctx x = {.start = c->start,
                      .n_ops = c->n_ops,
                      .now = sim_view_current_op(v),
                      .d2h_wait = queue(sim_view_d2h_free_at(v), clock),
                      .copy = c->copy};
    cap_swap_best sw = {.s = SIM_NONE};
    uint32_t msps = sim_view_msps_last_min(v);
    uint64_t msps_cost = 0, pool_bytes = 0;
    sim_view_columns col;
    sim_view_get_columns(v, &col);
    /* (out of memory for its scratch, before it scored anything: the plain pass) */
    int done = msps == SIM_NONE ? 0 : cap_swap_bounded(v, &x, &col, &c->scratch, &sw);
    if (done > 0) {
        pool_bytes = sim_view_pool_bytes(v);
        msps_cost = sim_view_compute(v, msps) + sim_view_region_rev_cost(v, msps);
    } else {
        double msps_best = 0;
        msps = SIM_NONE;
        for (uint32_t k = 0; k < col.pool_len; k++) {
            uint32_t s = col.pool[k];
            if (s == SIM_NONE)
                continue; /* a hole */
            uint64_t size = col.size[s];
            pool_bytes += size;
            cap_swap_consider(v, &x, k, s, size, &sw);
            uint64_t rc = col.compute[s] + sim_view_region_rev_cost(v, s);
            double m = sim_score_ratio((int64_t)rc, size, 1);
            if (msps == SIM_NONE || m <= msps_best) {
                msps = s;
                msps_best = m;
                msps_cost = rc;
            }
        }
    }
    /* a drop is weighed against the swap by MSPS's price, and taken only when its chain fits
     * and the recomputation stays within the budget */
    int drop = msps != SIM_NONE && (sw.s == SIM_NONE || msps_cost <= sw.over) &&
               remat_chain_fits(v, msps, sim_view_memory(v) - pool_bytes) &&
               spent_with(v, c, msps) <= c->start[c->n_ops];
    if (!drop && sw.s != SIM_NONE) {
        c->action = SIM_ACTION_SWAP;
        return sw.s;
    }
    if (drop) {
        remat_owed_commit(&c->owed);
        c->action = SIM_ACTION_DROP;
        return msps;
    }
    /* no drop within the budget, no swap with a model use ahead: swap the least recently
     * used storage, as swapping alone would */
    c->action = SIM_ACTION_SWAP;
    return first;
}

static void cap_on_remat(const sim_view *v, uint32_t op, void *state)
{
    cap_state *c = state;
    c->remat_ns += sim_view_op_cost(v, op);
}

static unsigned cap_action(const sim_view *v, uint32_t s, void *state)
{
    cap_state *c = state;
    if (c->action != SIM_ACTION_SWAP)
        return SIM_ACTION_DROP;
    if (c->n_host == c->cap_host) {
        uint32_t cap = c->cap_host ? 2 * c->cap_host : 64;
        uint32_t *h = realloc(c->host, (size_t)cap * sizeof *h);
        if (h)
            c->host = h;
        uint32_t *n = h ? realloc(c->host_next, (size_t)cap * sizeof *n) : NULL;
        if (!n)
            return SIM_ACTION_DROP; /* cannot track it for prefetching: recompute instead */
        c->host_next = n;
        c->cap_host = cap;
    }
    uint32_t next = sim_view_next_use(v, s);
    if (next >= c->n_ops)
        return SIM_ACTION_SWAP; /* no model use ahead: back on demand, no in-trigger */
    uint32_t lo = 0, hi = c->n_host; /* insert after every entry with next <= this one */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->host_next[mid] <= next)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(c->host + lo + 1, c->host + lo, (size_t)(c->n_host - lo) * sizeof *c->host);
    memmove(c->host_next + lo + 1, c->host_next + lo,
            (size_t)(c->n_host - lo) * sizeof *c->host_next);
    c->host[lo] = s;
    c->host_next[lo] = next;
    c->n_host++;
    uint64_t copy = sim_view_copy_ns(v, sim_view_size(v, s));
    if (copy > c->max_copy)
        c->max_copy = copy;
    return SIM_ACTION_SWAP;
}

/* The in-trigger: after op o, copy back what would otherwise arrive late. Entries are in
 * next-use order and the compute left before a use grows with it, so the scan stops at the
 * first entry that even the longest copy could not need yet. */
static void cap_on_access(const sim_view *v, uint32_t o, void *state)
{
    cap_state *c = state;
    if (c->n_host == 0 || profile(v, c))
        return;
    uint64_t clock = sim_view_clock(v), h2d_wait = queue(sim_view_h2d_free_at(v), clock);
    uint64_t next_cost = o + 1 < c->n_ops ? sim_view_op_cost(v, o + 1) : 0;
    uint32_t keep = 0, i = 0;
    for (; i < c->n_host; i++) {
        uint32_t s = c->host[i], next = c->host_next[i];
        uint64_t left = cap_idle(c->start, o, next);
        if (left > h2d_wait + c->max_copy + next_cost)
            break; /* neither this one nor any later one is due */
        if (!sim_view_on_host(v, s) || next <= o)
            continue; /* back already (on demand or recomputed), or released */
        uint64_t need = h2d_wait + sim_view_copy_ns(v, sim_view_size(v, s));
        if (left <= need + next_cost && sim_view_prefetch(v, s)) {
            h2d_wait = queue(sim_view_h2d_free_at(v), clock);
            continue;
        }
        c->host[keep] = s;
        c->host_next[keep++] = next;
    }
    if (keep != i) { /* close the gap left by the entries dropped */
        memmove(c->host + keep, c->host + i, (size_t)(c->n_host - i) * sizeof *c->host);
        memmove(c->host_next + keep, c->host_next + i,
                (size_t)(c->n_host - i) * sizeof *c->host_next);
    }
    c->n_host -= i - keep;
}

const sim_policy pol_capuchin = {
    .name = "capuchin",
    .description = "Capuchin-style: swap what can come back in time (prefetched), else "
                   "recompute by MSPS",
    /* it reads reverse region costs only (MSPS's price) */
    .needs = SIM_NEEDS_REGIONS | SIM_NEEDS_SWAP | SIM_NEEDS_MSPS_SCORES |
             SIM_NEEDS_REV_REGIONS_ONLY,
    .choose = cap_choose,
    .init = cap_init,
    .free = cap_free,
    .action = cap_action,
    .on_access = cap_on_access,
    .on_remat = cap_on_remat,
};
