/*
 * import_et_lifetimes: the real lifetimes of an Execution Trace's storages, and the kernels'
 * workspaces, from the [memory] events of the Kineto trace joined one to one (rules in
 * docs/import-pytorch.md, "Lifetimes from the Kineto memory events"):
 *  - an allocation belongs to the outermost op whose Kineto call, on the same thread, was
 *    running when it was made;
 *  - each new storage of an op (its outputs and its nested calls' outputs) takes the first
 *    unclaimed allocation of the op of its block size (512-byte rounding), else the smallest
 *    larger one within 1 MiB (a large block the allocator did not split);
 *  - an op's storages of one block size share its frees of that size in order: the earliest
 *    free to the storage the ET uses last earliest (the allocation order need not be the
 *    ET's: autocast casts a weight before the matmul allocates its output);
 *  - a matched storage is released after the op during which its block was freed, never
 *    before its last use in the ET (a block freed earlier was a wrong match: counted);
 *  - an allocation made and freed inside the op that no storage claimed is the kernel's own
 *    workspace: an output of the op released right after it, so it counts in the op's peak.
 */
#include <stdlib.h>
#include <string.h>

#include "import_et_lifetimes.h"
#include "import_et_ops_priv.h"
#include "mem_pair.h"

#define BLOCK_ROUND 512u            /* kMinBlockSize */
#define LARGE_SLACK (1u << 20)      /* kSmallSize: a large block keeps a smaller remainder */

uint64_t et_alloc_block(uint64_t size)
{
    if (size < BLOCK_ROUND)
        return BLOCK_ROUND;
    if (size > UINT64_MAX - BLOCK_ROUND)
        return size;
    return (size + BLOCK_ROUND - 1) / BLOCK_ROUND * BLOCK_ROUND;
}

static int cmp_memev(const void *a, const void *b)
{
    const et_memev *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->ev_idx != y->ev_idx)
        return x->ev_idx < y->ev_idx ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* An event of ctx's device (mem_pair.h): allocation or free; the others are left out. */
typedef struct dev_events {
    const et_memev *ev;
    int64_t device;
} dev_events;

static int dev_event(const void *ctx, size_t i, uint64_t *addr)
{
    const dev_events *d = ctx;
    const et_memev *e = &d->ev[i];
    if (e->device != d->device)
        return 0;
    *addr = e->addr;
    return e->bytes > 0 ? 1 : -1;
}

int et_allocs_pair(et_memev *ev, size_t n, int64_t device, et_alloc **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (n == 0)
        return 0;
    qsort(ev, n, sizeof *ev, cmp_memev);
    et_alloc *a = malloc(n * sizeof *a);
    size_t *pair = malloc(n * sizeof *pair);
    dev_events d = {ev, device};
    /* an allocation ends at its free, or where its address was allocated again (its free
     * is missing: freed by then) */
    if (!a || !pair || mem_pair(n, dev_event, &d, pair, NULL)) {
        free(a);
        free(pair);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (ev[i].device == device && ev[i].bytes > 0)
            a[m++] = (et_alloc){ev[i].ts, pair[i] == MEM_PAIR_NONE ? INT64_MAX : ev[pair[i]].ts,
                                ev[i].tid, (uint64_t)ev[i].bytes};
    free(pair);
    if (m == 0) {
        free(a);
        return 0;
    }
    *out = a;
    *n_out = m;
    return 0;
}

/* The first allocation made at or after ts. */
static size_t first_at(const et_trace *t, int64_t ts)
{
    size_t lo = 0, hi = t->n_allocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->allocs[mid].ts < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The unclaimed candidate for a storage of size bytes: exact block first, else the smallest
 * larger block within the slack; SIZE_MAX when none. */
static size_t claim(const et_trace *t, const size_t *cand, const uint8_t *used, size_t n,
                    uint64_t size)
{
    uint64_t want = et_alloc_block(size);
    size_t best = SIZE_MAX;
    for (size_t c = 0; c < n; c++) {
        uint64_t b = t->allocs[cand[c]].bytes;
        if (used[c] || b < want)
            continue;
        if (b == want)
            return c;
        if (b - want <= LARGE_SLACK && want > LARGE_SLACK &&
            (best == SIZE_MAX || b < t->allocs[cand[best]].bytes))
            best = c;
    }
    return best;
}

/* A workspace of bytes: a new storage output by the last rec, released right after it. */
static int add_workspace(et_events *e, uint64_t bytes)
{
    uint32_t r = (uint32_t)(e->recs.n - 1);
    rec *rp = &e->recs.v[r];
    if (rp->out_first + rp->n_out != e->outs.n || e->handles.n >= UINT32_MAX - 1)
        return 0; /* its outputs are not the last ones: cannot happen, leave it out */
    gen g = {bytes, (uint32_t)e->handles.n, r, NO_HANDLE, 0, 0, 0, 0, 0, 0, 0};
    handle hd = {(uint32_t)e->gens.n, r, 0, 0};
    gmt_output o = {(uint64_t)e->handles.n, bytes, -1};
    if (PUSH(e->gens, g) || PUSH(e->handles, hd) || PUSH(e->outs, o))
        return -1;
    rp->n_out++;
    return 0;
}

int et_lifetimes_op(et_events *e, uint32_t k, size_t gens_before, et_event_totals *tot)
{
    const et_trace *t = e->t;
    const et_op *op = &t->ops[k];
    size_t lo = first_at(t, op->kt_ts), n = 0;
    for (size_t i = lo; i < t->n_allocs && t->allocs[i].ts <= op->kt_end; i++)
        n += t->allocs[i].tid == op->kt_tid;
    if (n == 0)
        return 0;
    size_t *cand = malloc(n * sizeof *cand);
    uint8_t *used = calloc(n, 1);
    if (!cand || !used) {
        free(cand);
        free(used);
        return -1;
    }
    n = 0;
    for (size_t i = lo; i < t->n_allocs && t->allocs[i].ts <= op->kt_end; i++)
        if (t->allocs[i].tid == op->kt_tid)
            cand[n++] = i;
    tot->kt_allocs += n;
    size_t n_gens = e->gens.n;
    for (size_t g = gens_before; g < n_gens; g++) {
        gen *gp = &e->gens.v[g];
        if (gp->preexisting || gp->size == 0)
            continue;
        size_t c = claim(t, cand, used, n, gp->size);
        if (c == SIZE_MAX)
            continue;
        used[c] = 1;
        gp->freed_at_known = 1;
        gp->free_ts = t->allocs[cand[c]].free_ts;
        tot->kt_matched++;
    }
    int rc = 0;
    for (size_t c = 0; c < n && !rc; c++) {
        const et_alloc *a = &t->allocs[cand[c]];
        if (used[c])
            continue;
        if (a->free_ts > op->kt_end) {
            tot->kt_unmatched++;
            continue;
        }
        rc = add_workspace(e, a->bytes);
        tot->kt_workspaces++;
        if (a->bytes > tot->kt_workspace_max)
            tot->kt_workspace_max = a->bytes;
    }
    free(cand);
    free(used);
    return rc;
}

typedef struct claim_key {
    uint32_t op;     /* the ET op that made the storage */
    uint64_t block;  /* its block size */
    uint32_t last;   /* its last use (rec) */
    uint32_t gen;
    int64_t free_ts;
} claim_key;

static int cmp_claim(const void *a, const void *b)
{
    const claim_key *x = a, *y = b;
    if (x->op != y->op)
        return x->op < y->op ? -1 : 1;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    if (x->last != y->last)
        return x->last < y->last ? -1 : 1;
    return x->gen < y->gen ? -1 : x->gen > y->gen;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Within each group of one op's matched storages of one block size, the frees go in time
 * order to the storages in order of their last use. */
static int order_frees(et_events *e, const uint32_t *last)
{
    size_t n = 0;
    for (size_t g = 0; g < e->gens.n; g++)
        n += e->gens.v[g].freed_at_known;
    if (n < 2)
        return 0;
    claim_key *c = malloc(n * sizeof *c);
    int64_t *frees = malloc(n * sizeof *frees);
    if (!c || !frees) {
        free(c);
        free(frees);
        return -1;
    }
    n = 0;
    for (size_t g = 0; g < e->gens.n; g++) {
        const gen *gp = &e->gens.v[g];
        if (gp->freed_at_known)
            c[n++] = (claim_key){e->recs.v[gp->first_use].op, et_alloc_block(gp->size), last[g],
                                 (uint32_t)g, gp->free_ts};
    }
    qsort(c, n, sizeof *c, cmp_claim);
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && c[hi].op == c[lo].op && c[hi].block == c[lo].block; hi++)
            ;
        for (size_t i = lo; i < hi; i++)
            frees[i - lo] = c[i].free_ts;
        qsort(frees, hi - lo, sizeof *frees, cmp_i64);
        for (size_t i = lo; i < hi; i++)
            e->gens.v[c[i].gen].free_ts = frees[i - lo];
    }
    free(c);
    free(frees);
    return 0;
}

int et_lifetimes_apply(et_events *e, et_event_totals *tot)
{
    size_t nr = e->recs.n, ng = e->gens.n;
    if (nr == 0)
        return 0;
    int64_t *start = malloc(nr * sizeof *start);
    uint32_t *last = calloc(ng ? ng : 1, sizeof *last);
    if (!start || !last) {
        free(start);
        free(last);
        return -1;
    }
    /* each rec's start on the Kineto clock (a rec without a joined call takes the one before) */
    for (size_t r = 0; r < nr; r++) {
        const et_op *op = &e->t->ops[e->recs.v[r].op];
        int64_t prev = r ? start[r - 1] : INT64_MIN;
        start[r] = op->kt_joined && op->kt_ts > prev ? op->kt_ts : prev;
    }
    for (size_t h = 0; h < e->handles.n; h++) {
        uint32_t g = e->handles.v[h].gen;
        if (e->handles.v[h].last_use > last[g])
            last[g] = e->handles.v[h].last_use;
    }
    if (order_frees(e, last)) {
        free(start);
        free(last);
        return -1;
    }
    for (size_t g = 0; g < ng; g++) {
        const gen *gp = &e->gens.v[g];
        if (!gp->freed_at_known)
            continue;
        size_t lo = 0, hi = nr; /* recs started at or before the free */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (start[mid] <= gp->free_ts)
                lo = mid + 1;
            else
                hi = mid;
        }
        uint32_t j = lo ? (uint32_t)(lo - 1) : 0;
        if (j > last[g]) {
            e->handles.v[gp->base].last_use = j;
            tot->kt_later_frees++;
        } else if (j < last[g]) {
            tot->kt_early_frees++;
        }
    }
    free(start);
    free(last);
    return 0;
}
