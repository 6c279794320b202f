/*
 * policy: the interface an eviction policy implements (heuristics/ holds the concrete ones).
 *
 * When the simulator must free memory it asks the policy for one victim among the evictable
 * storages (the "pool": material, unlocked, unpinned storages, in the order they last became
 * evictable). A policy either
 *   - gives a score function (lower = better victim): the simulator scans the whole pool in
 *     order exactly like simrd's Heuristic.choose (spec section 5): the LAST minimum wins
 *     ties, the first score equal to 0 ends the scan, and when every score is +inf the last
 *     storage is chosen; or
 *   - gives a full choose() that walks the pool itself (sim_view_pool_first/next) and returns
 *     one storage of it.
 * Policies read storages only through the sim_view functions below; they never see the
 * simulator's structures. Per-run private state comes from init and goes back through free
 * (runs on different threads each have their own).
 *
 * Costs that need bookkeeping (DTR regions, equivalence classes) are maintained by the
 * simulator incrementally, exactly as simrd does (spec sections 6 and 7), but only when a
 * policy says it needs them in `needs`, so that LRU runs do not pay for them.
 */
#ifndef SIM_POLICY_H
#define SIM_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

struct sim_config;

/* Built-in score formulas (sim_policy.score_kind), as simrd's heuristics define them
 * (spec section 5): */
enum {
    SIM_SCORE_CUSTOM = 0,
    SIM_SCORE_LRU,       /* last access */
    SIM_SCORE_SIZE,      /* 1 / size */
    SIM_SCORE_DTR_LOCAL, /* compute / (size x staleness) */
    SIM_SCORE_DTR,       /* (compute + forward + reverse region compute) / (size x staleness) */
    SIM_SCORE_MSPS,      /* (compute + reverse region compute) / size */
    SIM_SCORE_DTR_EQ,    /* (compute + equivalence-class cost) / (size x staleness) */
};

/* A running simulation as a policy sees it (read only). */
typedef struct sim_view sim_view;

/* "No storage". */
#define SIM_NONE UINT32_MAX

enum {
    SIM_NEEDS_REGIONS = 1u << 0, /* sim_view_region_cost (DTR, MSPS) */
    SIM_NEEDS_EQCLASS = 1u << 1, /* sim_view_eqclass_cost (DTR-eq) */
    SIM_NEEDS_ADDRESSES = 1u << 2, /* sim_view_block and friends: a memory model with
                                    * addresses (any but ideal; the run refuses ideal) */
    /* The DTR prototype's eviction timing (its CheckpointPool::auto_evict): an op runs
     * first, then the engine evicts until resident bytes are within the budget again (the
     * op's new outputs are not candidates then), instead of evicting before the op so that
     * its outputs fit. Memory may pass the budget while an op runs, as on the prototype.
     * Ideal memory model only. (A new bit: plugins built before it never set it.) */
    SIM_NEEDS_EVICT_AFTER = 1u << 3,
    /* The policy swaps to host memory (docs/swap.md): the run gets copy engines and a link
     * (sim_config.link_*), and each victim the policy chooses is handled as its `action`
     * says. Ideal memory model only. */
    SIM_NEEDS_SWAP = 1u << 4,
    /* The DTR prototype's timed region (run_torch_trial.py): the iteration ends with its last
     * op. The live outputs left at the end (gradients, weights) are not materialized and
     * pinned, as simrd's replay does: what the budget evicted of them stays evicted, and no
     * recomputation is paid for it. (A new bit: plugins built before it never set it.) */
    SIM_NEEDS_NO_FINAL_PIN = 1u << 5,
    /* With choose and SIM_NEEDS_REGIONS: the engine keeps the pool's MSPS scores cached, as
     * for msps itself, so that sim_view_msps_last_min answers without scoring the pool
     * (capuchin, issue 26). Not for plugins. */
    SIM_NEEDS_MSPS_SCORES = 1u << 6,
    /* With SIM_NEEDS_REGIONS: the policy and every hook of it read reverse region costs only,
     * never sim_view_region_fwd_cost, so the engine keeps forward regions as frontiers only,
     * without interiors or sums, as for msps's own scan (capuchin). Not for plugins. */
    SIM_NEEDS_REV_REGIONS_ONLY = 1u << 7,
};

/* What happens to a victim (sim_policy.action). */
enum {
    SIM_ACTION_DROP = 0, /* evict it: recompute it when it is needed again */
    SIM_ACTION_SWAP = 1, /* copy it to host memory; its device bytes are freed when the copy
                          * ends, and it is copied back when needed (or prefetched). Dropped
                          * instead when host memory is full. */
};

/* ------------------------------------------------------------------------------------------
 * Plugins (docs/plugins.md). A shared object that provides a policy exports one function,
 * named SIM_POLICY_ENTRY_NAME, of type sim_policy_entry_fn: it stores SIM_POLICY_ABI_VERSION
 * (as compiled into the plugin) in *abi_version and returns its policy, which must stay valid
 * until the process exits. gpumemsim refuses a plugin whose ABI version differs from its own.
 * The version changes whenever sim_policy's layout, the SIM_* constants or a sim_view
 * function's signature or meaning changes.
 */
#define SIM_POLICY_ABI_VERSION 2u
#define SIM_POLICY_ENTRY_NAME "gpumemsim_policy"

struct sim_policy;
typedef const struct sim_policy *(*sim_policy_entry_fn)(unsigned *abi_version);

typedef struct sim_policy {
    const char *name;        /* CLI name: "dtr" */
    const char *description; /* one line */
    unsigned needs;          /* SIM_NEEDS_* */

    /* Exactly one of score / choose. */
    double (*score)(const sim_view *v, uint32_t storage, void *state);
    /* Optional, with score: says that score computes one of the simulator's own formulas
     * (SIM_SCORE_*), so the full pool scan may evaluate it inline instead of calling score
     * for every storage. Same choices either way; 0 = always call score. */
    unsigned score_kind;
    uint32_t (*choose)(const sim_view *v, void *state); /* a pool member; pool is never empty */

    /* Optional. init allocates per-run state (*state may stay NULL); free releases it. */
    int (*init)(const struct sim_config *cfg, void **state, gms_error *err);
    void (*free)(void *state);

    /* Optional hooks, called after the simulator updated its own state. */
    void (*on_evict)(const sim_view *v, uint32_t storage, int eager, void *state);
    void (*on_remat)(const sim_view *v, uint32_t op, void *state);  /* an op ran again */
    void (*on_access)(const sim_view *v, uint32_t op, void *state); /* a model op ran */
    void (*on_iteration)(const sim_view *v, void *state); /* ANNOTATE iteration/START marker */

    /* Optional, with SIM_NEEDS_SWAP (ABI 2): SIM_ACTION_DROP or SIM_ACTION_SWAP for the victim
     * just chosen (still resident). NULL = always swap. */
    unsigned (*action)(const sim_view *v, uint32_t storage, void *state);
} sim_policy;

/* The entry function a plugin defines (and exports; see SIM_POLICY_ENTRY_NAME above):
 *     const sim_policy *gpumemsim_policy(unsigned *abi_version)
 *     { *abi_version = SIM_POLICY_ABI_VERSION; return &my_policy; }
 * gpumemsim itself never defines it. */
const sim_policy *gpumemsim_policy(unsigned *abi_version);

/* ------------------------------------------------------------------------------------------
 * Views. `s` is a storage index as handed out by the pool functions or a hook.
 */
uint64_t sim_view_clock(const sim_view *v);
uint64_t sim_view_memory(const sim_view *v); /* resident bytes */
uint64_t sim_view_budget(const sim_view *v);

/* Pool walk in order (oldest-evictable first); SIM_NONE at the end. */
uint32_t sim_view_pool_first(const sim_view *v);
uint32_t sim_view_pool_next(const sim_view *v, uint32_t s);
uint32_t sim_view_pool_size(const sim_view *v);
/* The k-th pool member in pool order (k < pool size), walking the pool: O(k). */
uint32_t sim_view_pool_at(const sim_view *v, uint32_t k);

uint64_t sim_view_size(const sim_view *v, uint32_t s);
/* Clock at the storage's last access (INT64_MIN before its first one). */
int64_t sim_view_last_access(const sim_view *v, uint32_t s);
/* clock - last access (0 when accessed now). */
uint64_t sim_view_staleness(const sim_view *v, uint32_t s);
/* Local cost: compute of the storage's op plus the view ops created on it (spec section 2). */
uint64_t sim_view_compute(const sim_view *v, uint32_t s);
/* Evicted-neighbourhood costs as simrd caches them (spec section 6); needs SIM_NEEDS_REGIONS.
 * fwd: through children, rev: through parents. A swapped-out storage is not evicted for them
 * (it comes back by a copy; docs/swap.md). */
uint64_t sim_view_region_fwd_cost(const sim_view *v, uint32_t s);
uint64_t sim_view_region_rev_cost(const sim_view *v, uint32_t s);
/* Sum of the values of the distinct equivalence classes of s's evicted neighbours (spec
 * section 7; may be negative); needs SIM_NEEDS_EQCLASS. */
int64_t sim_view_eqclass_cost(const sim_view *v, uint32_t s);

/* Address queries (SIM_NEEDS_ADDRESSES), answered by the run's memory model (sim/memory.h). */
struct sim_mem_block;
/* 1 when the run has a memory model with addresses. */
int sim_view_has_addresses(const sim_view *v);
/* Bytes of the allocation being placed when the model could not fit it (0 otherwise). */
uint64_t sim_view_pending_bytes(const sim_view *v);
/* Every block in address order into out[0..cap); returns how many there are. */
size_t sim_view_blocks(const sim_view *v, struct sim_mem_block *out, size_t cap);
/* Free bytes right before and after storage s's block in its segment (0 without a block). */
uint64_t sim_view_free_around(const sim_view *v, uint32_t s);
/* 1 when storage s can be evicted now (in the pool: material, unlocked, unpinned). */
int sim_view_evictable(const sim_view *v, uint32_t s);

/* Storages in the trace; indices run from 0 in creation order (constants included). */
uint32_t sim_view_storage_count(const sim_view *v);
/* For the runtime-cost model (sim_config.search_cost_ns): a choose() that scores fewer
 * storages than the whole pool calls this with the number it scored, once per choice;
 * without the call the whole pool is counted. */
void sim_view_count_candidates(const sim_view *v, uint64_t n);

/* Swapping (SIM_NEEDS_SWAP runs; elsewhere: 0 / nothing). */
/* 1 when storage s is in host memory or on its way there (a swap-out was queued). */
int sim_view_on_host(const sim_view *v, uint32_t s);
/* ns one copy of `bytes` takes on an idle engine (latency + bytes / bandwidth). */
uint64_t sim_view_copy_ns(const sim_view *v, uint64_t bytes);
/* When each copy engine is free again (ns, compare with sim_view_clock). */
uint64_t sim_view_d2h_free_at(const sim_view *v);
uint64_t sim_view_h2d_free_at(const sim_view *v);
/* Asks the engine to copy storage s back ahead of use (from a hook). Done only when s is in
 * host memory and fits under the budget without evicting; returns 1 when a copy was queued. */
int sim_view_prefetch(const sim_view *v, uint32_t s);

/* The trace's future, for planning policies (Capuchin-style profiles; ABI 2). Ops are
 * numbered in schedule order (constants included). */
uint32_t sim_view_op_count(const sim_view *v);
uint64_t sim_view_op_cost(const sim_view *v, uint32_t op); /* ns of its first run */
/* The model op being run now (SIM_NONE before the first). */
uint32_t sim_view_current_op(const sim_view *v);
/* The first op after the current one that reads a tensor of storage s (found through the ops'
 * outputs: an op without outputs is not seen), SIM_NONE when none does. */
uint32_t sim_view_next_use(const sim_view *v, uint32_t s);
/* The same from any op: the first op after `op` that reads storage s (SIM_NONE: none). */
uint32_t sim_view_use_after(const sim_view *v, uint32_t s, uint32_t op);
/* The op that creates storage s. */
uint32_t sim_view_storage_op(const sim_view *v, uint32_t s);
/* Resident bytes right after op `op` in the replay without a budget (the load curve whose
 * peak is the baseline memory). */
uint64_t sim_view_baseline_load(const sim_view *v, uint32_t op);
/* Asks the engine to swap storage s out now (from a hook), as if the policy had chosen it as a
 * victim and said SIM_ACTION_SWAP. Done only when s is in the pool and host memory has room;
 * returns 1 when its copy was queued. */
int sim_view_swap_out(const sim_view *v, uint32_t s);

/* 1 when storage s is material (resident on the device). */
int sim_view_material(const sim_view *v, uint32_t s);
/* The compute that rematerializing each storage s[i] at op at[i] (i < n) would rerun, as far
 * as the run can foresee it now: the storages' own, and that of each ancestor gone by then
 * (through parents that are gone too), each storage counted once however many chains it is
 * on. Gone: evicted now (neither material nor on the host) or, when at[i] is an op (not
 * SIM_NONE), not pinned and read by no op from at[i] on, so released before it. *bytes (if
 * not NULL) gets the sizes of the storages counted. A price from the evicted neighbourhood
 * alone misses the ancestors released after a drop, which its recomputation must rerun too
 * (docs/swap.md). One walk of the chains. */
uint64_t sim_view_remat_cost_at(const sim_view *v, const uint32_t *s, const uint32_t *at,
                                uint32_t n, uint64_t *bytes);
/* The bytes of the pool's members (evictable now). */
uint64_t sim_view_pool_bytes(const sim_view *v);
/* The pool member with the least MSPS score, (compute + reverse region compute) / size as
 * sim_score_ratio rounds it, the last in pool order among equal scores (no stop at a zero;
 * every score +inf: the last member): what a choose that scores every member that way and
 * keeps the last minimum finds. SIM_NONE when the run keeps no cached scores (a policy
 * without SIM_NEEDS_MSPS_SCORES, or the tests' plain scans): then score the pool yourself. */
uint32_t sim_view_msps_last_min(const sim_view *v);
/* At least the largest size among the members in slots [64 b, 64 b + 64) of the columns'
 * pool (sim_view_get_columns) that a model op reads again (sim_view_next_use not SIM_NONE;
 * 0 when there are none), kept with SIM_NEEDS_MSPS_SCORES for a swapping choose's bounds per
 * block; UINT64_MAX when not kept. */
uint64_t sim_view_pool_block_max_size(const sim_view *v, uint32_t b);
/* sim_view_remat_cost_at for one storage, cut short: the walk stops once the compute counted
 * is above cmax and the bytes above bmax, returning those partial sums (both above their
 * limits, as the full ones would be); else the full cost and bytes. For a test "cost above
 * cmax and bytes above bmax", which needs no more of the chain than that (issue 26). */
uint64_t sim_view_remat_cost_upto(const sim_view *v, uint32_t s, uint32_t at, uint64_t cmax,
                                  uint64_t bmax, uint64_t *bytes);
/* Measures a whole replay of this run's trace, from its first op, with this run's configuration
 * (budget, remat limit, link, host memory, costs; no observers) under policy p, into *res:
 * what a policy that measures a first iteration before it decides (Capuchin, DELTA) learns.
 * It costs a whole simulation: call it once per run, not per choice. p must not be the
 * running policy, nor measure in turn. Returns 0, or an error code (err filled) as sim_run. */
struct sim_result;
int sim_view_measure(const sim_view *v, const sim_policy *p, struct sim_result *res,
                     gms_error *err);
/* Says that from now on every score this run's policy returns equals built-in formula `kind`
 * (SIM_SCORE_*), as score_kind says for a whole run: for a policy that settles on a formula
 * only during the run (hybrid, once it measured its candidates; hybrid-mix, whose score is
 * dtr's but which must not get dtr's sampled approximation). From the next choice on the
 * engine may evaluate that formula itself and skip pool members by bounds: same choices. */
void sim_view_scores_as(const sim_view *v, unsigned kind);
/* ------------------------------------------------------------------------------------------
 * Score arithmetic with Python's semantics: num / (a * b) where num, a, b are integers and the
 * product is exact, rounded correctly to a double like Python's int / int. Returns +inf when
 * a * b == 0 (simrd's "denominator <= 0 -> inf"), whatever num is.
 */
double sim_score_ratio(int64_t num, uint64_t a, uint64_t b);

/* sim_score_ratio(num, a, b) for a scan whose best (lowest) score so far is `best`: the exact
 * score, or, when a cheap estimate proves the exact score is above best, the estimate (then
 * also above best). A scan that keeps the last minimum and stops at the first zero makes the
 * same choices with it as with sim_score_ratio, and skips most exact divisions: it is what the
 * built-in scans use. (The estimate, double operands and three roundings, is within a few
 * units in the last place of the exact quotient, so exceeding best by 2^-40 relative proves
 * it; num != 0 there, so it is no zero either.) Needs unsigned __int128 (GCC, Clang). */
static inline double sim_score_ratio_above(int64_t num, uint64_t a, uint64_t b, double best)
{
    unsigned __int128 den = (unsigned __int128)a * b;
    const uint64_t exact = UINT64_C(1) << 53;
    uint64_t n = num < 0 ? (uint64_t)0 - (uint64_t)num : (uint64_t)num;
    if (den != 0 && num != 0 && n <= exact) {
        if (den <= exact)
            return (double)num / (double)(uint64_t)den;
        double q = (double)num / ((double)a * (double)b);
        if (q > best + (best < 0 ? -best : best) * 0x1p-40)
            return q;
    }
    return sim_score_ratio(num, a, b);
}

/* ------------------------------------------------------------------------------------------
 * Columns: the state a full pool scan reads, as arrays, for a choose() that scans the pool
 * itself as fast as the built-in scans do (a score function costs a call per pool member;
 * docs/plugins.md, "Speed"). Read only, and valid only during the call that got them.
 */
typedef struct sim_view_columns {
    uint64_t clock;             /* sim_view_clock */
    const uint32_t *pool;       /* the pool in order: pool_len entries, SIM_NONE in holes */
    uint32_t pool_len;
    const uint64_t *size;       /* per storage: sim_view_size */
    const uint64_t *compute;    /* per storage: sim_view_compute */
    const int64_t *last_access; /* per storage: sim_view_last_access */
} sim_view_columns;

void sim_view_get_columns(const sim_view *v, sim_view_columns *out);

#endif
