/*
 * memory_caching_seed: starting the caching model from a real allocator's state (memory.h
 * seed, next_segment_at), for the exact check of a memory snapshot (memory_replay.c): the
 * segments at their real addresses, the live blocks at theirs, every gap a cached free block
 * (the allocator never keeps two free neighbours apart, so one gap is one block).
 */
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "memory_caching_impl.h"

/* A block of `size` bytes at ptr in the segment whose blocks end at *tail (NONE: a new
 * segment, whose head it becomes). */
static uint32_t seed_block(caching *c, uint64_t ptr, uint64_t size, int small, uint32_t *tail)
{
    uint32_t id = caching_new_block(c);
    if (id == NONE)
        return NONE;
    cblock *b = &c->b[id];
    b->ptr = ptr;
    b->size = size;
    b->small = (uint8_t)small;
    if (*tail == NONE) {
        if (caching_segs_add(c, id))
            return NONE;
    } else {
        b->prev = *tail;
        c->b[*tail].next = id;
    }
    *tail = id;
    return id;
}

int caching_seed(void *state, const sim_mem_seed_segment *seg, size_t nseg,
                        const sim_mem_seed_block *blk, size_t nblk, uint32_t *handles,
                        gms_error *err)
{
    caching *c = state;
    if (c->nsegs || c->st.allocated)
        return gms_error_set(err, GMS_ESTATE, "the caching model can only be seeded before use");
    size_t k = 0;
    for (size_t i = 0; i < nseg; i++) {
        const sim_mem_seed_segment *g = &seg[i];
        if (!g->size || (i && g->addr < seg[i - 1].addr + seg[i - 1].size))
            return gms_error_set(err, GMS_EINVAL, "seed: segment %zu at 0x%llx is empty, out of "
                                 "order or overlaps the one before", i,
                                 (unsigned long long)g->addr);
        if (c->st.reserved + g->size > c->limit)
            return gms_error_set(err, GMS_EINVAL, "seed: the segments pass the memory limit");
        uint32_t tail = NONE;
        uint64_t at = g->addr, end = g->addr + g->size;
        pool *p = g->small ? &c->small : &c->large;
        for (; k < nblk && blk[k].addr < end; k++) {
            const sim_mem_seed_block *x = &blk[k];
            if (x->addr < at || !x->size || x->addr + x->size > end)
                return gms_error_set(err, GMS_EINVAL, "seed: block %zu at 0x%llx (%llu bytes) "
                                     "is out of order, overlaps another or leaves its segment",
                                     k, (unsigned long long)x->addr,
                                     (unsigned long long)x->size);
            if (x->addr > at) {
                uint32_t f = seed_block(c, at, x->addr - at, g->small, &tail);
                if (f == NONE || caching_pool_insert(c, p, f))
                    return gms_error_set(err, GMS_ENOMEM, "seed: out of memory");
            }
            uint32_t id = seed_block(c, x->addr, x->size, g->small, &tail);
            if (id == NONE)
                return gms_error_set(err, GMS_ENOMEM, "seed: out of memory");
            c->b[id].allocated = 1;
            c->b[id].owner = x->owner;
            c->b[id].requested = x->requested;
            c->st.allocated += x->size;
            c->st.requested += x->requested;
            handles[k] = id;
            at = x->addr + x->size;
        }
        if (at < end) {
            uint32_t f = seed_block(c, at, end - at, g->small, &tail);
            if (f == NONE || caching_pool_insert(c, p, f))
                return gms_error_set(err, GMS_ENOMEM, "seed: out of memory");
        }
        c->st.reserved += g->size;
        c->st.segments++;
        uint64_t top = (end + KROUND_LARGE - 1) / KROUND_LARGE * KROUND_LARGE;
        if (top > c->next_va)
            c->next_va = top;
    }
    if (k < nblk)
        return gms_error_set(err, GMS_EINVAL, "seed: block %zu at 0x%llx lies in no segment", k,
                             (unsigned long long)blk[k].addr);
    /* release relies on room for every slot in `spare` and each pool, as reserve keeps it */
    if (caching_grow((void **)&c->spare, &c->capspare, c->nb + 2, sizeof *c->spare) ||
        caching_grow((void **)&c->small.ids, &c->small.cap, c->nb + 2, sizeof(uint32_t)) ||
        caching_grow((void **)&c->large.ids, &c->large.cap, c->nb + 2, sizeof(uint32_t)))
        return gms_error_set(err, GMS_ENOMEM, "seed: out of memory");
    return 0;
}

void caching_next_segment_at(void *state, uint64_t addr)
{
    ((caching *)state)->hint_va = addr;
}

