/*
 * dtr-proto: the eviction policy of the DTR paper's prototype, as its source does it
 * (uwsampl/dtr-prototype, dtr_code/dtr-implementation.patch, which creates
 * aten/src/ATen/CheckpointTensorImpl.cpp and .h; "cpp:N" / "h:N" are line numbers in those
 * new files, i.e. the patch's "+" lines counted from the file's first line).
 *
 * Rules, each with its source:
 *  - Score: compute / (memory x staleness), the lowest evicted (h:164-168,
 *    CheckpointInfo::cost), where compute is the storage's own op cost, view ops on it
 *    included (cpp:583-586), plus the values of the distinct equivalence classes of its
 *    evicted neighbours (cpp:394-405 AliasPool::cost over neighbor_ecn()); classes merge on
 *    eviction (cpp:375-392 AliasPool::evict) and lose the storage's cost when it is
 *    rematerialized (cpp:467-478 set_not_evicted). This is the engine's DTR-eq bookkeeping
 *    (sim_view_eqclass_cost): the dtr-eq score.
 *  - Staleness: the time since the storage was last used (h:248; set on creation, h:253,
 *    and on every use in get(), h:331). The prototype reads the wall clock, so every cost
 *    the runtime pays moves it; here it is the simulated clock, which includes the
 *    runtime-cost model's terms (--op-overhead, --search-cost, --evict-cost) when set.
 *  - The pool (cpp:137-141, 160-200, 467-478): its own vector, not the engine's pool. A
 *    storage is appended when an op creates it and when a rematerialization makes it
 *    resident again (set_not_evicted), each time after that op's eviction and only when it
 *    passes the small-tensor filter then; the victim leaves by swap-removal (the last entry
 *    takes its place); entries whose storage was evicted or freed since stay until a walk
 *    lands on them (the weak pointer that no longer locks, or the pool with an ecn).
 *  - Candidates: the walk starts at the vector's first entry and steps by random strides
 *    drawn uniformly from 1 .. max(1, floor(sqrt(n))), n = the vector's length when the
 *    search starts, stale entries included (cpp:171-173, 194-195): about 2 sqrt(n)
 *    candidates. A stale entry is swap-removed where it stands and the walk looks at the
 *    same index again; a resident one that is locked (an input of the op or remat running)
 *    is stepped over unscored (cpp:186, h:242-244). dtr-proto-all steps by 1, scanning
 *    everything, as the prototype did with sampling off (cpp:196-197; the measured 4 GB
 *    rows). A walk that scored nothing but dropped stale entries is walked again
 *    (auto_evict calls evict() again while memory is over the budget).
 *  - Ties: strict '<', so the FIRST minimum in walk order wins (cpp:188-191).
 *  - Small tensors: a storage does not enter the pool when it is under 1% of the running
 *    mean size of the storages measured so far (cpp:137-141 CheckpointPool::add; memory(),
 *    cpp:110-120, keeps the running sum and count and is called for every new storage,
 *    constants too, itself included), at creation and again at each re-entry with the mean
 *    of then. The integer division of the mean is kept.
 *  - When: after each op, evict until allocated bytes are within the budget (cpp:149-156
 *    auto_evict, called right after the op runs: cpp:567 first runs, cpp:421 remats), the
 *    op's new outputs not yet candidates: the engine does this for SIM_NEEDS_EVICT_AFTER.
 *  - The end: the measured iteration ends with its last op (run_torch_trial.py times
 *    run_model, which ends after backward): the gradients and weights the budget evicted are
 *    not rematerialized for the end as simrd's replay does (SIM_NEEDS_NO_FINAL_PIN). That
 *    final phase was what made the sampling thrash on the Transformer at 2 GB (issue 30):
 *    at a tight budget the pins of every live output cannot fit together, and the engine
 *    evicted and recomputed through them, 2.5x where the prototype measured 1.59x.
 *
 * Not reproduced: its random generator (std::mt19937 seeded from random_device with
 * uniform_int_distribution; here MT19937 seeded with --seed and a modulo draw), and two
 * multi-output details (siblings share one class, and a sibling's eviction zeroes the own
 * cost: cpp:435-444 get_ecn/get_cpi). Assumed: a released storage that was locked when its
 * last reference went (the prototype leaves it resident, cpp release_external) is freed as
 * the engine frees released storages; constants never enter the pool (they are pinned).
 * When the pool holds nothing evictable the engine's whole pool is scanned (the prototype
 * would stop with an error), and so it is when this policy runs out of memory.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mt19937.h"
#include "policies.h"
#include "sim.h"

typedef struct proto_state {
    pol_mt rng;
    int sample;        /* strided sampling (dtr-proto) or a full scan (dtr-proto-all) */
    /* The prototype's pool (aps): storage ids in its order. Entries are appended when a
     * storage is created or rematerialized and passes the small-tensor filter then; the
     * chosen victim leaves by swap-removal; entries of storages evicted or freed since stay
     * until a walk lands on them (the weak pointers that fail to lock, or hold an ecn). */
    uint32_t *aps;
    uint32_t n_aps, cap_aps;
    uint8_t *gone;     /* per storage: evicted or freed since it last became resident */
    uint32_t n_seen;   /* storages created so far (registered in creation order) */
    uint64_t mem_sum;  /* memory_sum / memory_count: every storage created so far */
    uint32_t *op_first; /* per op + 1: its first own storage (creation order), for remats */
    uint32_t n_ops;
    int failed;        /* out of memory: fall back to scanning the engine's pool */
} proto_state;

static int proto_init_common(const sim_config *cfg, void **state, int sample, gms_error *err)
{
    proto_state *st = calloc(1, sizeof *st);
    if (!st)
        return gms_error_set(err, GMS_ENOMEM, "dtr-proto: out of memory");
    st->sample = sample;
    pol_mt_seed(&st->rng, cfg->seed);
    *state = st;
    return 0;
}

static int proto_init(const sim_config *cfg, void **state, gms_error *err)
{
    return proto_init_common(cfg, state, 1, err);
}

static int proto_all_init(const sim_config *cfg, void **state, gms_error *err)
{
    return proto_init_common(cfg, state, 0, err);
}

static void proto_free(void *state)
{
    proto_state *st = state;
    if (st) {
        free(st->aps);
        free(st->gone);
        free(st->op_first);
    }
    free(st);
}

/* The per-trace tables, made on the first hook. 0 or -1. */
static int setup(const sim_view *v, proto_state *st)
{
    if (st->gone || st->failed)
        return st->failed ? -1 : 0;
    uint32_t n = sim_view_storage_count(v), ops = sim_view_op_count(v);
    st->gone = calloc((size_t)n + 1, 1);
    st->op_first = malloc(((size_t)ops + 1) * sizeof *st->op_first);
    if (!st->gone || !st->op_first) {
        st->failed = 1;
        return -1;
    }
    /* storages are numbered in creation order, so an op's own storages are consecutive */
    uint32_t s = 0;
    for (uint32_t o = 0; o <= ops; o++) {
        while (s < n && sim_view_storage_op(v, s) < o)
            s++;
        st->op_first[o] = s;
    }
    st->n_ops = ops;
    return 0;
}

/* CheckpointPool::add (cpp:137-141): a storage joins the pool when it is not empty and not
 * under 1% of the running mean size (integer division, as size_t memory_sum / count). */
static void pool_add(const sim_view *v, proto_state *st, uint32_t s)
{
    uint64_t m = sim_view_size(v, s);
    uint64_t mean = st->n_seen ? st->mem_sum / st->n_seen : 0;
    if (m == 0 || (st->n_seen && (double)m < 0.01 * (double)mean))
        return;
    if (st->n_aps == st->cap_aps) {
        uint32_t cap = st->cap_aps ? 2 * st->cap_aps : 256;
        uint32_t *a = realloc(st->aps, (size_t)cap * sizeof *a);
        if (!a) {
            st->failed = 1;
            return;
        }
        st->aps = a;
        st->cap_aps = cap;
    }
    st->aps[st->n_aps++] = s;
}

/* A model op ran (after its eviction): the storages it created are measured (memory(),
 * cpp:110-120, constants too) and join the pool (make_raw: after auto_evict). */
static void proto_on_access(const sim_view *v, uint32_t op, void *state)
{
    proto_state *st = state;
    if (setup(v, st))
        return;
    uint32_t n = sim_view_storage_count(v);
    while (st->n_seen < n && sim_view_storage_op(v, st->n_seen) <= op) {
        uint32_t s = st->n_seen;
        st->mem_sum += sim_view_size(v, s);
        st->n_seen++;
        st->gone[s] = 0;
        if (sim_view_evictable(v, s)) /* constants are pinned, never candidates */
            pool_add(v, st, s);
    }
}

/* An op ran again: its storages that were evicted are resident again and rejoin the pool
 * (set_not_evicted, cpp:467-478, after the remat's auto_evict), filtered with the mean of
 * now. */
static void proto_on_remat(const sim_view *v, uint32_t op, void *state)
{
    proto_state *st = state;
    if (setup(v, st) || op >= st->n_ops)
        return;
    for (uint32_t s = st->op_first[op]; s < st->op_first[op + 1]; s++)
        if (st->gone[s] && s < st->n_seen && sim_view_evictable(v, s)) {
            st->gone[s] = 0;
            pool_add(v, st, s);
        }
}

static void proto_on_evict(const sim_view *v, uint32_t s, int eager, void *state)
{
    proto_state *st = state;
    (void)eager;
    if (setup(v, st) == 0)
        st->gone[s] = 1;
}

static double proto_score(const sim_view *v, uint32_t s)
{
    int64_t num = (int64_t)sim_view_compute(v, s) + sim_view_eqclass_cost(v, s);
    return sim_score_ratio(num, sim_view_size(v, s), sim_view_staleness(v, s));
}

/* The whole engine pool, first minimum: when the prototype's pool holds nothing evictable
 * (the prototype would stop with an error) or this policy ran out of memory. */
static uint32_t scan_engine_pool(const sim_view *v, uint64_t scored)
{
    uint32_t best = SIM_NONE;
    double best_cost = INFINITY;
    for (uint32_t s = sim_view_pool_first(v); s != SIM_NONE; s = sim_view_pool_next(v, s)) {
        double c = proto_score(v, s);
        scored++;
        if (best == SIM_NONE || c < best_cost) {
            best_cost = c;
            best = s;
        }
    }
    sim_view_count_candidates(v, scored);
    return best;
}

static void remove_at(proto_state *st, uint32_t i)
{
    st->aps[i] = st->aps[--st->n_aps];
}

/* CheckpointPool::evict (cpp:160-200): walk the pool from its start with strides drawn from
 * 1 .. max(1, floor(sqrt(size))), size as the walk starts (stale entries included); an
 * entry whose storage was evicted or freed is swap-removed where it stands and the walk
 * looks at the same index again; one that is resident but locked is stepped over unscored;
 * the first minimum wins and leaves by swap-removal. A walk that scored nothing but shrank
 * the pool is walked again (auto_evict calls evict() again). */
static uint32_t proto_choose(const sim_view *v, void *state)
{
    proto_state *st = state;
    if (setup(v, st) || st->failed)
        return scan_engine_pool(v, 0);
    uint64_t scored = 0;
    for (;;) {
        uint32_t k = (uint32_t)sqrt((double)st->n_aps); /* static_cast<int>(sqrt(size)) */
        if (k < 1)
            k = 1;
        uint32_t best = SIM_NONE, best_i = 0;
        double best_cost = INFINITY;
        int shrunk = 0;
        for (uint32_t i = 0; i < st->n_aps;) {
            uint32_t s = st->aps[i];
            if (st->gone[s]) {
                remove_at(st, i);
                shrunk = 1;
                continue;
            }
            if (sim_view_evictable(v, s)) {
                double c = proto_score(v, s);
                scored++;
                if (best == SIM_NONE || c < best_cost) { /* strict '<' past the first */
                    best_cost = c;
                    best = s;
                    best_i = i;
                }
            }
            i += st->sample ? 1 + pol_mt_below(&st->rng, k) : 1;
        }
        if (best != SIM_NONE) {
            remove_at(st, best_i);
            sim_view_count_candidates(v, scored);
            return best;
        }
        if (!shrunk)
            return scan_engine_pool(v, scored);
    }
}

const sim_policy pol_dtr_proto = {
    .name = "dtr-proto",
    .description = "the DTR prototype's policy: dtr-eq scored on ~2 sqrt(n) strided samples "
                   "of its own pool, small tensors skipped, evicting after each op",
    .needs = SIM_NEEDS_EQCLASS | SIM_NEEDS_EVICT_AFTER | SIM_NEEDS_NO_FINAL_PIN,
    .choose = proto_choose,
    .init = proto_init,
    .free = proto_free,
    .on_evict = proto_on_evict,
    .on_remat = proto_on_remat,
    .on_access = proto_on_access,
};

const sim_policy pol_dtr_proto_all = {
    .name = "dtr-proto-all",
    .description = "dtr-proto scanning every candidate (the prototype with sampling off)",
    .needs = SIM_NEEDS_EQCLASS | SIM_NEEDS_EVICT_AFTER | SIM_NEEDS_NO_FINAL_PIN,
    .choose = proto_choose,
    .init = proto_all_init,
    .free = proto_free,
    .on_evict = proto_on_evict,
    .on_remat = proto_on_remat,
    .on_access = proto_on_access,
};
