/*
 * memory_expandable: PyTorch's caching allocator with expandable_segments:True
 * (CUDACachingAllocator.cpp: ExpandableSegment, try_allocate_expandable_block,
 * find_expandable_block, map_block, unmap_block; ../shared/spec/wave2-notes.md section 2).
 *
 * Each pool (small, large) has one segment whose virtual address space grows without bound
 * here (PyTorch reserves 1 1/8 x the device's memory); physical pages are mapped into it on
 * demand, 2 MiB pages for the small pool and 20 MiB pages for the large one, and reserved
 * bytes are the mapped pages. A request (rounded as round_size does) takes the best-fitting
 * free mapped block; when none holds it, it maps just enough pages for its rounded size at the
 * lowest-address unmapped range, joined to the free mapped block right before that range if
 * there is one. Splitting follows the 512-byte rule in both pools. When mapping would pass the
 * limit, every whole page inside a free mapped block is unmapped (release_cached_blocks) and
 * the request tries once more.
 *
 * Blocks of a pool tile its address space in order: allocated, free mapped, or unmapped (the
 * last block is always an unmapped one reaching to the end of the address space).
 */
#include <stdlib.h>
#include <string.h>

#include "memory.h"

#define KMIN_BLOCK 512u
#define KSMALL_SIZE (UINT64_C(1) << 20)
#define SMALL_PAGE (UINT64_C(2) << 20)
#define LARGE_PAGE (UINT64_C(20) << 20)
#define NONE SIM_MEM_NONE
#define VA_SMALL UINT64_C(0x7e0000000000)
#define VA_LARGE UINT64_C(0x7f0000000000)
#define VA_SPAN (UINT64_C(1) << 40) /* per pool: more than any budget */

typedef struct xblock {
    uint64_t ptr, size, requested;
    uint32_t prev, next, owner;
    uint8_t allocated, mapped, small, used;
} xblock;

typedef struct expandable {
    uint64_t limit;
    xblock *b;
    uint32_t nb, capb;
    uint32_t *spare;
    uint32_t nspare, capspare;
    uint32_t head[2]; /* first block of the small (0) and large (1) pool */
    sim_memory_stats st;
} expandable;

static uint32_t new_block(expandable *x)
{
    uint32_t id;
    if (x->nspare) {
        id = x->spare[--x->nspare];
    } else {
        if (x->nb == x->capb) {
            uint32_t c = x->capb ? 2 * x->capb : 64;
            xblock *p = realloc(x->b, (size_t)c * sizeof *p);
            uint32_t *q = realloc(x->spare, (size_t)c * sizeof *q);
            if (q)
                x->spare = q;
            if (!p || !q) {
                if (p)
                    x->b = p;
                return NONE;
            }
            x->b = p;
            x->capb = x->capspare = c;
        }
        id = x->nb++;
    }
    x->b[id] = (xblock){.prev = NONE, .next = NONE, .owner = NONE, .used = 1};
    return id;
}

static void drop_block(expandable *x, uint32_t id)
{
    x->b[id].used = 0;
    x->spare[x->nspare++] = id;
}

/* Splits `size` bytes off the front of block id; the rest becomes a new block after it
 * with the same state. Returns 0 or -1 (out of memory). */
static int split_front(expandable *x, uint32_t id, uint64_t size)
{
    uint32_t r = new_block(x);
    if (r == NONE)
        return -1;
    xblock *b = &x->b[id], *n = &x->b[r];
    *n = *b;
    n->ptr = b->ptr + size;
    n->size = b->size - size;
    n->prev = id;
    n->allocated = 0;
    n->owner = NONE;
    if (b->next != NONE)
        x->b[b->next].prev = r;
    b->next = r;
    b->size = size;
    return 0;
}

/* Absorbs the next block into id when both are free and equally mapped. */
static void merge_next(expandable *x, uint32_t id)
{
    uint32_t n = x->b[id].next;
    if (n == NONE || x->b[n].allocated || x->b[id].allocated || x->b[n].mapped != x->b[id].mapped)
        return;
    x->b[id].size += x->b[n].size;
    x->b[id].next = x->b[n].next;
    if (x->b[n].next != NONE)
        x->b[x->b[n].next].prev = id;
    drop_block(x, n);
}

static void merge_around(expandable *x, uint32_t id)
{
    merge_next(x, id);
    uint32_t p = x->b[id].prev;
    if (p != NONE)
        merge_next(x, p);
}

static uint64_t round_up(uint64_t v, uint64_t page)
{
    return (v + page - 1) / page * page;
}

/* Maps the first `bytes` (whole pages) of unmapped block u. */
static int map_front(expandable *x, uint32_t u, uint64_t bytes)
{
    if (x->b[u].size > bytes && split_front(x, u, bytes))
        return -1;
    x->b[u].mapped = 1;
    x->st.reserved += bytes;
    x->st.device_allocs++;
    return 0;
}

/* find_expandable_block + map: the lowest unmapped range that, with the free mapped block
 * right before it, holds size. 0 and *out, 1 when the limit stops it, -1 out of memory. */
static int map_for(expandable *x, int pool, uint64_t size, uint64_t page, uint32_t *out)
{
    for (uint32_t u = x->head[pool]; u != NONE; u = x->b[u].next) {
        if (x->b[u].mapped)
            continue;
        uint32_t p = x->b[u].prev;
        uint64_t have = p != NONE && !x->b[p].allocated ? x->b[p].size : 0;
        uint64_t need = round_up(size > have ? size - have : 0, page);
        if (need == 0 || x->b[u].size < need)
            continue;
        if (x->st.reserved + need > x->limit)
            return 1;
        if (map_front(x, u, need))
            return -1;
        uint32_t id = u;
        if (have) {
            merge_next(x, p);
            id = p;
        }
        *out = id;
        return 0;
    }
    return 1;
}

/* The first free mapped block of either pool with a whole page inside: its pool, or -1. */
static int find_unmappable(const expandable *x, uint32_t *out, uint64_t *lo, uint64_t *hi)
{
    for (int pool = 0; pool < 2; pool++) {
        uint64_t page = pool == 0 ? SMALL_PAGE : LARGE_PAGE;
        uint64_t base = pool == 0 ? VA_SMALL : VA_LARGE;
        for (uint32_t id = x->head[pool]; id != NONE; id = x->b[id].next) {
            const xblock *b = &x->b[id];
            if (b->allocated || !b->mapped)
                continue;
            uint64_t l = base + round_up(b->ptr - base, page);
            uint64_t h = base + (b->ptr + b->size - base) / page * page;
            if (h > l) {
                *out = id, *lo = l, *hi = h;
                return pool;
            }
        }
    }
    return -1;
}

/* release_cached_blocks: unmaps every whole page inside free mapped blocks. 1 when some
 * were, 0 when none, -1 out of memory. */
static int unmap_free_pages(expandable *x)
{
    int any = 0;
    uint32_t id;
    uint64_t lo, hi;
    while (find_unmappable(x, &id, &lo, &hi) >= 0) {
        if (lo > x->b[id].ptr) {
            if (split_front(x, id, lo - x->b[id].ptr))
                return -1;
            id = x->b[id].next;
        }
        if (x->b[id].ptr + x->b[id].size > hi && split_front(x, id, hi - lo))
            return -1;
        x->b[id].mapped = 0;
        x->st.reserved -= hi - lo;
        x->st.device_frees++;
        merge_around(x, id);
        any = 1;
    }
    return any;
}

static int exp_create(const sim_memory_options *o, uint64_t limit, const void *trace,
                      void **state, gms_error *err)
{
    (void)o, (void)trace;
    expandable *x = calloc(1, sizeof *x);
    if (!x)
        return gms_error_set(err, GMS_ENOMEM, "out of memory creating the allocator");
    x->limit = limit;
    for (int pool = 0; pool < 2; pool++) {
        uint32_t id = new_block(x);
        if (id == NONE) {
            free(x->b), free(x->spare), free(x);
            return gms_error_set(err, GMS_ENOMEM, "out of memory creating the allocator");
        }
        x->b[id].ptr = pool == 0 ? VA_SMALL : VA_LARGE;
        x->b[id].size = VA_SPAN;
        x->b[id].small = (uint8_t)(pool == 0);
        x->head[pool] = id;
    }
    *state = x;
    return 0;
}

static void exp_destroy(void *state)
{
    expandable *x = state;
    if (!x)
        return;
    free(x->b);
    free(x->spare);
    free(x);
}

static int exp_reserve(void *state, uint64_t orig, uint32_t owner, uint32_t *handle)
{
    expandable *x = state;
    *handle = NONE;
    if (orig == 0)
        return 0;
    uint64_t size = sim_caching_round_size(orig);
    int pool = size <= KSMALL_SIZE ? 0 : 1;
    uint64_t page = pool == 0 ? SMALL_PAGE : LARGE_PAGE;
    uint32_t best = NONE; /* best fit among free mapped blocks, lowest address on ties */
    for (uint32_t id = x->head[pool]; id != NONE; id = x->b[id].next) {
        const xblock *b = &x->b[id];
        if (!b->allocated && b->mapped && b->size >= size &&
            (best == NONE || b->size < x->b[best].size))
            best = id;
    }
    if (best == NONE) {
        int rc = map_for(x, pool, size, page, &best);
        if (rc == 1) {
            int freed = unmap_free_pages(x);
            if (freed < 0)
                return -1;
            rc = freed ? map_for(x, pool, size, page, &best) : 1;
        }
        if (rc)
            return rc;
    }
    if (x->b[best].size - size >= KMIN_BLOCK && split_front(x, best, size))
        return -1;
    xblock *b = &x->b[best];
    b->allocated = 1;
    b->owner = owner;
    b->requested = orig;
    x->st.allocated += b->size;
    x->st.requested += orig;
    *handle = best;
    return 0;
}

static void exp_release(void *state, uint32_t id)
{
    expandable *x = state;
    if (id == NONE)
        return;
    xblock *b = &x->b[id];
    x->st.allocated -= b->size;
    x->st.requested -= b->requested;
    b->allocated = 0;
    b->owner = NONE;
    merge_around(x, id);
}

static void exp_stats(const void *state, sim_memory_stats *out)
{
    const expandable *x = state;
    *out = x->st;
    out->segments = 2;
    uint64_t lf = 0;
    for (int pool = 0; pool < 2; pool++)
        for (uint32_t id = x->head[pool]; id != NONE; id = x->b[id].next)
            if (!x->b[id].allocated && x->b[id].mapped && x->b[id].size > lf)
                lf = x->b[id].size;
    out->largest_free = lf;
}

static sim_mem_block exp_block(const void *state, uint32_t id)
{
    const expandable *x = state;
    if (id == NONE)
        return (sim_mem_block){.owner = NONE};
    return (sim_mem_block){x->b[id].ptr, x->b[id].size, x->b[id].owner, x->b[id].small ? 0 : 1};
}

static uint64_t exp_free_around(const void *state, uint32_t id)
{
    const expandable *x = state;
    if (id == NONE)
        return 0;
    uint64_t n = 0;
    uint32_t p = x->b[id].prev, q = x->b[id].next;
    if (p != NONE && !x->b[p].allocated && x->b[p].mapped)
        n += x->b[p].size;
    if (q != NONE && !x->b[q].allocated && x->b[q].mapped)
        n += x->b[q].size;
    return n;
}

/* Mapped blocks only; an unmapped range ends a run of contiguous blocks (a new "segment"). */
static size_t exp_list(const void *state, sim_mem_block *out, size_t cap)
{
    const expandable *x = state;
    size_t n = 0;
    uint32_t run = 0;
    for (int pool = 0; pool < 2; pool++)
        for (uint32_t id = x->head[pool]; id != NONE; id = x->b[id].next) {
            if (!x->b[id].mapped) {
                run++;
                continue;
            }
            if (n < cap)
                out[n] = (sim_mem_block){x->b[id].ptr, x->b[id].size,
                                         x->b[id].allocated ? x->b[id].owner : NONE, run};
            n++;
        }
    return n;
}

const sim_memory_model sim_memory_caching_expandable = {
    .name = "caching",
    .description = "PyTorch's CUDA caching allocator with expandable_segments:True",
    .create = exp_create,
    .destroy = exp_destroy,
    .reserve = exp_reserve,
    .release = exp_release,
    .stats = exp_stats,
    .block = exp_block,
    .free_around = exp_free_around,
    .list_blocks = exp_list,
};
