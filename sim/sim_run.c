/*
 * sim_run: the replay engine, simrd's RuntimeV2EagerOptimized (spec section 3) in C.
 *
 * A run walks the trace's schedule: COMPUTE creates an op's outputs and materializes them
 * (rematerializing evicted arguments first, evicting what the policy picks until the outputs
 * fit), RELEASE_LAST frees a storage whose last reference died (eager eviction), PIN
 * materializes a tensor and locks it forever. Every order the spec pins down (pool order,
 * lock/unlock order, which clock a last-access time gets) is followed literally, because the
 * heuristics' tie-breaks make results depend on it.
 *
 * _materialize is recursive in simrd; here it runs on an explicit frame stack so that long
 * rematerialization chains (a 1M-op synthetic chain) cannot overflow the C stack.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_ckpt.h"
#include "sim_cost.h"
#include "sim_internal.h"
#include "sim_prefault.h"
#include "sim_pool_min.h"

void sim_config_init(sim_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->budget = UINT64_MAX;
    cfg->remat_limit = 2.0;
    cfg->semantics = SIM_SEMANTICS_SIMRD;
    cfg->host_memory = UINT64_MAX;
}

const char *sim_status_name(sim_status s)
{
    switch (s) {
    case SIM_OK: return "ok";
    case SIM_OOM: return "oom";
    case SIM_REMAT_LIMIT: return "remat-limit";
    }
    return "?";
}

/* ------------------------------------------------------------------------------------------
 * The pool: evictable storages in the order they last became evictable, as an array with
 * holes (scans run through it in order; appending is a store, leaving leaves a hole). The
 * sampled choice also keeps the members in pool_arr (swap-remove order).
 */

/* Closes the holes of pool_ord, keeping the order. */
void sim_pool_compact(sim_view *v)
{
    uint32_t j = 0;
    if (v->psc_dirty)
        sim_psc_flush(v); /* the owed scores first: they move with their slots */
    for (uint32_t i = 0; i < v->pool_len; i++) {
        uint32_t s = v->pool_ord[i];
        if (s != SIM_NONE) {
            v->pool_ord[j] = s;
            if (v->pool_sc)
                v->pool_sc[j] = v->pool_sc[i];
            v->ss[s].pool_idx = j++;
        }
    }
    uint32_t words = (v->pool_len + 63) / 64, old_len = v->pool_len;
    memset(v->pool_occ, 0, (size_t)words * sizeof *v->pool_occ);
    for (uint32_t w = 0; w < j / 64; w++)
        v->pool_occ[w] = ~UINT64_C(0);
    if (j % 64)
        v->pool_occ[j / 64] = (UINT64_C(1) << (j % 64)) - 1;
    v->pool_len = j;
    if (v->pool_sc)
        sim_psc_compacted(v, old_len);
    if (v->pool_bmax)
        sim_pbm_compacted(v, old_len);
    sim_pkb_compacted(v, old_len);
}

static void pool_append(sim_view *v, uint32_t s)
{
    if (v->pool_len == v->pool_cap) /* cap > 2 x storages: at least half are holes */
        sim_pool_compact(v);
    v->ss[s].pool_idx = v->pool_len;
    if (v->pool_sc)
        sim_psc_extend(v);
    sim_mscore_update(v, s); /* inputs may have changed while s was out of the pool */
    v->pool_occ[v->pool_len >> 6] |= UINT64_C(1) << (v->pool_len & 63);
    v->pool_ord[v->pool_len++] = s;
    if (v->sampling) {
        v->pool_arr[v->pool_size] = s;
        v->pool_pos[s] = v->pool_size;
    }
    v->pool_size++;
    v->pool_bytes += v->tr->st_size[s];
    if (v->pool_bmax)
        sim_pbm_add(v, v->pool_len - 1, s);
}

static void pool_remove(sim_view *v, uint32_t s)
{
    uint32_t i = v->ss[s].pool_idx;
    if (i == SIM_NONE)
        return;
    v->pool_ord[i] = SIM_NONE;
    if (v->pool_sc)
        sim_psc_set(v, i, NAN); /* never chosen, never ends a scan */
    v->pool_occ[i >> 6] &= ~(UINT64_C(1) << (i & 63));
    v->ss[s].pool_idx = SIM_NONE;
    v->pool_size--;
    v->pool_bytes -= v->tr->st_size[s];
    if (v->pool_bmax)
        sim_pbm_remove(v, i, v->tr->st_size[s]);
    while (v->pool_len > 0 && v->pool_ord[v->pool_len - 1] == SIM_NONE)
        v->pool_len--;
    if (v->pool_len - v->pool_size > v->pool_size + 64)
        sim_pool_compact(v); /* keep scans within twice the members */
    if (v->sampling) {
        uint32_t last = v->pool_arr[v->pool_size];
        v->pool_arr[v->pool_pos[s]] = last;
        v->pool_pos[last] = v->pool_pos[s];
    }
}

static void lock(sim_view *v, uint32_t s)
{
    if (v->ss[s].ref_int++ == 0)
        pool_remove(v, s);
}

void sim_pool_add(sim_view *v, uint32_t s)
{
    pool_append(v, s);
}

static void unlock(sim_view *v, uint32_t s)
{
    if (--v->ss[s].ref_int == 0)
        pool_append(v, s);
}

static void notify(sim_view *v, sim_event_kind kind, uint64_t size, uint32_t op, uint32_t s)
{
    sim_event ev = {
        .kind = kind,
        .clock = v->clock,
        .memory = v->memory,
        .reserved = v->memory,
        .allocated = v->memory,
        .size = size,
        .op = (kind == SIM_EV_COMPUTE || kind == SIM_EV_REMAT)
                  ? v->tr->strings + v->tr->ops[op].name
                  : NULL,
        .op_index = op,
        .storage = s,
    };
    if (v->mem)
        sim_mem_event_figures(v, &ev.reserved, &ev.allocated);
    v->cfg->observer(v->cfg->observer_ctx, &ev);
}

/* One storage of op o became resident (sim_config.storage_events). */
static void notify_material(sim_view *v, uint32_t o, uint32_t s, int remat)
{
    sim_event ev = {
        .kind = SIM_EV_MATERIALIZE,
        .clock = v->clock,
        .memory = v->memory,
        .reserved = v->memory,
        .allocated = v->memory,
        .size = v->tr->storages[s].size,
        .op = v->tr->strings + v->tr->ops[o].name,
        .op_index = o,
        .storage = s,
        .remat = remat,
    };
    if (v->mem) {
        sim_mem_event_figures(v, &ev.reserved, &ev.allocated);
        if (v->mem_blk[s] != SIM_MEM_NONE)
            ev.addr = v->mem->block(v->mem_state, v->mem_blk[s]).addr;
    }
    v->cfg->observer(v->cfg->observer_ctx, &ev);
}

/* simrd's evict: the storage and all its tensors become undefined; regions and equivalence
 * classes follow (sections 6, 7). */
static void evict(sim_view *v, uint32_t s, int eager)
{
    const sim_trace *tr = v->tr;
    if (SIM_REGIONS_PENDING(v)) {
        /* once storages may be away, their flags change without region updates:
         * everything now (before the first swap-out, as in a run without swaps) */
        if (sim_swap_started(&v->sw))
            sim_regions_flush(v);
        else
            sim_regions_before_evict(v, s);
    }
    /* a swapped victim keeps its device bytes until its copy ends (streams.h) */
    int swapped = v->sw.on && sim_swap_on_evict(v, s, eager);
    v->fl[s] &= (uint8_t)~SIM_FL_MAT;
    if (swapped) /* the regions do not see it leave (SIM_FL_HOST) */
        v->fl[s] |= SIM_FL_HOST;
    if (!swapped) {
        v->memory -= tr->storages[s].size;
        if (v->mem)
            sim_mem_on_evict(v, s);
    }
    pool_remove(v, s);
    const uint32_t *ts;
    uint32_t n = sim_storage_live_tensors(v, s, &ts);
    for (uint32_t i = 0; i < n; i++)
        v->defined[ts[i]] = 0;
    if (v->regions_on && !swapped)
        sim_regions_on_evict(v, s);
    if (v->eq_on)
        sim_eq_on_evict(v, s);
    if (eager)
        v->eager_evictions++;
    else if (!swapped)
        v->evictions++;
    if (v->cfg->observer && !swapped)
        notify(v, eager ? SIM_EV_EVICT_EAGER : SIM_EV_EVICT, tr->storages[s].size,
               tr->tensors[tr->storages[s].root].op, s);
    if (v->pol->on_evict)
        v->pol->on_evict(v, s, eager, v->pol_state);
}

void sim_evict_now(sim_view *v, uint32_t s)
{
    evict(v, s, 0);
}

int sim_evict_one(sim_view *v)
{
    if (v->no_upkeep) { /* it was sure to need no eviction: redone with the upkeep */
        v->no_upkeep_failed = 1;
        return -1;
    }
    if (v->pool_size == 0) {
        v->status = SIM_OOM;
        return -1;
    }
    uint64_t scored = 0;
    uint32_t s = sim_choose(v, &scored);
    sim_cost_on_search(v, scored);
    if (v->nan_storage != SIM_NONE)
        return -1; /* sim_runner_run reports it */
    if (s == SIM_NONE || s >= v->tr->n_storages || v->ss[s].pool_idx == SIM_NONE) {
        /* a policy returned something that is not evictable: treat as OOM rather than
         * corrupting the run */
        v->status = SIM_OOM;
        return -1;
    }
    evict(v, s, 0);
    sim_cost_on_evict(v);
    return v->failed_alloc ? -1 : 0;
}

/* simrd's free(size): evict until `need` more bytes fit; OOM when nothing is evictable. */
static int free_memory(sim_view *v, uint64_t need)
{
    while (v->memory + need > v->budget)
        if (v->sw.on ? sim_swap_make_room(v, need) : sim_evict_one(v))
            return -1;
    return 0;
}

/* simrd's _compute(t) for op o (t = the tensor asked for, SIM_NONE for an op without
 * outputs): run the op once; every undefined output becomes defined, outputs that were
 * already defined are dropped again (their copy is freed). */
static int compute(sim_view *v, uint32_t o, uint32_t t, int remat)
{
    const sim_trace *tr = v->tr;
    const sim_op *op = &tr->ops[o];
    if (op->n_out + 1 > v->cap_remat_st &&
        sim_grow((void **)&v->remat_st, &v->cap_remat_st, op->n_out + 1, sizeof(uint32_t))) {
        v->failed_alloc = 1;
        return -1;
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < op->n_out; k++) {
        uint32_t u = op->out_first + k;
        if (u != t && !(v->fl[tr->tensors[u].storage] & SIM_FL_MAT))
            v->remat_st[n++] = tr->tensors[u].storage;
    }
    if (t != SIM_NONE && !(v->fl[tr->tensors[t].storage] & SIM_FL_MAT))
        v->remat_st[n++] = tr->tensors[t].storage;

    v->clock += op->cost;
    sim_cost_on_op(v, op);
    v->memory += op->total_size;
    if (v->memory > v->peak)
        v->peak = v->memory;
    for (uint32_t k = 0; k < op->n_out; k++) {
        uint32_t u = op->out_first + k;
        if (v->defined[u] && u != t) {
            v->memory -= tr->tensors[u].size; /* duplicate copy dropped */
        } else {
            v->defined[u] = 1;
            if (v->cfg->storage_events && v->cfg->observer &&
                !(v->fl[tr->tensors[u].storage] & SIM_FL_MAT))
                notify_material(v, o, tr->tensors[u].storage, remat);
            v->fl[tr->tensors[u].storage] |= SIM_FL_MAT;
            v->mat_epoch++; /* gone storages (sim_view_remat_cost_upto) may be fewer */
            if (v->eqc) /* a choice may come before sim_eq_on_material (evict_after) */
                sim_eqc_dirty_around(v, tr->tensors[u].storage);
        }
    }
    if (remat) {
        v->remat_compute += op->cost;
        v->remats++;
    } else {
        v->model_compute += op->cost;
    }
    /* the DTR prototype evicts once the op has run, before its outputs join the pool */
    if (v->evict_after && free_memory(v, 0))
        return -1;
    for (uint32_t i = 0; i < n; i++)
        pool_append(v, v->remat_st[i]);
    if (v->sw.on) /* recomputed: a host copy of it is stale */
        for (uint32_t i = 0; i < n; i++)
            sim_swap_forget(v, v->remat_st[i]);
    if (v->regions_on)
        sim_regions_on_compute(v, v->remat_st, n);
    if (v->eq_on)
        for (uint32_t i = 0; i < n; i++)
            sim_eq_on_material(v, v->remat_st[i]);
    if (v->cfg->observer)
        notify(v, remat ? SIM_EV_REMAT : SIM_EV_COMPUTE, op->total_size, o,
               op->n_out ? tr->tensors[op->out_first].storage : SIM_NONE);
    if (remat && v->pol->on_remat)
        v->pol->on_remat(v, o, v->pol_state);
    return v->failed_alloc ? -1 : 0;
}

static int push_frame(sim_view *v, uint32_t t, int remat)
{
    if (v->n_frames + 1 > v->cap_frames &&
        sim_grow((void **)&v->frames, &v->cap_frames, v->n_frames + 1, sizeof *v->frames)) {
        v->failed_alloc = 1;
        return -1;
    }
    v->frames[v->n_frames++] = (sim_frame){.t = t, .remat = (uint8_t)remat};
    return 0;
}

/* simrd's _materialize(t, remat) for op o (spec section 3), iteratively. Returns 0, or -1
 * when the run stops (OOM, remat limit, out of memory). */
static int materialize(sim_view *v, uint32_t o, uint32_t t, int remat)
{
    const sim_trace *tr = v->tr;
    uint32_t base = v->n_frames;
    if (push_frame(v, t, remat))
        return -1;
    while (v->n_frames > base) {
        sim_frame *f = &v->frames[v->n_frames - 1];
        if (v->ckpt && f->remat && !f->entered && f->t != SIM_NONE) {
            int h = sim_ckpt_on_missing(v, f->t); /* a checkpoint freed it: re-run its unit */
            if (h < 0)
                return -1;
            f = &v->frames[v->n_frames - 1]; /* the re-run pushed frames: they may have moved */
            if (h > 0 && v->defined[f->t]) {
                v->n_frames--;
                continue;
            }
        }
        /* only the bottom frame can lack a tensor (an op without outputs) */
        uint32_t fo = f->t != SIM_NONE ? tr->tensors[f->t].op : o;
        const sim_op *op = &tr->ops[fo];
        const uint32_t *args = tr->args + op->args_off;
        const uint32_t *ast = tr->arg_st + op->args_off;
        if (!f->entered) {
            f->entered = 1;
            for (uint32_t i = 0; i < op->n_args; i++)
                v->last[ast[i]] = (int64_t)v->clock;
            if (v->n_ustack + op->n_args > v->cap_ustack &&
                sim_grow((void **)&v->ustack, &v->cap_ustack, v->n_ustack + op->n_args,
                         sizeof(uint32_t))) {
                v->failed_alloc = 1;
                return -1;
            }
            f->u_off = v->n_ustack;
            for (uint32_t i = 0; i < op->n_args; i++) {
                if (v->defined[args[i]])
                    lock(v, ast[i]);
                else
                    v->ustack[v->n_ustack++] = args[i];
            }
            f->u_n = v->n_ustack - f->u_off;
            f->u_pos = 0;
        }
        int descended = 0;
        while (f->u_pos < f->u_n) {
            uint32_t a = v->ustack[f->u_off + f->u_pos];
            if (!v->defined[a] && v->sw.on && sim_swap_in(v, a, 0)) /* on the host? */
                return -1;
            if (!v->defined[a]) {
                if (push_frame(v, a, 1))
                    return -1;
                descended = 1;
                break;
            }
            lock(v, tr->tensors[a].storage);
            f->u_pos++;
        }
        if (descended)
            continue;
        if (v->mem ? sim_mem_place_outputs(v, fo, f->t)
                   : !v->evict_after && v->memory + op->total_size > v->budget &&
                         free_memory(v, op->total_size))
            return -1;
        if (v->sw.on)
            sim_swap_wait_args(v, fo);
        if (compute(v, fo, f->t, f->remat))
            return -1;
        for (uint32_t i = 0; i < op->n_args; i++)
            unlock(v, ast[i]);
        v->n_ustack = f->u_off;
        v->n_frames--;
        if (!v->remat_unlimited && v->remat_compute > v->remat_limit_floor) {
            v->status = SIM_REMAT_LIMIT;
            return -1;
        }
    }
    return 0;
}

/* COMPUTE(op): create the outputs (they exist, undefined, while the arguments are
 * rematerialized: the "in-flight" window), materialize, then stamp the last access. */
static int run_compute(sim_view *v, uint32_t o)
{
    const sim_trace *tr = v->tr;
    const sim_op *op = &tr->ops[o];
    if (v->ckpt && o >= v->ckpt_begin_op && sim_ckpt_before_op(v, o))
        return -1;
    if (SIM_REGIONS_PENDING(v))
        sim_regions_on_new_op(v, o);
    if (v->rg_summed)
        sim_regions_on_op_created(v, o);
    for (uint32_t k = 0; k < op->n_out; k++) {
        const sim_tensor *te = &tr->tensors[op->out_first + k];
        if (te->is_view) {
            int seen = 0; /* storage.compute sums DISTINCT ops */
            for (uint32_t j = 0; j < k && !seen; j++)
                seen = tr->tensors[op->out_first + j].is_view &&
                       tr->tensors[op->out_first + j].storage == te->storage;
            if (!seen)
                v->scomp[te->storage] += op->cost;
        } else {
            v->scomp[te->storage] = op->cost;
        }
        sim_mscore_update(v, te->storage);
        if (!te->is_view) {
            v->last[te->storage] = INT64_MIN;
            if (v->eq_on && (v->ss[te->storage].ecn = sim_eq_new_node(v, 0)) == SIM_NONE)
                return -1;
        }
    }
    /* op o's edges come to exist: its arguments' storages gain children, its outputs'
     * storages parents. Only the regions and the equivalence classes read them (through
     * sim_live_edges), so a run with neither skips this per-op walk (reset skips zeroing). */
    if (v->regions_on || v->eq_on) {
        const sim_edge *fa = tr->fwd_adj, *ra = tr->rev_adj;
        const uint32_t *fo = tr->fwd_off, *ro = tr->rev_off;
        const uint32_t *ast = tr->arg_st + op->args_off;
        for (uint32_t i = 0; i < op->n_args; i++) {
            uint32_t a = ast[i], *n = &v->live_fwd[a];
            while (fo[a] + *n < fo[a + 1] && fa[fo[a] + *n].time <= o)
                ++*n;
        }
        for (uint32_t k = 0; k < op->n_out; k++) {
            uint32_t x = tr->tensors[op->out_first + k].storage, *n = &v->live_rev[x];
            while (ro[x] + *n < ro[x + 1] && ra[ro[x] + *n].time <= o)
                ++*n;
        }
        if (v->eqc) { /* new edges, and the outputs' new class nodes next to the arguments */
            for (uint32_t i = 0; i < op->n_args; i++)
                sim_eqc_dirty(v, ast[i]);
            for (uint32_t k = 0; k < op->n_out; k++)
                sim_eqc_dirty(v, tr->tensors[op->out_first + k].storage);
        }
    }
    v->created_ops = o + 1;
    if (materialize(v, o, op->n_out ? op->out_first : SIM_NONE, 0))
        return -1;
    for (uint32_t k = 0; k < op->n_out; k++)
        v->last[tr->tensors[op->out_first + k].storage] = (int64_t)v->clock;
    if (v->pol->on_access)
        v->pol->on_access(v, o, v->pol_state);
    return v->ckpt && o == v->ckpt_end_op ? sim_ckpt_after_op(v, o) : 0;
}

void sim_free_storage(sim_view *v, uint32_t s)
{
    evict(v, s, 1);
}

int sim_rerun_op(sim_view *v, uint32_t o)
{
    return materialize(v, o, SIM_NONE, 1);
}

static int run_pin(sim_view *v, uint32_t t)
{
    const sim_trace *tr = v->tr;
    if (!v->defined[t] && v->sw.on && sim_swap_in(v, t, 1))
        return -1;
    if (!v->defined[t] && materialize(v, tr->tensors[t].op, t, 1))
        return -1;
    uint32_t s = tr->tensors[t].storage;
    if (!(v->fl[s] & SIM_FL_PINNED)) {
        lock(v, s);
        v->fl[s] |= SIM_FL_PINNED;
        v->mat_epoch++;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Runner
 */
struct sim_runner {
    sim_view v;
};

int sim_runner_new(const sim_trace *t, sim_runner **out, gms_error *err)
{
    *out = NULL;
    if (!t)
        return gms_error_set(err, GMS_EINVAL, "sim_runner_new: NULL trace");
    sim_runner *r = calloc(1, sizeof *r);
    if (!r)
        return gms_error_set(err, GMS_ENOMEM, "out of memory creating a simulation runner");
    r->v.tr = t;
    r->v.ss = malloc(((size_t)t->n_storages + 1) * sizeof *r->v.ss);
    r->v.defined = malloc((size_t)t->n_tensors + 1);
    r->v.fl = malloc((size_t)t->n_storages + 1);
    r->v.pool_arr = malloc(((size_t)t->n_storages + 1) * sizeof(uint32_t));
    r->v.pool_pos = malloc(((size_t)t->n_storages + 1) * sizeof(uint32_t));
    r->v.scomp = malloc(((size_t)t->n_storages + 1) * sizeof *r->v.scomp);
    r->v.last = malloc(((size_t)t->n_storages + 1) * sizeof *r->v.last);
    r->v.pool_cap = 2 * t->n_storages + 64;
    r->v.pool_ord = malloc((size_t)r->v.pool_cap * sizeof *r->v.pool_ord);
    r->v.pool_occ = calloc((size_t)r->v.pool_cap / 64 + 1, sizeof *r->v.pool_occ);
    r->v.live_fwd = malloc(((size_t)t->n_storages + 1) * sizeof *r->v.live_fwd);
    r->v.live_rev = malloc(((size_t)t->n_storages + 1) * sizeof *r->v.live_rev);
    if (!r->v.ss || !r->v.defined || !r->v.fl || !r->v.scomp || !r->v.pool_arr ||
        !r->v.pool_pos || !r->v.live_fwd || !r->v.live_rev || !r->v.last || !r->v.pool_ord ||
        !r->v.pool_occ) {
        sim_runner_free(r);
        return gms_error_set(err, GMS_ENOMEM, "out of memory creating a simulation runner");
    }
    /* every run writes these throughout (sim_prefault.h) */
    size_t ns = (size_t)t->n_storages + 1;
    sim_prefault(r->v.ss, ns * sizeof *r->v.ss);
    sim_prefault(r->v.defined, (size_t)t->n_tensors + 1);
    sim_prefault(r->v.fl, ns);
    sim_prefault(r->v.pool_pos, ns * sizeof(uint32_t));
    sim_prefault(r->v.scomp, ns * sizeof *r->v.scomp);
    sim_prefault(r->v.last, ns * sizeof *r->v.last);
    sim_prefault(r->v.live_fwd, ns * sizeof *r->v.live_fwd);
    sim_prefault(r->v.live_rev, ns * sizeof *r->v.live_rev);
    *out = r;
    return 0;
}

void sim_runner_free(sim_runner *r)
{
    if (!r)
        return;
    sim_view *v = &r->v;
    sim_regions_free(v);
    sim_mem_free(v);
    sim_ckpt_free(v->ckpt_mem);
    sim_streams_free(&v->sw);
    free(v->memo);
    free(v->memo_gen);
    free(v->memo_slot);
    free(v->memo_sum);
    free(v->ss);
    free(v->fl);
    free(v->scomp);
    free(v->pool_sc);
    sim_psc_free(v);
    sim_pbm_reset(v, 0);
    sim_pkb_free(v);
    free(v->last);
    free(v->pool_ord);
    free(v->pool_occ);
    free(v->live_fwd);
    free(v->live_rev);
    free(v->pool_arr);
    free(v->pool_pos);
    free(v->defined);
    free(v->eq_parent);
    free(v->eq_value);
    sim_eqc_free(v);
    free(v->frames);
    free(v->ustack);
    free(v->scratch);
    free(v->scratch2);
    free(v->stamp);
    free(v->remat_st);
    free(r);
}

double sim_no_upkeep_from = 1.0;

/* Resets the run state for a new run with cfg. */
static int reset(sim_view *v, const sim_config *cfg, int allow_no_upkeep, gms_error *err)
{
    const sim_trace *tr = v->tr;
    v->cfg = cfg;
    v->pol = cfg->planner ? &sim_ckpt_policy : cfg->policy;
    v->ckpt = NULL;
    v->pol_state = NULL;
    v->clock = 1;
    v->memory = v->peak = 0;
    v->budget = cfg->budget;
    v->remat_compute = v->model_compute = 0;
    v->evictions = v->eager_evictions = v->remats = 0;
    v->created_ops = 0;
    v->status = SIM_OK;
    v->failed_alloc = 0;
    v->nan_storage = SIM_NONE;
    memset(v->pool_occ, 0, ((size_t)v->pool_len + 63) / 64 * sizeof *v->pool_occ);
    v->pool_len = v->pool_size = 0;
    v->pool_bytes = 0;
    v->mat_epoch = 0;
    v->rw_valid = 0;
    v->sampling = cfg->sample != 0;
    v->rng = cfg->seed ^ UINT64_C(0x6a09e667f3bcc908);
    v->n_frames = v->n_ustack = 0;
    v->eq_n = 0;
    sim_cost_reset(v, cfg);
    for (uint32_t s = 0; s < tr->n_storages; s++) {
        v->ss[s] = (sim_sstate){.pool_idx = SIM_NONE, .ecn = SIM_NONE};
        v->last[s] = INT64_MIN;
    }
    memset(v->defined, 0, tr->n_tensors);
    memset(v->fl, 0, tr->n_storages);
    memset(v->scomp, 0, (size_t)tr->n_storages * sizeof *v->scomp);

    double L = cfg->remat_limit;
    v->remat_unlimited = 1;
    if (L != 0 && !isinf(L)) {
        if (!(L >= 1))
            return gms_error_set(err, GMS_EINVAL,
                                 "remat limit %g is invalid: it must be >= 1 (x baseline compute "
                                 "in total), or 0 for no limit", L);
        /* Python: baseline_compute * (L - 1) as a float; remat_compute (int) > it, exactly */
        double lim = (double)tr->baseline.compute * (L - 1.0);
        if (lim < 18446744073709551616.0) {
            v->remat_unlimited = 0;
            v->remat_limit_floor = (uint64_t)lim;
        }
    }
    /* Sampled mode is approximate anyway: DTR there estimates the evicted neighbourhood
     * with equivalence classes, as the DTR prototype does, instead of simrd's regions,
     * whose upkeep is quadratic in the trace length (2M-op traces in seconds). */
    v->dtr_eq_approx = cfg->sample != 0 && v->pol->score_kind == SIM_SCORE_DTR;
    v->evict_after = (v->pol->needs & SIM_NEEDS_EVICT_AFTER) != 0;
    v->pins_end = v->tr->n_schedule;
    if (v->pol->needs & SIM_NEEDS_NO_FINAL_PIN) /* the pins after the last compute */
        while (v->pins_end > 0 && SCH_KIND(v->tr->schedule[v->pins_end - 1]) != SCH_COMPUTE)
            v->pins_end--;
    if (v->evict_after && cfg->allocator)
        return gms_error_set(err, GMS_EINVAL,
                             "policy %s evicts after each op as the DTR prototype does, which "
                             "only the ideal memory model supports: drop --allocator",
                             v->pol->name ? v->pol->name : "?");
    v->regions_on = (v->pol->needs & SIM_NEEDS_REGIONS) != 0 && !v->dtr_eq_approx;
    v->eq_on = (v->pol->needs & SIM_NEEDS_EQCLASS) != 0 || v->dtr_eq_approx;
    /* Regions and classes are read by choices (scores) only, and through what evictions
     * fold into them. A run whose budget holds the baseline peak never needs an eviction
     * (until one, it is the unlimited replay, whose peak that is), so with the ideal memory
     * model, no swapping, planner or observer, and a policy without hooks that could read
     * them, their upkeep is skipped: it is what makes an unbudgeted long chain quadratic
     * (every backward step's region runs back through the dead part of the chain). Should a
     * run ask for an eviction after all, sim_evict_one stops it and sim_runner_run redoes
     * it with the upkeep, so no result can change. */
    const sim_policy *pp = v->pol;
    v->no_upkeep_failed = 0;
    v->no_upkeep = allow_no_upkeep && (v->regions_on || v->eq_on) &&
                   (sim_no_upkeep_from >= 1.0
                        ? cfg->budget >= tr->baseline.memory
                        : (double)cfg->budget >= (double)tr->baseline.memory * sim_no_upkeep_from) &&
                   !cfg->allocator && !cfg->planner &&
                   !cfg->observer && !cfg->iteration_observer && !v->evict_after &&
                   !(pp->needs & SIM_NEEDS_SWAP) && !pp->choose && !pp->on_evict &&
                   !pp->on_remat && !pp->on_access && !pp->on_iteration && !pp->action;
    if (v->no_upkeep)
        v->regions_on = v->eq_on = 0;
    if (v->regions_on || v->eq_on) { /* their readers; run_compute keeps them for those */
        memset(v->live_fwd, 0, (size_t)tr->n_storages * sizeof *v->live_fwd);
        memset(v->live_rev, 0, (size_t)tr->n_storages * sizeof *v->live_rev);
    }
    /* the cached class costs serve DTR-eq's exact scan (choose) only */
    if (v->eq_on && v->pol->score_kind == SIM_SCORE_DTR_EQ && !v->pol->choose) {
        if (sim_eqc_reset(v) != 0)
            return gms_error_set(err, GMS_ENOMEM, "out of memory for DTR-eq's class costs");
    } else {
        sim_eqc_free(v);
    }
    if (v->regions_on) {
        if (!v->fwd) {
            v->fwd = calloc((size_t)tr->n_storages + 1, sizeof *v->fwd);
            v->rev = calloc((size_t)tr->n_storages + 1, sizeof *v->rev);
            v->rcomp = calloc(2 * ((size_t)tr->n_storages + 1), sizeof *v->rcomp);
            if (!v->fwd || !v->rev || !v->rcomp) {
                sim_regions_free(v);
                return gms_error_set(err, GMS_ENOMEM, "out of memory for DTR regions");
            }
            /* the runs that keep regions touch nearly every storage's (sim_prefault.h) */
            size_t ns = (size_t)tr->n_storages + 1;
            sim_prefault(v->fwd, ns * sizeof *v->fwd);
            sim_prefault(v->rev, ns * sizeof *v->rev);
            sim_prefault(v->rcomp, 2 * ns * sizeof *v->rcomp);
            sim_regions_init(v);
        } else {
            sim_regions_reset(v);
        }
    }
    /* MSPS's exact scan reads cached scores (sim_mscore_update keeps them), as does a choose
     * that asks for MSPS's choice (sim_view_msps_last_min) */
    if (v->regions_on &&
        ((v->pol->score_kind == SIM_SCORE_MSPS && !v->pol->choose) ||
         ((v->pol->needs & SIM_NEEDS_MSPS_SCORES) && v->pol->choose && sim_pkb_bounds))) {
        if (!v->pool_sc && !(v->pool_sc = malloc((size_t)v->pool_cap * sizeof *v->pool_sc)))
            return gms_error_set(err, GMS_ENOMEM, "out of memory for MSPS's scores");
        if (sim_psc_reset(v, v->pol->choose != NULL))
            return gms_error_set(err, GMS_ENOMEM, "out of memory for MSPS's scores");
    } else {
        free(v->pool_sc);
        v->pool_sc = NULL;
        sim_psc_free(v);
    }
    if (sim_pbm_reset(v, v->pool_sc && v->pol->choose))
        return gms_error_set(err, GMS_ENOMEM, "out of memory for the pool's block sizes");
    /* the exact scans of lru, size, dtr-local and dtr skip blocks by their bounds */
    {
        unsigned k = v->pol->choose || !sim_pkb_bounds ? SIM_SCORE_CUSTOM : v->pol->score_kind;
        if (!(k == SIM_SCORE_LRU || k == SIM_SCORE_SIZE || k == SIM_SCORE_DTR_LOCAL ||
              (k == SIM_SCORE_DTR && v->regions_on && !v->dtr_eq_approx)))
            k = SIM_SCORE_CUSTOM;
        if (sim_pkb_reset(v, k))
            return gms_error_set(err, GMS_ENOMEM, "out of memory for the pool's bounds");
        v->scores_as = SIM_SCORE_CUSTOM; /* a policy may ask during the run (sim_choose.c) */
    }
    /* nothing reads forward interiors or sums: MSPS's own scan with no hook that could ask
     * sim_view_region_fwd_cost, or a policy that declares it never asks, and no planner.
     * Either set layout: the memoised and swept rebuilds are reverse ones, which never read
     * a forward region */
    int msps_scan_alone = v->pol->score_kind == SIM_SCORE_MSPS && !v->pol->choose &&
                          !v->pol->on_evict && !v->pol->on_remat && !v->pol->on_access &&
                          !v->pol->on_iteration && !v->pol->action;
    v->fwd_frontier_only = v->regions_on && cfg->sample == 0 && !cfg->planner &&
                           (msps_scan_alone || (v->pol->needs & SIM_NEEDS_REV_REGIONS_ONLY));
    if (sim_streams_reset(v, err))
        return -1;
    return sim_mem_reset(v, err);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int sim_runner_run(sim_runner *r, const sim_config *cfg, sim_result *res, gms_error *err)
{
    if (!r || !cfg || !res)
        return gms_error_set(err, GMS_EINVAL, "sim_run: NULL argument");
    memset(res, 0, sizeof *res);
    const sim_policy *p = cfg->planner ? &sim_ckpt_policy : cfg->policy;
    if (!p)
        return gms_error_set(err, GMS_EINVAL, "sim_run: no policy given");
    if (!p->score == !p->choose)
        return gms_error_set(err, GMS_EINVAL,
                             "sim_run: policy %s must have exactly one of score and choose",
                             p->name ? p->name : "?");
    if ((p->needs & SIM_NEEDS_ADDRESSES) && !cfg->allocator)
        return gms_error_set(err, GMS_EINVAL,
                             "policy %s chooses victims by address: it needs a memory model "
                             "with addresses (an allocator other than ideal)",
                             p->name ? p->name : "?");
    if (cfg->semantics != SIM_SEMANTICS_SIMRD)
        return gms_error_set(err, GMS_EINVAL, "sim_run: unknown semantics %d",
                             (int)cfg->semantics);
    double t0 = now_s();
    sim_view *v = &r->v;
    int allow_no_upkeep = 1;
again:
    if (reset(v, cfg, allow_no_upkeep, err))
        return err ? err->code : GMS_EINVAL;
    if (p->init && p->init(cfg, &v->pol_state, err) != 0)
        return err && err->code ? err->code : GMS_EINVAL;
    if (cfg->planner && sim_ckpt_start(v, cfg, err))
        return err && err->code ? err->code : GMS_EINVAL;

    const sim_trace *tr = v->tr;
    for (uint32_t i = 0; i < tr->n_schedule; i++) {
        uint32_t e = tr->schedule[i];
        int rc = 0;
        switch (SCH_KIND(e)) {
        case SCH_COMPUTE:
            rc = run_compute(v, SCH_INDEX(e));
            break;
        case SCH_RELEASE_LAST: {
            uint32_t s = SCH_INDEX(e);
            if (v->ckpt && sim_ckpt_on_release(v, s))
                break; /* a checkpointed layer's input, held until the layer re-runs */
            if ((v->fl[s] & (SIM_FL_MAT | SIM_FL_PINNED)) == SIM_FL_MAT)
                evict(v, s, 1);
            else if (v->sw.on) /* dead: its host copy goes */
                sim_swap_forget(v, s);
            break;
        }
        case SCH_PIN:
            if (i < v->pins_end)
                rc = run_pin(v, SCH_INDEX(e));
            break;
        case SCH_ITERATION:
            if (p->on_iteration)
                p->on_iteration(v, v->pol_state);
            break;
        }
        if (rc || v->failed_alloc)
            break;
    }
    int ckpt_rc = v->ckpt ? sim_ckpt_finish(v, res, err) : 0;
    if (p->free)
        p->free(v->pol_state);
    v->pol_state = NULL;
    if (v->no_upkeep_failed) { /* an eviction after all (see reset): redo with the upkeep */
        allow_no_upkeep = 0;
        goto again;
    }
    if (v->nan_storage != SIM_NONE)
        return gms_error_set(err, GMS_EINVAL,
                             "policy '%s' scored storage %u as NaN at clock %llu; a score must "
                             "be a number (+inf allowed): fix the policy's score function",
                             p->name ? p->name : "?", v->nan_storage,
                             (unsigned long long)v->clock);
    if (v->failed_alloc)
        return gms_error_set(err, GMS_ENOMEM, "sim_run: out of memory during the simulation");
    if (ckpt_rc)
        return ckpt_rc;

    res->status = v->status;
    res->clock = v->clock;
    res->overhead = tr->baseline.compute ? sim_score_ratio((int64_t)v->clock, tr->baseline.compute, 1)
                                         : 1.0;
    res->evictions = v->evictions;
    res->eager_evictions = v->eager_evictions;
    res->remats = v->remats;
    res->remat_compute = v->remat_compute;
    res->peak_memory = v->peak;
    sim_mem_finish(v, res);
    sim_cost_finish(v, res);
    sim_streams_finish(v, res);
    res->wall_s = now_s() - t0;
    return 0;
}

int sim_run(const sim_trace *t, const sim_config *cfg, sim_result *res, gms_error *err)
{
    sim_runner *r;
    int rc = sim_runner_new(t, &r, err);
    if (rc)
        return rc;
    rc = sim_runner_run(r, cfg, res, err);
    sim_runner_free(r);
    return rc;
}
