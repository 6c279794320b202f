/* memviz: a simulated run as a PyTorch memory snapshot (memviz.h). */
#include "memviz.h"

#include <stdlib.h>
#include <string.h>

#include "pickle.h"

/* Where the ideal model's per-storage ranges start, 2 MiB apart as cudaMalloc aligns. */
#define IDEAL_BASE UINT64_C(0x7f0000000000)
#define ALIGN (UINT64_C(2) << 20)

enum { PH_COMPUTE, PH_REMAT, PH_EVICT, PH_FREE };
static const char *const PHASES[] = {"compute", "remat", "evict", "free"};

typedef struct mv_event {
    uint64_t addr, size, time_us;
    uint32_t storage, op;
    uint8_t alloc, phase;
} mv_event;

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
    int refused;   /* a swapping policy's event */
};

int memviz_open(const char *path, uint64_t n_storages, memviz_writer **out, gms_error *err)
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
    *out = w;
    return 0;
}

void memviz_chain(memviz_writer *w, sim_observer next, void *next_ctx)
{
    w->next = next;
    w->next_ctx = next_ctx;
}

static void record(memviz_writer *w, const mv_storage *s, uint32_t storage, int alloc,
                   int phase, uint64_t clock)
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
    w->ev[w->n++] = (mv_event){.addr = s->addr, .size = s->size, .time_us = clock / 1000,
                               .storage = storage, .op = s->op_index,
                               .alloc = (uint8_t)alloc, .phase = (uint8_t)phase};
}

void memviz_observe(void *ctx, const sim_event *ev)
{
    memviz_writer *w = ctx;
    if (ev->kind != SIM_EV_MATERIALIZE && w->next)
        w->next(w->next_ctx, ev);
    if (w->failed || ev->storage >= w->n_storages)
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
        if (ev->addr)
            s->addr = ev->addr; /* the model's block */
        s->size = ev->size;
        s->op = ev->op;
        s->op_index = (uint32_t)ev->op_index;
        s->live = 1;
        record(w, s, (uint32_t)ev->storage, 1, ev->remat ? PH_REMAT : PH_COMPUTE, ev->clock);
        break;
    case SIM_EV_EVICT:
    case SIM_EV_EVICT_EAGER:
        if (!s->live)
            return; /* a storage that never became resident through an op */
        s->live = 0;
        record(w, s, (uint32_t)ev->storage, 0, ev->kind == SIM_EV_EVICT ? PH_EVICT : PH_FREE,
               ev->clock);
        break;
    case SIM_EV_SWAP_OUT:
    case SIM_EV_SWAP_IN:
    case SIM_EV_SWAP_DONE:
        w->refused = 1;
        break;
    default:
        break;
    }
}

static uint64_t round512(uint64_t n)
{
    return n < 512 ? 512 : (n + 511) / 512 * 512;
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

static void segment(pk_writer *p, const mv_storage *s)
{
    uint64_t seg = round512(s->size);
    pk_w_dict(p);
    pk_w_str(p, "device");
    pk_w_int(p, 0);
    pk_w_str(p, "address");
    pk_w_uint(p, s->addr);
    pk_w_str(p, "total_size");
    pk_w_uint(p, seg);
    pk_w_str(p, "allocated_size");
    pk_w_uint(p, seg);
    pk_w_str(p, "active_size");
    pk_w_uint(p, seg);
    pk_w_str(p, "requested_size");
    pk_w_uint(p, s->size);
    pk_w_str(p, "stream");
    pk_w_int(p, 0);
    pk_w_str(p, "segment_type");
    pk_w_str(p, seg <= (UINT64_C(1) << 20) ? "small" : "large");
    pk_w_str(p, "segment_pool_id");
    pk_w_tuple(p);
    pk_w_int(p, 0);
    pk_w_int(p, 0);
    pk_w_end(p);
    pk_w_str(p, "is_expandable");
    pk_w_bool(p, 0);
    pk_w_str(p, "frames");
    pk_w_list(p);
    pk_w_end(p);
    pk_w_str(p, "blocks");
    pk_w_list(p);
    pk_w_dict(p);
    pk_w_str(p, "address");
    pk_w_uint(p, s->addr);
    pk_w_str(p, "size");
    pk_w_uint(p, seg);
    pk_w_str(p, "requested_size");
    pk_w_uint(p, s->size);
    pk_w_str(p, "state");
    pk_w_str(p, "active_allocated");
    pk_w_str(p, "frames");
    frames(p, s->op, PH_COMPUTE, s->op_index);
    pk_w_end(p);
    pk_w_end(p);
    pk_w_end(p);
}

int memviz_close(memviz_writer *w, const char *conf, gms_error *err)
{
    if (!w)
        return 0;
    int rc = 0;
    if (w->refused)
        rc = gms_error_set(err, GMS_EINVAL, "%s: --memory-snapshot does not export swapping "
                           "policies' runs yet (a device copy can be taken back before its "
                           "swap-out ends)", w->path);
    else if (w->failed)
        rc = gms_error_set(err, GMS_ENOMEM, "%s: out of memory recording the run", w->path);
    pk_writer *p = NULL;
    if (!rc)
        rc = pk_writer_open(w->path, &p, err);
    if (!rc) {
        pk_w_dict(p);
        pk_w_str(p, "segments");
        pk_w_list(p);
        for (uint64_t i = 0; i < w->n_storages; i++)
            if (w->st[i].live)
                segment(p, &w->st[i]);
        pk_w_end(p);
        pk_w_str(p, "device_traces");
        pk_w_list(p);
        pk_w_list(p);
        for (size_t i = 0; i < w->n; i++) {
            const mv_event *e = &w->ev[i];
            const char *op = w->st[e->storage].op;
            uint64_t seg = round512(e->size);
            if (e->alloc) {
                trace_entry(p, "segment_alloc", e->addr, seg, e->time_us, op, e->phase, e->op);
                trace_entry(p, "alloc", e->addr, e->size, e->time_us, op, e->phase, e->op);
            } else {
                trace_entry(p, "free_requested", e->addr, e->size, e->time_us, op, e->phase,
                            e->op);
                trace_entry(p, "free_completed", e->addr, e->size, e->time_us, op, e->phase,
                            e->op);
                trace_entry(p, "segment_free", e->addr, seg, e->time_us, op, e->phase, e->op);
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
    free(w->path);
    free(w);
}
