/*
 * coop: Coop's sliding window (Zhang et al., "Coop: Memory is not a Commodity", NeurIPS
 * 2023). When an allocation does not fit, walk the blocks of each segment in address order
 * and find the contiguous window (free blocks and evictable storages) that holds the request
 * at the least total cost; evict the storages in it. A block that cannot be evicted (locked,
 * pinned) ends any window that would span it. The cost of evicting a storage is its local
 * recompute cost per unit of staleness, compute / max(staleness, 1) (DTR-local's score times the
 * size: the window compares costs, not costs per byte); free blocks cost nothing. When no
 * window in any segment is large enough, the storage with the best DTR-local score goes, so
 * that whole segments can empty and be given back. Needs a memory model with addresses.
 *
 * One choice evicts one storage: the rest of the chosen window is kept and handed out by the
 * next calls while its members stay evictable and the same request is being placed.
 */
#include <math.h>
#include <stdlib.h>

#include "memory.h"
#include "policies.h"

typedef struct coop_state {
    sim_mem_block *blocks;
    size_t cap;
    uint32_t *window; /* the chosen window's storages still to evict */
    size_t n_window, cap_window;
    uint64_t for_request; /* the pending request the window was chosen for */
} coop_state;

static int coop_init(const struct sim_config *cfg, void **state, gms_error *err)
{
    (void)cfg;
    *state = calloc(1, sizeof(coop_state));
    return *state ? 0 : gms_error_set(err, GMS_ENOMEM, "coop: out of memory");
}

static void coop_free(void *state)
{
    coop_state *c = state;
    if (!c)
        return;
    free(c->blocks);
    free(c->window);
    free(c);
}

/* Finite, so that window sums can subtract it again: accessed now counts as staleness 1. */
static double evict_cost(const sim_view *v, uint32_t s)
{
    uint64_t stale = sim_view_staleness(v, s);
    return (double)sim_view_compute(v, s) / (double)(stale ? stale : 1);
}

static uint32_t best_local(const sim_view *v)
{
    uint32_t best = SIM_NONE;
    double best_score = INFINITY;
    for (uint32_t s = sim_view_pool_first(v); s != SIM_NONE; s = sim_view_pool_next(v, s)) {
        double c = sim_score_ratio((int64_t)sim_view_compute(v, s), sim_view_size(v, s),
                                   sim_view_staleness(v, s));
        if (best == SIM_NONE || c <= best_score) {
            best_score = c;
            best = s;
        }
    }
    return best;
}

/* The least-cost window of blocks[0..n) holding `need` bytes: [*lo, *hi). */
static int best_window(const sim_view *v, const sim_mem_block *b, size_t n, uint64_t need,
                       size_t *lo, size_t *hi)
{
    double best = INFINITY;
    int found = 0;
    size_t l = 0;
    uint64_t bytes = 0;
    double cost = 0;
    for (size_t r = 0; r < n; r++) {
        int movable = b[r].owner == SIM_MEM_NONE || sim_view_evictable(v, b[r].owner);
        if (!movable || (r > l && b[r].segment != b[r - 1].segment)) {
            /* a pinned or locked block, or a new segment: start again after it */
            l = movable ? r : r + 1;
            bytes = 0;
            cost = 0;
            if (!movable)
                continue;
        }
        bytes += b[r].size;
        if (b[r].owner != SIM_MEM_NONE)
            cost += evict_cost(v, b[r].owner);
        /* drop blocks on the left while the window still holds the request */
        while (l < r && bytes - b[l].size >= need) {
            bytes -= b[l].size;
            if (b[l].owner != SIM_MEM_NONE)
                cost -= evict_cost(v, b[l].owner);
            l++;
        }
        if (bytes >= need && cost < best) {
            best = cost;
            *lo = l;
            *hi = r + 1;
            found = 1;
        }
    }
    return found;
}

static uint32_t coop_choose(const sim_view *v, void *state)
{
    coop_state *c = state;
    uint64_t need = sim_view_pending_bytes(v);
    if (c->for_request == need)
        while (c->n_window > 0) {
            uint32_t s = c->window[--c->n_window];
            if (sim_view_evictable(v, s))
                return s;
        }
    c->n_window = 0;
    c->for_request = need;
    size_t n = sim_view_blocks(v, c->blocks, c->cap);
    if (n > c->cap) {
        sim_mem_block *p = realloc(c->blocks, n * sizeof *p);
        if (!p)
            return best_local(v);
        c->blocks = p;
        c->cap = n;
        n = sim_view_blocks(v, c->blocks, c->cap);
    }
    size_t lo, hi;
    if (need == 0 || !best_window(v, c->blocks, n, need, &lo, &hi))
        return best_local(v);
    if (hi - lo > c->cap_window) {
        uint32_t *p = realloc(c->window, (hi - lo) * sizeof *p);
        if (!p)
            return best_local(v);
        c->window = p;
        c->cap_window = hi - lo;
    }
    for (size_t i = hi; i-- > lo;) /* handed out from the lowest address up */
        if (c->blocks[i].owner != SIM_MEM_NONE)
            c->window[c->n_window++] = c->blocks[i].owner;
    while (c->n_window > 0) {
        uint32_t s = c->window[--c->n_window];
        if (sim_view_evictable(v, s))
            return s;
    }
    return best_local(v); /* a window of free blocks only: the allocator could not use it */
}

const sim_policy pol_coop = {
    .name = "coop",
    .description = "Coop: evict the cheapest contiguous window of blocks that fits (needs "
                   "--allocator)",
    .needs = SIM_NEEDS_ADDRESSES,
    .choose = coop_choose,
    .init = coop_init,
    .free = coop_free,
};
