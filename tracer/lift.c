/* trc_lift: raw tracer records -> gmt events (rules in lift.h and docs/tracer.md). */
#include "lift.h"
#include "lift_int.h"
#include "trc_amap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Order classes for records with equal timestamps. */
enum { CLS_RANGE_START = 0, CLS_ALLOC = 1, CLS_LAUNCH = 2, CLS_FREE = 3, CLS_RANGE_END = 4 };

typedef struct item {
    uint64_t ts;
    uint32_t cls;
    size_t seq;    /* file order, the last tie-break */
    size_t rec;    /* the record (launch, kernel, alloc, free, marker) */
    size_t kernel; /* LAUNCH: matched kernel record or SIZE_MAX */
} item;

typedef struct alloc_inst {
    uint64_t addr, bytes;
    uint64_t ts; /* allocation time */
    uint64_t tensor; /* gmt tensor id once emitted (CONSTANT or output), else 0 */
    int live;
} alloc_inst;

typedef struct open_range {
    uint64_t id, thread;
    const char *name;
} open_range;

typedef struct lifter {
    const trc_rec *recs;
    const trc_sink *sink;
    const trc_lift_opts *opts;
    trc_lift_stats *st;
    gms_error *err;
    alloc_inst *inst;
    size_t n_inst;
    trc_amap live; /* live allocations by address; tag = instance index */
    uint64_t live_bytes;
    open_range *ranges;
    size_t n_ranges;
    size_t *corr_sorted; /* kernel/memcpy/memset record indices sorted by correlation id */
    size_t n_kernels;
    size_t *data_sorted; /* marker data record indices sorted by marker id */
    size_t n_data;
    size_t *free_sorted; /* free record indices (the kept view) by address, then time */
    size_t n_free;
    uint64_t first_iter_end; /* end of the first iteration (0: no iterations marked) */
    size_t *alloc_sorted;    /* allocation record indices (the kept view) by address */
    uint64_t *alloc_pmax;    /* prefix maximum of their end addresses */
    size_t n_alloc;
    uint64_t now;            /* the time of the item being processed */
    int drop_past_end;       /* opts->drop_past_end */
    /* the op in flight */
    int pending;
    uint64_t op_range; /* range id + 1, 0 = outside any range */
    char op_name[256];
    uint64_t op_dur;
    size_t *op_refs; /* instance indices, first-reference order, no duplicates */
    size_t n_op_refs, cap_op_refs;
    size_t *releases; /* frees seen while the op was in flight */
    size_t n_releases;
    int seen_boundary;   /* constants emitted: the first iteration start or first kernel */
    int has_iterations;  /* some range is an iteration range: it marks the boundary */
    int ignore_threads;  /* marker and launch thread ids never match: ids of different kinds */
    /* event scratch */
    uint64_t *ev_inputs;
    gmt_output *ev_outputs;
} lifter;

static const trc_rec *g_sort_recs; /* qsort has no context argument */

/* An empty event of the given kind (what gmt_event_init does; kept local so the lifter needs
 * nothing from the traces library but the header). */
static void ev_init(gmt_event *ev, gmt_kind kind)
{
    memset(ev, 0, sizeof *ev);
    ev->kind = kind;
}

static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_corr(const void *a, const void *b)
{
    uint64_t x = g_sort_recs[*(const size_t *)a].corr, y = g_sort_recs[*(const size_t *)b].corr;
    return x < y ? -1 : x > y;
}

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = g_sort_recs[*(const size_t *)a].id, y = g_sort_recs[*(const size_t *)b].id;
    return x < y ? -1 : x > y;
}

/* Binary search in idx (sorted by key) for a record whose key is k; SIZE_MAX if none. */
static size_t find_by(const trc_rec *recs, const size_t *idx, size_t n, uint64_t k, int by_corr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v = by_corr ? recs[idx[mid]].corr : recs[idx[mid]].id;
        if (v < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && (by_corr ? recs[idx[lo]].corr : recs[idx[lo]].id) == k)
        return idx[lo];
    return SIZE_MAX;
}

static int emit(lifter *L, const gmt_event *ev)
{
    int rc = L->sink->event(L->sink->ctx, ev, L->err);
    if (rc == 0) {
        L->st->events++;
        if (ev->kind == GMT_CALL)
            L->st->ops++;
    }
    return rc;
}

/* Index in live of the first entry whose address is >= addr. */
/* The live allocation containing address p (anywhere inside it), or SIZE_MAX. */
static size_t live_find(const lifter *L, uint64_t p)
{
    trc_amap_range r;
    return trc_amap_find(&L->live, p, &r) ? (size_t)r.tag : SIZE_MAX;
}

static int emit_release(lifter *L, size_t inst)
{
    if (!L->inst[inst].tensor)
        return 0; /* never became a tensor (not referenced by any op) */
    gmt_event ev;
    ev_init(&ev, GMT_RELEASE);
    ev.id = L->inst[inst].tensor;
    L->st->releases++;
    return emit(L, &ev);
}

/* Emits the op in flight as one CALL: referenced allocations that are already tensors are its
 * inputs, the others become its outputs. Then emits the frees seen meanwhile. */
static int flush_op(lifter *L)
{
    if (!L->pending)
        return 0;
    L->pending = 0;
    uint32_t n_in = 0, n_out = 0;
    for (size_t i = 0; i < L->n_op_refs; i++) {
        alloc_inst *a = &L->inst[L->op_refs[i]];
        if (a->tensor) {
            L->ev_inputs[n_in++] = a->tensor;
        } else {
            a->tensor = L->op_refs[i] + 1;
            L->ev_outputs[n_out].id = a->tensor;
            L->ev_outputs[n_out].size = a->bytes;
            L->ev_outputs[n_out].alias_of = -1;
            n_out++;
        }
    }
    gmt_event ev;
    ev_init(&ev, GMT_CALL);
    ev.op = L->op_name;
    ev.dur_ns = L->op_dur;
    ev.n_inputs = n_in;
    ev.inputs = L->ev_inputs;
    ev.n_outputs = n_out;
    ev.outputs = L->ev_outputs;
    L->st->outputs += n_out;
    L->n_op_refs = 0;
    int rc = emit(L, &ev);
    for (size_t i = 0; rc == 0 && i < L->n_releases; i++)
        rc = emit_release(L, L->releases[i]);
    L->n_releases = 0;
    return rc;
}

/* 1 when the allocation a (live now) is freed before the first iteration ends. */
static int freed_later(const lifter *L, const alloc_inst *a)
{
    size_t lo = 0, hi = L->n_free;
    while (lo < hi) { /* first free with (addr, ts) >= (a->addr, a->ts) */
        size_t mid = lo + (hi - lo) / 2;
        const trc_rec *f = &L->recs[L->free_sorted[mid]];
        if (f->addr < a->addr || (f->addr == a->addr && f->ts < a->ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < L->n_free && L->recs[L->free_sorted[lo]].addr == a->addr &&
           L->recs[L->free_sorted[lo]].ts < L->first_iter_end;
}

/* When the first iteration ends: its range's end, else the next iteration mark; 0 when the
 * job marks no iterations or the first one never ends. */
static uint64_t first_iteration_end(const lifter *L, size_t n)
{
    const trc_rec *first = NULL;
    for (size_t i = 0; i < n; i++) {
        const trc_rec *r = &L->recs[i];
        if (r->type == TRC_REC_MARKER && (r->flags & TRC_MARK_END) == 0 &&
            trc_is_iteration(r->name, NULL) && trc_lift_domain_wanted(L->opts, r->text) &&
            (!first || r->ts < first->ts))
            first = r;
    }
    if (!first)
        return 0;
    uint64_t end = 0;
    for (size_t i = 0; i < n; i++) {
        const trc_rec *r = &L->recs[i];
        if (r->type != TRC_REC_MARKER || r->ts < first->ts || r == first)
            continue;
        int ends_it = (first->flags & TRC_MARK_START) && (r->flags & TRC_MARK_END) &&
                      r->id == first->id;
        int next = (r->flags & TRC_MARK_END) == 0 && trc_is_iteration(r->name, NULL) &&
                   trc_lift_domain_wanted(L->opts, r->text);
        if ((ends_it || next) && (end == 0 || r->ts < end))
            end = r->ts;
    }
    return end;
}

/* The boundary (the first iteration start, or the first kernel when the job marks no
 * iterations): every device allocation alive now was made by the job's setup (weights,
 * optimizer state, inputs copied from the host); they become CONSTANTs in address order,
 * except those the job frees before the first iteration ends (warm-up gradients that
 * zero_grad(set_to_none=True) drops inside the first iteration, the last batch or loss Python
 * still held): they are not constants (a replay pins constants for good): they are the outputs of
 * one zero-input, zero-cost "setup_state" CALL, released when the job frees them. */
static int emit_constants(lifter *L)
{
    L->seen_boundary = 1;
    size_t n_state = 0;
    gmt_output *state = NULL;
    for (size_t bi = 0; bi < L->live.n_blocks; bi++)
    for (size_t j = 0; j < L->live.blocks[bi]->n; j++) {
        size_t k = (size_t)L->live.blocks[bi]->e[j].tag;
        alloc_inst *a = &L->inst[k];
        a->tensor = k + 1;
        if (freed_later(L, a)) {
            if (!state && !(state = malloc(L->live.count * sizeof *state)))
                return gms_error_set(L->err, GMS_ENOMEM, "lifter: out of memory");
            state[n_state++] = (gmt_output){.id = a->tensor, .size = a->bytes, .alias_of = -1};
            continue;
        }
        gmt_event ev;
        ev_init(&ev, GMT_CONSTANT);
        ev.id = a->tensor;
        ev.size = a->bytes;
        L->st->constants++;
        int rc = emit(L, &ev);
        if (rc) {
            free(state);
            return rc;
        }
    }
    int rc = 0;
    if (n_state) {
        gmt_event ev;
        ev_init(&ev, GMT_CALL);
        ev.op = "setup_state";
        ev.n_outputs = (uint32_t)n_state;
        ev.outputs = state;
        L->st->setup_state += n_state;
        L->st->outputs += n_state;
        rc = emit(L, &ev);
    }
    free(state);
    return rc;
}

static int on_alloc(lifter *L, const trc_rec *r)
{
    size_t k = L->n_inst++;
    L->inst[k] = (alloc_inst){.addr = r->addr, .bytes = r->bytes ? r->bytes : 1, .ts = r->ts,
                              .live = 1};
    L->st->allocs++;
    if (r->aux)
        L->st->pool_allocs++;
    trc_amap_range old_r;
    if (trc_amap_find(&L->live, r->addr, &old_r) && old_r.base == r->addr) {
        /* same address still live: its free record was lost; the new one replaces it */
        alloc_inst *old = &L->inst[old_r.tag];
        old->live = 0;
        L->live_bytes -= old->bytes;
        L->st->unknown_frees++;
    }
    if (trc_amap_insert(&L->live, r->addr, L->inst[k].bytes, k) < 0)
        return gms_error_set(L->err, GMS_ENOMEM, "lifter: out of memory");
    L->live_bytes += L->inst[k].bytes;
    if (L->live_bytes > L->st->peak_bytes)
        L->st->peak_bytes = L->live_bytes;
    return 0;
}

static int on_free(lifter *L, const trc_rec *r)
{
    trc_amap_range fr;
    if (!trc_amap_find(&L->live, r->addr, &fr) || fr.base != r->addr) {
        L->st->unknown_frees++;
        return 0;
    }
    size_t k = (size_t)fr.tag;
    trc_amap_remove(&L->live, r->addr, NULL);
    L->inst[k].live = 0;
    L->live_bytes -= L->inst[k].bytes;
    L->st->frees++;
    if (L->pending) {
        L->releases[L->n_releases++] = k;
        return 0;
    }
    return emit_release(L, k);
}

/* Innermost open op range (not an iteration range) for thread; ranges opened by other threads
 * count when thread is unknown (0) or the range is process-wide (thread 0). */
static const open_range *innermost_range(const lifter *L, uint64_t thread)
{
    for (size_t i = L->n_ranges; i-- > 0;) {
        const open_range *o = &L->ranges[i];
        if (trc_is_iteration(o->name, NULL))
            continue;
        if (thread == 0 || o->thread == 0 || o->thread == thread)
            return o;
    }
    return NULL;
}

/* Adds inst to the op's references unless it is there already. */
static int add_ref(lifter *L, size_t inst)
{
    for (size_t i = 0; i < L->n_op_refs; i++)
        if (L->op_refs[i] == inst)
            return 0;
    if (L->n_op_refs == L->cap_op_refs) {
        size_t cap = L->cap_op_refs ? 2 * L->cap_op_refs : 64;
        size_t *nr = realloc(L->op_refs, cap * sizeof *nr);
        uint64_t *ni = realloc(L->ev_inputs, cap * sizeof *ni);
        if (ni)
            L->ev_inputs = ni;
        gmt_output *no = realloc(L->ev_outputs, cap * sizeof *no);
        if (no)
            L->ev_outputs = no;
        if (nr)
            L->op_refs = nr;
        if (!nr || !ni || !no)
            return gms_error_set(L->err, GMS_ENOMEM, "lifter: out of memory");
        L->cap_op_refs = cap;
    }
    L->op_refs[L->n_op_refs++] = inst;
    return 0;
}

/* Counts a reference that hits no live allocation: freed (ignored, a warning) or unknown. */
static void miss(lifter *L, uint64_t p)
{
    /* any allocation made by now that contained p (it is not live, or live_find had found
     * it): the last one starting at or below p, then back while an earlier one may reach p */
    size_t lo = 0, hi = L->n_alloc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (L->recs[L->alloc_sorted[mid]].addr <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t j = lo; j-- > 0 && L->alloc_pmax[j] > p;) {
        const trc_rec *a = &L->recs[L->alloc_sorted[j]];
        uint64_t bytes = a->bytes ? a->bytes : 1;
        if (p - a->addr < bytes && a->ts <= L->now) {
            L->st->freed_refs++;
            return;
        }
    }
    L->st->unresolved_refs++;
}

/* 1 when ptrs[i] is both the start of a live allocation B and one past the end of the live
 * allocation A just below it, and another pointer of the same launch points into A: either an
 * end bound of A (data + numel, CUB/thrust iterators) that a pool packing allocations back to
 * back happens to place at B, or a real use of B next to a use of A (an op whose output was
 * allocated right after its input: the usual case with a pool). The values cannot tell them
 * apart; such references are counted, and dropped only when asked (drop_past_end). */
static int past_the_end(const lifter *L, const uint64_t *ptrs, uint32_t n, uint32_t i)
{
    uint64_t p = ptrs[i];
    trc_amap_range b, ar;
    if (p == 0 || !trc_amap_find(&L->live, p, &b) || b.base != p ||
        !trc_amap_find(&L->live, p - 1, &ar) || ar.base + ar.size != p)
        return 0;
    const alloc_inst *a = &L->inst[ar.tag];
    for (uint32_t j = 0; j < n; j++)
        if (j != i && ptrs[j] - a->addr < a->bytes)
            return 1;
    return 0;
}

/* One piece of GPU work joins an op: a kernel (launch record with its kernel, if matched, or
 * a kernel record whose launch was not seen), a device-to-device copy or a memset. thread: the
 * launching thread (0 = unknown); name: the op's name outside any range; act: the activity
 * record with its GPU time (or NULL); ptrs: the addresses it touches. */
static int on_gpu_work(lifter *L, uint64_t thread, const char *name, const trc_rec *act,
                       const uint64_t *ptrs, uint32_t n_ptrs, int is_kernel)
{
    int rc = 0;
    if (!L->seen_boundary) {
        if (L->has_iterations) {
            L->st->setup_kernels += is_kernel != 0; /* before the first iteration: setup */
            return 0;
        }
        if ((rc = emit_constants(L)) != 0)
            return rc;
    }
    const open_range *o = innermost_range(L, L->ignore_threads ? 0 : thread);
    uint64_t key = o ? o->id + 1 : 0;
    if (L->pending && (key == 0 || key != L->op_range) && (rc = flush_op(L)) != 0)
        return rc;
    if (!L->pending) {
        L->pending = 1;
        L->op_range = key;
        L->op_dur = 0;
        trc_op_name(L->op_name, sizeof L->op_name, o ? (o->name ? o->name : "unnamed-range") : name);
    }
    L->st->kernels += is_kernel != 0;
    if (act && act->end > act->ts)
        L->op_dur += act->end - act->ts;
    for (uint32_t i = 0; i < n_ptrs; i++) {
        size_t k = live_find(L, ptrs[i]);
        if (k == SIZE_MAX)
            miss(L, ptrs[i]);
        else if (past_the_end(L, ptrs, n_ptrs, i) && (L->st->past_end_refs++, L->drop_past_end))
            continue;
        else if ((rc = add_ref(L, k)) != 0)
            return rc;
    }
    return key == 0 ? flush_op(L) : 0;
}

static int on_kernel(lifter *L, const trc_rec *launch, const trc_rec *kernel)
{
    const char *name = kernel && kernel->name ? kernel->name : "unknown-kernel";
    return on_gpu_work(L, launch ? launch->thread : 0, name, kernel, launch ? launch->ptrs : NULL,
                       launch ? launch->n_ptrs : 0, 1);
}

/* A memcpy or memset call. Host to device: the destination holds data from outside the op
 * graph, so a buffer no op has produced becomes a CONSTANT now (an input batch copied in).
 * Device to device and memset: GPU work like a kernel (source read, destination written).
 * Device to host: a read by the host, nothing to record. */
static int on_copy(lifter *L, const trc_rec *r, const trc_rec *act)
{
    int is_memset = (r->flags & TRC_COPY_MEMSET) != 0;
    size_t d = live_find(L, r->addr);
    size_t s = is_memset || !r->aux ? SIZE_MAX : live_find(L, r->aux);
    if (d == SIZE_MAX)
        return 0;
    if (is_memset) {
        L->st->memset_calls++;
        return on_gpu_work(L, r->thread, "memset", act, &r->addr, 1, 0);
    }
    if (s != SIZE_MAX) {
        L->st->copies_on_device++;
        const uint64_t ptrs[2] = {r->aux, r->addr};
        return on_gpu_work(L, r->thread, "memcpy", act, ptrs, 2, 0);
    }
    L->st->copies_in++;
    if (!L->seen_boundary || L->inst[d].tensor)
        return 0; /* setup state at the boundary anyway, or an overwrite of an existing tensor */
    /* data from the host (an input batch): produced by a zero-input op, so it is released and
     * its memory reused like any tensor's (a CONSTANT would stay pinned, one per batch) */
    L->st->copies_h2d_ops++;
    return on_gpu_work(L, r->thread, "copy_h2d", act, &r->addr, 1, 0);
}

/* An iteration range/marker: ANNOTATE "iteration" with the marker's payload as value. */
static int on_iteration(lifter *L, const trc_rec *r)
{
    int rc = flush_op(L);
    if (rc == 0 && !L->seen_boundary)
        rc = emit_constants(L);
    if (rc)
        return rc;
    gmt_event ev;
    ev_init(&ev, GMT_ANNOTATE);
    ev.text = "iteration";
    size_t d = find_by(L->recs, L->data_sorted, L->n_data, r->id, 0);
    int64_t from_name = -1;
    trc_is_iteration(r->name, &from_name);
    if (d == SIZE_MAX && from_name >= 0) {
        ev.has_value = 1;
        ev.value = from_name;
    } else if (d != SIZE_MAX) {
        const trc_rec *pd = &L->recs[d];
        ev.has_value = 1;
        if (pd->flags == TRC_PAYLOAD_DOUBLE) {
            double v;
            memcpy(&v, &pd->value, sizeof v);
            ev.value = (v > -9e18 && v < 9e18) ? (int64_t)v : 0;
        } else {
            ev.value = (int64_t)pd->value;
        }
    }
    L->st->iterations++;
    return emit(L, &ev);
}

/* Counts a marker of a domain nobody asked for and remembers the domain's name. */
static void foreign_marker(lifter *L, const char *domain)
{
    trc_lift_stats *st = L->st;
    st->foreign_markers++;
    size_t len = strlen(domain), used = strlen(st->foreign_domains);
    for (const char *p = st->foreign_domains; (p = strstr(p, domain)) != NULL; p += len)
        if ((p == st->foreign_domains || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
            return; /* listed already */
    if (used + len + 2 < sizeof st->foreign_domains)
        snprintf(st->foreign_domains + used, sizeof st->foreign_domains - used, "%s%s",
                 used ? "," : "", domain);
}

static int on_marker(lifter *L, const trc_rec *r)
{
    L->st->markers++;
    if ((r->flags & TRC_MARK_END) == 0 && !trc_lift_domain_wanted(L->opts, r->text)) {
        return 0; /* counted up front; its range end finds no open range of its id */
    }
    int is_iter = trc_is_iteration(r->name, NULL);
    if (r->flags & TRC_MARK_START) {
        L->ranges[L->n_ranges++] = (open_range){.id = r->id, .thread = r->thread, .name = r->name};
        return is_iter ? on_iteration(L, r) : 0;
    }
    if (r->flags & TRC_MARK_END) {
        for (size_t i = L->n_ranges; i-- > 0;)
            if (L->ranges[i].id == r->id) {
                memmove(L->ranges + i, L->ranges + i + 1, (L->n_ranges - i - 1) * sizeof *L->ranges);
                L->n_ranges--;
                if (L->pending && L->op_range == r->id + 1)
                    return flush_op(L);
                break;
            }
        return 0;
    }
    return is_iter ? on_iteration(L, r) : 0; /* instantaneous marker */
}

static int keep_alloc(const trc_rec *r)
{
    return r->flags == TRC_MEM_DEVICE || r->flags == TRC_MEM_MANAGED;
}

/* 1 when the job has per-thread NVTX ranges and launches, yet no launch thread id is a marker
 * thread id: CUPTI kept its own thread ids (the tracer could not switch them to system ids),
 * so thread matching would leave every kernel outside every range. Then ranges apply to all
 * threads (right for single-threaded launchers, which is the usual case). */
static int threads_disjoint(const trc_rec *recs, size_t n)
{
    uint64_t marker_threads[64];
    size_t n_mt = 0, launches = 0;
    for (size_t i = 0; i < n; i++) {
        if (recs[i].type == TRC_REC_LAUNCH)
            launches++;
        if (recs[i].type != TRC_REC_MARKER || recs[i].thread == 0)
            continue;
        size_t j = 0;
        while (j < n_mt && marker_threads[j] != recs[i].thread)
            j++;
        if (j == n_mt && n_mt < sizeof marker_threads / sizeof marker_threads[0])
            marker_threads[n_mt++] = recs[i].thread;
    }
    if (n_mt == 0 || launches == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (recs[i].type == TRC_REC_LAUNCH)
            for (size_t j = 0; j < n_mt; j++)
                if (recs[i].thread == marker_threads[j])
                    return 0;
    return 1;
}

/* Builds the time-ordered item list; fills L's correlation and marker-data indexes. */
static int build_items(lifter *L, size_t n, item **out, size_t *n_out)
{
    const trc_rec *recs = L->recs;
    size_t nk = 0, nd = 0;
    for (size_t i = 0; i < n; i++) {
        nk += recs[i].type == TRC_REC_KERNEL || recs[i].type == TRC_REC_MEMCPY ||
              recs[i].type == TRC_REC_MEMSET;
        nd += recs[i].type == TRC_REC_MARKER_DATA;
    }
    L->corr_sorted = malloc((nk + 1) * sizeof(size_t));
    L->data_sorted = malloc((nd + 1) * sizeof(size_t));
    unsigned char *used = calloc(n + 1, 1);
    item *it = malloc((n + 1) * sizeof *it);
    if (!L->corr_sorted || !L->data_sorted || !used || !it) {
        free(used);
        free(it);
        return gms_error_set(L->err, GMS_ENOMEM, "lifter: out of memory for %zu records", n);
    }
    for (size_t i = 0; i < n; i++) {
        if (recs[i].type == TRC_REC_KERNEL || recs[i].type == TRC_REC_MEMCPY ||
            recs[i].type == TRC_REC_MEMSET)
            L->corr_sorted[L->n_kernels++] = i;
        else if (recs[i].type == TRC_REC_MARKER_DATA)
            L->data_sorted[L->n_data++] = i;
    }
    g_sort_recs = recs;
    qsort(L->corr_sorted, L->n_kernels, sizeof(size_t), cmp_corr);
    qsort(L->data_sorted, L->n_data, sizeof(size_t), cmp_id);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const trc_rec *r = &recs[i];
        item x = {.ts = r->ts, .seq = i, .rec = i, .kernel = SIZE_MAX};
        switch (r->type) {
        case TRC_REC_ALLOC:
        case TRC_REC_FREE:
        case TRC_REC_API_ALLOC:
        case TRC_REC_API_FREE:
            /* one view of allocations only: see trc_alloc_source() */
            if (trc_alloc_source(r->type) != L->st->alloc_source || !keep_alloc(r))
                continue;
            x.cls = r->type == TRC_REC_ALLOC || r->type == TRC_REC_API_ALLOC ? CLS_ALLOC : CLS_FREE;
            break;
        case TRC_REC_LAUNCH: {
            x.cls = CLS_LAUNCH;
            size_t k = r->corr ? find_by(recs, L->corr_sorted, L->n_kernels, r->corr, 1) : SIZE_MAX;
            if ((k == SIZE_MAX || used[k] || recs[k].type != TRC_REC_KERNEL) && r->corr2)
                k = find_by(recs, L->corr_sorted, L->n_kernels, r->corr2, 1);
            if (k != SIZE_MAX && !used[k] && recs[k].type == TRC_REC_KERNEL) {
                used[k] = 1;
                x.kernel = k;
            } else {
                L->st->launches_without_kernel++;
            }
            break;
        }
        case TRC_REC_COPY: {
            x.cls = CLS_LAUNCH;
            size_t k = r->corr ? find_by(recs, L->corr_sorted, L->n_kernels, r->corr, 1) : SIZE_MAX;
            if (k != SIZE_MAX && !used[k] && recs[k].type != TRC_REC_KERNEL) {
                used[k] = 1;
                x.kernel = k;
            }
            break;
        }
        case TRC_REC_MARKER:
            x.cls = (r->flags & TRC_MARK_END) ? CLS_RANGE_END : CLS_RANGE_START;
            if (!(r->flags & TRC_MARK_END) && trc_is_iteration(r->name, NULL))
                L->has_iterations = 1;
            break;
        case TRC_REC_MEMCPY:
            L->st->memcpys++;
            continue;
        case TRC_REC_MEMSET:
            L->st->memsets++;
            continue;
        default:
            continue;
        }
        it[m++] = x;
    }
    /* kernels whose launch was never seen run at their own start time */
    for (size_t j = 0; j < L->n_kernels; j++) {
        size_t k = L->corr_sorted[j];
        if (used[k] || recs[k].type != TRC_REC_KERNEL)
            continue;
        L->st->kernels_without_launch++;
        it[m++] = (item){.ts = recs[k].ts, .cls = CLS_LAUNCH, .seq = k, .rec = k, .kernel = k};
    }
    free(used);
    L->ignore_threads = threads_disjoint(recs, n);
    L->st->thread_ids_mismatch = L->ignore_threads;
    qsort(it, m, sizeof *it, cmp_item);
    *out = it;
    *n_out = m;
    return 0;
}

static int cmp_free(const void *a, const void *b)
{
    const trc_rec *x = &g_sort_recs[*(const size_t *)a], *y = &g_sort_recs[*(const size_t *)b];
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return 0;
}

static int cmp_addr(const void *a, const void *b)
{
    uint64_t x = g_sort_recs[*(const size_t *)a].addr, y = g_sort_recs[*(const size_t *)b].addr;
    return x < y ? -1 : x > y;
}

/* The free records of the kept allocation view, by address then time (freed_later), and its
 * allocation records by address with the prefix maximum of their ends (miss). */
static int sort_frees(lifter *L, size_t n)
{
    L->alloc_sorted = malloc((n + 1) * sizeof *L->alloc_sorted);
    L->alloc_pmax = malloc((n + 1) * sizeof *L->alloc_pmax);
    if (!L->alloc_sorted || !L->alloc_pmax)
        return gms_error_set(L->err, GMS_ENOMEM, "lifter: out of memory for %zu records", n);
    for (size_t i = 0; i < n; i++) {
        const trc_rec *r = &L->recs[i];
        if ((r->type == TRC_REC_ALLOC || r->type == TRC_REC_API_ALLOC) &&
            trc_alloc_source(r->type) == L->st->alloc_source && keep_alloc(r))
            L->alloc_sorted[L->n_alloc++] = i;
    }
    g_sort_recs = L->recs;
    qsort(L->alloc_sorted, L->n_alloc, sizeof *L->alloc_sorted, cmp_addr);
    uint64_t mx = 0;
    for (size_t j = 0; j < L->n_alloc; j++) {
        const trc_rec *a = &L->recs[L->alloc_sorted[j]];
        uint64_t end = a->addr + (a->bytes ? a->bytes : 1);
        mx = end > mx ? end : mx;
        L->alloc_pmax[j] = mx;
    }
    L->free_sorted = malloc((n + 1) * sizeof *L->free_sorted);
    if (!L->free_sorted)
        return gms_error_set(L->err, GMS_ENOMEM, "lifter: out of memory for %zu records", n);
    for (size_t i = 0; i < n; i++) {
        const trc_rec *r = &L->recs[i];
        if ((r->type == TRC_REC_FREE || r->type == TRC_REC_API_FREE) &&
            trc_alloc_source(r->type) == L->st->alloc_source)
            L->free_sorted[L->n_free++] = i;
    }
    g_sort_recs = L->recs;
    qsort(L->free_sorted, L->n_free, sizeof *L->free_sorted, cmp_free);
    return 0;
}

int trc_lift_domain_wanted(const trc_lift_opts *opts, const char *domain)
{
    if (!domain || !*domain)
        return 1;
    const char *list = opts ? opts->nvtx_domains : NULL;
    if (!list)
        return 0;
    size_t len = strlen(domain);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if ((n == 1 && *p == '*') || (n == len && strncmp(p, domain, n) == 0))
            return 1;
        p += n + (comma != NULL);
    }
    return 0;
}

int trc_lift_records(const trc_rec *recs, size_t n, const trc_sink *sink, trc_lift_stats *st,
                     gms_error *err)
{
    return trc_lift_records_opt(recs, n, sink, NULL, st, err);
}

int trc_lift_records_opt(const trc_rec *recs, size_t n, const trc_sink *sink,
                         const trc_lift_opts *opts, trc_lift_stats *st, gms_error *err)
{
    trc_lift_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    st->records = n;
    lifter L = {.recs = recs, .sink = sink, .opts = opts, .st = st, .err = err};
    item *it = NULL;
    size_t m = 0;
    int rc = 0;
    L.inst = malloc((n + 1) * sizeof *L.inst);
    L.ranges = malloc((n + 1) * sizeof *L.ranges);
    L.releases = malloc((n + 1) * sizeof *L.releases);
    if (!L.inst || !L.ranges || !L.releases)
        rc = gms_error_set(err, GMS_ENOMEM, "lifter: out of memory for %zu records", n);
    if (rc == 0)
        rc = trc_lift_meta(recs, n, sink, st, err); /* sets st->alloc_source */
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (recs[i].type == TRC_REC_MARKER && (recs[i].flags & TRC_MARK_END) == 0 &&
            !trc_lift_domain_wanted(opts, recs[i].text))
            foreign_marker(&L, recs[i].text);
    if (rc == 0 && st->foreign_markers) {
        char buf[320];
        snprintf(buf, sizeof buf, "%llu ranges/marks of domains %s",
                 (unsigned long long)st->foreign_markers, st->foreign_domains);
        rc = sink->meta(sink->ctx, "nvtx_ignored", buf, err);
    }
    if (rc == 0)
        rc = build_items(&L, n, &it, &m);
    if (rc == 0)
        rc = sort_frees(&L, n);
    if (rc == 0)
        L.first_iter_end = first_iteration_end(&L, n);
    L.drop_past_end = opts && opts->drop_past_end;
    for (size_t i = 0; rc == 0 && i < m; i++) {
        const trc_rec *r = &recs[it[i].rec];
        L.now = it[i].ts;
        if (r->type == TRC_REC_ALLOC || r->type == TRC_REC_API_ALLOC)
            rc = on_alloc(&L, r);
        else if (r->type == TRC_REC_FREE || r->type == TRC_REC_API_FREE)
            rc = on_free(&L, r);
        else if (r->type == TRC_REC_MARKER)
            rc = on_marker(&L, r);
        else if (r->type == TRC_REC_LAUNCH)
            rc = on_kernel(&L, r, it[i].kernel == SIZE_MAX ? NULL : &recs[it[i].kernel]);
        else if (r->type == TRC_REC_KERNEL)
            rc = on_kernel(&L, NULL, r);
        else if (r->type == TRC_REC_COPY)
            rc = on_copy(&L, r, it[i].kernel == SIZE_MAX ? NULL : &recs[it[i].kernel]);
    }
    if (rc == 0)
        rc = flush_op(&L);
    free(it);
    free(L.inst);
    trc_amap_free(&L.live);
    free(L.ranges);
    free(L.releases);
    free(L.corr_sorted);
    free(L.data_sorted);
    free(L.free_sorted);
    free(L.alloc_sorted);
    free(L.alloc_pmax);
    free(L.op_refs);
    free(L.ev_inputs);
    free(L.ev_outputs);
    return rc;
}
