/*
 * memory_replay: a snapshot's allocator events through a memory model (memory_replay.h).
 *
 * Exact mode compares placements by segment and offset: seeded segments keep their real
 * addresses, and each segment the model reserves during the replay is paired with the
 * segment the real allocator reserved for the same allocation (segment_alloc comes right
 * before the alloc that needed it), so a placement agrees when the model's block sits at the
 * real block's offset in the paired segment.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr_map.h"
#include "memory_replay.h"

/* Model segment -> real segment, sorted by model address. */
typedef struct seg_pair {
    uint64_t model, real, size;
} seg_pair;

typedef struct replay {
    const sim_memory_model *m;
    void *state;
    addr_map live; /* real block address -> model handle */
    seg_pair *pairs;
    size_t npairs, cappairs;
    sim_replay_result *r;
    size_t pending_allocs, pending_frees;
    uint64_t pending_addr, pending_size;
    uint64_t real_reserved, real_requested;
    uint64_t model_allocs, model_frees; /* device_allocs / device_frees seen so far */
} replay;

static void diverge(replay *p, size_t i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Keeps the first event where model and reality part. */
static void diverge(replay *p, size_t i, const char *fmt, ...)
{
    if (p->r->first_divergence >= 0)
        return;
    p->r->first_divergence = (long)i;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->r->divergence, sizeof p->r->divergence, fmt, ap);
    va_end(ap);
}

static int add_pair(replay *p, uint64_t model, uint64_t real, uint64_t size)
{
    if (p->npairs == p->cappairs) {
        size_t c = p->cappairs ? 2 * p->cappairs : 64;
        seg_pair *q = realloc(p->pairs, c * sizeof *q);
        if (!q)
            return -1;
        p->pairs = q;
        p->cappairs = c;
    }
    size_t i = p->npairs;
    while (i > 0 && p->pairs[i - 1].model > model) { /* keep the order (new ones are on top) */
        p->pairs[i] = p->pairs[i - 1];
        i--;
    }
    p->pairs[i] = (seg_pair){model, real, size};
    p->npairs++;
    return 0;
}

/* The real address a model address stands for (the model's own when unpaired). */
static uint64_t to_real(const replay *p, uint64_t a)
{
    size_t lo = 0, hi = p->npairs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->pairs[mid].model + p->pairs[mid].size <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < p->npairs && p->pairs[lo].model <= a)
        return p->pairs[lo].real + (a - p->pairs[lo].model);
    return a;
}

/* Drops the pairs of segments the model gave back (rare: only when it ran out of room). */
static int prune_pairs(replay *p)
{
    size_t n = p->m->list_blocks(p->state, NULL, 0);
    sim_mem_block *b = malloc((n ? n : 1) * sizeof *b);
    if (!b)
        return -1;
    n = p->m->list_blocks(p->state, b, n);
    size_t k = 0, j = 0;
    for (size_t i = 0; i < p->npairs; i++) {
        while (j < n && b[j].addr < p->pairs[i].model)
            j++;
        if (j < n && b[j].addr == p->pairs[i].model)
            p->pairs[k++] = p->pairs[i];
    }
    p->npairs = k;
    free(b);
    return 0;
}

static void stats(const replay *p, sim_memory_stats *st)
{
    p->m->stats(p->state, st);
}

static void track_peak(replay *p)
{
    sim_memory_stats st;
    stats(p, &st);
    sim_replay_result *r = p->r;
    if (st.reserved > r->peak_reserved_model) {
        r->peak_reserved_model = st.reserved;
        r->largest_free_at_peak = st.largest_free;
    }
    if (st.allocated > r->peak_allocated_model)
        r->peak_allocated_model = st.allocated;
    if (p->real_reserved > r->peak_reserved_real)
        r->peak_reserved_real = p->real_reserved;
}

/* One allocation: 0, 1 when it does not fit (cold mode with a limit), -1 on an error. */
static int do_alloc(replay *p, size_t i, const snap_event *e, int exact, gms_error *err)
{
    sim_memory_stats before, after;
    stats(p, &before);
    if (exact && p->pending_allocs && p->m->next_segment_at)
        p->m->next_segment_at(p->state, p->pending_addr);
    uint32_t h;
    int rc = p->m->reserve(p->state, e->size, (uint32_t)i, &h);
    if (rc < 0)
        return gms_error_set(err, GMS_ENOMEM, "out of memory replaying event %zu", i), -1;
    if (rc == 1)
        return 1;
    stats(p, &after);
    sim_replay_result *r = p->r;
    r->allocs++;
    p->real_requested += e->size;
    if (after.device_allocs > before.device_allocs && before.reserved > 0) {
        r->frag += (double)(before.reserved - before.allocated) / (double)before.reserved;
        r->frag_allocs++;
    }
    if (h == SIM_MEM_NONE) /* a 0-byte request holds nothing */
        return 0;
    sim_mem_block b = p->m->block(p->state, h);
    if (exact) {
        size_t new_model = (size_t)(after.device_allocs - p->model_allocs);
        size_t gone_model = (size_t)(after.device_frees - p->model_frees);
        p->model_allocs = after.device_allocs;
        p->model_frees = after.device_frees;
        r->segs_model += new_model;
        if (gone_model && prune_pairs(p))
            return gms_error_set(err, GMS_ENOMEM, "out of memory"), -1;
        if (gone_model != p->pending_frees)
            diverge(p, i, "the model gave back %zu cached segment(s) for this allocation, the "
                    "real allocator %zu", gone_model, p->pending_frees);
        if (new_model != p->pending_allocs)
            diverge(p, i, "the model reserved %zu new segment(s) for this allocation of %llu "
                    "bytes, the real allocator %zu", new_model, (unsigned long long)e->size,
                    p->pending_allocs);
        else if (new_model == 1) {
            if (add_pair(p, b.addr, p->pending_addr, p->pending_size))
                return gms_error_set(err, GMS_ENOMEM, "out of memory"), -1;
            if (after.reserved - before.reserved != p->pending_size && !gone_model)
                diverge(p, i, "the model's new segment has %llu bytes, the real one %llu",
                        (unsigned long long)(after.reserved - before.reserved),
                        (unsigned long long)p->pending_size);
        }
        uint64_t at = to_real(p, b.addr);
        if (at == e->addr)
            r->placed_same++;
        else
            diverge(p, i, "the model placed this allocation of %llu bytes at 0x%llx, the real "
                    "allocator at 0x%llx", (unsigned long long)e->size, (unsigned long long)at,
                    (unsigned long long)e->addr);
        p->pending_allocs = p->pending_frees = 0;
    }
    if (addr_map_put(&p->live, e->addr, h))
        return gms_error_set(err, GMS_ENOMEM, "out of memory"), -1;
    return 0;
}

static void do_free(replay *p, size_t i, const snap_event *e)
{
    uint64_t h;
    if (!addr_map_take(&p->live, e->addr, &h)) {
        diverge(p, i, "a free of 0x%llx, which the model does not hold",
                (unsigned long long)e->addr);
        return;
    }
    p->m->release(p->state, (uint32_t)h);
    p->r->frees++;
    p->real_requested -= e->size <= p->real_requested ? e->size : p->real_requested;
}

/* A recorded OOM: the request failed after the allocator gave its wholly free cached
 * segments back (release_cached_blocks); the model does the same, and the exact check
 * compares how many segments each gave back. */
static int do_oom(replay *p, size_t i, int exact)
{
    if (!p->m->release_cached)
        return 0;
    p->m->release_cached(p->state);
    sim_memory_stats after;
    stats(p, &after);
    size_t gone_model = (size_t)(after.device_frees - p->model_frees);
    p->model_frees = after.device_frees;
    if (gone_model && prune_pairs(p))
        return -1;
    if (exact && gone_model != p->pending_frees)
        diverge(p, i, "on this OOM the model gave back %zu cached segment(s), the real "
                "allocator %zu", gone_model, p->pending_frees);
    p->pending_frees = 0;
    return 0;
}

/* After an alloc or free: reserved and requested bytes against the real ones. */
static void check_totals(replay *p, size_t i)
{
    sim_memory_stats st;
    stats(p, &st);
    sim_replay_result *r = p->r;
    r->reserved_checks++;
    if (st.reserved == p->real_reserved)
        r->reserved_equal++;
    else if (!p->pending_allocs && !p->pending_frees)
        diverge(p, i, "reserved bytes: model %llu, real %llu", (unsigned long long)st.reserved,
                (unsigned long long)p->real_reserved);
    if (st.requested == p->real_requested)
        r->requested_equal++;
    else
        diverge(p, i, "requested bytes: model %llu, real %llu", (unsigned long long)st.requested,
                (unsigned long long)p->real_requested);
}

/* The final segments against the model. */
static void check_end(replay *p, const snapshot *s, int device)
{
    sim_replay_result *r = p->r;
    for (size_t g = 0; g < s->nseg; g++) {
        const snap_segment *sg = &s->seg[g];
        if (sg->device != device)
            continue;
        r->end_segments_real++;
        r->end_reserved_real += sg->size;
        for (size_t k = 0; k < sg->n_blocks; k++) {
            const snap_block *b = &s->blk[sg->first_block + k];
            if (b->state == SNAP_INACTIVE)
                continue;
            r->end_allocated_real += b->size;
            r->end_blocks++;
            uint64_t h;
            if (!addr_map_get(&p->live, b->addr, &h))
                continue;
            sim_mem_block mb = p->m->block(p->state, (uint32_t)h);
            r->end_blocks_same += to_real(p, mb.addr) == b->addr && mb.size == b->size;
        }
    }
    sim_memory_stats st;
    stats(p, &st);
    r->end_segments_model = (size_t)st.segments;
    r->end_reserved_model = st.reserved;
    r->end_allocated_model = st.allocated;
}

static int seed(replay *p, const snap_state *st, gms_error *err)
{
    if (!p->m->seed)
        return gms_error_set(err, GMS_EINVAL, "the %s model cannot start from a recorded state: "
                             "use the cold-start mode (--cold)", p->m->name);
    if (st->problems)
        return gms_error_set(err, GMS_EFORMAT, "the events contradict the final segments (%zu "
                             "times; the first: %s): the exact check needs a consistent "
                             "snapshot (use --cold)", st->problems, st->msg);
    sim_mem_seed_segment *sg = malloc((st->nseg ? st->nseg : 1) * sizeof *sg);
    sim_mem_seed_block *bl = malloc((st->nblk ? st->nblk : 1) * sizeof *bl);
    uint32_t *h = malloc((st->nblk ? st->nblk : 1) * sizeof *h);
    int rc = 0;
    if (!sg || !bl || !h) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory seeding the model");
        goto out;
    }
    for (size_t i = 0; i < st->nseg; i++)
        sg[i] = (sim_mem_seed_segment){st->seg[i].addr, st->seg[i].size, st->seg[i].small};
    for (size_t i = 0; i < st->nblk; i++)
        bl[i] = (sim_mem_seed_block){st->blk[i].addr, st->blk[i].size, st->blk[i].requested,
                                     (uint32_t)i};
    rc = p->m->seed(p->state, sg, st->nseg, bl, st->nblk, h, err);
    for (size_t i = 0; !rc && i < st->nblk; i++)
        if (addr_map_put(&p->live, st->blk[i].addr, h[i]))
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory seeding the model");
    for (size_t i = 0; !rc && i < st->nseg; i++)
        if (add_pair(p, st->seg[i].addr, st->seg[i].addr, st->seg[i].size))
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory seeding the model");
out:
    free(sg);
    free(bl);
    free(h);
    return rc;
}

/* Cold start: the blocks live before the first event, allocated in address order. */
static int cold_start(replay *p, const snap_state *st, gms_error *err)
{
    for (size_t i = 0; i < st->nblk; i++) {
        uint32_t h;
        int rc = p->m->reserve(p->state, st->blk[i].requested ? st->blk[i].requested
                                                              : st->blk[i].size,
                               UINT32_MAX - 1 - (uint32_t)i, &h);
        if (rc < 0)
            return gms_error_set(err, GMS_ENOMEM, "out of memory");
        if (rc == 1)
            return 1;
        if (h != SIM_MEM_NONE && addr_map_put(&p->live, st->blk[i].addr, h))
            return gms_error_set(err, GMS_ENOMEM, "out of memory");
        track_peak(p);
    }
    return 0;
}

int sim_replay_snapshot(const snapshot *s, int device, const snap_state *st,
                        const sim_replay_options *o, sim_replay_result *r, gms_error *err)
{
    memset(r, 0, sizeof *r);
    r->first_divergence = -1;
    r->oom_event = -1;
    replay p = {.m = o->model, .r = r};
    size_t first = 0, n = 0;
    if (device >= 0 && device < s->ndev) {
        first = s->dev_first[device];
        n = s->dev_n[device];
    }
    uint64_t limit = o->cold ? o->limit : UINT64_MAX;
    int rc = addr_map_init(&p.live, st->nblk + 1024) ? gms_error_set(err, GMS_ENOMEM,
                                                                      "out of memory")
                                                     : 0;
    if (!rc)
        rc = o->model->create(o->opt, limit, NULL, &p.state, err);
    if (rc)
        goto out;
    p.real_reserved = st->reserved;
    p.real_requested = o->cold ? 0 : st->requested;
    if (o->cold) {
        rc = cold_start(&p, st, err);
        if (rc == 1) {
            sim_memory_stats ms;
            stats(&p, &ms);
            r->oom_event = 0;
            r->oom_reserved = ms.reserved;
            rc = 0;
            goto out;
        }
        if (rc)
            goto out;
        sim_memory_stats ms;
        stats(&p, &ms);
        p.real_requested = ms.requested;
    } else if ((rc = seed(&p, st, err)) != 0) {
        goto out;
    }
    track_peak(&p);
    for (size_t i = 0; i < n; i++) {
        const snap_event *e = &s->ev[first + i];
        r->events++;
        switch (e->action) {
        case SNAP_ALLOC: {
            int a = do_alloc(&p, i, e, !o->cold, err);
            if (a < 0) {
                rc = err && err->code ? err->code : GMS_ENOMEM;
                goto out;
            }
            if (a == 1) {
                sim_memory_stats ms;
                stats(&p, &ms);
                r->oom_event = (long)i;
                r->oom_reserved = ms.reserved;
                goto out;
            }
            if (!o->cold)
                check_totals(&p, i);
            break;
        }
        case SNAP_FREE_COMPLETED:
            do_free(&p, i, e);
            if (!o->cold)
                check_totals(&p, i);
            break;
        case SNAP_SEGMENT_ALLOC:
        case SNAP_SEGMENT_MAP:
            p.real_reserved += e->size;
            r->segs_real++;
            p.pending_allocs++;
            p.pending_addr = e->addr;
            p.pending_size = e->size;
            break;
        case SNAP_SEGMENT_FREE:
        case SNAP_SEGMENT_UNMAP:
            p.real_reserved -= e->size <= p.real_reserved ? e->size : p.real_reserved;
            p.pending_frees++;
            break;
        case SNAP_OOM:
            if (do_oom(&p, i, !o->cold)) {
                rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
                goto out;
            }
            break;
        default:
            break;
        }
        track_peak(&p);
    }
    if (!o->cold)
        check_end(&p, s, device);
    else {
        sim_memory_stats ms;
        stats(&p, &ms);
        r->end_reserved_model = ms.reserved;
        r->end_segments_model = (size_t)ms.segments;
        r->end_allocated_model = ms.allocated;
    }
out:
    if (r->frag_allocs)
        r->frag /= (double)r->frag_allocs;
    if (p.state)
        o->model->destroy(p.state);
    addr_map_free(&p.live);
    free(p.pairs);
    return rc;
}
