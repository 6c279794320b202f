/* kineto_mem: a Kineto trace's [memory] events as an allocation-only trace (kineto_mem.h). */
#include "kineto_mem.h"

#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "mem_pair.h"

int kmem_read_file(const char *path, char **buf, size_t *len, gms_error *err)
{
    *buf = NULL;
    *len = 0;
    gzFile g = gzopen(path, "rb"); /* reads plain files as they are */
    if (!g)
        return gms_error_set(err, GMS_EIO, "%s: cannot open: %s", path,
                             errno ? strerror(errno) : "out of memory");
    size_t cap = 1 << 20, n = 0;
    char *b = malloc(cap + 1);
    int rc = 0;
    for (; b;) {
        if (n == cap) {
            char *nb = cap > (SIZE_MAX >> 2) ? NULL : realloc(b, 2 * cap + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        unsigned want = cap - n > (1u << 30) ? (1u << 30) : (unsigned)(cap - n);
        int got = gzread(g, b + n, want);
        if (got < 0) {
            int zerr;
            const char *msg = gzerror(g, &zerr);
            rc = gms_error_set(err, GMS_EFORMAT,
                               "%s: cannot decompress (%s): a truncated or damaged gzip file",
                               path, msg);
            break;
        }
        if (got == 0) { /* zlib reports a member cut short only through gzerror */
            int zerr;
            const char *msg = gzerror(g, &zerr);
            if (zerr != Z_OK)
                rc = gms_error_set(err, GMS_EFORMAT,
                                   "%s: cannot decompress (%s): a truncated or damaged gzip "
                                   "file; copy or download it again",
                                   path, msg);
            break;
        }
        n += (size_t)got;
    }
    if (!b && !rc)
        rc = gms_error_set(err, GMS_ENOMEM, "%s: out of memory reading the file", path);
    gzclose(g);
    if (rc) {
        free(b);
        return rc;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

const char *kmem_read_head(const char *path, char *buf, size_t len)
{
    struct stat st;
    if (len < 2 || len - 1 > INT_MAX || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    gzFile g = gzopen(path, "rb");
    if (!g)
        return NULL;
    int n = gzread(g, buf, (unsigned)(len - 1));
    gzclose(g);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    const char *p = buf;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

int kmem_sniff(const char *path)
{
    char head[4097];
    const char *p = kmem_read_head(path, head, sizeof head);
    if (!p || *p != '{')
        return 0;
    /* a Chrome trace object names its keys early; a DTR log line never has these */
    return strstr(p, "\"traceEvents\"") || strstr(p, "\"schemaVersion\"") ||
           strstr(p, "\"deviceProperties\"");
}

/* ---- reading ------------------------------------------------------------------------------ */

typedef struct raw {
    double ts;
    int64_t idx;
    kmem_event e;
} raw;

static int by_time(const void *a, const void *b)
{
    const raw *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

typedef struct pre_block {
    uint64_t addr, size;
    size_t event; /* the free that revealed it */
} pre_block;

static int by_addr(const void *a, const void *b)
{
    const pre_block *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int64_t arg_int(json_t *args, const char *key, int *ok)
{
    json_t *v = json_object_get(args, key);
    if (!json_is_integer(v)) {
        *ok = 0;
        return 0;
    }
    return (int64_t)json_integer_value(v);
}

/* Collects the CUDA memory events; picks the device with the most. */
static int collect(json_t *events, const char *path, kmem_trace *k, raw **out, size_t *n_out,
                   gms_error *err)
{
    size_t n_all = json_array_size(events), n = 0;
    raw *r = malloc((n_all ? n_all : 1) * sizeof *r);
    if (!r)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    int64_t devs[16];
    size_t dev_count[16] = {0}, n_devs = 0, cpu = 0;
    for (size_t i = 0; i < n_all; i++) {
        json_t *e = json_array_get(events, i);
        json_t *name = json_object_get(e, "name");
        if (!json_is_string(name) || strcmp(json_string_value(name), "[memory]") != 0)
            continue;
        json_t *args = json_object_get(e, "args");
        int ok = 1;
        int64_t type = arg_int(args, "Device Type", &ok);
        if (!ok || type != 1) {
            cpu++;
            continue;
        }
        int64_t dev = arg_int(args, "Device Id", &ok);
        int64_t addr = arg_int(args, "Addr", &ok);
        int64_t bytes = arg_int(args, "Bytes", &ok);
        int64_t ta = arg_int(args, "Total Allocated", &ok);
        int64_t tr = arg_int(args, "Total Reserved", &ok);
        json_t *ts = json_object_get(e, "ts");
        if (!ok || !json_is_number(ts) || addr <= 0 || bytes == 0 || ta < 0 || tr < 0) {
            free(r);
            return gms_error_set(err, GMS_EFORMAT,
                                 "%s: traceEvents[%zu]: a CUDA [memory] event without a valid "
                                 "Addr, Bytes, Total Allocated and Total Reserved (written by "
                                 "torch.profiler with profile_memory=True since PyTorch 1.10)",
                                 path, i);
        }
        size_t d = 0;
        while (d < n_devs && devs[d] != dev)
            d++;
        if (d == n_devs && n_devs < 16)
            devs[n_devs++] = dev;
        if (d < n_devs)
            dev_count[d]++;
        json_t *idx = json_object_get(args, "Ev Idx");
        r[n++] = (raw){json_number_value(ts), json_is_integer(idx) ? json_integer_value(idx) : 0,
                       {(uint64_t)addr, bytes, (uint64_t)ta, (uint64_t)tr, 0}};
        r[n - 1].e.id = (uint64_t)dev; /* the device, until the events are filtered */
    }
    if (n == 0) {
        free(r);
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: a Kineto trace without CUDA [memory] events; record it with "
                             "torch.profiler.profile(profile_memory=True, activities=[...CUDA])",
                             path);
    }
    size_t best = 0;
    for (size_t d = 1; d < n_devs; d++)
        if (dev_count[d] > dev_count[best])
            best = d;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if ((int64_t)r[i].e.id == devs[best])
            r[m++] = r[i];
    k->device = (int)devs[best];
    k->other_events = cpu + (n - m);
    qsort(r, m, sizeof *r, by_time);
    *out = r;
    *n_out = m;
    return 0;
}

/* A raw event for mem_pair.h: every event here is of the chosen device. */
static int raw_event(const void *ctx, size_t i, uint64_t *addr)
{
    const raw *r = ctx;
    *addr = r[i].e.addr;
    return r[i].e.bytes > 0 ? 1 : -1;
}

/* Pairs frees with allocations, finds the blocks that existed before the first event and
 * numbers the tensors. An allocation at an address still open keeps the earlier one live
 * (never released: its free is not in the trace). */
static int link_frees(kmem_trace *k, raw *r, size_t n, const char *path, gms_error *err)
{
    k->ev = malloc(n * sizeof *k->ev);
    pre_block *pre = malloc(n * sizeof *pre);
    size_t *pair = malloc(n * sizeof *pair);
    if (!k->ev || !pre || !pair || mem_pair(n, raw_event, r, pair, NULL)) {
        free(pre);
        free(pair);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    }
    k->initial_allocated = (uint64_t)((int64_t)r[0].e.total_allocated - r[0].e.bytes);
    k->initial_reserved = r[0].e.total_reserved;
    size_t n_pre = 0;
    uint64_t next_id = 0; /* provisional ids; renumbered below */
    for (size_t i = 0; i < n; i++) {
        kmem_event e = r[i].e;
        if (e.total_allocated > k->peak_allocated)
            k->peak_allocated = e.total_allocated;
        if (e.total_reserved > k->peak_reserved)
            k->peak_reserved = e.total_reserved;
        uint64_t id;
        if (e.bytes > 0) {
            id = ++next_id;
        } else if (pair[i] != MEM_PAIR_NONE) {
            id = k->ev[pair[i]].id; /* its allocation, numbered before it */
        } else {
            pre[n_pre++] = (pre_block){e.addr, (uint64_t)-e.bytes, i};
            id = 0; /* set below */
        }
        e.id = id;
        k->ev[i] = e;
    }
    free(pair);
    k->n = n;
    /* ids: preexisting 1..n_pre (address order), the rest n_pre + 1, cached-free n_pre + 2,
     * the trace's own allocations from n_pre + 3 on */
    qsort(pre, n_pre, sizeof *pre, by_addr);
    k->pre_sizes = malloc((n_pre ? n_pre : 1) * sizeof *k->pre_sizes);
    if (!k->pre_sizes) {
        free(pre);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    }
    for (size_t i = 0; i < n; i++)
        if (k->ev[i].id)
            k->ev[i].id += n_pre + 2;
    for (size_t j = 0; j < n_pre; j++) {
        k->pre_sizes[j] = pre[j].size;
        k->ev[pre[j].event].id = j + 1;
    }
    k->n_pre = n_pre;
    free(pre);
    return 0;
}

int kmem_load(const char *path, kmem_trace **out, gms_error *err)
{
    *out = NULL;
    char *buf;
    size_t len;
    int rc = kmem_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    json_error_t je;
    json_t *root = json_loadb(buf, len, 0, &je);
    free(buf);
    if (!root)
        return gms_error_set(err, GMS_EFORMAT, "%s: line %d: not JSON: %s", path, je.line,
                             je.text);
    json_t *events = json_object_get(root, "traceEvents");
    if (!json_is_array(events)) {
        json_decref(root);
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: no traceEvents array: not a Kineto/Chrome trace", path);
    }
    kmem_trace *k = calloc(1, sizeof *k);
    if (!k) {
        json_decref(root);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    }
    raw *r = NULL;
    size_t n = 0;
    rc = collect(events, path, k, &r, &n, err);
    if (!rc) {
        json_t *props = json_object_get(root, "deviceProperties");
        for (size_t i = 0; i < json_array_size(props); i++) {
            json_t *p = json_array_get(props, i);
            json_t *id = json_object_get(p, "id"), *name = json_object_get(p, "name");
            if (json_is_integer(id) && json_integer_value(id) == k->device &&
                json_is_string(name))
                snprintf(k->device_name, sizeof k->device_name, "%s", json_string_value(name));
        }
        rc = link_frees(k, r, n, path, err);
    }
    free(r);
    json_decref(root);
    if (rc) {
        kmem_free(k);
        return rc;
    }
    uint64_t pre = 0;
    for (size_t j = 0; j < k->n_pre; j++)
        pre += k->pre_sizes[j];
    k->pre_rest = k->initial_allocated > pre ? k->initial_allocated - pre : 0;
    *out = k;
    return 0;
}

void kmem_free(kmem_trace *k)
{
    if (!k)
        return;
    free(k->ev);
    free(k->pre_sizes);
    free(k);
}
