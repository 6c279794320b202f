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
 *  - Candidates: the pool is walked from its first entry with random strides drawn
 *    uniformly from 1 .. max(1, floor(sqrt(n))), n = the pool's size when the search starts
 *    (cpp:171-173, 194-195), about 2 sqrt(n) candidates; dtr-proto-all steps by 1, scanning
 *    everything, as the prototype did with sampling off (cpp:196-197; the measured 4 GB
 *    rows). Only evictable storages are scored (cpp:186, h:242-244: unlocked, not pinned).
 *  - Ties: strict '<', so the FIRST minimum in walk order wins (cpp:188-191).
 *  - Small tensors: a storage never enters the pool when it is under 1% of the running mean
 *    size of the storages measured so far, itself included (cpp:137-141 CheckpointPool::add;
 *    memory(), cpp:110-120, keeps the running sum and count and is called for every new
 *    storage, constants too; storages are numbered in creation order, so the mean is a
 *    prefix mean). The integer division of the mean is kept.
 *  - When: after each op, evict until allocated bytes are within the budget (cpp:149-156
 *    auto_evict, called right after the op runs: cpp:567 first runs, cpp:421 remats), the
 *    op's new outputs not yet candidates: the engine does this for SIM_NEEDS_EVICT_AFTER.
 *
 * Not reproduced: the pool's own order (the prototype's vector with swap-removal and lazily
 * dropped dead entries, cpp:167-185; here the engine's pool order, oldest-evictable first,
 * and n counts evictable storages only), its random generator (std::mt19937 seeded from
 * random_device with uniform_int_distribution; here MT19937 seeded with --seed and a
 * modulo draw), and two multi-output details (siblings share one class, and a sibling's
 * eviction zeroes the own cost: cpp:435-444 get_ecn/get_cpi). When no storage over the
 * small-tensor threshold is evictable the whole pool is scanned (the prototype would stop
 * with an error).
 */
#include <math.h>
#include <stdlib.h>

#include "mt19937.h"
#include "policies.h"
#include "sim.h"

typedef struct proto_state {
    pol_mt rng;
    int sample;        /* strided sampling (dtr-proto) or a full scan (dtr-proto-all) */
    uint8_t *small;    /* per storage: under 1% of the running mean at its creation */
    uint32_t n_small;  /* storages classified so far (lazily, on the first choice) */
    uint32_t *cand;    /* the pool members that pass the filter, in pool order */
    uint32_t cap;
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
        free(st->small);
        free(st->cand);
    }
    free(st);
}

/* The small-tensor flags of every storage (cpp:146-149): size 0, or under 1% of the prefix
 * mean (integer division, as size_t memory_sum / memory_count). 0 or -1. */
static int classify(const sim_view *v, proto_state *st)
{
    uint32_t n = sim_view_storage_count(v);
    if (st->small && st->n_small == n)
        return 0;
    free(st->small);
    st->small = malloc((size_t)n + 1);
    if (!st->small)
        return -1;
    uint64_t sum = 0;
    for (uint32_t s = 0; s < n; s++) {
        uint64_t m = sim_view_size(v, s);
        sum += m;
        uint64_t mean = sum / ((uint64_t)s + 1);
        st->small[s] = !(m > 0 && (double)m >= 0.01 * (double)mean);
    }
    st->n_small = n;
    return 0;
}

static double proto_score(const sim_view *v, uint32_t s)
{
    int64_t num = (int64_t)sim_view_compute(v, s) + sim_view_eqclass_cost(v, s);
    return sim_score_ratio(num, sim_view_size(v, s), sim_view_staleness(v, s));
}

static uint32_t proto_choose(const sim_view *v, void *state)
{
    proto_state *st = state;
    uint32_t size = sim_view_pool_size(v);
    uint32_t n = 0;
    if (classify(v, st) == 0 && (size <= st->cap || (free(st->cand), st->cand = malloc(
                                                         (size_t)size * sizeof *st->cand)))) {
        st->cap = size > st->cap ? size : st->cap;
        for (uint32_t s = sim_view_pool_first(v); s != SIM_NONE; s = sim_view_pool_next(v, s))
            if (!st->small[s])
                st->cand[n++] = s;
    } else {
        st->cap = 0; /* out of memory: fall back to the whole pool, unsampled */
    }
    uint32_t best = SIM_NONE;
    double best_cost = INFINITY;
    uint64_t scored = 0;
    if (n == 0) {
        /* nothing over the threshold: scan everything (see the header) */
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
    uint32_t k = (uint32_t)sqrt((double)n); /* static_cast<int>(std::sqrt(aps.size())) */
    if (k < 1)
        k = 1;
    for (uint32_t i = 0; i < n;) {
        double c = proto_score(v, st->cand[i]);
        scored++;
        if (best == SIM_NONE || c < best_cost) {
            best_cost = c;
            best = st->cand[i];
        }
        i += st->sample ? 1 + pol_mt_below(&st->rng, k) : 1;
    }
    sim_view_count_candidates(v, scored);
    return best;
}

const sim_policy pol_dtr_proto = {
    .name = "dtr-proto",
    .description = "the DTR prototype's policy: dtr-eq scored on ~2 sqrt(n) strided samples, "
                   "small tensors skipped, evicting after each op",
    .needs = SIM_NEEDS_EQCLASS | SIM_NEEDS_EVICT_AFTER,
    .choose = proto_choose,
    .init = proto_init,
    .free = proto_free,
};

const sim_policy pol_dtr_proto_all = {
    .name = "dtr-proto-all",
    .description = "dtr-proto scanning every candidate (the prototype with sampling off)",
    .needs = SIM_NEEDS_EQCLASS | SIM_NEEDS_EVICT_AFTER,
    .choose = proto_choose,
    .init = proto_all_init,
    .free = proto_free,
};
