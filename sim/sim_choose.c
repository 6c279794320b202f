/*
 * sim_choose: the victim choice of a score policy (simrd's Heuristic.choose, spec section 5):
 * the full scan of the pool in order, its specialisations per built-in score and the sampled
 * choice. sim_run.c's eviction asks it for the victim.
 */
#include <math.h>
#include <stdint.h>

#include "sim_cost.h"
#include "sim_internal.h"
#include "sim_pool_min.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* DTR's score with the equivalence-class estimate of the evicted neighbourhood (the
 * DTR-eq formula), for DTR in sampled mode (see reset). */
static double dtr_eq_score(sim_view *v, uint32_t s)
{
    int64_t la = v->last[s];
    uint64_t stale = la == INT64_MIN ? UINT64_MAX : v->clock - (uint64_t)la;
    return sim_score_ratio((int64_t)v->scomp[s] + sim_view_eqclass_cost(v, s),
                           v->tr->st_size[s], stale);
}

/* Sampled choice (sim_config.sample): the best of k random pool members, the later draw on
 * ties, a zero score ends the draws. *scored: the draws made. */
static uint32_t choose_sampled(sim_view *v, uint32_t k, uint64_t *scored)
{
    uint32_t best = SIM_NONE;
    double best_cost = INFINITY;
    for (uint32_t i = 0; i < k; i++) {
        ++*scored;
        uint32_t s = v->pool_arr[splitmix64(&v->rng) % v->pool_size];
        double c = v->dtr_eq_approx ? dtr_eq_score(v, s) : v->pol->score(v, s, v->pol_state);
        if (isnan(c))
            v->nan_storage = s;
        if (c <= best_cost) {
            best_cost = c;
            best = s;
        }
        if (c == 0)
            break;
    }
    return best;
}

/* One full scan of the pool in order, EXPR setting the score c of storage s: simrd's
 * Heuristic.choose loop (spec section 5). */
#define SCAN_POOL(EXPR)                                                                    \
    do {                                                                                  \
        const uint32_t *ord_ = v->pool_ord;                                               \
        for (uint32_t i_ = 0, n_ = v->pool_len; i_ < n_; i_++) {                          \
            uint32_t s = ord_[i_];                                                        \
            if (s == SIM_NONE)                                                            \
                continue;                                                                 \
            double c;                                                                     \
            nscored++;                                                                    \
            EXPR;                                                                         \
            if (c <= best_cost) {                                                         \
                best_cost = c;                                                            \
                best = s;                                                                 \
            }                                                                             \
            if (c == 0)                                                                   \
                break;                                                                    \
        }                                                                                 \
    } while (0)


/* SCAN_POOL over the cached scores in pool order (pool_sc; holes are NaN, which neither
 * wins nor ends the scan). *scored: the members visited, as SCAN_POOL counts them. */
static uint32_t scan_cached(const sim_view *v, double *best_cost, uint64_t *scored)
{
    const double *sc = v->pool_sc;
    double best_c = *best_cost;
    uint32_t n = v->pool_len, bi = SIM_NONE, i;
    for (i = 0; i < n; i++) {
        double c = sc[i];
        if (c <= best_c) {
            best_c = c;
            bi = i;
        }
        if (c == 0)
            break;
    }
    if (i == n) {
        *scored += v->pool_size;
    } else { /* stopped at member i: count the members in [0, i] */
        uint64_t k = 0;
        for (uint32_t w = 0; w < i / 64; w++)
            k += (uint64_t)__builtin_popcountll(v->pool_occ[w]);
        uint32_t r = i % 64 + 1;
        uint64_t m = r == 64 ? ~UINT64_C(0) : (UINT64_C(1) << r) - 1;
        *scored += k + (uint64_t)__builtin_popcountll(v->pool_occ[i / 64] & m);
    }
    *best_cost = best_c;
    return bi == SIM_NONE ? SIM_NONE : v->pool_ord[bi];
}

void sim_view_scores_as(const sim_view *cv, unsigned kind)
{
    sim_view *v = (sim_view *)cv; /* a request, carried out by the next choice */
    if (v->pkb_kind == SIM_SCORE_CUSTOM)
        v->scores_as = kind;
}

/* Takes up a sim_view_scores_as request: the bounded scan of that kind from now on, its
 * bounds set up from the pool as it is, as after a compaction (every block's keys exact now),
 * so the scan chooses what the policy's own scores would. Only where the run would have
 * scanned that kind had the policy declared it (sim_runner_run's reset): no choose(), no
 * sampling, regions for dtr's sums. Out of memory: the plain scan goes on, same choices. */
static void take_up_scores_as(sim_view *v)
{
    unsigned k = v->scores_as;
    v->scores_as = SIM_SCORE_CUSTOM;
    if (v->pkb_kind != SIM_SCORE_CUSTOM || !sim_pkb_bounds || v->pol->choose || v->cfg->sample)
        return;
    if (!(k == SIM_SCORE_LRU || k == SIM_SCORE_SIZE || k == SIM_SCORE_DTR_LOCAL ||
          (k == SIM_SCORE_DTR && v->regions_on && !v->dtr_eq_approx)))
        return;
    if (sim_pkb_reset(v, k))
        return; /* it left the bounds off */
    for (uint32_t i = 0; i < v->pool_len; i++)
        if (v->pool_ord[i] != SIM_NONE)
            sim_pkb_note(v, v->pool_ord[i]); /* caches each member's ratio key */
    sim_pkb_compacted(v, v->pool_len);
}

/* Heuristic.choose (spec section 5): the LAST minimum in pool order wins, the first zero
 * cost ends the scan, all +inf -> the last storage. *scored: the candidates scored (for the
 * cost model; a policy with its own choose is taken to look at the whole pool). */
uint32_t sim_choose(sim_view *v, uint64_t *scored)
{
    const sim_policy *p = v->pol;
    if (SIM_REGIONS_PENDING(v))
        sim_regions_flush(v);
    if (v->scores_as != SIM_SCORE_CUSTOM)
        take_up_scores_as(v);
    if (p->choose) {
        v->cost.choose_scored = UINT64_MAX;
        uint32_t s = p->choose(v, v->pol_state);
        *scored += v->cost.choose_scored != UINT64_MAX ? v->cost.choose_scored : v->pool_size;
        return s;
    }
    uint32_t k = v->cfg->sample;
    if (k == SIM_SAMPLE_SQRT)
        k = (uint32_t)ceil(sqrt((double)v->pool_size));
    if (k && k < v->pool_size)
        return choose_sampled(v, k, scored);
    uint32_t best = SIM_NONE;
    double best_cost = INFINITY;
    uint64_t nscored = 0; /* a local, so the scans keep it in a register */
    const uint64_t *size = v->tr->st_size, *scomp = v->scomp;
    const int64_t *last = v->last;
    const uint64_t *rcomp = v->rcomp;
    uint64_t clock = v->clock;
    if (sim_pkb_on(v)) { /* lru, size, dtr-local, dtr: the scan skips blocks by bounds */
        best = sim_pkb_scan(v, &best_cost, &nscored);
        *scored += nscored;
        return best;
    }
/* staleness: clock - last access, "infinite" before the first access (as sim_view_staleness) */
#define STALE(s) (last[s] == INT64_MIN ? UINT64_MAX : clock - (uint64_t)last[s])
    switch (p->score_kind) {
    case SIM_SCORE_LRU:
        SCAN_POOL(c = (double)last[s]);
        break;
    case SIM_SCORE_SIZE:
        SCAN_POOL(c = sim_ratio_inline(1, size[s], 1));
        break;
    case SIM_SCORE_DTR_LOCAL:
        SCAN_POOL(c = sim_score_ratio_above((int64_t)scomp[s], size[s], STALE(s), best_cost));
        break;
    case SIM_SCORE_DTR:
        if (v->dtr_eq_approx) {
            SCAN_POOL(c = dtr_eq_score(v, s));
            break;
        }
        if (!v->regions_on)
            goto generic;
        SCAN_POOL(c = sim_score_ratio_above(
                      (int64_t)(scomp[s] + rcomp[2 * s] + rcomp[2 * s + 1]), size[s],
                      STALE(s), best_cost));
        break;
    case SIM_SCORE_MSPS:
        if (!v->regions_on)
            goto generic;
        if (v->pool_sc) {
            best = sim_psc_summaries ? sim_psc_scan(v, &best_cost, &nscored)
                                     : scan_cached(v, &best_cost, &nscored);
            break;
        }
        SCAN_POOL(c = sim_ratio_inline((int64_t)(scomp[s] + rcomp[2 * s + 1]), size[s], 1));
        break;
    case SIM_SCORE_DTR_EQ:
        if (!v->eq_on || !v->eqc)
            goto generic;
        SCAN_POOL(c = sim_score_ratio_above((int64_t)scomp[s] + sim_eqc_cost(v, s), size[s],
                                            STALE(s), best_cost));
        break;
    default:
    generic:
        /* a NaN score (a plugin's bug) would silently never be chosen: flag it */
        SCAN_POOL(c = p->score(v, s, v->pol_state); if (isnan(c)) v->nan_storage = s);
        break;
    }
#undef STALE
    *scored += nscored;
    return best;
}
