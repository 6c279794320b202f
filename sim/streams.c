/*
 * streams: copy engines, swap-outs and swap-ins of a swapping run (see streams.h and
 * docs/swap.md). The compute stream is the run's clock; "waiting" moves it forward and counts
 * the difference as stall time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "streams.h"

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* The compute stream waits until time t. */
static void wait_until(sim_view *v, uint64_t t)
{
    if (t > v->clock) {
        v->sw.stall_ns += t - v->clock;
        v->clock = t;
    }
}

static void notify_copy(sim_view *v, sim_event_kind kind, uint32_t s, uint64_t start,
                        uint64_t end)
{
    if (!v->cfg->observer)
        return;
    const sim_trace *tr = v->tr;
    sim_event ev = {
        .kind = kind,
        .clock = kind == SIM_EV_SWAP_DONE ? end : v->clock,
        .memory = v->memory,
        .reserved = v->memory,
        .allocated = v->memory,
        .size = tr->storages[s].size,
        .op_index = tr->tensors[tr->storages[s].root].op,
        .storage = s,
        .copy_start = start,
        .copy_end = end,
    };
    v->cfg->observer(v->cfg->observer_ctx, &ev);
}

int sim_streams_reset(sim_view *v, gms_error *err)
{
    sim_streams *sw = &v->sw;
    const sim_config *cfg = v->cfg;
    sw->use_reset = 1; /* sim_view_next_use's cursors restart with the run */
    sw->on = (v->pol->needs & SIM_NEEDS_SWAP) != 0;
    if (!sw->on)
        return 0;
    const char *name = v->pol->name ? v->pol->name : "?";
    if (cfg->allocator)
        return gms_error_set(err, GMS_EINVAL,
                             "policy %s swaps to host memory, which only the ideal memory model "
                             "supports: drop --allocator", name);
    if (v->evict_after)
        return gms_error_set(err, GMS_EINVAL,
                             "policy %s both swaps and evicts after each op; the engine does "
                             "not support that combination", name);
    if (cfg->link_gbps == 0) {
        sim_link_default(&sw->link);
    } else {
        if (!(cfg->link_gbps >= 1e-6) || !isfinite(cfg->link_gbps))
            return gms_error_set(err, GMS_EINVAL,
                                 "link bandwidth %g GB/s is invalid: it must be positive (at "
                                 "least 1e-6)", cfg->link_gbps);
        sw->link = (sim_link){cfg->link_gbps, cfg->link_latency_ns};
    }
    const sim_trace *tr = v->tr;
    if (!sw->where) {
        sw->where = malloc((size_t)tr->n_storages + 1);
        sw->pend_idx = malloc(((size_t)tr->n_storages + 1) * sizeof *sw->pend_idx);
        sw->ready = malloc(((size_t)tr->n_storages + 1) * sizeof *sw->ready);
        sw->was_defined = malloc((size_t)tr->n_tensors + 1);
        if (!sw->where || !sw->pend_idx || !sw->ready || !sw->was_defined)
            return gms_error_set(err, GMS_ENOMEM, "out of memory for the swap engine");
    }
    memset(sw->where, SIM_SW_DEVICE, tr->n_storages);
    memset(sw->ready, 0, (size_t)tr->n_storages * sizeof *sw->ready);
    memset(sw->was_defined, 0, tr->n_tensors);
    sw->host_cap = cfg->host_memory;
    sw->host_used = sw->host_peak = 0;
    sw->d2h_free = sw->h2d_free = 0;
    sw->pend_head = sw->pend_n = 0;
    sw->pend_bytes = 0;
    sw->swaps_out = sw->swaps_in = sw->out_bytes = sw->in_bytes = 0;
    sw->prefetches = sw->fallbacks = sw->stall_ns = sw->d2h_busy = sw->h2d_busy = 0;
    return 0;
}

void sim_streams_free(sim_streams *sw)
{
    free(sw->where);
    free(sw->pend_idx);
    free(sw->ready);
    free(sw->was_defined);
    free(sw->pend);
    free(sw->use_off);
    free(sw->use_ops);
    free(sw->use_cur);
    free(sw->load);
    memset(sw, 0, sizeof *sw);
}

void sim_streams_finish(const sim_view *v, sim_result *res)
{
    const sim_streams *sw = &v->sw;
    if (!sw->on)
        return;
    res->swaps_out = sw->swaps_out;
    res->swaps_in = sw->swaps_in;
    res->swap_out_bytes = sw->out_bytes;
    res->swap_in_bytes = sw->in_bytes;
    res->prefetches = sw->prefetches;
    res->swap_fallbacks = sw->fallbacks;
    res->stall_ns = sw->stall_ns;
    res->d2h_busy_ns = sw->d2h_busy;
    res->h2d_busy_ns = sw->h2d_busy;
    res->host_peak = sw->host_peak;
}

/* Frees the device bytes of the swap-outs that have ended by now. */
static void retire(sim_view *v)
{
    sim_streams *sw = &v->sw;
    while (sw->pend_head < sw->pend_n && sw->pend[sw->pend_head].end <= v->clock) {
        const sim_swap_pending *e = &sw->pend[sw->pend_head++];
        if (e->reclaimed)
            continue;
        v->memory -= e->size;
        sw->pend_bytes -= e->size;
        sw->out_bytes += e->size;
        if (e->dead)
            sw->host_used -= e->size;
        else
            sw->where[e->s] = SIM_SW_HOST;
        /* so memory timelines drop at the copy's end, not after the next op */
        notify_copy(v, SIM_EV_SWAP_DONE, e->s, e->end - sim_link_copy_ns(&sw->link, e->size),
                    e->end);
    }
    if (sw->pend_head == sw->pend_n)
        sw->pend_head = sw->pend_n = 0;
}

int sim_swap_on_evict(sim_view *v, uint32_t s, int eager)
{
    sim_streams *sw = &v->sw;
    uint64_t ready = sw->ready[s];
    sw->ready[s] = 0;
    if (eager)
        return 0;
    const sim_policy *p = v->pol;
    if (!sw->force_swap && p->action && p->action(v, s, v->pol_state) != SIM_ACTION_SWAP)
        return 0;
    uint64_t size = v->tr->storages[s].size;
    if (sw->host_cap - sw->host_used < size) {
        sw->fallbacks++; /* host memory is full: drop it, it is recomputed when needed */
        return 0;
    }
    if (sw->pend_n == sw->pend_cap &&
        sim_grow((void **)&sw->pend, &sw->pend_cap, sw->pend_n + 1, sizeof *sw->pend)) {
        v->failed_alloc = 1;
        return 0;
    }
    uint64_t start = max3(v->clock, sw->d2h_free, ready); /* after its own swap-in, if any */
    uint64_t ns = sim_link_copy_ns(&sw->link, size);
    sw->d2h_free = start + ns;
    sw->d2h_busy += ns;
    sw->host_used += size;
    if (sw->host_used > sw->host_peak)
        sw->host_peak = sw->host_used;
    sw->pend_idx[s] = sw->pend_n;
    sw->pend[sw->pend_n++] = (sim_swap_pending){.end = start + ns, .size = size, .s = s};
    sw->pend_bytes += size;
    sw->where[s] = SIM_SW_OUTGOING;
    sw->swaps_out++;
    const uint32_t *ts;
    uint32_t n = sim_storage_live_tensors(v, s, &ts);
    for (uint32_t i = 0; i < n; i++)
        sw->was_defined[ts[i]] = v->defined[ts[i]];
    notify_copy(v, SIM_EV_SWAP_OUT, s, start, start + ns);
    return 1;
}

int sim_swap_make_room(sim_view *v, uint64_t need)
{
    sim_streams *sw = &v->sw;
    retire(v);
    if (v->memory + need <= v->budget)
        return 0;
    if (sw->pend_bytes && v->memory - sw->pend_bytes + need <= v->budget) {
        /* the queued swap-outs free enough: wait for the next one to end */
        while (sw->pend[sw->pend_head].reclaimed)
            sw->pend_head++;
        wait_until(v, sw->pend[sw->pend_head].end);
        retire(v);
        return 0;
    }
    return sim_evict_one(v);
}

/* Storage s is resident again (swap-in queued, or a queued swap-out taken back). */
static void resident_again(sim_view *v, uint32_t s)
{
    sim_streams *sw = &v->sw;
    sw->where[s] = SIM_SW_DEVICE;
    v->fl[s] = (uint8_t)((v->fl[s] | SIM_FL_MAT) & ~SIM_FL_HOST);
    const uint32_t *ts;
    uint32_t n = sim_storage_live_tensors(v, s, &ts);
    for (uint32_t i = 0; i < n; i++) {
        if (sw->was_defined[ts[i]])
            v->defined[ts[i]] = 1;
        sw->was_defined[ts[i]] = 0;
    }
    /* the regions counted it as material all along (SIM_FL_HOST): nothing to rebuild */
    if (v->eq_on)
        sim_eq_on_material(v, s);
}

/* Queues the host-to-device copy of s (in host memory; its device bytes fit now). */
static void queue_swap_in(sim_view *v, uint32_t s)
{
    sim_streams *sw = &v->sw;
    uint64_t size = v->tr->storages[s].size;
    v->memory += size;
    if (v->memory > v->peak)
        v->peak = v->memory;
    sw->host_used -= size;
    uint64_t start = v->clock > sw->h2d_free ? v->clock : sw->h2d_free;
    uint64_t ns = sim_link_copy_ns(&sw->link, size);
    sw->h2d_free = start + ns;
    sw->h2d_busy += ns;
    sw->ready[s] = start + ns;
    sw->in_bytes += size;
    sw->swaps_in++;
    resident_again(v, s);
    notify_copy(v, SIM_EV_SWAP_IN, s, start, start + ns);
}

int sim_swap_in(sim_view *v, uint32_t t, int wait)
{
    sim_streams *sw = &v->sw;
    uint32_t s = v->tr->tensors[t].storage;
    if (sw->where[s] == SIM_SW_OUTGOING) {
        /* its copy has not ended, so its device bytes are still there: keep them */
        sim_swap_pending *e = &sw->pend[sw->pend_idx[s]];
        e->reclaimed = 1;
        sw->pend_bytes -= e->size;
        sw->host_used -= e->size;
        resident_again(v, s);
    } else if (sw->where[s] == SIM_SW_HOST) {
        uint64_t size = v->tr->storages[s].size;
        while (v->memory + size > v->budget)
            if (sim_swap_make_room(v, size))
                return -1;
        if (sw->where[s] != SIM_SW_HOST) /* cannot happen: s is in no pool nor queue */
            return 0;
        queue_swap_in(v, s);
    } else {
        return 0;
    }
    if (wait)
        wait_until(v, sw->ready[s]);
    return v->failed_alloc ? -1 : 0;
}

void sim_swap_wait_args(sim_view *v, uint32_t o)
{
    sim_streams *sw = &v->sw;
    const sim_op *op = &v->tr->ops[o];
    const uint32_t *ast = v->tr->arg_st + op->args_off;
    for (uint32_t i = 0; i < op->n_args; i++)
        wait_until(v, sw->ready[ast[i]]);
    retire(v);
}

void sim_swap_forget(sim_view *v, uint32_t s)
{
    sim_streams *sw = &v->sw;
    if (sw->where[s] == SIM_SW_DEVICE)
        return;
    if (sw->where[s] == SIM_SW_HOST)
        sw->host_used -= v->tr->storages[s].size;
    else
        sw->pend[sw->pend_idx[s]].dead = 1;
    sw->where[s] = SIM_SW_DEVICE;
    const uint32_t *ts;
    uint32_t n = sim_storage_live_tensors(v, s, &ts);
    for (uint32_t i = 0; i < n; i++)
        sw->was_defined[ts[i]] = 0;
    v->fl[s] &= (uint8_t)~SIM_FL_HOST;
    if (!(v->fl[s] & SIM_FL_MAT) && v->regions_on) {
        /* dead on the host: the regions now see it evicted, as a dead resident storage is */
        if (SIM_REGIONS_PENDING(v))
            sim_regions_flush(v);
        sim_regions_on_evict(v, s);
    }
}

uint64_t sim_trace_smallest_storage(const sim_trace *t)
{
    uint64_t m = 0;
    for (uint32_t s = 0; s < t->n_storages; s++) {
        uint64_t z = t->storages[s].size;
        if (z && t->ops[t->tensors[t->storages[s].root].op].n_args && (m == 0 || z < m))
            m = z;
    }
    return m;
}

/* ------------------------------------------------------------------------------------------
 * Views (policy.h)
 */
int sim_view_on_host(const sim_view *v, uint32_t s)
{
    return v->sw.on && s < v->tr->n_storages && v->sw.where[s] != SIM_SW_DEVICE;
}

uint64_t sim_view_copy_ns(const sim_view *v, uint64_t bytes)
{
    return v->sw.on ? sim_link_copy_ns(&v->sw.link, bytes) : 0;
}

uint64_t sim_view_d2h_free_at(const sim_view *v)
{
    return v->sw.d2h_free;
}

uint64_t sim_view_h2d_free_at(const sim_view *v)
{
    return v->sw.h2d_free;
}

int sim_view_prefetch(const sim_view *cv, uint32_t s)
{
    sim_view *v = (sim_view *)cv; /* a request the engine carries out (policy.h) */
    if (!v->sw.on || s >= v->tr->n_storages || v->sw.where[s] != SIM_SW_HOST)
        return 0;
    retire(v);
    if (v->memory + v->tr->storages[s].size > v->budget)
        return 0;
    queue_swap_in(v, s);
    v->sw.prefetches++;
    sim_pool_add(v, s); /* resident and unlocked: a candidate again */
    return 1;
}

uint32_t sim_view_op_count(const sim_view *v)
{
    return v->tr->n_ops;
}

uint64_t sim_view_op_cost(const sim_view *v, uint32_t op)
{
    return op < v->tr->n_ops ? v->tr->ops[op].cost : 0;
}

uint32_t sim_view_current_op(const sim_view *v)
{
    return v->created_ops ? v->created_ops - 1 : SIM_NONE;
}

/* Lists every storage's reading ops (from its tensors' children), sorted, once per runner. */
static int build_uses(sim_view *v)
{
    sim_streams *sw = &v->sw;
    const sim_trace *tr = v->tr;
    uint32_t ns = tr->n_storages;
    sw->use_off = calloc((size_t)ns + 1, sizeof *sw->use_off);
    sw->use_cur = calloc((size_t)ns + 1, sizeof *sw->use_cur);
    uint64_t total = 0;
    for (uint32_t s = 0; s < ns; s++) {
        const sim_storage_info *si = &tr->storages[s];
        for (uint32_t i = 0; i < si->n_tensors; i++)
            total += sim_tensor_n_children(tr, tr->storage_tensors[si->tensors_off + i]);
    }
    sw->use_ops = malloc((size_t)(total ? total : 1) * sizeof *sw->use_ops);
    if (!sw->use_off || !sw->use_cur || !sw->use_ops || total >= UINT32_MAX)
        return -1;
    uint32_t k = 0;
    for (uint32_t s = 0; s < ns; s++) {
        const sim_storage_info *si = &tr->storages[s];
        sw->use_off[s] = k;
        uint32_t first = k;
        for (uint32_t i = 0; i < si->n_tensors; i++) {
            uint32_t t = tr->storage_tensors[si->tensors_off + i];
            uint32_t nc = sim_tensor_n_children(tr, t);
            const sim_tensor *te = &tr->tensors[t];
            for (uint32_t c = 0; c < nc; c++) {
                uint32_t op = tr->tensors[tr->children[te->children_off + c]].op;
                uint32_t j = k++; /* insertion: each tensor's list is sorted already */
                while (j > first && sw->use_ops[j - 1] > op) {
                    sw->use_ops[j] = sw->use_ops[j - 1];
                    j--;
                }
                sw->use_ops[j] = op;
            }
        }
    }
    sw->use_off[ns] = k;
    sw->use_built = 1;
    return 0;
}

uint32_t sim_view_next_use(const sim_view *cv, uint32_t s)
{
    sim_view *v = (sim_view *)cv; /* the cursors are a cache */
    sim_streams *sw = &v->sw;
    const sim_trace *tr = v->tr;
    if (s >= tr->n_storages)
        return SIM_NONE;
    if (!sw->use_built && build_uses(v)) {
        v->failed_alloc = 1;
        return SIM_NONE;
    }
    if (sw->use_reset) {
        memset(sw->use_cur, 0, (size_t)tr->n_storages * sizeof *sw->use_cur);
        sw->use_reset = 0;
    }
    /* the current op only grows within a run, so each cursor only moves forward */
    uint32_t now = v->created_ops ? v->created_ops - 1 : 0;
    uint32_t end = sw->use_off[s + 1], *cur = &sw->use_cur[s];
    uint32_t i = sw->use_off[s] + *cur;
    while (i < end && sw->use_ops[i] <= now)
        i++;
    *cur = i - sw->use_off[s];
    return i < end ? sw->use_ops[i] : SIM_NONE;
}

uint32_t sim_view_storage_op(const sim_view *v, uint32_t s)
{
    const sim_trace *tr = v->tr;
    return s < tr->n_storages ? tr->tensors[tr->storages[s].root].op : SIM_NONE;
}

uint32_t sim_view_use_after(const sim_view *cv, uint32_t s, uint32_t op)
{
    sim_view *v = (sim_view *)cv;
    sim_streams *sw = &v->sw;
    if (s >= v->tr->n_storages)
        return SIM_NONE;
    if (!sw->use_built && build_uses(v)) {
        v->failed_alloc = 1;
        return SIM_NONE;
    }
    uint32_t lo = sw->use_off[s], hi = sw->use_off[s + 1], end = hi;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sw->use_ops[mid] <= op)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < end ? sw->use_ops[lo] : SIM_NONE;
}

uint64_t sim_view_baseline_load(const sim_view *cv, uint32_t op)
{
    sim_view *v = (sim_view *)cv;
    sim_streams *sw = &v->sw;
    const sim_trace *tr = v->tr;
    if (op >= tr->n_ops)
        return 0;
    if (!sw->load) { /* the baseline replay of the builder (spec section 4), op by op */
        if (!(sw->load = calloc((size_t)tr->n_ops + 1, sizeof *sw->load))) {
            v->failed_alloc = 1;
            return 0;
        }
        uint64_t mem = 0;
        for (uint32_t i = 0; i < tr->n_schedule; i++) {
            uint32_t e = tr->schedule[i];
            if (SCH_KIND(e) == SCH_COMPUTE) {
                mem += tr->ops[SCH_INDEX(e)].total_size;
                sw->load[SCH_INDEX(e)] = mem;
            } else if (SCH_KIND(e) == SCH_RELEASE_LAST) {
                mem -= tr->storages[SCH_INDEX(e)].size;
            }
        }
    }
    return sw->load[op];
}

int sim_view_swap_out(const sim_view *cv, uint32_t s)
{
    sim_view *v = (sim_view *)cv; /* a request the engine carries out (policy.h) */
    sim_streams *sw = &v->sw;
    if (!sw->on || s >= v->tr->n_storages || v->ss[s].pool_idx == SIM_NONE ||
        sw->host_cap - sw->host_used < v->tr->storages[s].size)
        return 0;
    sw->force_swap = 1;
    sim_evict_now(v, s);
    sw->force_swap = 0;
    return sw->where[s] == SIM_SW_OUTGOING;
}
