/*
 * sim_view: what a policy may read about a running simulation (policy.h), and the score
 * arithmetic that makes C scores equal simrd's Python ones bit for bit.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "sim_pool_min.h"

uint64_t sim_view_clock(const sim_view *v)
{
    return v->clock;
}

uint64_t sim_view_memory(const sim_view *v)
{
    return v->memory;
}

uint64_t sim_view_budget(const sim_view *v)
{
    return v->budget;
}

/* The first member of the pool at index i or later (SIM_NONE: none). */
static uint32_t pool_from(const sim_view *v, uint32_t i)
{
    for (; i < v->pool_len; i++)
        if (v->pool_ord[i] != SIM_NONE)
            return v->pool_ord[i];
    return SIM_NONE;
}

uint32_t sim_view_pool_first(const sim_view *v)
{
    return pool_from(v, 0);
}

uint32_t sim_view_pool_next(const sim_view *v, uint32_t s)
{
    if (s >= v->tr->n_storages || v->ss[s].pool_idx == SIM_NONE)
        return SIM_NONE;
    return pool_from(v, v->ss[s].pool_idx + 1);
}

uint32_t sim_view_pool_size(const sim_view *v)
{
    return v->pool_size;
}

uint32_t sim_view_pool_at(const sim_view *v, uint32_t k)
{
    if (k >= v->pool_size)
        return SIM_NONE;
    if (v->pool_len == v->pool_size) /* no holes */
        return v->pool_ord[k];
    /* count members 64 slots at a time, then within the word */
    for (uint32_t w = 0; w * 64 < v->pool_len; w++) {
        uint64_t m = v->pool_occ[w];
        uint32_t c = (uint32_t)__builtin_popcountll(m);
        if (k >= c) {
            k -= c;
            continue;
        }
        for (; k > 0; k--)
            m &= m - 1;
        return v->pool_ord[w * 64 + (uint32_t)__builtin_ctzll(m)];
    }
    return SIM_NONE;
}

void sim_view_get_columns(const sim_view *v, sim_view_columns *out)
{
    *out = (sim_view_columns){.clock = v->clock,
                              .pool = v->pool_ord,
                              .pool_len = v->pool_len,
                              .size = v->tr->st_size,
                              .compute = v->scomp,
                              .last_access = v->last};
}

uint32_t sim_view_storage_count(const sim_view *v)
{
    return v->tr->n_storages;
}

void sim_view_count_candidates(const sim_view *cv, uint64_t n)
{
    ((sim_view *)cv)->cost.choose_scored = n; /* bookkeeping only: nothing a policy reads */
}

uint64_t sim_view_size(const sim_view *v, uint32_t s)
{
    return v->tr->storages[s].size;
}

int64_t sim_view_last_access(const sim_view *v, uint32_t s)
{
    return v->last[s];
}

uint64_t sim_view_staleness(const sim_view *v, uint32_t s)
{
    int64_t la = v->last[s];
    if (la == INT64_MIN)
        return UINT64_MAX;
    return v->clock - (uint64_t)la;
}

uint64_t sim_view_compute(const sim_view *v, uint32_t s)
{
    return v->scomp[s];
}

uint64_t sim_view_region_fwd_cost(const sim_view *v, uint32_t s)
{
    /* forward sums are not kept for a policy that declared it never reads them */
    assert(!v->fwd_frontier_only);
    if (SIM_REGIONS_PENDING(v)) /* a hook reading between choices: rebuild now */
        sim_regions_flush((sim_view *)v);
    return v->regions_on ? v->rcomp[2 * (size_t)s] : 0;
}

uint64_t sim_view_region_rev_cost(const sim_view *v, uint32_t s)
{
    if (SIM_REGIONS_PENDING(v)) /* a hook reading between choices: rebuild now */
        sim_regions_flush((sim_view *)v);
    return v->regions_on ? v->rcomp[2 * (size_t)s + 1] : 0;
}

uint32_t sim_stamp_next(sim_view *v, uint32_t need)
{
    if (need > v->cap_stamp) {
        uint32_t old = v->cap_stamp;
        if (sim_grow((void **)&v->stamp, &v->cap_stamp, need, sizeof *v->stamp)) {
            v->failed_alloc = 1;
            return 0;
        }
        memset(v->stamp + old, 0, (size_t)(v->cap_stamp - old) * sizeof *v->stamp);
    }
    if (++v->stamp_gen == 0) {
        memset(v->stamp, 0, (size_t)v->cap_stamp * sizeof *v->stamp);
        v->stamp_gen = 1;
    }
    return v->stamp_gen;
}

/* Correctly rounded n / den for 0 < n < 2^64, 0 < den < 2^64 (not both exact doubles): scale
 * n by 2^s so that the integer quotient q has 63 or 64 bits (2^62 < q < 2^64), fold a non-zero
 * remainder into q's lowest bit (a sticky bit far below double precision, so it only breaks
 * exact-halfway ties the right way), convert once (correctly rounded) and scale back by 2^-s
 * exactly (the result is at least 2^-64, far from subnormal). One 128-by-64-bit division:
 * a plugin's score calls this for most storages (docs/plugins.md, "Speed"). */
static double div_round64(uint64_t n, uint64_t den)
{
    int s = 63 + (64 - __builtin_clzll(den)) - (64 - __builtin_clzll(n)); /* 0 <= s <= 126 */
    unsigned __int128 N = (unsigned __int128)n << s;
    uint64_t q, r;
#if defined(__x86_64__)
    /* N / den < 2^64 (see above), so divq cannot overflow */
    uint64_t hi = (uint64_t)(N >> 64), lo = (uint64_t)N;
    __asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "rm"(den) : "cc");
#else
    q = (uint64_t)(N / den);
    r = (uint64_t)(N % den);
#endif
    q |= r != 0;
    union {
        uint64_t u;
        double d;
    } scale = {.u = (uint64_t)(1023 - s) << 52}; /* 2^-s */
    return (double)q * scale.d;
}

static double div_round(uint64_t n, unsigned __int128 den)
{
    if (den >> 64) /* beyond any real trace (size x staleness >= 2^64): close enough */
        return (double)((long double)n / (long double)den);
    return div_round64(n, (uint64_t)den);
}

double sim_score_ratio(int64_t num, uint64_t a, uint64_t b)
{
    unsigned __int128 den = (unsigned __int128)a * b;
    if (den == 0)
        return INFINITY;
    if (num == 0)
        return 0.0;
    uint64_t n = num < 0 ? (uint64_t)0 - (uint64_t)num : (uint64_t)num;
    const uint64_t exact = UINT64_C(1) << 53;
    double q = (n <= exact && den <= exact) ? (double)n / (double)(uint64_t)den : div_round(n, den);
    return num < 0 ? -q : q;
}

/* Gone at op `at`: evicted now (neither material nor on the host), or, when `at` is an op,
 * not pinned and read by no op from `at` on: released by then (a host copy of a released
 * storage goes too, sim_run.c). */
static int gone_at(const sim_view *v, uint32_t p, uint32_t at)
{
    if (!(v->fl[p] & SIM_FL_RMAT))
        return 1;
    return at != SIM_NONE && !(v->fl[p] & SIM_FL_PINNED) && at > 0 &&
           sim_view_use_after(v, p, at - 1) == SIM_NONE;
}

/* A depth-first walk up the storage graph from each s[i] through the parents gone at at[i],
 * each storage counted once (a stamp generation), v->scratch as the stack: each storage is
 * pushed at most once, so n_storages entries suffice. The walk stops early once its cost is
 * above cmax and its bytes above bmax (both sums only grow: what the caller compares with
 * those limits is decided then). */
static uint64_t remat_walk(const sim_view *v, const uint32_t *s, const uint32_t *at, uint32_t n,
                           uint64_t cmax, uint64_t bmax, uint64_t *bytes)
{
    sim_view *w = (sim_view *)v;
    const sim_trace *tr = v->tr;
    uint32_t gen = sim_stamp_next(w, tr->n_storages);
    if (!gen || sim_grow((void **)&w->scratch, &w->cap_scratch, tr->n_storages + 1,
                         sizeof(uint32_t))) {
        w->failed_alloc = 1;
        return UINT64_MAX;
    }
    uint64_t cost = 0, b = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (s[i] >= tr->n_storages || w->stamp[s[i]] == gen)
            continue;
        uint32_t top = 0;
        w->stamp[s[i]] = gen;
        w->scratch[top++] = s[i];
        while (top) {
            uint32_t y = w->scratch[--top];
            cost += v->scomp[y];
            b += tr->st_size[y];
            if (cost > cmax && b > bmax)
                goto out;
            for (uint32_t e = tr->rev_off[y]; e < tr->rev_off[y + 1]; e++) {
                uint32_t p = tr->rev_adj[e].s;
                if (tr->rev_adj[e].time >= v->created_ops || w->stamp[p] == gen ||
                    !gone_at(v, p, at[i]))
                    continue;
                w->stamp[p] = gen;
                w->scratch[top++] = p;
            }
        }
    }
out:
    if (bytes)
        *bytes = b;
    return cost;
}

uint64_t sim_view_remat_cost_at(const sim_view *v, const uint32_t *s, const uint32_t *at,
                                uint32_t n, uint64_t *bytes)
{
    return remat_walk(v, s, at, n, UINT64_MAX, UINT64_MAX, bytes);
}

/* The memo: a walk for the same storage and op, with no storage become material or pinned and
 * no op created since (so no compute changed), would find a superset of the storages gone
 * then (only evictions and released host copies happened), so sums at least the partial ones
 * it stopped at: when those are above the new limits too, they answer. */
uint64_t sim_view_remat_cost_upto(const sim_view *v, uint32_t s, uint32_t at, uint64_t cmax,
                                  uint64_t bmax, uint64_t *bytes)
{
    sim_view *w = (sim_view *)v;
    if (!sim_pkb_bounds) /* the plain walk, for the tests that compare */
        return remat_walk(v, &s, &at, 1, UINT64_MAX, UINT64_MAX, bytes);
    if (w->rw_valid && w->rw_s == s && w->rw_at == at && w->rw_epoch == v->mat_epoch &&
        w->rw_created == v->created_ops && w->rw_cost > cmax && w->rw_bytes > bmax) {
        if (bytes)
            *bytes = w->rw_bytes;
        return w->rw_cost;
    }
    uint64_t b = 0, cost = remat_walk(v, &s, &at, 1, cmax, bmax, &b);
    w->rw_valid = cost != UINT64_MAX && cost > cmax && b > bmax;
    w->rw_s = s;
    w->rw_at = at;
    w->rw_epoch = v->mat_epoch;
    w->rw_created = v->created_ops;
    w->rw_cost = cost;
    w->rw_bytes = b;
    if (bytes)
        *bytes = b;
    return cost;
}

uint64_t sim_view_pool_bytes(const sim_view *v)
{
    return v->pool_bytes;
}

uint64_t sim_view_pool_block_max_size(const sim_view *v, uint32_t b)
{
    return v->pool_bmax && b < (v->pool_len + 63) / 64 ? sim_pbm_max((sim_view *)v, b)
                                                        : UINT64_MAX;
}

uint32_t sim_view_msps_last_min(const sim_view *v)
{
    if (!v->pool_sc || !v->pol->choose)
        return SIM_NONE;
    if (SIM_REGIONS_PENDING(v)) /* a hook reading between choices: rebuild now */
        sim_regions_flush((sim_view *)v);
    return sim_psc_last_min(v);
}

int sim_view_material(const sim_view *v, uint32_t s)
{
    return s < v->tr->n_storages && (v->fl[s] & SIM_FL_MAT) != 0;
}
