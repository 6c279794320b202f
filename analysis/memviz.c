/* memviz: a simulated run as a PyTorch memory snapshot (memviz.h). */
#include "memviz.h"

#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "pickle.h"

/* Where the ideal model's per-storage ranges start, 2 MiB apart as cudaMalloc aligns. */
#define IDEAL_BASE UINT64_C(0x7f0000000000)
#define ALIGN (UINT64_C(2) << 20)

enum { PH_COMPUTE, PH_REMAT, PH_EVICT, PH_FREE, PH_ALLOCATOR, PH_SWAP_OUT, PH_SWAP_IN };
static const char *const PHASES[] = {"compute", "remat", "evict", "free", "allocator",
                                     "swap-out", "swap-in"};

/* What an event writes: an alloc, a free (free_requested + free_completed), or a segment's. */
enum { K_ALLOC, K_FREE, K_SEG_ALLOC, K_SEG_FREE, K_SEG_MAP, K_SEG_UNMAP };
static const char *const SEG_ACTIONS[] = {"", "", "segment_alloc", "segment_free",
                                          "segment_map", "segment_unmap"};

typedef struct mv_event {
    uint64_t addr, size, time_us;
    const char *name; /* the op the frame names */
    uint32_t op;
    uint8_t kind, phase;
} mv_event;

typedef struct mv_range {
    uint64_t addr, size;
} mv_range;

typedef struct mv_storage {
    uint64_t addr, size;
    const char *op; /* the name of the op that made it (the trace's string) */
    uint32_t op_index;
    uint8_t live, seen;
} mv_storage;

struct memviz_writer {
    char *path;
    mv_event *ev;
    size_t n, cap;
    mv_storage *st;
    uint64_t n_storages, next_ideal;
    sim_observer next;
    void *next_ctx;
    int failed;    /* out of memory while recording */
    /* the memory model's own segments (SIM_EV_SEGMENTS came): segs now, and the final
     * block layout; model == 0: one segment per storage (the ideal model) */
    int model, expandable, grows;
    int addresses; /* a memory model places the blocks */
    mv_range *segs;
    size_t n_segs;
    sim_mem_block *final;
    size_t n_final;
};

int memviz_open(const char *path, uint64_t n_storages, const sim_memory_model *model,
                memviz_writer **out, gms_error *err)
{
    *out = NULL;
    if (!path || !*path || strcmp(path, "-") == 0)
        return gms_error_set(err, GMS_EINVAL, "--memory-snapshot needs a file name");
    memviz_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path)) ||
        !(w->st = calloc(n_storages ? n_storages : 1, sizeof *w->st))) {
        if (w)
            free(w->path);
        free(w);
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
    w->n_storages = n_storages;
    w->next_ideal = IDEAL_BASE;
    w->addresses = model != NULL;
    w->expandable = model == &sim_memory_caching_expandable;
    w->grows = w->expandable || model == &sim_memory_lifetime;
    *out = w;
    return 0;
}

void memviz_chain(memviz_writer *w, sim_observer next, void *next_ctx)
{
    w->next = next;
    w->next_ctx = next_ctx;
}

static uint64_t round512(uint64_t n)
{
    return n < 512 ? 512 : (n + 511) / 512 * 512;
}

static void push(memviz_writer *w, int kind, uint64_t addr, uint64_t size, uint64_t clock,
                 const char *name, uint32_t op, int phase)
{
    if (w->n == w->cap) {
        size_t c = w->cap ? 2 * w->cap : 4096;
        mv_event *p = realloc(w->ev, c * sizeof *p);
        if (!p) {
            w->failed = 1;
            return;
        }
        w->ev = p;
        w->cap = c;
    }
    w->ev[w->n++] = (mv_event){.addr = addr, .size = size, .time_us = clock / 1000,
                               .name = name, .op = op, .kind = (uint8_t)kind,
                               .phase = (uint8_t)phase};
}

/* A storage's alloc or free; with the ideal model its own segment around it. */
static void record(memviz_writer *w, const mv_storage *s, int alloc, int phase, uint64_t clock)
{
    uint64_t seg = round512(s->size);
    if (alloc && !w->model)
        push(w, K_SEG_ALLOC, s->addr, seg, clock, s->op, s->op_index, phase);
    push(w, alloc ? K_ALLOC : K_FREE, s->addr, s->size, clock, s->op, s->op_index, phase);
    if (!alloc && !w->model)
        push(w, K_SEG_FREE, s->addr, seg, clock, s->op, s->op_index, phase);
}

/* The model's segments: runs of contiguous blocks of one segment id. */
static size_t segments_of(const sim_mem_block *b, size_t n, mv_range *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && b[i].segment == b[i - 1].segment && b[i].addr == out[k - 1].addr +
                                                                     out[k - 1].size)
            out[k - 1].size += b[i].size;
        else
            out[k++] = (mv_range){b[i].addr, b[i].size};
    }
    return k;
}

/* Pushes every part of a[] that b[] does not cover (both sorted, not overlapping). */
static void uncovered(memviz_writer *w, const mv_range *a, size_t na, const mv_range *b,
                      size_t nb, int kind, const sim_event *ev)
{
    size_t j = 0;
    for (size_t i = 0; i < na; i++) {
        uint64_t cur = a[i].addr, end = a[i].addr + a[i].size;
        while (j < nb && b[j].addr + b[j].size <= cur)
            j++;
        for (size_t k = j; k < nb && b[k].addr < end; k++) {
            if (b[k].addr > cur)
                push(w, kind, cur, b[k].addr - cur, ev->clock, ev->op, (uint32_t)ev->op_index,
                     PH_ALLOCATOR);
            if (b[k].addr + b[k].size > cur)
                cur = b[k].addr + b[k].size;
        }
        if (cur < end)
            push(w, kind, cur, end - cur, ev->clock, ev->op, (uint32_t)ev->op_index,
                 PH_ALLOCATOR);
    }
}

/* Pushes the segments of a[] that b[] does not hold as they are. */
static void missing(memviz_writer *w, const mv_range *a, size_t na, const mv_range *b,
                    size_t nb, int kind, const sim_event *ev)
{
    size_t j = 0;
    for (size_t i = 0; i < na; i++) {
        while (j < nb && b[j].addr < a[i].addr)
            j++;
        if (j < nb && b[j].addr == a[i].addr && b[j].size == a[i].size)
            continue;
        push(w, kind, a[i].addr, a[i].size, ev->clock, ev->op, (uint32_t)ev->op_index,
             PH_ALLOCATOR);
    }
}

/* SIM_EV_SEGMENTS: segment events for what changed (given back first, then new ones);
 * expandable segments map and unmap pages at their ends instead. */
static void on_segments(memviz_writer *w, const sim_event *ev)
{
    mv_range *now = malloc((ev->n_blocks ? ev->n_blocks : 1) * sizeof *now);
    if (!now) {
        w->failed = 1;
        return;
    }
    size_t n = segments_of(ev->blocks, (size_t)ev->n_blocks, now);
    w->model = 1;
    if (w->grows) {
        uncovered(w, w->segs, w->n_segs, now, n, K_SEG_UNMAP, ev);
        uncovered(w, now, n, w->segs, w->n_segs, K_SEG_MAP, ev);
    } else {
        missing(w, w->segs, w->n_segs, now, n, K_SEG_FREE, ev);
        missing(w, now, n, w->segs, w->n_segs, K_SEG_ALLOC, ev);
    }
    free(w->segs);
    w->segs = now;
    w->n_segs = n;
    if (ev->final) {
        free(w->final);
        w->final = malloc((ev->n_blocks ? ev->n_blocks : 1) * sizeof *w->final);
        if (!w->final) {
            w->failed = 1;
            return;
        }
        memcpy(w->final, ev->blocks, (size_t)ev->n_blocks * sizeof *w->final);
        w->n_final = (size_t)ev->n_blocks;
    }
}

void memviz_observe(void *ctx, const sim_event *ev)
{
    memviz_writer *w = ctx;
    if (ev->kind != SIM_EV_MATERIALIZE && ev->kind != SIM_EV_SEGMENTS && w->next)
        w->next(w->next_ctx, ev);
    if (w->failed)
        return;
    if (ev->kind == SIM_EV_SEGMENTS) {
        on_segments(w, ev);
        return;
    }
    if (ev->storage >= w->n_storages)
        return;
    mv_storage *s = &w->st[ev->storage];
    switch (ev->kind) {
    case SIM_EV_MATERIALIZE:
        if (!s->seen) {
            s->size = ev->size;
            s->op = ev->op;
            s->op_index = (uint32_t)ev->op_index;
            /* the ideal model has no addresses: one range per storage, for good */
            s->addr = w->next_ideal;
            w->next_ideal += (ev->size + ALIGN - 1) / ALIGN * ALIGN + ALIGN;
            s->seen = 1;
        }
        if (w->addresses)
            s->addr = ev->addr; /* the model's block (the lifetime arena starts at 0) */
        s->size = ev->size;
        s->op = ev->op;
        s->op_index = (uint32_t)ev->op_index;
        s->live = 1;
        record(w, s, 1, ev->remat ? PH_REMAT : PH_COMPUTE, ev->clock);
        break;
    case SIM_EV_EVICT:
    case SIM_EV_EVICT_EAGER:
        if (!s->live)
            return; /* a storage that never became resident through an op */
        s->live = 0;
        record(w, s, 0, ev->kind == SIM_EV_EVICT ? PH_EVICT : PH_FREE, ev->clock);
        break;
    case SIM_EV_SWAP_DONE:
        /* the swap-out's copy ended: its device bytes are freed now (a swap-out taken back
         * before it ended reports nothing: the storage stayed resident throughout) */
        if (!s->live)
            return;
        s->live = 0;
        record(w, s, 0, PH_SWAP_OUT, ev->clock);
        break;
    case SIM_EV_SWAP_IN:
        /* its device bytes are taken when the copy is queued, at the storage's own range */
        if (s->live || !s->seen)
            return;
        s->live = 1;
        record(w, s, 1, PH_SWAP_IN, ev->clock);
        break;
    default:
        break;
    }
}

static void frames(pk_writer *p, const char *op, int phase, uint32_t op_index)
{
    pk_w_list(p);
    pk_w_dict(p);
    pk_w_str(p, "name");
    pk_w_str(p, op ? op : "?");
    pk_w_str(p, "filename");
    pk_w_str(p, PHASES[phase]);
    pk_w_str(p, "line");
    pk_w_int(p, op_index);
    pk_w_end(p);
    pk_w_end(p);
}

static void trace_entry(pk_writer *p, const char *action, uint64_t addr, uint64_t size,
                        uint64_t time_us, const char *op, int phase, uint32_t op_index)
{
    pk_w_dict(p);
    pk_w_str(p, "action");
    pk_w_str(p, action);
    pk_w_str(p, "addr");
    pk_w_uint(p, addr);
    pk_w_str(p, "size");
    pk_w_uint(p, size);
    pk_w_str(p, "stream");
    pk_w_int(p, 0);
    pk_w_str(p, "time_us");
    pk_w_uint(p, time_us);
    pk_w_str(p, "frames");
    frames(p, op, phase, op_index);
    pk_w_end(p);
}

/* A segment's fields up to its "blocks" list, which the caller fills and ends (two ends). */
static void segment_head(pk_writer *p, uint64_t addr, uint64_t total, uint64_t allocated,
                         uint64_t requested, int small, int expandable)
{
    pk_w_dict(p);
    pk_w_str(p, "device");
    pk_w_int(p, 0);
    pk_w_str(p, "address");
    pk_w_uint(p, addr);
    pk_w_str(p, "total_size");
    pk_w_uint(p, total);
    pk_w_str(p, "allocated_size");
    pk_w_uint(p, allocated);
    pk_w_str(p, "active_size");
    pk_w_uint(p, allocated);
    pk_w_str(p, "requested_size");
    pk_w_uint(p, requested);
    pk_w_str(p, "stream");
    pk_w_int(p, 0);
    pk_w_str(p, "segment_type");
    pk_w_str(p, small ? "small" : "large");
    pk_w_str(p, "segment_pool_id");
    pk_w_tuple(p);
    pk_w_int(p, 0);
    pk_w_int(p, 0);
    pk_w_end(p);
    pk_w_str(p, "is_expandable");
    pk_w_bool(p, expandable);
    pk_w_str(p, "frames");
    pk_w_list(p);
    pk_w_end(p);
    pk_w_str(p, "blocks");
    pk_w_list(p);
}

/* A block; s == NULL: a free (cached) one. */
static void block(pk_writer *p, uint64_t addr, uint64_t size, const mv_storage *s)
{
    pk_w_dict(p);
    pk_w_str(p, "address");
    pk_w_uint(p, addr);
    pk_w_str(p, "size");
    pk_w_uint(p, size);
    pk_w_str(p, "requested_size");
    pk_w_uint(p, s ? s->size : 0);
    pk_w_str(p, "state");
    pk_w_str(p, s ? "active_allocated" : "inactive");
    pk_w_str(p, "frames");
    if (s) {
        frames(p, s->op, PH_COMPUTE, s->op_index);
    } else {
        pk_w_list(p);
        pk_w_end(p);
    }
    pk_w_end(p);
}

/* The ideal model: each live storage is its own segment. */
static void storage_segments(pk_writer *p, const memviz_writer *w)
{
    for (uint64_t i = 0; i < w->n_storages; i++) {
        const mv_storage *s = &w->st[i];
        if (!s->live)
            continue;
        uint64_t seg = round512(s->size);
        segment_head(p, s->addr, seg, seg, s->size, seg <= (UINT64_C(1) << 20), 0);
        block(p, s->addr, seg, s);
        pk_w_end(p);
        pk_w_end(p);
    }
}

/* The model's final layout: its segments with their allocated and free blocks. A block held
 * for a storage the run never reported (none today) is written with its own size. */
static void model_segments(pk_writer *p, const memviz_writer *w)
{
    const sim_mem_block *b = w->final;
    for (size_t i = 0, j; i < w->n_final; i = j) {
        uint64_t total = 0, allocated = 0, requested = 0;
        for (j = i; j < w->n_final && (j == i || (b[j].segment == b[j - 1].segment &&
                                                  b[j].addr == b[j - 1].addr + b[j - 1].size));
             j++) {
            total += b[j].size;
            if (b[j].owner != SIM_MEM_NONE) {
                allocated += b[j].size;
                requested += b[j].owner < w->n_storages && w->st[b[j].owner].live
                                 ? w->st[b[j].owner].size : b[j].size;
            }
        }
        /* the caching model's small pool: 2 MiB segments, or the expandable one's low range */
        int small = w->expandable ? b[i].addr < UINT64_C(0x7f0000000000)
                                  : total <= (UINT64_C(2) << 20);
        segment_head(p, b[i].addr, total, allocated, requested, small, w->expandable);
        for (size_t k = i; k < j; k++) {
            uint32_t o = b[k].owner;
            const mv_storage *s = o != SIM_MEM_NONE && o < w->n_storages && w->st[o].live
                                      ? &w->st[o] : NULL;
            if (o != SIM_MEM_NONE && !s) {
                mv_storage own = {.size = b[k].size, .op = "?"};
                block(p, b[k].addr, b[k].size, &own);
            } else {
                block(p, b[k].addr, b[k].size, s);
            }
        }
        pk_w_end(p);
        pk_w_end(p);
    }
}

int memviz_close(memviz_writer *w, const char *conf, gms_error *err)
{
    if (!w)
        return 0;
    int rc = 0;
    if (w->failed)
        rc = gms_error_set(err, GMS_ENOMEM, "%s: out of memory recording the run", w->path);
    pk_writer *p = NULL;
    if (!rc)
        rc = pk_writer_open(w->path, &p, err);
    if (!rc) {
        pk_w_dict(p);
        pk_w_str(p, "segments");
        pk_w_list(p);
        if (w->model)
            model_segments(p, w);
        else
            storage_segments(p, w);
        pk_w_end(p);
        pk_w_str(p, "device_traces");
        pk_w_list(p);
        pk_w_list(p);
        for (size_t i = 0; i < w->n; i++) {
            const mv_event *e = &w->ev[i];
            if (e->kind == K_FREE) {
                trace_entry(p, "free_requested", e->addr, e->size, e->time_us, e->name,
                            e->phase, e->op);
                trace_entry(p, "free_completed", e->addr, e->size, e->time_us, e->name,
                            e->phase, e->op);
            } else {
                trace_entry(p, e->kind == K_ALLOC ? "alloc" : SEG_ACTIONS[e->kind], e->addr,
                            e->size, e->time_us, e->name, e->phase, e->op);
            }
        }
        pk_w_end(p);
        pk_w_end(p);
        pk_w_str(p, "allocator_settings");
        pk_w_dict(p);
        /* the settings as PyTorch writes them: what is inside "caching{...}" */
        char settings[256] = "";
        const char *brace = conf ? strchr(conf, '{') : NULL;
        if (brace && strlen(brace + 1) < sizeof settings) {
            strcpy(settings, brace + 1);
            settings[strcspn(settings, "}")] = 0;
        }
        pk_w_str(p, "PYTORCH_CUDA_ALLOC_CONF");
        pk_w_str(p, settings);
        /* the fields PyTorch writes beside it, which readers (gpumemsim's own) use */
        const char *msm = strstr(settings, "max_split_size_mb:");
        pk_w_str(p, "max_split_size");
        if (msm)
            pk_w_uint(p, strtoull(msm + strlen("max_split_size_mb:"), NULL, 10) << 20);
        else
            pk_w_int(p, -1);
        pk_w_str(p, "expandable_segments");
        pk_w_bool(p, w->expandable);
        pk_w_str(p, "gpumemsim_allocator");
        pk_w_str(p, conf ? conf : "ideal");
        pk_w_str(p, "producer");
        pk_w_str(p, "gpumemsim sim --memory-snapshot");
        pk_w_end(p);
        pk_w_end(p);
        rc = pk_writer_close(p, 0, err);
    }
    memviz_abort(w);
    return rc;
}

void memviz_abort(memviz_writer *w)
{
    if (!w)
        return;
    free(w->ev);
    free(w->st);
    free(w->segs);
    free(w->final);
    free(w->path);
    free(w);
}
