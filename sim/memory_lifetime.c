/*
 * memory_lifetime: SmartPool (Zhang et al., "Efficient Memory Management for GPU-based Deep
 * Learning Systems", arXiv 1903.06631, section 3), a memory pool planned offline from the
 * tensors' known lifetimes in an iteration-repetitive job.
 *
 * Plan (at create, from the trace's schedule as the unconstrained replay runs it): each
 * storage lives from the schedule step that computes it to the step that releases its last
 * reference (or to the end: pinned and never-released storages). Offsets are assigned so that
 * storages whose lifetimes overlap never overlap in addresses, storages in this order: those
 * whose lifetime crosses an iteration boundary first (the paper's cross-iteration variables),
 * then by size, largest first; each gets the best-fitting gap (the smallest that holds it)
 * among the storages already placed that overlap it in time, or with first_fit the lowest.
 * The arena the plan needs is the largest offset + size; the lower bound of any placement is
 * the most bytes live at once.
 *
 * Run: a storage that becomes resident takes its planned offset when that range is free and
 * within the budget. Under a budget the policy's evictions and rematerializations change
 * lifetimes, so the planned range may be held by another storage or a recomputed storage may
 * come back outside its planned life: then it takes the best-fitting free gap below the
 * budget, and when none holds it the engine evicts (docs/memory.md says why this keeps the
 * model honest: the plan is never patched, a conflict costs an eviction). Reserved bytes are
 * the high-water mark of the addresses used.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "sim_internal.h"

typedef struct live_block {
    uint64_t addr, size;
    uint32_t owner;
} live_block;

typedef struct lifetime {
    uint64_t limit;
    uint64_t *plan;     /* per storage: planned offset */
    uint64_t arena;     /* the plan's arena size */
    uint64_t bound;     /* max live bytes at once */
    live_block *live;   /* allocated blocks sorted by address */
    uint32_t nlive, caplive;
    const sim_trace *tr;
    sim_memory_stats st;
} lifetime;

typedef struct span {
    uint32_t s;
    uint32_t birth, death;
    uint8_t cross;
} span;

static int by_priority(const void *a, const void *b, void *ctx)
{
    const span *x = a, *y = b;
    const sim_trace *tr = ctx;
    if (x->cross != y->cross)
        return x->cross ? -1 : 1;
    uint64_t sx = tr->storages[x->s].size, sy = tr->storages[y->s].size;
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return x->birth < y->birth ? -1 : x->birth > y->birth;
}

/* Lifetimes from the schedule (steps = schedule positions). */
static span *lifetimes(const sim_trace *tr, uint32_t *n_out)
{
    span *sp = calloc((size_t)tr->n_storages + 1, sizeof *sp);
    uint32_t *iter_before = calloc((size_t)tr->n_schedule + 1, sizeof *iter_before);
    if (!sp || !iter_before) {
        free(sp);
        free(iter_before);
        return NULL;
    }
    uint32_t iters = 0;
    for (uint32_t s = 0; s < tr->n_storages; s++)
        sp[s] = (span){.s = s, .birth = UINT32_MAX, .death = tr->n_schedule};
    for (uint32_t i = 0; i < tr->n_schedule; i++) {
        uint32_t e = tr->schedule[i];
        iter_before[i] = iters;
        switch (SCH_KIND(e)) {
        case SCH_COMPUTE: {
            const sim_op *op = &tr->ops[SCH_INDEX(e)];
            for (uint32_t k = 0; k < op->n_out; k++) {
                const sim_tensor *te = &tr->tensors[op->out_first + k];
                if (!te->is_view && sp[te->storage].birth == UINT32_MAX)
                    sp[te->storage].birth = i;
            }
            break;
        }
        case SCH_RELEASE_LAST:
            sp[SCH_INDEX(e)].death = i;
            break;
        case SCH_PIN:
            sp[tr->tensors[SCH_INDEX(e)].storage].death = tr->n_schedule;
            break;
        case SCH_ITERATION:
            iters++;
            break;
        }
    }
    iter_before[tr->n_schedule] = iters;
    uint32_t n = 0;
    for (uint32_t s = 0; s < tr->n_storages; s++) {
        if (sp[s].birth == UINT32_MAX)
            continue;
        sp[s].cross = iter_before[sp[s].death] != iter_before[sp[s].birth] ||
                      sp[s].death == tr->n_schedule;
        sp[n++] = sp[s];
    }
    free(iter_before);
    *n_out = n;
    return sp;
}

/* qsort_r is not C11: a plain insertion-free merge sort with a context. */
static void sort_spans(span *a, span *tmp, uint32_t n, const sim_trace *tr)
{
    if (n < 2)
        return;
    uint32_t h = n / 2;
    sort_spans(a, tmp, h, tr);
    sort_spans(a + h, tmp, n - h, tr);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = by_priority(&a[j], &a[i], (void *)tr) < 0 ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, (size_t)n * sizeof *a);
}

/* The gap for `size` among the address-sorted blocks busy[0..n): best fit (smallest gap that
 * holds it, lowest address on ties) or first fit; the end of the highest block otherwise. */
static uint64_t find_gap(const live_block *busy, uint32_t n, uint64_t size, int first_fit,
                         uint64_t cap, int *found)
{
    uint64_t pos = 0, best = 0, best_len = 0;
    *found = 0;
    for (uint32_t i = 0; i <= n; i++) {
        uint64_t end = i < n ? busy[i].addr : UINT64_MAX;
        if (end > pos && end - pos >= size && pos + size <= cap &&
            (!*found || end - pos < best_len)) {
            best = pos;
            best_len = end - pos;
            *found = 1;
            if (first_fit)
                break;
        }
        if (i < n && busy[i].addr + busy[i].size > pos)
            pos = busy[i].addr + busy[i].size;
    }
    return best;
}

static int plan(lifetime *L, const sim_trace *tr, int first_fit)
{
    uint32_t n = 0;
    span *sp = lifetimes(tr, &n);
    span *tmp = malloc(((size_t)n + 1) * sizeof *tmp);
    live_block *busy = malloc(((size_t)n + 1) * sizeof *busy);
    uint32_t *by_offset = malloc(((size_t)n + 1) * sizeof *by_offset); /* placed, by offset */
    if (!sp || !tmp || !busy || !by_offset) {
        free(sp), free(tmp), free(busy), free(by_offset);
        return -1;
    }
    sort_spans(sp, tmp, n, tr);
    L->arena = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t size = tr->storages[sp[i].s].size;
        /* the placed spans that overlap this one in time, already in offset order (kept
         * sorted as they are placed: no sort per storage) */
        uint32_t nb = 0;
        for (uint32_t j = 0; j < i; j++) {
            const span *o = &sp[by_offset[j]];
            if (o->birth < sp[i].death && sp[i].birth < o->death)
                busy[nb++] = (live_block){L->plan[o->s], tr->storages[o->s].size, o->s};
        }
        int found;
        uint64_t off = find_gap(busy, nb, size, first_fit, UINT64_MAX, &found);
        L->plan[sp[i].s] = off;
        if (off + size > L->arena)
            L->arena = off + size;
        uint32_t lo = 0, hi = i; /* insert i into by_offset */
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (L->plan[sp[by_offset[mid]].s] <= off)
                lo = mid + 1;
            else
                hi = mid;
        }
        memmove(by_offset + lo + 1, by_offset + lo, (size_t)(i - lo) * sizeof *by_offset);
        by_offset[lo] = i;
    }
    free(by_offset);
    /* the lower bound: most bytes live at once over the schedule steps */
    uint64_t *delta = calloc((size_t)tr->n_schedule + 2, sizeof *delta);
    uint64_t *minus = calloc((size_t)tr->n_schedule + 2, sizeof *minus);
    if (delta && minus) {
        for (uint32_t i = 0; i < n; i++) {
            uint64_t size = tr->storages[sp[i].s].size;
            delta[sp[i].birth] += size;
            minus[sp[i].death] += size;
        }
        uint64_t cur = 0;
        for (uint32_t i = 0; i <= tr->n_schedule; i++) {
            cur -= minus[i];
            cur += delta[i];
            if (cur > L->bound)
                L->bound = cur;
        }
    }
    int rc = delta && minus ? 0 : -1;
    free(delta), free(minus), free(sp), free(tmp), free(busy);
    return rc;
}

static int lifetime_create(const sim_memory_options *o, uint64_t limit, const void *trace,
                           void **state, gms_error *err)
{
    const sim_trace *tr = trace;
    if (!tr)
        return gms_error_set(err, GMS_EINVAL, "the lifetime pool is planned from a trace");
    lifetime *L = calloc(1, sizeof *L);
    if (!L || !(L->plan = calloc((size_t)tr->n_storages + 1, sizeof *L->plan))) {
        free(L);
        return gms_error_set(err, GMS_ENOMEM, "out of memory planning the lifetime pool");
    }
    L->limit = limit;
    L->tr = tr;
    if (plan(L, tr, o->first_fit)) {
        free(L->plan);
        free(L);
        return gms_error_set(err, GMS_ENOMEM, "out of memory planning the lifetime pool");
    }
    *state = L;
    return 0;
}

static void lifetime_destroy(void *state)
{
    lifetime *L = state;
    if (!L)
        return;
    free(L->plan);
    free(L->live);
    free(L);
}

/* Index of the first live block with addr >= a. */
static uint32_t live_lower(const lifetime *L, uint64_t a)
{
    uint32_t lo = 0, hi = L->nlive;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (L->live[mid].addr < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int range_free(const lifetime *L, uint64_t a, uint64_t size)
{
    uint32_t i = live_lower(L, a);
    if (i < L->nlive && L->live[i].addr < a + size)
        return 0;
    if (i > 0 && L->live[i - 1].addr + L->live[i - 1].size > a)
        return 0;
    return 1;
}

static int lifetime_reserve(void *state, uint64_t size, uint32_t owner, uint32_t *handle)
{
    lifetime *L = state;
    *handle = SIM_MEM_NONE;
    if (size == 0)
        return 0;
    uint64_t a = L->plan[owner];
    int ok = a + size <= L->limit && range_free(L, a, size);
    if (!ok)
        a = find_gap(L->live, L->nlive, size, 0, L->limit, &ok);
    if (!ok)
        return 1;
    if (L->nlive == L->caplive) {
        uint32_t c = L->caplive ? 2 * L->caplive : 64;
        live_block *p = realloc(L->live, (size_t)c * sizeof *p);
        if (!p)
            return -1;
        L->live = p;
        L->caplive = c;
    }
    uint32_t i = live_lower(L, a);
    memmove(L->live + i + 1, L->live + i, (size_t)(L->nlive - i) * sizeof *L->live);
    L->live[i] = (live_block){a, size, owner};
    L->nlive++;
#ifndef NDEBUG
    for (uint32_t j = 1; j < L->nlive; j++) /* blocks never overlap */
        assert(L->live[j - 1].addr + L->live[j - 1].size <= L->live[j].addr);
#endif
    L->st.allocated += size;
    L->st.requested += size;
    if (a + size > L->st.reserved) {
        L->st.reserved = a + size;
        L->st.segments = 1;
        L->st.device_allocs++;
    }
    *handle = owner;
    return 0;
}

static void lifetime_release(void *state, uint32_t owner)
{
    lifetime *L = state;
    if (owner == SIM_MEM_NONE)
        return;
    uint32_t i = live_lower(L, L->plan[owner]);
    /* the block sits at its planned offset, or wherever the fallback put it */
    if (!(i < L->nlive && L->live[i].owner == owner))
        for (i = 0; i < L->nlive && L->live[i].owner != owner; i++)
            ;
    if (i == L->nlive)
        return;
    L->st.allocated -= L->live[i].size;
    L->st.requested -= L->live[i].size;
    memmove(L->live + i, L->live + i + 1, (size_t)(L->nlive - i - 1) * sizeof *L->live);
    L->nlive--;
}

static void lifetime_stats(const void *state, sim_memory_stats *out)
{
    const lifetime *L = state;
    *out = L->st;
    uint64_t pos = 0, lf = 0;
    for (uint32_t i = 0; i < L->nlive; i++) {
        if (L->live[i].addr > pos && L->live[i].addr - pos > lf)
            lf = L->live[i].addr - pos;
        pos = L->live[i].addr + L->live[i].size;
    }
    if (L->st.reserved > pos && L->st.reserved - pos > lf)
        lf = L->st.reserved - pos;
    out->largest_free = lf;
}

static sim_mem_block lifetime_block(const void *state, uint32_t owner)
{
    const lifetime *L = state;
    for (uint32_t i = 0; i < L->nlive; i++)
        if (L->live[i].owner == owner)
            return (sim_mem_block){L->live[i].addr, L->live[i].size, owner, 0};
    return (sim_mem_block){.owner = SIM_MEM_NONE};
}

static uint64_t lifetime_free_around(const void *state, uint32_t owner)
{
    const lifetime *L = state;
    for (uint32_t i = 0; i < L->nlive; i++)
        if (L->live[i].owner == owner) {
            uint64_t lo = i ? L->live[i - 1].addr + L->live[i - 1].size : 0;
            uint64_t hi = i + 1 < L->nlive ? L->live[i + 1].addr : L->st.reserved;
            uint64_t end = L->live[i].addr + L->live[i].size;
            return (L->live[i].addr - lo) + (hi > end ? hi - end : 0);
        }
    return 0;
}

static size_t lifetime_list(const void *state, sim_mem_block *out, size_t cap)
{
    const lifetime *L = state;
    size_t n = 0;
    uint64_t pos = 0;
    for (uint32_t i = 0; i <= L->nlive; i++) {
        uint64_t end = i < L->nlive ? L->live[i].addr : L->st.reserved;
        if (end > pos) {
            if (n < cap)
                out[n] = (sim_mem_block){pos, end - pos, SIM_MEM_NONE, 0};
            n++;
        }
        if (i < L->nlive) {
            if (n < cap)
                out[n] = (sim_mem_block){L->live[i].addr, L->live[i].size, L->live[i].owner, 0};
            n++;
            pos = L->live[i].addr + L->live[i].size;
        }
    }
    return n;
}

/* The plan's arena and the live-bytes lower bound of a trace (for reports and tests). */
int sim_lifetime_plan(const sim_trace *tr, int first_fit, uint64_t *arena, uint64_t *bound,
                      gms_error *err)
{
    sim_memory_options o;
    sim_memory_options_init(&o);
    o.first_fit = first_fit;
    void *st;
    int rc = lifetime_create(&o, UINT64_MAX, tr, &st, err);
    if (rc)
        return rc;
    *arena = ((lifetime *)st)->arena;
    *bound = ((lifetime *)st)->bound;
    lifetime_destroy(st);
    return 0;
}

const sim_memory_model sim_memory_lifetime = {
    .name = "lifetime",
    .description = "SmartPool: offsets planned offline from the tensors' lifetimes (best fit)",
    .create = lifetime_create,
    .destroy = lifetime_destroy,
    .reserve = lifetime_reserve,
    .release = lifetime_release,
    .stats = lifetime_stats,
    .block = lifetime_block,
    .free_around = lifetime_free_around,
    .list_blocks = lifetime_list,
};
