/* sim_pool_min: block summaries over MSPS's cached pool scores (see sim_pool_min.h). */
#include "sim_pool_min.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sim_psc_summaries = 1;

/* Block b's owed slots scored. */
static void score_owed(sim_view *v, uint32_t b)
{
    for (uint64_t d = v->psc_dirty[b]; d; d &= d - 1) {
        uint32_t i = b * 64 + (uint32_t)__builtin_ctzll(d), s = v->pool_ord[i];
        v->pool_sc[i] = sim_ratio_inline((int64_t)(v->scomp[s] + v->rcomp[2 * (size_t)s + 1]),
                                         v->tr->st_size[s], 1);
    }
    v->psc_dirty[b] = 0;
}

void sim_psc_flush(sim_view *v)
{
    for (uint32_t b = 0; b < (v->pool_len + 63) / 64; b++)
        if (v->psc_dirty[b])
            score_owed(v, b);
}

void sim_psc_block(sim_view *v, uint32_t b)
{
    if (v->psc_dirty && v->psc_dirty[b])
        score_owed(v, b);
    uint32_t lo = b * 64, hi = lo + 64 < v->psc_hw ? lo + 64 : v->psc_hw;
    const double *sc = v->pool_sc;
    /* four running minima (x < m ? x : m keeps m when x is NaN, a hole): the minimum of
     * the non-NaN values does not depend on the order they are taken in */
    double m0 = INFINITY, m1 = INFINITY, m2 = INFINITY, m3 = INFINITY;
    uint32_t i = lo;
    for (; i + 4 <= hi; i += 4) {
        m0 = sc[i] < m0 ? sc[i] : m0;
        m1 = sc[i + 1] < m1 ? sc[i + 1] : m1;
        m2 = sc[i + 2] < m2 ? sc[i + 2] : m2;
        m3 = sc[i + 3] < m3 ? sc[i + 3] : m3;
    }
    for (; i < hi; i++)
        m0 = sc[i] < m0 ? sc[i] : m0;
    m0 = m1 < m0 ? m1 : m0;
    m2 = m3 < m2 ? m3 : m2;
    v->psc_min[b] = m2 < m0 ? m2 : m0;
}

int sim_psc_reset(sim_view *v, int lazy)
{
    size_t nb = (size_t)v->pool_cap / 64 + 1;
    if (!lazy) {
        free(v->psc_dirty);
        v->psc_dirty = NULL;
    } else if (!v->psc_dirty && !(v->psc_dirty = malloc(nb * sizeof *v->psc_dirty))) {
        return -1;
    }
    if (v->psc_dirty)
        memset(v->psc_dirty, 0, nb * sizeof *v->psc_dirty);
    if (!v->psc_min) {
        v->psc_min = malloc(nb * sizeof *v->psc_min);
        v->psc_zero = malloc(nb * sizeof *v->psc_zero);
        if (!v->psc_min || !v->psc_zero) {
            sim_psc_free(v);
            return -1;
        }
    }
    for (size_t b = 0; b < nb; b++) {
        v->psc_min[b] = INFINITY;
        v->psc_zero[b] = 0;
    }
    v->psc_hw = 0;
    return 0;
}

void sim_psc_compacted(sim_view *v, uint32_t old_len)
{
    for (uint32_t i = v->pool_len; i < old_len; i++)
        v->pool_sc[i] = NAN;
    for (uint32_t b = 0; b < (old_len + 63) / 64; b++) {
        uint64_t z = 0;
        for (uint32_t i = b * 64; i < b * 64 + 64 && i < old_len; i++)
            if (v->pool_sc[i] == 0)
                z |= UINT64_C(1) << (i & 63);
        v->psc_zero[b] = z;
        v->psc_min[b] = NAN; /* stale: recomputed when read */
    }
}

/* The clones stay static and are dispatched here: clang (14) does not resolve a call from
 * another file to a target_clones function (an undefined reference at link time). */
SIM_POPCNT_CLONES static uint32_t psc_scan(const sim_view *v, double *best_cost,
                                           uint64_t *scored)
{
    const double *sc = v->pool_sc;
    uint32_t n = v->pool_len, nb = (n + 63) / 64;
    if (n == 0)
        return SIM_NONE;
    /* the scan ends at the first zero, else at the end */
    uint32_t end = n, zb;
    for (zb = 0; zb < nb; zb++)
        if (v->psc_zero[zb]) {
            end = zb * 64 + (uint32_t)__builtin_ctzll(v->psc_zero[zb]) + 1;
            break;
        }
    /* the minimum over [0, end): whole blocks from their summaries, the last one by slot */
    uint32_t eb = (end - 1) / 64; /* the block of slot end - 1 */
    double m = *best_cost;
    sim_view *mv = (sim_view *)v; /* stale minima are recomputed as they are read */
    for (uint32_t b = 0; b < eb; b++) {
        double bm = sim_psc_min(mv, b);
        if (bm < m)
            m = bm;
    }
    for (uint32_t i = eb * 64; i < end; i++)
        if (sc[i] < m)
            m = sc[i];
    /* the last slot before end that holds it */
    uint32_t bi = SIM_NONE;
    for (uint32_t i = end; i-- > eb * 64;)
        if (sc[i] == m) {
            bi = i;
            break;
        }
    for (uint32_t b = eb; bi == SIM_NONE && b-- > 0;)
        if (v->psc_min[b] == m) /* (all of them recomputed above) */
            for (uint32_t i = b * 64 + 64; i-- > b * 64;)
                if (sc[i] == m) {
                    bi = i;
                    break;
                }
    if (zb == nb) {
        *scored += v->pool_size;
    } else { /* stopped at slot end - 1: count the members in [0, end) */
        uint32_t i = end - 1;
        uint64_t k = 0;
        for (uint32_t w = 0; w < i / 64; w++)
            k += (uint64_t)__builtin_popcountll(v->pool_occ[w]);
        uint32_t r = i % 64 + 1;
        uint64_t mk = r == 64 ? ~UINT64_C(0) : (UINT64_C(1) << r) - 1;
        *scored += k + (uint64_t)__builtin_popcountll(v->pool_occ[i / 64] & mk);
    }
    if (bi == SIM_NONE)
        return SIM_NONE;
    *best_cost = sc[bi];
    return v->pool_ord[bi];
}

uint32_t sim_psc_scan(const sim_view *v, double *best_cost, uint64_t *scored)
{
    return psc_scan(v, best_cost, scored);
}

void sim_pbm_block(sim_view *v, uint32_t b)
{
    uint64_t m = 0;
    for (uint32_t i = b * 64, hi = i + 64 < v->pool_len ? i + 64 : v->pool_len; i < hi; i++) {
        uint32_t s = v->pool_ord[i];
        if (s != SIM_NONE && v->tr->st_size[s] > m && sim_view_next_use(v, s) != SIM_NONE)
            m = v->tr->st_size[s];
    }
    v->pool_bmax[b] = m;
}

int sim_pbm_reset(sim_view *v, int on)
{
    size_t nb = (size_t)v->pool_cap / 64 + 1;
    if (!on) {
        free(v->pool_bmax);
        v->pool_bmax = NULL;
        return 0;
    }
    if (!v->pool_bmax && !(v->pool_bmax = malloc(nb * sizeof *v->pool_bmax)))
        return -1;
    memset(v->pool_bmax, 0, nb * sizeof *v->pool_bmax);
    return 0;
}

void sim_pbm_compacted(sim_view *v, uint32_t old_len)
{
    for (uint32_t b = 0; b < (old_len + 63) / 64; b++)
        v->pool_bmax[b] = SIM_PBM_STALE;
}

uint32_t sim_psc_last_min(const sim_view *v)
{
    const double *sc = v->pool_sc;
    uint32_t n = v->pool_len, nb = (n + 63) / 64;
    double m = INFINITY;
    sim_view *mv = (sim_view *)v; /* stale minima are recomputed as they are read */
    for (uint32_t b = 0; b < nb; b++) {
        double bm = sim_psc_min(mv, b);
        if (bm < m)
            m = bm;
    }
    /* the last slot that holds it (every score +inf: the last member, as a scan keeping the
     * last of equal scores takes it) */
    for (uint32_t b = nb; b-- > 0;) {
        if (!(v->psc_min[b] == m))
            continue;
        for (uint32_t i = b * 64 + 64 < n ? b * 64 + 64 : n; i-- > b * 64;)
            if (sc[i] == m)
                return v->pool_ord[i];
    }
    return SIM_NONE;
}

void sim_psc_free(sim_view *v)
{
    free(v->psc_dirty);
    v->psc_dirty = NULL;
    free(v->psc_min);
    free(v->psc_zero);
    v->psc_min = NULL;
    v->psc_zero = NULL;
}
