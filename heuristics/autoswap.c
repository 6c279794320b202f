/*
 * autoswap: the swapping strategy of the founding paper, Zhang et al., "Efficient Memory
 * Management for GPU-based Deep Learning Systems" (arXiv 1903.06631), as its code states it
 * (apache/singa@8e8a7e15, src/core/device/swap_gpu.cc; ../shared/spec/wave2-notes.md, 1b).
 * A static plan, made once from the trace before the first op:
 *   - load curve: resident bytes after each op without a budget; the peak op max_idx;
 *   - candidates: for each storage of at least 1 MiB, its last access (creation or read) at or
 *     before max_idx (r_idx) and its first read after it (d_idx): the idle interval spans the
 *     peak;
 *   - scores (larger = swap first): DOA = t2 - t1 - SwapOutTime - SwapOutTime (the code's
 *     formula: out time twice; our link has one time for both ways, so it equals out + in),
 *     t1 = the compute up to the end of r_idx, t2 = up to the start of d_idx; AOA = DOA x size
 *     if DOA >= 0, else DOA / size; WDOA = 0 for all (the code's loop leaves it 0);
 *     the vote = the sum of each candidate's ranks under DOA, AOA and WDOA (equal values
 *     share a rank), ascending; ties by r_idx, then storage;
 *   - selection: in vote order, subtract the candidate's size from the load over
 *     [r_idx, d_idx); stop once the peak is under the budget;
 *   - scheduling ("no overhead"): swap-outs right after their r_idx op, in r_idx order, on the
 *     one D2H engine; swap-ins planned backwards from the last d_idx so that each ends by its
 *     d_idx (and before the next planned one starts: one H2D engine), issued after the last op
 *     that ends before its planned start (by the trace's op costs).
 * At run time: a planned swap-out whose storage is not in the pool then (locked, already
 * gone) is skipped; a swap-in that does not fit under the budget is retried after each op and
 * otherwise happens on demand. When memory still runs out, the least recently used storage
 * is swapped (the code's "stick to limit" mode makes the op wait for a swap-out; here the
 * engine does the same). Not modelled: the code's iteration detection (the trace is one
 * iteration here) and its measured swap-time model (the link's figures are used).
 */
#include <stdlib.h>
#include <string.h>

#include "policies.h"

#define SMALLEST_BLOCK (1u << 20) /* smallest_block = 1 MiB */

typedef struct as_cand {
    uint32_t s, r_idx, d_idx, issue; /* issue: op after which the swap-in is queued */
    int64_t doa;
    double aoa;
    uint32_t vote;
} as_cand;

typedef struct as_state {
    int planned;
    as_cand *c;       /* selected candidates, in r_idx order */
    uint32_t n;
    uint32_t *by_issue; /* indices into c, in issue order */
    uint32_t next_out, next_in;
    uint32_t *pending;  /* swap-ins due but not yet fitting */
    uint32_t n_pending;
} as_state;

static int as_init(const struct sim_config *cfg, void **state, gms_error *err)
{
    (void)cfg;
    if (!(*state = calloc(1, sizeof(as_state))))
        return gms_error_set(err, GMS_ENOMEM, "autoswap: out of memory");
    return 0;
}

static void as_free(void *state)
{
    as_state *a = state;
    if (a) {
        free(a->c);
        free(a->by_issue);
        free(a->pending);
        free(a);
    }
}

/* Sort keys carried with their candidate's index (no globals: runs sort on many threads). */
typedef struct as_key {
    double k;     /* the key, larger first */
    uint32_t tie; /* then this, smaller first */
    uint32_t i;   /* candidate index */
} as_key;

static int by_key(const void *x, const void *y)
{
    const as_key *a = x, *b = y;
    if (a->k != b->k)
        return a->k > b->k ? -1 : 1;
    if (a->tie != b->tie)
        return a->tie < b->tie ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static int by_vote(const void *x, const void *y)
{
    const as_cand *a = x, *b = y;
    if (a->vote != b->vote)
        return a->vote < b->vote ? -1 : 1;
    if (a->r_idx != b->r_idx)
        return a->r_idx < b->r_idx ? -1 : 1;
    return a->s < b->s ? -1 : a->s > b->s;
}

static int by_r(const void *x, const void *y)
{
    const as_cand *a = x, *b = y;
    return a->r_idx != b->r_idx ? (a->r_idx < b->r_idx ? -1 : 1) : (a->s < b->s ? -1 : a->s > b->s);
}

/* Adds each candidate's rank (0 = largest key; equal keys share a rank) to its vote. */
static void add_ranks(as_cand *c, as_key *keys, uint32_t n, int aoa)
{
    for (uint32_t i = 0; i < n; i++)
        keys[i] = (as_key){aoa ? c[i].aoa : (double)c[i].doa, 0, i};
    qsort(keys, n, sizeof *keys, by_key);
    uint32_t rank = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i && keys[i - 1].k != keys[i].k)
            rank = i;
        c[keys[i].i].vote += rank;
    }
}

static int plan(const sim_view *v, as_state *a)
{
    a->planned = 1;
    uint32_t n_ops = sim_view_op_count(v), ns = sim_view_storage_count(v);
    uint64_t *load = malloc(((size_t)n_ops + 1) * sizeof *load);
    uint64_t *start = malloc(((size_t)n_ops + 1) * sizeof *start);
    as_cand *c = malloc(((size_t)ns + 1) * sizeof *c);
    as_key *keys = malloc(((size_t)ns + 1) * sizeof *keys);
    uint32_t *idx = malloc(((size_t)ns + 1) * sizeof *idx);
    if (!load || !start || !c || !keys || !idx)
        goto fail;
    uint32_t max_idx = 0;
    start[0] = 0;
    for (uint32_t o = 0; o < n_ops; o++) {
        load[o] = sim_view_baseline_load(v, o);
        if (load[o] > load[max_idx])
            max_idx = o;
        start[o + 1] = start[o] + sim_view_op_cost(v, o);
    }
    /* candidates whose idle interval spans the peak */
    uint32_t n = 0;
    for (uint32_t s = 0; s < ns; s++) {
        uint64_t size = sim_view_size(v, s);
        uint32_t made = sim_view_storage_op(v, s);
        if (size < SMALLEST_BLOCK || made >= max_idx || sim_view_op_cost(v, made) == 0)
            continue; /* small, born at or after the peak, or a constant (no cost) */
        uint32_t d = sim_view_use_after(v, s, max_idx);
        if (d == SIM_NONE)
            continue;
        uint32_t r = made; /* the last access at or before the peak */
        for (uint32_t u = sim_view_use_after(v, s, made); u != SIM_NONE && u <= max_idx;
             u = sim_view_use_after(v, s, u))
            r = u;
        if (r >= max_idx)
            continue;
        uint64_t t1 = start[r + 1], t2 = start[d];
        int64_t copy = (int64_t)sim_view_copy_ns(v, size);
        int64_t doa = (int64_t)(t2 - t1) - copy - copy;
        c[n] = (as_cand){.s = s, .r_idx = r, .d_idx = d, .doa = doa,
                         .aoa = doa >= 0 ? (double)doa * (double)size
                                         : (double)doa / (double)size};
        n++;
    }
    /* the vote: ranks under DOA and AOA (WDOA is 0 for all: rank 0 each) */
    add_ranks(c, keys, n, 0);
    add_ranks(c, keys, n, 1);
    qsort(c, n, sizeof *c, by_vote);
    /* selection: until the peak of the load curve is under the budget */
    uint64_t budget = sim_view_budget(v), peak = load[max_idx];
    uint32_t k = 0;
    while (k < n && peak >= budget) {
        uint64_t size = sim_view_size(v, c[k].s);
        for (uint32_t o = c[k].r_idx; o < c[k].d_idx; o++)
            load[o] -= size;
        peak = 0;
        for (uint32_t o = 0; o < n_ops; o++)
            if (load[o] > peak)
                peak = load[o];
        k++;
    }
    n = k;
    qsort(c, n, sizeof *c, by_r);
    /* swap-ins, backwards from the last use: each ends by its d_idx and before the next */
    for (uint32_t i = 0; i < n; i++) /* latest use first */
        keys[i] = (as_key){(double)c[i].d_idx, c[i].s, i};
    qsort(keys, n, sizeof *keys, by_key);
    uint64_t latest = UINT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        as_cand *x = &c[keys[i].i];
        uint64_t end = start[x->d_idx] < latest ? start[x->d_idx] : latest;
        uint64_t copy = sim_view_copy_ns(v, sim_view_size(v, x->s));
        uint64_t begin = end > copy ? end - copy : 0;
        latest = begin;
        /* the last op that ends by `begin`, not before the swap-out's op */
        uint32_t lo = x->r_idx, hi = x->d_idx - 1;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo + 1) / 2;
            if (start[mid + 1] <= begin)
                lo = mid;
            else
                hi = mid - 1;
        }
        x->issue = lo;
    }
    for (uint32_t i = 0; i < n; i++) /* earliest issue first */
        keys[i] = (as_key){-(double)c[i].issue, c[i].s, i};
    qsort(keys, n, sizeof *keys, by_key);
    for (uint32_t i = 0; i < n; i++)
        idx[i] = keys[i].i;
    free(keys);
    a->c = c;
    a->n = n;
    a->by_issue = idx;
    a->pending = malloc(((size_t)n + 1) * sizeof *a->pending);
    if (!a->pending)
        a->n = 0; /* no plan: the fallback swaps on demand */
    free(load);
    free(start);
    return a->pending ? 0 : -1;
fail:
    free(load);
    free(start);
    free(c);
    free(keys);
    free(idx);
    return -1;
}

static void as_on_access(const sim_view *v, uint32_t o, void *state)
{
    as_state *a = state;
    if (!a->planned && plan(v, a))
        return; /* out of memory: no plan, the fallback swaps on demand */
    while (a->next_out < a->n && a->c[a->next_out].r_idx <= o) {
        const as_cand *x = &a->c[a->next_out++];
        if (x->r_idx == o)
            sim_view_swap_out(v, x->s);
    }
    uint32_t keep = 0;
    for (uint32_t i = 0; i < a->n_pending; i++) { /* swap-ins that did not fit before */
        const as_cand *x = &a->c[a->pending[i]];
        if (sim_view_on_host(v, x->s) && x->d_idx > o + 1 && !sim_view_prefetch(v, x->s))
            a->pending[keep++] = a->pending[i];
    }
    a->n_pending = keep;
    while (a->next_in < a->n && a->c[a->by_issue[a->next_in]].issue <= o) {
        uint32_t i = a->by_issue[a->next_in++];
        const as_cand *x = &a->c[i];
        if (sim_view_on_host(v, x->s) && !sim_view_prefetch(v, x->s) && x->d_idx > o + 1)
            a->pending[a->n_pending++] = i;
    }
}

static double as_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    return (double)sim_view_last_access(v, s);
}

const sim_policy pol_autoswap = {
    .name = "autoswap",
    .description = "AutoSwap (founding paper): planned swaps of the peak's idle tensors",
    .needs = SIM_NEEDS_SWAP,
    .score = as_score,
    .score_kind = SIM_SCORE_LRU, /* lru's score: the engine's bounded lru scan chooses */
    .init = as_init,
    .free = as_free,
    .on_access = as_on_access,
};
