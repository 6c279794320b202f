/*
 * memory_caching: PyTorch's CUDACachingAllocator (c10/cuda/CUDACachingAllocator.cpp,
 * DeviceCachingAllocator) as a memory model for one device and one stream.
 *
 * Rules, each from the function named (docs/memory.md gives the sources):
 *   round_size            requests under 512 B become 512 B, others round up to 512 B;
 *   get_pool              rounded size <= 1 MiB -> small pool, else large pool;
 *   get_allocation_size   a new segment is 2 MiB (small), 20 MiB (< 10 MiB), else the size
 *                         rounded up to 2 MiB;
 *   get_free_block        best fit: the smallest free block of the pool that holds the size,
 *                         lowest address on ties; with max_split_size M set, a request under M
 *                         never takes a block of M or more, and a request of M or more takes a
 *                         block only if it wastes less than kLargeBuffer (20 MiB);
 *   alloc_block           a new segment, refused when reserved + segment > the limit
 *                         (set_per_process_memory_fraction);
 *   release_available_cached_blocks (only with M set) then release_cached_blocks (every
 *                         cached segment that is wholly free is given back) and one retry;
 *   should_split          small pool: a remainder of at least 512 B is split off; large pool:
 *                         only when the request is under M and the remainder exceeds 1 MiB;
 *   free_block            a freed block merges with free address neighbours of its segment.
 * Segments are never given back on free, only by the release_* steps.
 *
 * Free blocks of each pool live in an array sorted by (size, address), PyTorch's
 * BlockComparatorSize; blocks of a segment are linked in address order. The state is in
 * memory_caching_impl.h; memory_caching_seed.c starts it from a recorded state.
 */
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "memory_caching_impl.h"

uint64_t sim_caching_round_size(uint64_t size)
{
    if (size < KMIN_BLOCK)
        return KMIN_BLOCK;
    return (size + KMIN_BLOCK - 1) / KMIN_BLOCK * KMIN_BLOCK;
}

/* roundup_power2_divisions(size): the interval of log2(size), counted from 1 MiB, clamped
 * to the 16 intervals (CUDAAllocatorConfig / AllocatorConfig). */
static uint32_t divisions_for(const sim_memory_options *o, uint64_t size)
{
    int log2 = 63 - __builtin_clzll(size);
    int i = log2 > 20 ? log2 - 20 : 0;
    if (i > SIM_ROUNDUP_INTERVALS - 1)
        i = SIM_ROUNDUP_INTERVALS - 1;
    return o->roundup_divisions[i];
}

/* roundup_power2_next_division: the next of `divisions` equal steps between two powers of
 * two (1200 with 4 divisions: 1024, 1280, ... -> 1280). */
static uint64_t next_division(uint64_t size, uint64_t divisions)
{
    if (size <= 4 || divisions <= 1 || (size & (size - 1)) == 0)
        return size;
    uint64_t floor2 = UINT64_C(1) << (63 - __builtin_clzll(size));
    uint64_t step = floor2 >> (63 - __builtin_clzll(divisions));
    if (step == 0)
        return floor2 << 1;
    uint64_t down = size & ~(step - 1);
    return down == size ? size : down + step;
}

uint64_t sim_caching_round_size_opt(const sim_memory_options *o, uint64_t size)
{
    if (size < KMIN_BLOCK)
        return KMIN_BLOCK;
    uint32_t d = o ? divisions_for(o, size) : 0;
    if (d > 1 && size > (uint64_t)KMIN_BLOCK * d)
        return next_division(size, d);
    return (size + KMIN_BLOCK - 1) / KMIN_BLOCK * KMIN_BLOCK;
}

uint64_t sim_caching_allocation_size(uint64_t size)
{
    if (size <= KSMALL_SIZE)
        return KSMALL_BUFFER;
    if (size < KMIN_LARGE_ALLOC)
        return KLARGE_BUFFER;
    return (size + KROUND_LARGE - 1) / KROUND_LARGE * KROUND_LARGE;
}

int caching_grow(void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    uint32_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*arr, (size_t)c * sz);
    if (!p)
        return -1;
    *arr = p;
    *cap = c;
    return 0;
}

uint32_t caching_new_block(caching *c)
{
    uint32_t id;
    if (c->nspare)
        id = c->spare[--c->nspare];
    else {
        if (caching_grow((void **)&c->b, &c->capb, c->nb + 1, sizeof *c->b))
            return NONE;
        id = c->nb++;
    }
    c->b[id] = (cblock){.prev = NONE, .next = NONE, .owner = NONE, .used = 1};
    return id;
}

static void drop_block(caching *c, uint32_t id)
{
    c->b[id].used = 0;
    c->spare[c->nspare++] = id; /* spare has room for every slot (see reserve) */
}

/* ---- pools ------------------------------------------------------------------------------ */

static int less(const cblock *x, uint64_t size, uint64_t ptr)
{
    return x->size < size || (x->size == size && x->ptr < ptr);
}

/* First index whose block is not less than (size, ptr). */
static uint32_t lower_bound(const caching *c, const pool *p, uint64_t size, uint64_t ptr)
{
    uint32_t lo = 0, hi = p->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (less(&c->b[p->ids[mid]], size, ptr))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int caching_pool_insert(caching *c, pool *p, uint32_t id)
{
    if (caching_grow((void **)&p->ids, &p->cap, p->n + 1, sizeof *p->ids))
        return -1;
    uint32_t i = lower_bound(c, p, c->b[id].size, c->b[id].ptr);
    memmove(p->ids + i + 1, p->ids + i, (size_t)(p->n - i) * sizeof *p->ids);
    p->ids[i] = id;
    p->n++;
    c->b[id].gc_base = p->calls; /* insert_into_blocks */
    return 0;
}

static void pool_erase(caching *c, pool *p, uint32_t id)
{
    uint32_t i = lower_bound(c, p, c->b[id].size, c->b[id].ptr);
    if (i < p->n && p->ids[i] == id) {
        memmove(p->ids + i, p->ids + i + 1, (size_t)(p->n - i - 1) * sizeof *p->ids);
        p->n--;
    }
}

static pool *pool_of(caching *c, const cblock *b)
{
    return b->small ? &c->small : &c->large;
}

/* ---- segments --------------------------------------------------------------------------- */

/* Keeps segs in address order (a segment placed at a hint may lie below earlier ones). */
int caching_segs_add(caching *c, uint32_t head)
{
    if (caching_grow((void **)&c->segs, &c->capsegs, c->nsegs + 1, sizeof *c->segs))
        return -1;
    uint32_t i = c->nsegs;
    while (i > 0 && c->b[c->segs[i - 1]].ptr > c->b[head].ptr) {
        c->segs[i] = c->segs[i - 1];
        i--;
    }
    c->segs[i] = head;
    c->nsegs++;
    return 0;
}

/* 1 when [ptr, ptr + size) overlaps a segment held now. */
static int segs_overlap(const caching *c, uint64_t ptr, uint64_t size)
{
    for (uint32_t i = 0; i < c->nsegs; i++) {
        uint64_t a = c->b[c->segs[i]].ptr, e = a;
        for (uint32_t id = c->segs[i]; id != NONE; id = c->b[id].next)
            e = c->b[id].ptr + c->b[id].size;
        if (a < ptr + size && ptr < e)
            return 1;
    }
    return 0;
}

static void segs_remove(caching *c, uint32_t head)
{
    for (uint32_t i = 0; i < c->nsegs; i++)
        if (c->segs[i] == head) {
            memmove(c->segs + i, c->segs + i + 1, (size_t)(c->nsegs - i - 1) * sizeof *c->segs);
            c->nsegs--;
            return;
        }
}

/* alloc_block: a new segment of `size` bytes, as one free block (not yet in a pool). */
static int alloc_segment(caching *c, uint64_t size, int small, uint32_t *out)
{
    if (c->st.reserved + size > c->limit || c->st.reserved + size < c->st.reserved)
        return 1;
    uint32_t id = caching_new_block(c);
    if (id == NONE)
        return -1;
    uint64_t ptr = c->next_va;
    if (c->hint_va && !segs_overlap(c, c->hint_va, size))
        ptr = c->hint_va; /* where the real cudaMalloc put it (exact replays) */
    c->hint_va = 0;
    cblock *b = &c->b[id];
    b->ptr = ptr;
    b->size = size;
    b->small = (uint8_t)small;
    uint64_t top = (ptr + size + KROUND_LARGE - 1) / KROUND_LARGE * KROUND_LARGE;
    if (top > c->next_va)
        c->next_va = top;
    if (caching_segs_add(c, id))
        return -1;
    c->st.reserved += size;
    c->st.segments++;
    c->st.device_allocs++;
    *out = id;
    return 0;
}

/* release_block: gives a wholly free segment back to the device. */
static void release_segment(caching *c, uint32_t id)
{
    cblock *b = &c->b[id];
    pool_erase(c, pool_of(c, b), id);
    c->st.reserved -= b->size;
    c->st.segments--;
    c->st.device_frees++;
    segs_remove(c, id);
    drop_block(c, id);
}

/* release_cached_blocks: every cached block that is a whole segment, both pools. */
static int release_cached(caching *c)
{
    int any = 0;
    pool *ps[2] = {&c->large, &c->small};
    for (int k = 0; k < 2; k++)
        for (uint32_t i = ps[k]->n; i-- > 0;) {
            uint32_t id = ps[k]->ids[i];
            if (c->b[id].prev == NONE && c->b[id].next == NONE) {
                release_segment(c, id);
                any = 1;
            }
        }
    return any;
}

/* release_available_cached_blocks (only with max_split_size set): the smallest oversize
 * cached segment that covers the request, else oversize segments from the largest down
 * until their sizes cover it. */
static int release_available(caching *c, pool *p, uint64_t size)
{
    uint64_t m = c->opt.max_split_size;
    if (m == UINT64_MAX)
        return 0;
    uint64_t key = size < m ? m : size;
    uint32_t i = lower_bound(c, p, key, 0);
    while (i < p->n) { /* a split block cannot be given back: look further */
        uint32_t id = p->ids[i];
        if (c->b[id].prev == NONE && c->b[id].next == NONE) {
            release_segment(c, id);
            return 1;
        }
        i++;
    }
    uint64_t freed = 0;
    for (uint32_t j = p->n; j-- > 0 && freed < key;) {
        uint32_t id = p->ids[j];
        if (c->b[id].size < m)
            break;
        if (c->b[id].prev == NONE && c->b[id].next == NONE) {
            freed += c->b[id].size;
            release_segment(c, id);
        }
    }
    return freed >= key;
}

static int gc_on(const caching *c)
{
    return c->opt.gc_threshold > 0 && c->limit != UINT64_MAX; /* set_fraction && threshold */
}

/* garbage_collect_cached_blocks: when reserved bytes pass threshold x the limit, give back
 * whole cached large-pool segments that waited at least the average number of searches
 * (gc_count), oldest first by that rule, until the excess is reclaimed or none is left. */
static void garbage_collect(caching *c)
{
    uint64_t threshold = (uint64_t)(c->opt.gc_threshold * (double)c->limit);
    if (c->st.reserved <= threshold)
        return;
    uint64_t target = c->st.reserved - threshold, reclaimed = 0, total_age = 0;
    int64_t count = 0;
    pool *p = &c->large;
    for (uint32_t i = 0; i < p->n; i++) {
        const cblock *b = &c->b[p->ids[i]];
        if (b->prev == NONE && b->next == NONE) {
            total_age += p->calls - b->gc_base;
            count++;
        }
    }
    int freed = 1;
    while (reclaimed < target && freed && count > 0) {
        double age_threshold = (double)total_age / (double)count;
        freed = 0;
        for (uint32_t i = 0; i < p->n;) {
            uint32_t id = p->ids[i];
            const cblock *b = &c->b[id];
            uint64_t age = p->calls - b->gc_base;
            if (b->prev == NONE && b->next == NONE && (double)age >= age_threshold) {
                freed = 1;
                reclaimed += b->size;
                total_age -= age;
                count--;
                release_segment(c, id); /* removes ids[i]: the next one moves here */
            } else {
                i++;
            }
        }
    }
}

/* get_free_block: best fit in the pool, under the max_split_size rules. */
static uint32_t get_free_block(caching *c, pool *p, uint64_t size)
{
    if (gc_on(c))
        p->calls++; /* tracks block reuse only when garbage collection is on */
    uint32_t i = lower_bound(c, p, size, 0);
    if (i == p->n)
        return NONE;
    uint32_t id = p->ids[i];
    uint64_t m = c->opt.max_split_size, bs = c->b[id].size;
    if (m != UINT64_MAX) {
        if (size < m && bs >= m)
            return NONE;
        if (size >= m && bs >= size + KLARGE_BUFFER)
            return NONE;
    }
    pool_erase(c, p, id);
    return id;
}

static int should_split(const caching *c, const cblock *b, uint64_t size)
{
    uint64_t rem = b->size - size;
    if (b->small)
        return rem >= KMIN_BLOCK;
    return size < c->opt.max_split_size && rem > KSMALL_SIZE;
}

/* ---- the model's interface -------------------------------------------------------------- */

static int caching_create(const sim_memory_options *o, uint64_t limit, const void *trace,
                          void **state, gms_error *err)
{
    (void)trace;
    caching *c = calloc(1, sizeof *c);
    if (!c)
        return gms_error_set(err, GMS_ENOMEM, "out of memory creating the caching allocator");
    c->opt = *o;
    c->limit = limit;
    c->next_va = VA_BASE;
    *state = c;
    return 0;
}

static void caching_destroy(void *state)
{
    caching *c = state;
    if (!c)
        return;
    free(c->b);
    free(c->spare);
    free(c->small.ids);
    free(c->large.ids);
    free(c->segs);
    free(c);
}

/* DeviceCachingAllocator::malloc for one request. */
static int caching_reserve(void *state, uint64_t orig, uint32_t owner, uint32_t *handle)
{
    caching *c = state;
    *handle = NONE;
    if (orig == 0)
        return 0; /* size-0 requests never reach the allocator */
    /* every slot may come back to `spare` once: keep room for all of them, plus a split */
    if (caching_grow((void **)&c->spare, &c->capspare, c->nb + 2, sizeof *c->spare) ||
        caching_grow((void **)&c->small.ids, &c->small.cap, c->nb + 2, sizeof(uint32_t)) ||
        caching_grow((void **)&c->large.ids, &c->large.cap, c->nb + 2, sizeof(uint32_t)))
        return -1;
    uint64_t size = sim_caching_round_size_opt(&c->opt, orig);
    int small = size <= KSMALL_SIZE;
    pool *p = small ? &c->small : &c->large;
    uint32_t id = get_free_block(c, p, size);
    if (id == NONE) {
        if (gc_on(c))
            garbage_collect(c);
        uint64_t seg = sim_caching_allocation_size(size);
        int rc = alloc_segment(c, seg, small, &id);
        if (rc == 1 && release_available(c, p, size))
            rc = alloc_segment(c, seg, small, &id);
        if (rc == 1 && release_cached(c))
            rc = alloc_segment(c, seg, small, &id);
        if (rc)
            return rc;
    }
    if (should_split(c, &c->b[id], size)) {
        uint32_t rem = caching_new_block(c); /* may move c->b */
        if (rem == NONE)
            return -1;
        cblock *b = &c->b[id], *r = &c->b[rem];
        r->ptr = b->ptr + size;
        r->size = b->size - size;
        r->small = b->small;
        r->prev = id;
        r->next = b->next;
        if (b->next != NONE)
            c->b[b->next].prev = rem;
        b->next = rem;
        b->size = size;
        if (caching_pool_insert(c, p, rem))
            return -1;
    }
    cblock *b = &c->b[id];
    b->allocated = 1;
    b->owner = owner;
    b->requested = orig;
    c->st.allocated += b->size;
    c->st.requested += orig;
    *handle = id;
    return 0;
}

/* try_merge_blocks: absorbs a free neighbour into b. */
static void merge(caching *c, pool *p, uint32_t id, uint32_t nb)
{
    if (nb == NONE || c->b[nb].allocated)
        return;
    pool_erase(c, p, nb);
    cblock *b = &c->b[id], *n = &c->b[nb];
    if (n->ptr < b->ptr) { /* prev */
        b->ptr = n->ptr;
        b->prev = n->prev;
        if (b->prev != NONE)
            c->b[b->prev].next = id;
        else {
            for (uint32_t i = 0; i < c->nsegs; i++)
                if (c->segs[i] == nb)
                    c->segs[i] = id; /* b now heads the segment */
        }
    } else {
        b->next = n->next;
        if (b->next != NONE)
            c->b[b->next].prev = id;
    }
    b->size += n->size;
    drop_block(c, nb);
}

static void caching_release(void *state, uint32_t id)
{
    caching *c = state;
    if (id == NONE)
        return;
    cblock *b = &c->b[id];
    c->st.allocated -= b->size;
    c->st.requested -= b->requested;
    b->allocated = 0;
    b->owner = NONE;
    pool *p = pool_of(c, b);
    merge(c, p, id, c->b[id].prev);
    merge(c, p, id, c->b[id].next);
    caching_pool_insert(c, p, id); /* cannot fail: reserve keeps each pool's room above the number
                            * of blocks there are */
}

static void caching_stats(const void *state, sim_memory_stats *out)
{
    const caching *c = state;
    *out = c->st;
    uint64_t lf = 0;
    if (c->large.n)
        lf = c->b[c->large.ids[c->large.n - 1]].size;
    if (c->small.n && c->b[c->small.ids[c->small.n - 1]].size > lf)
        lf = c->b[c->small.ids[c->small.n - 1]].size;
    out->largest_free = lf;
}

static sim_mem_block caching_block(const void *state, uint32_t id)
{
    const caching *c = state;
    if (id == NONE)
        return (sim_mem_block){.owner = NONE};
    const cblock *b = &c->b[id];
    return (sim_mem_block){.addr = b->ptr, .size = b->size, .owner = b->owner};
}

static uint64_t caching_free_around(const void *state, uint32_t id)
{
    const caching *c = state;
    if (id == NONE)
        return 0;
    uint64_t n = 0;
    uint32_t p = c->b[id].prev, q = c->b[id].next;
    if (p != NONE && !c->b[p].allocated)
        n += c->b[p].size;
    if (q != NONE && !c->b[q].allocated)
        n += c->b[q].size;
    return n;
}

static size_t caching_list(const void *state, sim_mem_block *out, size_t cap)
{
    const caching *c = state;
    size_t n = 0;
    for (uint32_t s = 0; s < c->nsegs; s++)
        for (uint32_t id = c->segs[s]; id != NONE; id = c->b[id].next) {
            if (n < cap)
                out[n] = (sim_mem_block){.addr = c->b[id].ptr,
                                         .size = c->b[id].size,
                                         .owner = c->b[id].allocated ? c->b[id].owner : NONE,
                                         .segment = s};
            n++;
        }
    return n;
}

static void caching_release_cached(void *state)
{
    release_cached(state);
}

const sim_memory_model sim_memory_caching = {
    .name = "caching",
    .description = "PyTorch's CUDA caching allocator: rounding, small/large pools, best fit, "
                   "splitting, cached segments",
    .create = caching_create,
    .destroy = caching_destroy,
    .reserve = caching_reserve,
    .release = caching_release,
    .stats = caching_stats,
    .block = caching_block,
    .free_around = caching_free_around,
    .list_blocks = caching_list,
    .seed = caching_seed,
    .next_segment_at = caching_next_segment_at,
    .release_cached = caching_release_cached,
};
