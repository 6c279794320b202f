/*
 * sim_internal: the layout of a loaded trace and of a run's mutable state, shared by the
 * files of sim/ only (builder, runtime, regions, equivalence classes, views).
 *
 * Indices: ops, tensors and storages are numbered in creation order (the schedule's COMPUTE
 * order), so tensor ids are simrd's global output counter and storage ids follow their root
 * tensors. All cross references are uint32 indices into the trace's arrays.
 */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H

#include <stdint.h>

#include "memory.h"
#include "policy.h"
#include "sim.h"
#include "sim_set.h"
#include "streams.h"

/* For the functions whose loops count the bits of set words: on x86-64 they are also built
 * for CPUs with the POPCNT instruction (every x86-64 CPU since 2008, but not the baseline
 * ISA a portable build targets, where a popcount is a dozen instructions), the version
 * chosen once when the program loads (an ifunc). Results cannot differ: only how bits are
 * counted. Measured on the 1M-op GPT trace: msps ~4% faster (issue 15). Only on static
 * functions, called from their own file (an exported wrapper where others need them):
 * clang 14 leaves a call to a clone from another file an undefined reference. */
#if defined(__x86_64__) && defined(__has_attribute) && !defined(GMS_NO_TARGET_CLONES)
#if __has_attribute(target_clones)
#define SIM_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef SIM_POPCNT_CLONES
#define SIM_POPCNT_CLONES
#endif

/* Schedule entries: kind in the low 3 bits, index above. */
enum {
    SCH_COMPUTE = 0,      /* index: op */
    SCH_RELEASE_LAST = 1, /* index: storage whose last external reference dies */
    SCH_PIN = 2,          /* index: tensor */
    SCH_ITERATION = 3,    /* an iteration marker (policy hook only) */
};
#define SCH_KIND(e) ((e) & 7u)
#define SCH_INDEX(e) ((e) >> 3)
#define SCH_MAX_INDEX ((UINT32_C(1) << 29) - 1)

typedef struct sim_op {
    uint64_t cost;       /* ns */
    uint64_t total_size; /* bytes of its non-view outputs */
    uint32_t args_off;   /* into trace->args */
    uint32_t n_args;
    uint32_t out_first;  /* first output tensor; outputs are consecutive */
    uint32_t n_out;
    uint32_t name;       /* offset of the op name in trace->strings */
} sim_op;

/* 24 bytes: the trace's own tensor ids are the builder's business (sim_builder.c keeps them
 * while loading, for its messages), the replay never reads them; a tensor's children count
 * is the distance to the next tensor's (sim_tensor_n_children). */
typedef struct sim_tensor {
    uint64_t size;         /* own bytes (0 for a view) */
    uint32_t op;
    uint32_t storage;
    uint32_t children_off; /* into trace->children; tensors[n_tensors] is a sentinel */
    uint8_t is_view;
    uint8_t mutated;       /* MUTATE depth: simrd names the tensor "<name>" + this many '$' */
} sim_tensor;

typedef struct sim_storage_info {
    uint64_t size;
    uint32_t root;        /* its root tensor */
    uint32_t tensors_off; /* into trace->storage_tensors: root first, then views */
    uint32_t n_tensors;
} sim_storage_info;

/* A layer scope of the trace (recorded by the builder for sim_layers.c; the replay never
 * reads it): ops [first_op, end_op) ran while it was open. */
typedef struct sim_scope_span {
    uint32_t first_op, end_op;
    uint32_t name;  /* offset in trace->strings */
    uint32_t depth; /* 0 = top level */
} sim_scope_span;

/* A storage-level edge: neighbour storage s exists as a neighbour from op `time` on. */
typedef struct sim_edge {
    uint32_t s;
    uint32_t time; /* the edge exists once created_ops > time */
} sim_edge;

struct sim_trace {
    sim_op *ops;
    uint32_t n_ops;
    uint32_t *args; /* op arguments (tensor indices), duplicates kept */
    uint32_t *arg_st; /* the storage of each args[] entry */
    uint32_t n_args_total;
    sim_tensor *tensors; /* n_tensors + 1: the last one only ends the children lists */
    uint32_t n_tensors;
    uint32_t *children; /* per tensor: outputs of every op that used it, op order */
    uint32_t n_children_total;
    sim_storage_info *storages;
    uint64_t *st_size; /* storages[s].size, packed for the pool scans */
    uint32_t n_storages;
    uint32_t *storage_tensors;
    /* storage graph, de-duplicated, without self edges, each list sorted by time:
     * fwd = storages of the children of the storage's tensors, rev = of their parents */
    uint32_t *fwd_off, *rev_off; /* n_storages + 1 offsets */
    sim_edge *fwd_adj, *rev_adj;
    int graph_ordered; /* every forward edge goes to a higher storage index (always in DTR
                        * logs: a storage's parents are older, views stay in their storage) */
    /* The graph the region walks follow (sim_wgraph.c): the storage graph with each wide op
     * as one group entry per storage. Entries are in op order; .s is a storage, or
     * SIM_WG_GROUP | group. A group's members: its op's distinct output storages (gfwd,
     * reached forward from its arguments) and argument storages (grev, reached in
     * reverse from its outputs); gkey[2g] is the least output storage, gkey[2g + 1] the
     * largest argument storage. */
    uint32_t *wfwd_off, *wrev_off; /* n_storages + 1 offsets */
    sim_edge *wfwd_adj, *wrev_adj;
    uint32_t n_groups;
    uint32_t *gfwd_off, *gfwd, *grev_off, *grev, *gkey;
    uint32_t *schedule;
    uint32_t n_schedule;
    char *strings; /* NUL-terminated op names (and scope names) */
    uint32_t strings_len;
    sim_baseline baseline;
    /* Layer structure for planners (sim_layers.c), recorded by the builder; the replay never
     * reads it, so traces with and without scopes replay identically. */
    sim_scope_span *scopes; /* every scope, in begin order */
    uint32_t n_scopes;
    uint32_t max_scope_depth; /* deepest nesting seen (1 = top-level scopes only) */
    uint32_t *iter_op;        /* per ANNOTATE iteration: index of the op after it */
    int64_t *iter_val;        /* per ANNOTATE iteration: its value (input size), -1 = none */
    uint32_t n_iter;
    uint32_t *bwd_op;         /* per ANNOTATE BACKWARD: index of the op after it */
    uint32_t n_bwd;
    uint32_t *opt_op;         /* per ANNOTATE optimizer (an optimizer step starts): the same */
    uint32_t n_opt;
    uint32_t first_model_op;  /* first op of a CALL or MUTATE (n_ops when none) */
};

/* ------------------------------------------------------------------------------------------
 * A run's state.
 */
typedef struct sim_region {
    sim_set interior; /* evicted storages reachable through evicted storages */
    sim_set frontier; /* material storages adjacent to the base or the interior */
} sim_region;

/* Per-storage flags (v->fl), kept apart from sim_sstate so the region walks read one byte
 * per storage. */
#define SIM_FL_MAT 1u    /* material (resident) */
#define SIM_FL_PINNED 2u /* pinned: locked forever */
/* swapped out (on the host or on its way): not material, but the evicted-neighbourhood
 * regions treat it as material, since it comes back by a copy, not a recomputation
 * (docs/swap.md); never set without a swapping policy */
#define SIM_FL_HOST 4u
#define SIM_FL_RMAT (SIM_FL_MAT | SIM_FL_HOST) /* material as far as the regions go */

typedef struct sim_sstate {
    uint32_t ref_int;  /* locks */
    uint32_t pool_idx; /* index in pool_ord, SIM_NONE when not in the pool */
    uint32_t ecn;      /* equivalence-class node or SIM_NONE */
} sim_sstate;

/* The class roots a storage's cached DTR-eq cost summed (sim_eqcache.c), with their change
 * counts when it subscribed to them. */
#define SIM_EQC_ROOTS 4
typedef struct sim_eqc_entry {
    uint32_t root[SIM_EQC_ROOTS];
    uint32_t chg[SIM_EQC_ROOTS];
    uint32_t n;
} sim_eqc_entry;

typedef struct sim_frame {
    uint32_t t;     /* tensor being materialized */
    uint32_t u_off; /* its undefined parents on the u-stack */
    uint32_t u_n;
    uint32_t u_pos;
    uint8_t remat;
    uint8_t entered;
} sim_frame;

/* The runtime-cost model's settings and totals for one run (sim_cost.h). */
typedef struct sim_cost_state {
    uint64_t op_ns, search_ns, evict_ns; /* the config's costs */
    uint64_t ops;                        /* op runs that paid op_ns */
    uint64_t candidates;                 /* storages scored in eviction searches */
    uint64_t choose_scored;              /* set by a policy's choose (sim_view_count_candidates),
                                          * UINT64_MAX = not said */
} sim_cost_state;

struct sim_view {
    const sim_trace *tr;
    const sim_config *cfg;
    const sim_policy *pol;
    void *pol_state;

    uint64_t clock;
    uint64_t memory;
    uint64_t peak;
    uint64_t budget;
    uint64_t remat_compute;
    uint64_t model_compute;
    uint64_t remat_limit_floor; /* run stops once remat_compute > this */
    int remat_unlimited;
    uint64_t evictions, eager_evictions, remats;
    uint32_t created_ops; /* ops whose outputs exist (in-flight ones included) */
    sim_status status;
    int failed_alloc;
    uint32_t nan_storage; /* a storage the policy's score function scored NaN, or SIM_NONE */

    sim_sstate *ss;     /* per storage */
    uint8_t *fl;        /* per storage: SIM_FL_* */
    uint64_t *scomp;    /* per storage: compute = root op + view ops created so far */
    int64_t *last;      /* per storage: clock at the last access, INT64_MIN = -inf */
    uint8_t *defined;   /* per tensor */
    /* per storage: how many of its forward / reverse edges exist (edges are sorted by the
     * op that creates them; the counts advance as ops are created; kept only in runs with
     * regions or equivalence classes, their only readers) */
    uint32_t *live_fwd, *live_rev;
    /* The pool in order: storages in the order they last became evictable, with holes
     * (SIM_NONE) where members left; compacted when the holes outnumber the members. */
    uint32_t *pool_ord;
    uint32_t pool_len, pool_cap; /* slots used (holes included), allocated */
    uint32_t pool_size;          /* members */
    uint64_t pool_bytes;         /* their sizes (sim_view_pool_bytes) */
    uint64_t *pool_occ;          /* bit i: pool_ord[i] holds a member (for pool_at) */
    int sampling;       /* cfg->sample: keep pool_arr */
    uint32_t *pool_arr; /* the pool as an array (any order), for sampling */
    uint32_t *pool_pos; /* per storage: index in pool_arr */
    uint64_t rng;       /* sampling generator state (splitmix64) */

    /* sim_view_remat_cost_upto's memo: mat_epoch counts the storages that became material or
     * pinned (the only changes that can shrink a walk's set of gone storages); the last walk
     * stopped early (rw_valid) for storage rw_s at op rw_at, with those partial sums */
    uint64_t mat_epoch, rw_epoch, rw_cost, rw_bytes;
    uint32_t rw_s, rw_at, rw_created;
    int rw_valid;
    int evict_after; /* SIM_NEEDS_EVICT_AFTER: evict after each op, not before */
    uint32_t pins_end; /* SIM_NEEDS_NO_FINAL_PIN: pins from this schedule entry on (after
                        * the last compute) are skipped; n_schedule otherwise */
    /* regions and classes not kept: the run cannot need an eviction (sim_run.c, reset);
     * no_upkeep_failed: it asked for one after all, and is redone with them */
    int no_upkeep, no_upkeep_failed;
    int regions_on, eq_on;
    /* MSPS's exact scan reads reverse sums only, and forward regions serve it through their
     * frontiers only (who absorbs an eviction, whose reverse region to rebuild): the
     * forward interiors and sums are then not kept (sim_regions.c) */
    int fwd_frontier_only;
    int dtr_eq_approx; /* DTR in sampled mode: equivalence classes instead of regions */
    sim_region *fwd, *rev; /* per storage, when regions_on */
    sim_set_pool set_pool; /* their sets' words, given back at sim_regions_free */
    /* per storage: the cached compute sums (spec section 6) of its forward and reverse
     * regions, side by side (sim_rcomp): the pool scans read them and nothing else */
    uint64_t *rcomp;
    /* MSPS's exact scan: each pool member's score (compute + reverse sum) / size, in pool
     * order beside pool_ord (NaN in holes), kept up to date at every write of its inputs
     * (sim_mscore_update), so the scan reads one array in order and never divides; NULL
     * for other policies */
    double *pool_sc;
    double *psc_min;    /* per block of 64 slots of pool_sc: its minimum (sim_pool_min.h) */
    uint64_t *psc_zero; /* per block: its slots whose score is zero */
    uint32_t psc_hw;    /* slots of pool_sc written in this run */
    uint64_t *psc_dirty; /* per block: slots whose score is owed (a choose's lazy upkeep,
                          * sim_psc_reset); NULL for msps's own scan */
    uint64_t *pool_bmax; /* per block of 64 pool slots: its largest member's size, for a
                          * choose with SIM_NEEDS_MSPS_SCORES (sim_pool_min.h); else NULL */
    /* lru, size, dtr-local and dtr's exact scan: per block of 64 pool slots, lower bounds of
     * the members' last access and score ratio (sim_pool_bound.h); pkb_kind SIM_SCORE_CUSTOM
     * when off */
    unsigned pkb_kind;
    int64_t *pkb_l;
    double *pkb_r;
    int64_t *pkb_sl; /* the same per sub-block of 16 slots (four to a block) */
    double *pkb_sr;
    void *pkb_heap;       /* scratch of a scan: its blocks and bounds (sim_pool_bound.c) */
    uint64_t pkb_scored;  /* members those scans scored in this run (benchmarks, tests) */
    double *pkb_rs, *pkb_ri; /* per storage: its ratio key as last folded, and 1 / it */
    /* a built-in score kind the running policy's scores equal from now on
     * (sim_view_scores_as), taken up by the next choice; SIM_SCORE_CUSTOM: none asked */
    unsigned scores_as;
    /* closures memoised within one batch of region rebuilds (sim_regions.c) */
    uint64_t *memo;       /* per slot: closure bits then neighbour bits, 2 x words each */
    size_t memo_cap;      /* slots allocated */
    uint32_t memo_n;      /* slots used in this batch */
    uint32_t memo_batch;  /* batch generation */
    uint32_t *memo_gen;   /* per storage: batch whose slot memo_slot holds its closure */
    uint32_t *memo_slot;
    /* multi-base rebuilds (sim_regions.c): per storage, the bases whose interior / frontier
     * it joins (bit i = i-th base of a chunk of 64); a bitset of storages to visit. All kept
     * zero between uses. */
    uint64_t *mb_in, *mb_fr, *mb_todo;
    /* with windowed sets: each base's interior (0..63) and frontier (64..127) words as a
     * list of (word index, bits) pairs */
    uint64_t *mb_list[128];
    uint32_t mb_list_cap[128];
    /* windowed sets: a rebuild's interior / frontier over the whole universe, zero between
     * uses (sim_regions.c) */
    uint64_t *win_in, *win_fr;
    uint64_t *memo_sum;   /* per slot: compute over the closure */
    /* the walk graph's groups (sim_wgraph.c) in region walks: per group, the walk that last
     * expanded it (wg_stamp, generation wg_gen); in multi-base sweeps, the bases that reached
     * it (wg_mask) and the next group waiting at the same storage (wg_next), per storage the
     * first group waiting there (wg_head, SIM_NONE when none: kept so between sweeps) */
    uint32_t *wg_stamp, wg_gen;
    uint64_t *wg_mask;
    uint32_t *wg_next, *wg_head;
    uint32_t *wg_rep; /* per group: the base swept for its outputs in a flush (SIM_NONE) */
    /* reverse-region rebuilds requested but not yet done (sim_regions.c: deferred until
     * something could read them or change their result) */
    uint32_t *rev_pend;   /* the bases, once each */
    uint32_t n_rev_pend;
    uint8_t *rev_pend_on; /* per storage: in rev_pend */
    uint8_t *rg_gone;     /* per storage: evicted for the regions once in this run (it may be
                           * in interiors; sim_regions_fresh.c) */
    /* A region is exact (its sets are the walk's, its cached sum the sum of its interior's
     * compute now) while nothing changed since it was last made from scratch that a cached
     * region does not follow: a compute of a storage that may lie in an interior, or a
     * parent edge into an existing storage. rg_bumps counts those changes
     * (sim_regions_on_op_created), rg_summed holds, per region (indexed as rcomp), rg_bumps
     * at its last from-scratch build. NULL: none known exact (same results, slower). */
    uint64_t rg_bumps;
    uint64_t *rg_summed;

    /* equivalence classes: union-find nodes */
    uint32_t *eq_parent;
    int64_t *eq_value;
    uint32_t eq_n, eq_cap;
    /* DTR-eq's class costs cached per storage (sim_eqcache.c) */
    int64_t *eqc_sum;       /* per storage: its cost, or SIM_EQC_DIRTY */
    sim_eqc_entry *eqc;     /* per storage: the roots of that cost */
    uint32_t *eqc_head;     /* per eq node: its first subscription, SIM_NONE if none */
    uint32_t *eqc_chg;      /* per eq node: how often it changed */
    uint32_t eqc_nodes, eqc_node_cap; /* nodes with head/chg set up, allocated */
    uint32_t *eqc_sub;      /* subscriptions: (storage, next) pairs */
    uint32_t eqc_sub_n, eqc_sub_cap, eqc_sub_free;

    /* scratch */
    sim_frame *frames;
    uint32_t n_frames, cap_frames;
    uint32_t *ustack;
    uint32_t n_ustack, cap_ustack;
    uint32_t *scratch; /* DFS stack, unions */
    uint32_t n_scratch, cap_scratch;
    uint32_t *scratch2;
    uint32_t n_scratch2, cap_scratch2;
    uint32_t *stamp; /* per storage / per eq node, for de-duplication */
    uint32_t cap_stamp;
    uint32_t stamp_gen;
    uint32_t *remat_st; /* storages made material by one _compute (siblings + t) */
    uint32_t cap_remat_st;

    /* memory model (sim_memrun.c); mem == NULL: ideal, the budget caps v->memory */
    const sim_memory_model *mem;
    void *mem_state;
    uint32_t *mem_blk;      /* per storage: the model's block handle, SIM_MEM_NONE if none */
    uint64_t mem_pending;   /* bytes of the request being placed (for address-aware policies) */
    uint64_t mem_peak_reserved, mem_peak_allocated, mem_largest_free;
    uint64_t mem_frag_allocs;
    double mem_frag_sum;
    /* segment reports (sim_memsegs.c, only with cfg->storage_events): the model's counters
     * at the last report (UINT64_MAX: none yet), and a block list buffer */
    uint64_t mem_seen_allocs, mem_seen_frees;
    sim_mem_block *mem_list;
    size_t cap_mem_list;

    sim_cost_state cost; /* sim_cost.h */

    /* checkpoint planners (sim_ckpt.c): the run's state when cfg->planner is set, else NULL
     * (every hook is behind a test of it); ckpt_mem keeps it between the runner's runs */
    struct sim_ckpt *ckpt;
    struct sim_ckpt *ckpt_mem;
    uint32_t ckpt_begin_op; /* the next op at which an iteration or a layer begins */
    uint32_t ckpt_end_op;   /* the op at which the current layer ends (UINT32_MAX: none) */
    sim_streams sw;      /* streams.h: copy engines, on for swapping policies only */
};

/* Scratch words for sim_trace_link: t per tensor, s per storage (grown as needed; the caller
 * frees them). The builder lends its dead reference counts, so no fresh memory is touched. */
typedef struct sim_link_scratch {
    uint32_t *t, *s;
    uint32_t cap_t, cap_s;
} sim_link_scratch;

/* Builds the trace's derived links (children, storage tensors, storage graph) once the
 * schedule is complete (sim_trace.c). 0 or -1 when out of memory. The builder has filled
 * arg_st and st_size and counted as it went, so that each tensor's children_off holds its
 * children count, each storage's n_tensors its tensor count, and n_children_total their
 * sum (at most UINT32_MAX). */
int sim_trace_link(sim_trace *tr, sim_link_scratch *sc);

/* The region walks' graph (sim_wgraph.c), built by sim_trace_link after the storage graph:
 * tst holds each tensor's storage, seen is n_storages + 1 words of scratch. 0 or -1 (out of
 * memory; the trace's free releases what was built). */
#define SIM_WG_GROUP UINT32_C(0x80000000)
int sim_wgraph_build(sim_trace *tr, const uint32_t *tst, uint32_t *seen);
/* 1 (default): wide ops become groups; 0: every edge is listed as in the storage graph. Same
 * results; tests compare. Read when a trace is built. */
extern int sim_wgraph_grouping;
void sim_wgraph_free(sim_trace *tr);

/* Grows *arr (elements of size sz) to hold at least need elements. 0 or -1. The check is
 * inline (the loader calls this several times per op and tensor), the growth is not. */
int sim_grow_slow(void **arr, uint32_t *cap, uint32_t need, size_t sz);
static inline int sim_grow(void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
    return need <= *cap ? 0 : sim_grow_slow(arr, cap, need, sz);
}

/* Runs whose budget is at least this ratio of the baseline peak skip the regions' and
 * classes' upkeep (sim_run.c, reset). 1.0: only runs that cannot need an eviction; tests
 * lower it so that runs need one after all and are redone. */
extern double sim_no_upkeep_from;

/* regions (sim_regions.c). Traces with at most this many storages and an unordered storage
 * graph (sim_trace.graph_ordered 0) keep region sets as bitsets over the whole universe
 * (allocated on first use; 4 x n^2 bits per runner at most: 128 MiB at the limit) and
 * rebuild the reverse batches from memoised closures; the others keep windowed bitsets (only
 * the words a set spans: regions are local in storage index). Both are bitsets: the same
 * word loops, the same results. */
#define SIM_REGION_BITSET_MAX 16384
/* The limit in force (SIM_REGION_BITSET_MAX); tests lower it to exercise the hash sets. Read
 * when a runner first needs regions; set it only while no simulation runs. */
extern uint32_t sim_region_bitset_max;
/* 0 (default): ordered storage graphs keep windowed sets whatever their size; 1: full ones
 * up to sim_region_bitset_max, as unordered graphs do (tests, so that the full layout's
 * rebuilds stay covered on ordered graphs). Same results. Set it only while no simulation
 * runs. */
extern int sim_region_full_ordered;
/* 1 (default): reverse-region rebuilds wait for the next flush (sim_regions_flush); 0: they
 * run at once, one region at a time, as simrd does them. Same results; tests compare. */
extern int sim_region_defer;
/* 1 (default): the forward regions bordering a compute's outputs that left no interior are
 * brought up to date without walks (sim_regions_fresh.c); 0: rebuilt by walks. Same results;
 * tests compare. With sim_region_fresh_check set, every such region is also rebuilt by the
 * walk and compared: sim_region_fresh_taken counts them, sim_region_fresh_diff the ones that
 * differed (tests; single-threaded). Set these only while no simulation runs. */
extern int sim_region_fresh, sim_region_fresh_check;
extern uint64_t sim_region_fresh_taken, sim_region_fresh_diff;
/* 1 (default): an absorb whose absorbed region's sum is known exact (sim_region_sum_exact)
 * may sum the new members as that sum less the members already held; 0: member by member,
 * as simrd does. Same results; tests compare. With sim_region_exact_check set, at every
 * eviction every region claimed exact is summed from scratch over its interior and compared,
 * and every deferred absorb (sim_region_defer_absorbs) is also done and compared with the
 * walk that replaces it: sim_region_exact_taken counts the checks, sim_region_exact_diff
 * those that differ (tests). */
extern int sim_region_by_difference, sim_region_exact_check;
/* 1 (default): an eviction's absorb into a reverse region whose sum is exact waits as a
 * rebuild request (sim_regions.c, defer_rev); 0: absorbed at once. Same results. */
extern int sim_region_defer_absorbs;
extern uint64_t sim_region_exact_taken, sim_region_exact_diff;
/* Counts the evictions that found reverse rebuilds pending and left them for the next flush
 * (sim_regions_before_evict; tests). */
extern uint64_t sim_region_evict_waits;
/* Once, right after allocating fwd/rev/rcomp (zeroed): the regions are then as
 * sim_regions_reset leaves them. */
void sim_regions_init(sim_view *v);
/* The cached compute sum of base's forward (forward = 1) or reverse region. */
static inline uint64_t *sim_rcomp(sim_view *v, uint32_t base, int forward)
{
    return &v->rcomp[2 * (size_t)base + (forward ? 0 : 1)];
}
void sim_regions_on_evict(sim_view *v, uint32_t s);
/* Region base's cached sum in direction forward was just summed from scratch. */
static inline void sim_region_summed(sim_view *v, uint32_t base, int forward)
{
    if (v->rg_summed)
        v->rg_summed[2 * (size_t)base + (forward ? 0 : 1)] = v->rg_bumps;
}
/* Region base's cached sum is no longer known to be its interior's. */
static inline void sim_region_inexact(sim_view *v, uint32_t base, int forward)
{
    if (v->rg_summed) /* rg_bumps only grows: never equal again */
        v->rg_summed[2 * (size_t)base + (forward ? 0 : 1)] = v->rg_bumps - 1;
}
/* 1 when that region is known to be what a walk would build now (sets and sum). */
static inline int sim_region_sum_exact(const sim_view *v, uint32_t base, int forward)
{
    return v->rg_summed && v->rg_summed[2 * (size_t)base + (forward ? 0 : 1)] == v->rg_bumps;
}
void sim_regions_on_compute(sim_view *v, const uint32_t *st, uint32_t n);
void sim_regions_reset(sim_view *v);
/* Does the deferred reverse-region rebuilds. Must run before anything reads a region or
 * changes what a reverse region would contain other than by making storages material:
 * before an eviction and a choice (sim_run.c calls it), and before an op is created
 * (sim_regions_on_new_op). */
void sim_regions_flush(sim_view *v);
/* Before evicting s (material, regions on): what the eviction needs of the deferred
 * rebuilds (s's own reverse region), the rest waiting for the next flush. */
void sim_regions_before_evict(sim_view *v, uint32_t s);
/* Op o is about to be created: does the deferred rebuilds whose result it would change. */
void sim_regions_on_new_op(sim_view *v, uint32_t o);
/* Op o is about to be created: counts in rg_bumps what it will change that a cached region
 * may hold (sim_regions.c). */
void sim_regions_on_op_created(sim_view *v, uint32_t o);
#define SIM_REGIONS_PENDING(v) ((v)->n_rev_pend != 0)
void sim_regions_free(sim_view *v);

/* equivalence classes (sim_eqclass.c) */
/* Root of node x, halving the path on the way (roots and values are unaffected). */
static inline uint32_t sim_eq_find(sim_view *v, uint32_t x)
{
    uint32_t *p = v->eq_parent;
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}
uint32_t sim_eq_new_node(sim_view *v, int64_t value);
void sim_eq_on_evict(sim_view *v, uint32_t s);
void sim_eq_on_material(sim_view *v, uint32_t s);

/* DTR-eq's class costs, cached (sim_eqcache.c). The scan asks sim_eqc_cost for every pool
 * member at every choice; most of them sit far from where classes change, so their cost is
 * kept and recomputed only after something it depends on changed. The engine reports those
 * changes: sim_eqc_dirty when storage s gains live edges, sim_eqc_dirty_around when s is
 * evicted or becomes material (its neighbours' evicted neighbourhood changes), and
 * sim_eqc_node_changed when a class root's value changes or it stops being a root. */
int sim_eqc_reset(sim_view *v);
void sim_eqc_free(sim_view *v);
void sim_eqc_dirty_around(sim_view *v, uint32_t s);
void sim_eqc_node_changed(sim_view *v, uint32_t node);
int64_t sim_eqc_refresh(sim_view *v, uint32_t s);
#define SIM_EQC_DIRTY INT64_MIN /* a cost to recompute (a cost that equals it is not kept) */
static inline void sim_eqc_dirty(sim_view *v, uint32_t s)
{
    v->eqc_sum[s] = SIM_EQC_DIRTY;
}
/* = sim_view_eqclass_cost(v, s) */
static inline int64_t sim_eqc_cost(sim_view *v, uint32_t s)
{
    int64_t c = v->eqc_sum[s];
    return c != SIM_EQC_DIRTY ? c : sim_eqc_refresh(v, s);
}

/* sim_score_ratio with its common cases inline: the exact product fits 53 bits and so does
 * the numerator, so one double division is the correctly rounded quotient. */
static inline double sim_ratio_inline(int64_t num, uint64_t a, uint64_t b)
{
    unsigned __int128 den = (unsigned __int128)a * b;
    uint64_t n = num < 0 ? (uint64_t)0 - (uint64_t)num : (uint64_t)num;
    const uint64_t exact = UINT64_C(1) << 53;
    if (den != 0 && num != 0 && den <= exact && n <= exact)
        return (double)num / (double)(uint64_t)den;
    return sim_score_ratio(num, a, b);
}


/* Asks the policy for one victim and evicts it (simrd's free loop body, sim_run.c). 0, or -1
 * when the run stops: nothing evictable (status OOM) or out of host memory. */
int sim_evict_one(sim_view *v);

/* Memory models in the run (sim_memrun.c). */
int sim_mem_reset(sim_view *v, gms_error *err);
/* Places op o's outputs that become resident (t: the tensor asked for), evicting until each
 * fits. 0, or -1 when the run stops. */
int sim_mem_place_outputs(sim_view *v, uint32_t o, uint32_t t);
void sim_mem_on_evict(sim_view *v, uint32_t s);
void sim_mem_event_figures(const sim_view *v, uint64_t *reserved, uint64_t *allocated);
void sim_mem_finish(sim_view *v, sim_result *res);
void sim_mem_free(sim_view *v);
/* With cfg->storage_events: reports SIM_EV_SEGMENTS when the model's segments changed since
 * the last report (always when final), s being the storage asked for (UINT32_MAX: none). */
void sim_mem_note_segments(sim_view *v, uint32_t s, int final);

/* The policy's victim among the pool's members (sim_choose.c; SIM_NONE when it names none);
 * *scored += the candidates scored, for the cost model. */
uint32_t sim_choose(sim_view *v, uint64_t *scored);

/* Evicts pool member s now, as a victim of the policy (sim_run.c; for planned swap-outs). */
void sim_evict_now(sim_view *v, uint32_t s);

/* Adds resident, unlocked storage s to the end of the pool (sim_run.c; for prefetches). */
void sim_pool_add(sim_view *v, uint32_t s);

/* Closes the holes of the pool array, keeping its order (sim_run.c). */
void sim_pool_compact(sim_view *v);

/* A fresh de-duplication generation for v->stamp (sized for max(storages, eq nodes)). */
uint32_t sim_stamp_next(sim_view *v, uint32_t need);

/* How many of the n tensors ts[] (in op order) exist now, i.e. were created by an op before
 * v->created_ops. Usually all of them; otherwise a binary search. */
static inline uint32_t sim_live_prefix(const sim_view *v, const uint32_t *ts, uint32_t n)
{
    const sim_tensor *te = v->tr->tensors;
    uint32_t lim = v->created_ops;
    if (n == 0 || te[ts[n - 1]].op < lim)
        return n;
    uint32_t lo = 0, hi = n - 1; /* answer in [lo, hi]; ts[hi] is not live */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (te[ts[mid]].op < lim)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Neighbour storages of s that exist now: adj[0..n). off/all: the trace's fwd or rev
 * graph, live: the run's matching live_fwd or live_rev counts. */
static inline uint32_t sim_live_edges(const uint32_t *off, const sim_edge *all,
                                      const uint32_t *live, uint32_t s, const sim_edge **adj)
{
    *adj = all + off[s];
    return live[s];
}

/* Tensors of storage s that exist now (root first, views in creation order). */
static inline uint32_t sim_storage_live_tensors(const sim_view *v, uint32_t s,
                                                const uint32_t **out)
{
    const sim_storage_info *si = &v->tr->storages[s];
    *out = v->tr->storage_tensors + si->tensors_off;
    return sim_live_prefix(v, *out, si->n_tensors);
}

/* How many children tensor t has (outputs of every op that used it). */
static inline uint32_t sim_tensor_n_children(const sim_trace *tr, uint32_t t)
{
    return tr->tensors[t + 1].children_off - tr->tensors[t].children_off;
}

/* Children of tensor t that exist now (their ops are created; children are in op order). */
static inline uint32_t sim_tensor_live_children(const sim_view *v, uint32_t t,
                                                const uint32_t **out)
{
    const sim_tensor *te = &v->tr->tensors[t];
    *out = v->tr->children + te->children_off;
    return sim_live_prefix(v, *out, te[1].children_off - te->children_off);
}

#endif
