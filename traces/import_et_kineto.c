/*
 * import_et_kineto: the Kineto join (import_et_kineto.h). The Kineto trace is parsed once with
 * jansson and reduced to a few records per event; the JSON tree is freed before the join.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import_et_kineto.h"
#include "import_et_lifetimes.h"
#include "kineto_mem.h"

#define KT_MIN_MATCHED 0.95 /* below this share of ET ops joined, the traces differ */

typedef struct kt_op {
    int64_t tid, ts, end; /* ns */
    uint32_t name;        /* index into kt_trace.names */
    uint32_t step;
    uint64_t gpu_ns;
} kt_op;

typedef struct kt_launch {
    int64_t corr, tid, ts;
    int64_t op; /* index into ops, -1 when no joined op holds it */
} kt_launch;

typedef struct kt_gpu {
    int64_t corr;
    uint64_t dur;
} kt_gpu;

struct kt_trace {
    const char **names; /* the ET's distinct op names, sorted */
    size_t n_names;
    kt_op *ops;         /* outermost CPU ops with an ET name, by start time */
    size_t n_ops, n_steps;
    et_alloc *allocs;   /* the CUDA [memory] events of the kernels' device, paired */
    size_t n_allocs;
    uint64_t *step_gpu; /* GPU time launched in each step */
    char device[128];
    kt_job job;
    size_t gpu_events, gpu_events_linked;
    uint64_t gpu_ns, gpu_ns_linked;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static long name_index(const kt_trace *k, const char *name)
{
    const char **hit = bsearch(&name, k->names, k->n_names, sizeof *k->names, cmp_str);
    return hit ? hit - k->names : -1;
}

/* Microseconds as ns; values beyond 4e18 ns (126 years) read as 0, so ts + dur cannot wrap. */
static int64_t ns(json_t *v)
{
    double x = json_is_number(v) ? json_number_value(v) * 1000.0 : 0;
    return x > -4e18 && x < 4e18 ? (int64_t)llround(x) : 0;
}

/* qsort that accepts an empty, NULL array */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

static int64_t int_of(json_t *v)
{
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int cmp_tid_ts(const void *a, const void *b)
{
    const kt_op *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end; /* the enclosing op first */
}

static int cmp_ts(const void *a, const void *b)
{
    const kt_op *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_corr(const void *a, const void *b)
{
    const kt_launch *x = a, *y = b;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 256;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* The raw records of one pass over traceEvents. */
typedef struct raw {
    kt_op *ops;
    size_t n_ops, cap_ops;
    kt_launch *launches;
    size_t n_launches, cap_launches;
    kt_gpu *gpu;
    size_t n_gpu, cap_gpu;
    int64_t *bounds; /* step boundaries (ns) */
    size_t n_bounds, cap_bounds;
    et_memev *mem;   /* CUDA [memory] events (profile_memory=True) */
    size_t n_mem, cap_mem;
    int profiler_steps; /* bounds are ProfilerStep starts (1) or Optimizer.step ends (0) */
} raw;

static void raw_free(raw *r)
{
    free(r->ops);
    free(r->launches);
    free(r->gpu);
    free(r->bounds);
    free(r->mem);
}

static int add_bound(raw *r, int64_t at, int profiler_step)
{
    if (profiler_step && !r->profiler_steps) { /* ProfilerStep marks win over Optimizer.step */
        r->n_bounds = 0;
        r->profiler_steps = 1;
    } else if (!profiler_step && r->profiler_steps) {
        return 0;
    }
    if (grow((void **)&r->bounds, &r->cap_bounds, r->n_bounds + 1, sizeof *r->bounds))
        return -1;
    r->bounds[r->n_bounds++] = at;
    return 0;
}

/* Folds a value v (-1: none) into *x: the first one seen, -2 once two differ. */
static void note(long long *x, int64_t v)
{
    if (v < 0 || v > INT32_MAX)
        return;
    if (*x == -1)
        *x = v;
    else if (*x != v)
        *x = -2;
}

/* A CUDA [memory] event (an instant event): kept for the lifetimes; others are left out. */
static int note_memory(raw *r, json_t *e)
{
    json_t *args = json_object_get(e, "args");
    int64_t addr = int_of(json_object_get(args, "Addr"));
    json_t *bytes = json_object_get(args, "Bytes");
    if (int_of(json_object_get(args, "Device Type")) != 1 || addr <= 0 ||
        !json_is_integer(bytes) || json_integer_value(bytes) == 0 ||
        !json_is_number(json_object_get(e, "ts")))
        return 0;
    if (grow((void **)&r->mem, &r->cap_mem, r->n_mem + 1, sizeof *r->mem))
        return -1;
    r->mem[r->n_mem] = (et_memev){ns(json_object_get(e, "ts")), int_of(json_object_get(e, "tid")),
                                  int_of(json_object_get(args, "Device Id")),
                                  int_of(json_object_get(args, "Ev Idx")), (uint64_t)addr,
                                  (int64_t)json_integer_value(bytes), r->n_mem};
    r->n_mem++;
    return 0;
}

static int collect(kt_trace *k, json_t *events, raw *r)
{
    size_t n = json_array_size(events);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(events, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *name = json_string_value(json_object_get(e, "name"));
        if (ph && strcmp(ph, "i") == 0 && name && strcmp(name, "[memory]") == 0) {
            if (note_memory(r, e))
                return -1;
            continue;
        }
        if (!ph || strcmp(ph, "X") != 0 || !cat)
            continue;
        json_t *args = json_object_get(e, "args");
        int64_t ts = ns(json_object_get(e, "ts")), dur = ns(json_object_get(e, "dur"));
        if (dur < 0)
            dur = 0;
        int is_cpu = strcmp(cat, "cpu_op") == 0;
        if (is_cpu)
            note(&k->job.pid, int_of(json_object_get(e, "pid")));
        if ((is_cpu || strcmp(cat, "user_annotation") == 0) && name) {
            if (starts(name, "ProfilerStep#") && add_bound(r, ts, 1))
                return -1;
            if (starts(name, "ProfilerStep#") && name[13] >= '0' && name[13] <= '9' &&
                strlen(name) < 30) {
                long long num = atoll(name + 13);
                if (k->job.step_first < 0 || num < k->job.step_first)
                    k->job.step_first = num;
                if (num > k->job.step_last)
                    k->job.step_last = num;
            }
            if (starts(name, "Optimizer.step") && add_bound(r, ts + dur, 0))
                return -1;
        }
        if (is_cpu && name) {
            long idx = name_index(k, name);
            if (idx < 0)
                continue;
            if (grow((void **)&r->ops, &r->cap_ops, r->n_ops + 1, sizeof *r->ops))
                return -1;
            r->ops[r->n_ops++] = (kt_op){int_of(json_object_get(e, "tid")), ts, ts + dur,
                                         (uint32_t)idx, 0, 0};
        } else if (strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0) {
            int64_t corr = int_of(json_object_get(args, "correlation"));
            if (corr < 0)
                continue;
            if (grow((void **)&r->launches, &r->cap_launches, r->n_launches + 1,
                     sizeof *r->launches))
                return -1;
            r->launches[r->n_launches++] =
                (kt_launch){corr, int_of(json_object_get(e, "tid")), ts, -1};
        } else if (strcmp(cat, "kernel") == 0 || strcmp(cat, "gpu_memcpy") == 0 ||
                   strcmp(cat, "gpu_memset") == 0) {
            if (grow((void **)&r->gpu, &r->cap_gpu, r->n_gpu + 1, sizeof *r->gpu))
                return -1;
            r->gpu[r->n_gpu++] = (kt_gpu){int_of(json_object_get(args, "correlation")),
                                          (uint64_t)dur};
            long long dev = -1;
            note(&dev, int_of(json_object_get(args, "device")));
            if (dev >= 0 && k->job.device != dev)
                k->job.device = k->job.device == -1 ? (int)dev : -2;
            k->gpu_events++;
            k->gpu_ns += (uint64_t)dur;
        }
    }
    return 0;
}

/* Keeps the outermost op of each thread (an op inside another's interval is nested). */
static void keep_outermost(raw *r)
{
    sort(r->ops, r->n_ops, sizeof *r->ops, cmp_tid_ts);
    size_t kept = 0;
    for (size_t i = 0; i < r->n_ops; i++) {
        if (kept && r->ops[kept - 1].tid == r->ops[i].tid && r->ops[i].ts < r->ops[kept - 1].end)
            continue;
        if (kept && r->ops[kept - 1].tid == r->ops[i].tid && r->ops[i].ts == r->ops[kept - 1].ts)
            continue; /* same start: nested with the same microsecond */
        r->ops[kept++] = r->ops[i];
    }
    r->n_ops = kept;
}

/* The op (sorted by tid, ts) on tid whose interval holds ts, or -1. */
static int64_t holder(const raw *r, int64_t tid, int64_t ts)
{
    size_t lo = 0, hi = r->n_ops; /* first op after (tid, ts) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const kt_op *o = &r->ops[mid];
        if (o->tid < tid || (o->tid == tid && o->ts <= ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    const kt_op *o = &r->ops[lo - 1];
    return o->tid == tid && ts <= o->end ? (int64_t)(lo - 1) : -1;
}

static size_t step_of(const raw *r, int64_t ts)
{
    size_t lo = 0, hi = r->n_bounds; /* boundaries at or before ts */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->bounds[mid] <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int link(kt_trace *k, raw *r)
{
    keep_outermost(r);
    sort(r->bounds, r->n_bounds, sizeof *r->bounds, cmp_i64);
    for (size_t i = 0; i < r->n_launches; i++)
        r->launches[i].op = holder(r, r->launches[i].tid, r->launches[i].ts);
    sort(r->launches, r->n_launches, sizeof *r->launches, cmp_corr);
    size_t n_steps = r->n_bounds + 1;
    k->step_gpu = calloc(n_steps, sizeof *k->step_gpu);
    if (!k->step_gpu)
        return -1;
    for (size_t i = 0; i < r->n_gpu; i++) {
        kt_launch key = {.corr = r->gpu[i].corr};
        const kt_launch *l = r->gpu[i].corr < 0 || !r->n_launches ? NULL
                                                : bsearch(&key, r->launches, r->n_launches,
                                                          sizeof *r->launches, cmp_corr);
        if (!l)
            continue;
        k->step_gpu[step_of(r, l->ts)] += r->gpu[i].dur;
        if (l->op < 0)
            continue;
        r->ops[l->op].gpu_ns += r->gpu[i].dur;
        k->gpu_events_linked++;
        k->gpu_ns_linked += r->gpu[i].dur;
    }
    for (size_t i = 0; i < r->n_ops; i++)
        r->ops[i].step = (uint32_t)step_of(r, r->ops[i].ts);
    sort(r->ops, r->n_ops, sizeof *r->ops, cmp_ts);
    /* steps that hold no joined op (a tail after the last boundary) are not steps; by start
     * time the ops' steps never decrease, and a kept step's index is at most its old one */
    size_t used = 0;
    uint32_t prev = UINT32_MAX;
    for (size_t i = 0; i < r->n_ops; i++) {
        if (r->ops[i].step != prev) {
            prev = r->ops[i].step;
            k->step_gpu[used++] = k->step_gpu[prev];
        }
        r->ops[i].step = (uint32_t)(used - 1);
    }
    k->n_steps = used;
    k->ops = r->ops;
    k->n_ops = r->n_ops;
    r->ops = NULL;
    /* the allocations of the device the kernels ran on (none when they ran on several) */
    if (k->job.device >= 0 && r->n_mem &&
        et_allocs_pair(r->mem, r->n_mem, k->job.device, &k->allocs, &k->n_allocs))
        return -1;
    return 0;
}

static int names_of(kt_trace *k, const et_trace *t)
{
    k->names = malloc((t->n_ops ? t->n_ops : 1) * sizeof *k->names);
    if (!k->names)
        return -1;
    for (size_t i = 0; i < t->n_ops; i++)
        k->names[i] = t->ops[i].name;
    qsort(k->names, t->n_ops, sizeof *k->names, cmp_str);
    size_t n = 0;
    for (size_t i = 0; i < t->n_ops; i++)
        if (!n || strcmp(k->names[n - 1], k->names[i]) != 0)
            k->names[n++] = k->names[i];
    k->n_names = n;
    return 0;
}

int kt_load_buffer(const char *buf, size_t len, const char *name, const et_trace *t,
                   kt_trace **out, gms_error *err)
{
    *out = NULL;
    json_error_t je;
    json_t *root = json_loadb(buf, len, 0, &je);
    if (!root)
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: line %d column %d: not JSON (%s): --kineto takes the "
                             "Chrome/Kineto trace that torch.profiler wrote in the ET's run",
                             name, je.line, je.column, je.text);
    json_t *events = json_object_get(root, "traceEvents");
    if (!json_is_array(events)) {
        json_decref(root);
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: not a Kineto trace (no \"traceEvents\" array): --kineto takes "
                             "the Chrome/Kineto trace that torch.profiler wrote in the ET's run",
                             name);
    }
    kt_trace *k = calloc(1, sizeof *k);
    raw r = {0};
    if (k) {
        json_t *di = json_object_get(root, "distributedInfo");
        json_t *rank = json_object_get(di, "rank"), *world = json_object_get(di, "world_size");
        k->job = (kt_job){-1, json_is_integer(rank) ? json_integer_value(rank) : -1,
                          json_is_integer(world) ? json_integer_value(world) : -1, -1, -1, -1};
    }
    int rc = !k || names_of(k, t) || collect(k, events, &r);
    if (!rc) {
        const char *dev = json_string_value(
            json_object_get(json_array_get(json_object_get(root, "deviceProperties"), 0), "name"));
        snprintf(k->device, sizeof k->device, "%s", dev ? dev : "unknown");
    }
    json_decref(root);
    if (!rc)
        rc = link(k, &r);
    raw_free(&r);
    if (rc) {
        kt_free(k);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", name);
    }
    if (!k->gpu_events) {
        kt_free(k);
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: the Kineto trace holds no GPU kernel, memcpy or memset (was it "
                             "recorded with ProfilerActivity.CUDA?): leave out --kineto to use "
                             "estimated costs",
                             name);
    }
    *out = k;
    return 0;
}

int kt_load(const char *path, const et_trace *t, kt_trace **out, gms_error *err)
{
    *out = NULL;
    char *buf;
    size_t len;
    int rc = kmem_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = kt_load_buffer(buf, len, path, t, out, err);
    free(buf);
    return rc;
}

const kt_job *kt_job_of(const kt_trace *k)
{
    return &k->job;
}

void kt_free(kt_trace *k)
{
    if (!k)
        return;
    free(k->names);
    free(k->ops);
    free(k->step_gpu);
    free(k->allocs);
    free(k);
}

/* ---- the join ---------------------------------------------------------------------------- */

typedef struct call {
    uint32_t name, k, step;
    uint64_t ns;
    size_t at; /* the Kineto op (kc only) */
} call;

static int cmp_call(const void *a, const void *b)
{
    const call *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return x->ns < y->ns ? -1 : x->ns > y->ns; /* sorted values give the median */
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int on_cuda(const et_trace *t, const et_op *op)
{
    for (int side = 0; side < 2; side++) {
        uint32_t first = side ? op->out_first : op->in_first, n = side ? op->n_out : op->n_in;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t i = 0; i < t->args[first + a].n; i++)
                if (t->tensors[t->args[first + a].first + i].cuda)
                    return 1;
    }
    return 0;
}

/* Numbers each call: the k-th call of its name in its step (steps: 0 for all when one). */
static void number(call *c, size_t n, size_t n_names, uint32_t *count, int one_step)
{
    uint32_t step = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        if (one_step)
            c[i].step = 0;
        if (c[i].step != step) {
            memset(count, 0, n_names * sizeof *count);
            step = c[i].step;
        }
        c[i].k = count[c[i].name]++;
    }
}

int et_kineto_join(et_trace *t, const kt_trace *k, const char *path, et_kineto_totals *tot,
                   gms_error *err)
{
    memset(tot, 0, sizeof *tot);
    snprintf(tot->device, sizeof tot->device, "%s", k->device);
    tot->gpu_events = k->gpu_events;
    tot->gpu_events_linked = k->gpu_events_linked;
    tot->gpu_ns = k->gpu_ns;
    tot->gpu_ns_linked = k->gpu_ns_linked;
    call *kc = malloc((k->n_ops ? k->n_ops : 1) * sizeof *kc);
    call *ec = malloc((t->n_ops ? t->n_ops : 1) * sizeof *ec);
    uint32_t *count = calloc(k->n_names ? k->n_names : 1, sizeof *count);
    uint32_t *kcount = calloc(k->n_names ? k->n_names : 1, sizeof *kcount);
    uint64_t *steps = malloc((k->n_steps ? k->n_steps : 1) * sizeof *steps);
    if (!kc || !ec || !count || !kcount || !steps) {
        free(kc), free(ec), free(count), free(kcount), free(steps);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    }
    /* one to one when the Kineto trace holds exactly the ET's calls, name by name */
    uint32_t step = 0;
    for (size_t i = 0; i < t->n_ops; i++) {
        if (t->ops[i].iter_start && i > 0)
            step++;
        long nm = name_index(k, t->ops[i].name);
        ec[i] = (call){(uint32_t)nm, 0, step, 0, 0};
        t->ops[i].kt_joined = 0;
        count[nm]++;
    }
    for (size_t i = 0; i < k->n_ops; i++) {
        kc[i] = (call){k->ops[i].name, 0, k->ops[i].step, k->ops[i].gpu_ns, i};
        kcount[k->ops[i].name]++;
    }
    /* one to one: the Kineto trace holds one step, or exactly the ET's calls name by name */
    int one = k->n_steps <= 1 || memcmp(count, kcount, k->n_names * sizeof *count) == 0;
    tot->join = one ? "one to one" : "step by step";
    tot->kineto_steps = one ? 1 : k->n_steps;
    number(ec, t->n_ops, k->n_names, count, one);
    number(kc, k->n_ops, k->n_names, count, one);
    sort(kc, k->n_ops, sizeof *kc, cmp_call);
    for (size_t i = 0; i < t->n_ops; i++) {
        et_op *op = &t->ops[i];
        if (!on_cuda(t, op))
            continue; /* left out of the events */
        size_t lo = 0, hi = k->n_ops; /* first Kineto call >= (name, k) */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (kc[mid].name < ec[i].name || (kc[mid].name == ec[i].name && kc[mid].k < ec[i].k))
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t end = lo;
        while (end < k->n_ops && kc[end].name == ec[i].name && kc[end].k == ec[i].k)
            end++;
        if (end == lo) {
            op->dur_ns = 0;
            op->has_cost = 0;
            tot->unmatched++;
            continue;
        }
        size_t m = end - lo; /* kc[lo..end) is sorted by time: the median */
        op->dur_ns = m % 2 ? kc[lo + m / 2].ns : (kc[lo + m / 2 - 1].ns + kc[lo + m / 2].ns) / 2;
        op->has_cost = 1;
        tot->matched++;
        if (one && m == 1) { /* the same call: its interval, for the lifetimes */
            const kt_op *ko = &k->ops[kc[lo].at];
            op->kt_ts = ko->ts;
            op->kt_end = ko->end;
            op->kt_tid = ko->tid;
            op->kt_joined = 1;
        }
    }
    /* the run's allocations go with the ET when the Kineto trace is of the same calls */
    free(t->allocs);
    t->allocs = NULL;
    t->n_allocs = 0;
    if (one && k->n_allocs) {
        t->allocs = malloc(k->n_allocs * sizeof *t->allocs);
        if (!t->allocs) {
            free(kc), free(ec), free(count), free(kcount), free(steps);
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
        }
        memcpy(t->allocs, k->allocs, k->n_allocs * sizeof *t->allocs);
        t->n_allocs = k->n_allocs;
    }
    size_t n_steps = one ? 0 : k->n_steps;
    if (n_steps)
        memcpy(steps, k->step_gpu, n_steps * sizeof *steps);
    sort(steps, n_steps, sizeof *steps, cmp_u64);
    tot->step_gpu_ns_median =
        one ? k->gpu_ns
            : (n_steps % 2 ? steps[n_steps / 2]
                           : (n_steps ? (steps[n_steps / 2 - 1] + steps[n_steps / 2]) / 2 : 0));
    free(kc), free(ec), free(count), free(kcount), free(steps);
    size_t all = tot->matched + tot->unmatched;
    if (all && (double)tot->matched < KT_MIN_MATCHED * (double)all)
        return gms_error_set(
            err, GMS_EFORMAT,
            "%s: this Kineto trace is not of the Execution Trace's run: only %zu of %zu ET ops "
            "on CUDA find a Kineto op of the same name and call number in a step (%s join, %zu "
            "Kineto steps, %zu%% needed); pass the Kineto trace torch.profiler recorded with "
            "this ET (the same model and training loop), or leave out --kineto to use "
            "estimated costs",
            path, tot->matched, all, tot->join, k->n_steps, (size_t)(KT_MIN_MATCHED * 100));
    return 0;
}
