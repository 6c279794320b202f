/*
 * snapshot: a memory snapshot's pickle as segments, blocks, events and settings (snapshot.h).
 * Field names and meanings: torch/cuda/memory.py (`_snapshot`'s docstring) and
 * c10/cuda/CUDACachingAllocator.h (TraceEntry, SegmentInfo, BlockInfo).
 */
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

static const char *const ACTIONS[SNAP_N_ACTIONS] = {
    "alloc",         "free_requested", "free_completed", "segment_alloc", "segment_free",
    "segment_map",   "segment_unmap",  "snapshot",       "oom",           "user_defined"};

const char *snap_action_name(int a)
{
    return a >= 0 && a < SNAP_N_ACTIONS ? ACTIONS[a] : "?";
}

int snap_sniff(const char *path)
{
    return pk_sniff(path);
}

/* A key of dict r as an int; `what` names the object in messages. */
static int need_int(const pk_doc *d, pk_ref r, const char *key, int64_t *v, const char *name,
                    const char *what, gms_error *err)
{
    pk_ref x = pk_get(d, r, key);
    if (x == PK_NULL)
        return gms_error_set(err, GMS_EFORMAT, "%s: %s has no '%s' (not a PyTorch memory "
                             "snapshot, or a damaged one)", name, what, key);
    if (pk_int(d, x, v))
        return gms_error_set(err, GMS_EFORMAT, "%s: %s: '%s' is a %s, not an int", name, what,
                             key, pk_type_name(pk_type_of(d, x)));
    return 0;
}

static int opt_int(const pk_doc *d, pk_ref r, const char *key, int64_t *v, int64_t dflt)
{
    pk_ref x = pk_get(d, r, key);
    *v = dflt;
    if (x == PK_NULL || pk_type_of(d, x) == PK_NONE)
        return 0;
    return pk_int(d, x, v);
}

static int nonneg(int64_t v, const char *name, const char *what, const char *key,
                  gms_error *err)
{
    if (v < 0)
        return gms_error_set(err, GMS_EFORMAT, "%s: %s: '%s' is negative (%lld)", name, what,
                             key, (long long)v);
    return 0;
}

static int str_is(const pk_doc *d, pk_ref r, const char *s)
{
    const char *v = pk_str(d, r, NULL);
    return v && strcmp(v, s) == 0;
}

static int by_device_addr(const void *a, const void *b)
{
    const snap_segment *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int read_segments(snapshot *s, const char *name, gms_error *err)
{
    const pk_doc *d = s->doc;
    pk_ref segs = pk_get(d, pk_root(d), "segments");
    if (segs == PK_NULL || pk_type_of(d, segs) != PK_LIST)
        return gms_error_set(err, GMS_EFORMAT, "%s: no 'segments' list (not a PyTorch memory "
                             "snapshot: record one with torch.cuda.memory._dump_snapshot)",
                             name);
    size_t n = pk_len(d, segs), nb = 0;
    for (size_t i = 0; i < n; i++)
        nb += pk_len(d, pk_get(d, pk_item(d, segs, i), "blocks"));
    s->seg = calloc(n ? n : 1, sizeof *s->seg);
    s->blk = calloc(nb ? nb : 1, sizeof *s->blk);
    if (!s->seg || !s->blk)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", name);
    for (size_t i = 0; i < n; i++) {
        pk_ref g = pk_item(d, segs, i);
        char what[64];
        snprintf(what, sizeof what, "segment %zu", i);
        if (pk_type_of(d, g) != PK_DICT)
            return gms_error_set(err, GMS_EFORMAT, "%s: %s is a %s, not a dict", name, what,
                                 pk_type_name(pk_type_of(d, g)));
        snap_segment *sg = &s->seg[i];
        int64_t dev, addr, size, stream = 0;
        if (need_int(d, g, "device", &dev, name, what, err) ||
            need_int(d, g, "address", &addr, name, what, err) ||
            need_int(d, g, "total_size", &size, name, what, err) ||
            nonneg(addr, name, what, "address", err) || nonneg(size, name, what, "total_size", err))
            return GMS_EFORMAT;
        if (dev < 0 || dev > 4096)
            return gms_error_set(err, GMS_EFORMAT, "%s: %s: device %lld is out of range", name,
                                 what, (long long)dev);
        if (opt_int(d, g, "stream", &stream, 0))
            return gms_error_set(err, GMS_EFORMAT, "%s: %s: 'stream' is not an int", name, what);
        sg->device = (int)dev;
        sg->addr = (uint64_t)addr;
        sg->size = (uint64_t)size;
        sg->stream = stream;
        sg->small = str_is(d, pk_get(d, g, "segment_type"), "small");
        int64_t ex = 0;
        opt_int(d, g, "is_expandable", &ex, 0);
        sg->expandable = ex != 0;
        pk_ref pool = pk_get(d, g, "segment_pool_id");
        if (pk_len(d, pool) == 2) {
            pk_int(d, pk_item(d, pool, 0), &sg->pool[0]);
            pk_int(d, pk_item(d, pool, 1), &sg->pool[1]);
        }
        pk_ref blocks = pk_get(d, g, "blocks");
        if (blocks == PK_NULL || pk_type_of(d, blocks) != PK_LIST)
            return gms_error_set(err, GMS_EFORMAT, "%s: %s has no 'blocks' list", name, what);
        sg->first_block = s->nblk;
        sg->n_blocks = pk_len(d, blocks);
        uint64_t at = sg->addr;
        for (size_t k = 0; k < sg->n_blocks; k++) {
            pk_ref b = pk_item(d, blocks, k);
            char bw[96];
            snprintf(bw, sizeof bw, "segment %zu block %zu", i, k);
            snap_block *bl = &s->blk[s->nblk++];
            int64_t bsize, baddr, req;
            if (need_int(d, b, "size", &bsize, name, bw, err) ||
                nonneg(bsize, name, bw, "size", err))
                return GMS_EFORMAT;
            /* older snapshots have no block address: blocks follow each other */
            if (opt_int(d, b, "address", &baddr, (int64_t)at) || opt_int(d, b, "requested_size",
                                                                         &req, bsize))
                return gms_error_set(err, GMS_EFORMAT, "%s: %s: 'address' or 'requested_size' "
                                     "is not an int", name, bw);
            if ((uint64_t)baddr != at)
                return gms_error_set(err, GMS_EFORMAT, "%s: %s starts at 0x%llx, not where the "
                                     "previous block ends (0x%llx): blocks must tile their "
                                     "segment", name, bw, (unsigned long long)baddr,
                                     (unsigned long long)at);
            bl->addr = at;
            bl->size = (uint64_t)bsize;
            bl->requested = req < 0 ? 0 : (uint64_t)req;
            pk_ref st = pk_get(d, b, "state");
            bl->state = str_is(d, st, "active_allocated")      ? SNAP_ACTIVE_ALLOCATED
                        : str_is(d, st, "active_pending_free") ? SNAP_ACTIVE_PENDING_FREE
                                                               : SNAP_INACTIVE;
            if (st != PK_NULL && bl->state == SNAP_INACTIVE && !str_is(d, st, "inactive"))
                return gms_error_set(err, GMS_EFORMAT, "%s: %s: unknown block state '%s'", name,
                                     bw, pk_str(d, st, NULL) ? pk_str(d, st, NULL) : "?");
            bl->frames = pk_get(d, b, "frames");
            at += (uint64_t)bsize;
        }
        if (sg->n_blocks && at != sg->addr + sg->size)
            return gms_error_set(err, GMS_EFORMAT, "%s: %s: its blocks cover %llu bytes of its "
                                 "%llu: blocks must tile their segment", name, what,
                                 (unsigned long long)(at - sg->addr),
                                 (unsigned long long)sg->size);
    }
    s->nseg = n;
    qsort(s->seg, n, sizeof *s->seg, by_device_addr);
    for (size_t i = 1; i < n; i++)
        if (s->seg[i].device == s->seg[i - 1].device &&
            s->seg[i].addr < s->seg[i - 1].addr + s->seg[i - 1].size)
            return gms_error_set(err, GMS_EFORMAT, "%s: segments at 0x%llx and 0x%llx of device "
                                 "%d overlap", name, (unsigned long long)s->seg[i - 1].addr,
                                 (unsigned long long)s->seg[i].addr, s->seg[i].device);
    return 0;
}

static int action_of(const pk_doc *d, pk_ref a)
{
    const char *v = pk_str(d, a, NULL);
    if (!v)
        return -1;
    for (int i = 0; i < SNAP_N_ACTIONS; i++)
        if (strcmp(v, ACTIONS[i]) == 0)
            return i;
    return -1;
}

/* The fields of a trace entry, found in one pass over its dict. Keys are memoized strings in
 * every real snapshot (the same node each time), so a key's node is matched by id after its
 * first string comparison. */
enum { F_ACTION, F_ADDR, F_DEVICE_FREE, F_SIZE, F_STREAM, F_TIME, F_FRAMES, F_N };
static const char *const FIELDS[F_N] = {"action", "addr",    "device_free", "size",
                                        "stream", "time_us", "frames"};

typedef struct key_cache {
    pk_ref ref[32];
    int8_t field[32]; /* F_*, or -1: a key we do not read */
    int n;
} key_cache;

static int field_of(const pk_doc *d, key_cache *kc, pk_ref k)
{
    for (int i = 0; i < kc->n; i++)
        if (kc->ref[i] == k)
            return kc->field[i];
    int f = -1;
    const char *s = pk_str(d, k, NULL);
    for (int i = 0; s && i < F_N; i++)
        if (strcmp(s, FIELDS[i]) == 0)
            f = i;
    if (kc->n < 32) {
        kc->ref[kc->n] = k;
        kc->field[kc->n++] = (int8_t)f;
    }
    return f;
}

static int read_events(snapshot *s, const char *name, gms_error *err)
{
    const pk_doc *d = s->doc;
    pk_ref tr = pk_get(d, pk_root(d), "device_traces");
    if (tr == PK_NULL || pk_type_of(d, tr) != PK_LIST)
        return gms_error_set(err, GMS_EFORMAT, "%s: no 'device_traces' list (record the "
                             "history with torch.cuda.memory._record_memory_history() before "
                             "dumping the snapshot)", name);
    size_t ndev = pk_len(d, tr), total = 0;
    if (ndev > 4096)
        return gms_error_set(err, GMS_EFORMAT, "%s: %zu devices", name, ndev);
    for (size_t i = 0; i < ndev; i++)
        total += pk_len(d, pk_item(d, tr, i));
    s->ev = malloc((total ? total : 1) * sizeof *s->ev);
    s->dev_first = calloc(ndev ? ndev : 1, sizeof *s->dev_first);
    s->dev_n = calloc(ndev ? ndev : 1, sizeof *s->dev_n);
    if (!s->ev || !s->dev_first || !s->dev_n)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory (%zu events)", name, total);
    s->ndev = (int)ndev;
    key_cache kc = {.n = 0};
    for (size_t dv = 0; dv < ndev; dv++) {
        pk_ref list = pk_item(d, tr, dv);
        if (pk_type_of(d, list) != PK_LIST)
            return gms_error_set(err, GMS_EFORMAT, "%s: device_traces[%zu] is a %s, not a list",
                                 name, dv, pk_type_name(pk_type_of(d, list)));
        s->dev_first[dv] = s->nev;
        size_t n = pk_len(d, list);
        for (size_t i = 0; i < n; i++) {
            pk_ref e = pk_item(d, list, i);
            if (pk_type_of(d, e) != PK_DICT)
                return gms_error_set(err, GMS_EFORMAT, "%s: device %zu event %zu is a %s, not a "
                                     "dict", name, dv, i, pk_type_name(pk_type_of(d, e)));
            pk_ref f[F_N];
            for (int k = 0; k < F_N; k++)
                f[k] = PK_NULL;
            for (size_t k = 0, np = pk_len(d, e); k < np; k++) {
                int x = field_of(d, &kc, pk_key(d, e, k));
                if (x >= 0)
                    f[x] = pk_value(d, e, k);
            }
            if (f[F_ACTION] == PK_NULL)
                return gms_error_set(err, GMS_EFORMAT, "%s: device %zu event %zu has no "
                                     "'action'", name, dv, i);
            int a = action_of(d, f[F_ACTION]);
            if (a < 0) {
                s->unknown_actions++;
                continue;
            }
            snap_event *ev = &s->ev[s->nev];
            memset(ev, 0, sizeof *ev);
            ev->action = (uint8_t)a;
            int64_t addr = 0, size = 0;
            int need = a != SNAP_USER_DEFINED && a != SNAP_SNAPSHOT;
            pk_ref fa = f[a == SNAP_OOM ? F_DEVICE_FREE : F_ADDR];
            const char *missing = need && fa == PK_NULL ? (a == SNAP_OOM ? "device_free" : "addr")
                                  : need && f[F_SIZE] == PK_NULL ? "size"
                                                                 : NULL;
            if (missing)
                return gms_error_set(err, GMS_EFORMAT, "%s: device %zu event %zu (%s) has no "
                                     "'%s'", name, dv, i, ACTIONS[a], missing);
            if ((fa != PK_NULL && pk_int(d, fa, &addr)) ||
                (f[F_SIZE] != PK_NULL && pk_int(d, f[F_SIZE], &size)) ||
                (f[F_STREAM] != PK_NULL && pk_type_of(d, f[F_STREAM]) != PK_NONE &&
                 pk_int(d, f[F_STREAM], &ev->stream)) ||
                (f[F_TIME] != PK_NULL && pk_type_of(d, f[F_TIME]) != PK_NONE &&
                 pk_int(d, f[F_TIME], &ev->time_us)))
                return gms_error_set(err, GMS_EFORMAT, "%s: device %zu event %zu (%s): 'addr', "
                                     "'size', 'stream' or 'time_us' is not an int", name, dv, i,
                                     ACTIONS[a]);
            if (size < 0 || (need && addr < 0))
                return gms_error_set(err, GMS_EFORMAT, "%s: device %zu event %zu (%s): a "
                                     "negative address or size", name, dv, i, ACTIONS[a]);
            ev->addr = (uint64_t)addr;
            ev->size = (uint64_t)size;
            ev->frames = f[F_FRAMES];
            s->counts[a]++;
            s->nev++;
        }
        s->dev_n[dv] = s->nev - s->dev_first[dv];
    }
    return 0;
}

static void read_settings(snapshot *s)
{
    const pk_doc *d = s->doc;
    pk_ref a = pk_get(d, pk_root(d), "allocator_settings");
    snap_settings *st = &s->set;
    st->max_split_size = UINT64_MAX;
    if (pk_type_of(d, a) != PK_DICT)
        return;
    st->present = 1;
    const char *conf = pk_str(d, pk_get(d, a, "PYTORCH_CUDA_ALLOC_CONF"), NULL);
    snprintf(st->conf, sizeof st->conf, "%s", conf ? conf : "");
    int64_t v;
    if (!opt_int(d, a, "max_split_size", &v, -1) && v > 0)
        st->max_split_size = (uint64_t)v;
    double g = 0;
    if (!pk_float(d, pk_get(d, a, "garbage_collection_threshold"), &g))
        st->gc_threshold = g;
    if (!opt_int(d, a, "expandable_segments", &v, 0))
        st->expandable_segments = v != 0;
    pk_ref r = pk_get(d, a, "roundup_power2_divisions");
    for (size_t i = 0; i < pk_len(d, r); i++) { /* {'1': 0, '2': 0, ..., '32768': 0} */
        const char *k = pk_str(d, pk_key(d, r, i), NULL);
        unsigned long mib = k ? strtoul(k, NULL, 10) : 0;
        if (pk_int(d, pk_value(d, r, i), &v) || v <= 1 || v > (1 << 20) || !mib ||
            (mib & (mib - 1)))
            continue;
        int idx = 63 - __builtin_clzll(mib);
        if (idx < 16) {
            st->roundup[idx] = (uint32_t)v;
            st->roundup_divisions_set = 1;
        }
    }
    if (pk_type_of(d, r) == PK_INT && !pk_int(d, r, &v) && v > 1 && v <= (1 << 20)) {
        for (int i = 0; i < 16; i++)
            st->roundup[i] = (uint32_t)v;
        st->roundup_divisions_set = 1;
    }
}

int snap_from_doc(pk_doc *doc, const char *name, snapshot **out, gms_error *err)
{
    *out = NULL;
    snapshot *s = calloc(1, sizeof *s);
    if (!s) {
        pk_free(doc);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", name);
    }
    s->doc = doc;
    if (pk_type_of(doc, pk_root(doc)) != PK_DICT) {
        gms_error_set(err, GMS_EFORMAT, "%s: the pickle holds a %s, not a dict (not a PyTorch "
                      "memory snapshot)", name, pk_type_name(pk_type_of(doc, pk_root(doc))));
        snap_free(s);
        return GMS_EFORMAT;
    }
    int rc = read_segments(s, name, err);
    if (!rc)
        rc = read_events(s, name, err);
    if (rc) {
        snap_free(s);
        return rc;
    }
    read_settings(s);
    *out = s;
    return 0;
}

int snap_load(const char *path, snapshot **out, gms_error *err)
{
    pk_doc *d;
    *out = NULL;
    int rc = pk_load(path, &d, err);
    if (rc)
        return rc;
    return snap_from_doc(d, path, out, err);
}

void snap_free(snapshot *s)
{
    if (!s)
        return;
    pk_free(s->doc);
    free(s->seg);
    free(s->blk);
    free(s->ev);
    free(s->dev_first);
    free(s->dev_n);
    free(s);
}

int snap_main_device(const snapshot *s)
{
    int best = -1;
    for (int d = 0; d < s->ndev; d++)
        if (best < 0 || s->dev_n[d] > s->dev_n[best])
            best = d;
    if (best < 0 && s->nseg)
        best = s->seg[0].device;
    return best;
}

static void line(char *buf, size_t len, size_t *at, int *n, const char *text)
{
    if (*at < len)
        *at += (size_t)snprintf(buf + *at, len - *at, "%s%s", *n ? "\n" : "", text);
    (*n)++;
}

int snap_unmodelled(const snapshot *s, int device, char *buf, size_t len)
{
    size_t at = 0;
    int n = 0;
    char t[300];
    if (len)
        buf[0] = 0;
    int64_t stream0 = 0;
    int have = 0, streams = 0, graph = 0, expandable = 0, plain = 0;
    for (size_t i = 0; i < s->nseg; i++) {
        const snap_segment *g = &s->seg[i];
        if (g->device != device)
            continue;
        if (!have) {
            stream0 = g->stream;
            have = 1;
        } else if (g->stream != stream0)
            streams = 1;
        graph += g->pool[0] != 0 || g->pool[1] != 0;
        expandable += g->expandable;
        plain += !g->expandable;
    }
    if (device >= 0 && device < s->ndev)
        for (size_t i = s->dev_first[device]; i < s->dev_first[device] + s->dev_n[device]; i++) {
            if (s->ev[i].action == SNAP_USER_DEFINED || s->ev[i].action == SNAP_SNAPSHOT)
                continue;
            if (!have) {
                stream0 = s->ev[i].stream;
                have = 1;
            } else if (s->ev[i].stream != stream0)
                streams = 1;
        }
    if (streams)
        line(buf, len, &at, &n, "several streams: blocks are cached per stream and a block "
             "used on another stream (record_stream) is freed late; the model has one stream");
    if (graph) {
        snprintf(t, sizeof t, "%d segment(s) belong to CUDA-graph private pools (segment_pool_id "
                 "other than (0, 0)); the model has the default pool only", graph);
        line(buf, len, &at, &n, t);
    }
    if (s->set.gc_threshold > 0) {
        snprintf(t, sizeof t, "garbage_collection_threshold:%g was set: the allocator's "
                 "garbage collection of cached blocks is not modelled", s->set.gc_threshold);
        line(buf, len, &at, &n, t);
    }
    if (expandable && plain)
        line(buf, len, &at, &n, "expandable and ordinary segments side by side");
    if (s->unknown_actions) {
        snprintf(t, sizeof t, "%zu event(s) with an action this reader does not know were left "
                 "out", s->unknown_actions);
        line(buf, len, &at, &n, t);
    }
    return n;
}

/* ---- frames ------------------------------------------------------------------------------ */

/* Frames of the allocator, the unwinder and the interpreter say nothing about the user's
 * code. */
static int internal_frame(const char *name, const char *file)
{
    static const char *const skip[] = {"CUDACachingAllocator", "torch::unwind", "Captured",
                                       "gather_with", "c10::", "_PyEval", "PyObject", "_PyObject",
                                       "PyVectorcall", "do_call_core", "slot_tp", "cfunction_",
                                       "method_vectorcall", "__libc", "_start", "Py_", "PyEval",
                                       "_PyRun", "PyRun", "wrap_kernel_functor", "at::_ops::",
                                       "torch::autograd::VariableType", "partial_vectorcall"};
    for (size_t i = 0; i < sizeof skip / sizeof *skip; i++)
        if (strstr(name, skip[i]))
            return 1;
    return strstr(file, "/torch/nn/modules/module.py") != NULL ||
           (strstr(file, "python3.") != NULL && strstr(file, "site-packages") == NULL);
}

size_t snap_top_frames(const snapshot *s, pk_ref frames, size_t max, pk_ref *out)
{
    const pk_doc *d = s->doc;
    size_t n = pk_len(d, frames), shown = 0;
    for (int pass = 0; pass < 2 && shown < max; pass++)
        for (size_t i = 0; i < n && shown < max; i++) {
            pk_ref fr = pk_item(d, frames, i);
            const char *name = pk_str(d, pk_get(d, fr, "name"), NULL);
            const char *file = pk_str(d, pk_get(d, fr, "filename"), NULL);
            if (!name)
                name = "?";
            if (!file)
                file = "?";
            size_t fl = strlen(file);
            int py = fl > 3 && strcmp(file + fl - 3, ".py") == 0;
            /* first pass: Python code; second: C++ frames that are not internals */
            if (pass == 0 ? !py || internal_frame(name, file) : py || internal_frame(name, file))
                continue;
            out[shown++] = fr;
        }
    return shown;
}

void snap_frame_fields(const snapshot *s, pk_ref fr, const char **name, const char **file,
                       int64_t *line)
{
    const pk_doc *d = s->doc;
    *name = pk_str(d, pk_get(d, fr, "name"), NULL);
    *file = pk_str(d, pk_get(d, fr, "filename"), NULL);
    if (!*name)
        *name = "?";
    if (!*file)
        *file = "?";
    *line = 0;
    opt_int(d, fr, "line", line, 0);
}

void snap_print_frames(const snapshot *s, pk_ref frames, int max, const char *indent, FILE *f)
{
    pk_ref top[16];
    size_t n = snap_top_frames(s, frames, max < 0 ? 0 : max > 16 ? 16 : (size_t)max, top);
    for (size_t i = 0; i < n; i++) {
        const char *name, *file;
        int64_t ln;
        snap_frame_fields(s, top[i], &name, &file, &ln);
        const char *base = strrchr(file, '/');
        fprintf(f, "%s%.100s%s  %s:%lld\n", indent, name, strlen(name) > 100 ? "..." : "",
                base ? base + 1 : file, (long long)ln);
    }
}
