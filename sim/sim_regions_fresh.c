/*
 * sim_regions_fresh: the end of a compute whose outputs left no region's interior, without
 * walks (issue 26 goal 3).
 *
 * At the end of every compute simrd rebuilds the forward region of each storage bordering a
 * newly material one (sim_regions_on_compute): on a first compute, each input of the op. Those
 * rebuilds walk the whole evicted neighbourhood of each input again, through every edge of
 * it: on DenseNet, whose concatenations read a block's every earlier feature map, most of the
 * simulation's time. When the new material storages were in no interior (they never were
 * evicted for the regions: new outputs, or swapped ones computed again) and have no evicted
 * parent (their reverse regions, just rebuilt, have empty interiors), that walk finds what the
 * region holds already:
 *   - interior: unchanged but for the outputs. It is, at all times, the storages not material
 *     reachable from the base through such storages (rebuilds set it so, absorbs add each
 *     storage that leaves, and a storage coming back rebuilds the regions whose interior held
 *     it). An op's outputs are storages from the op's creation on, but material only once it
 *     ran: a walk in between (while its inputs are rematerialized) counts them as evicted,
 *     and reaches them only through their parents, which are material by the time the op
 *     runs. So an output can be in the interiors of its parents' forward regions only (the
 *     bases), as a leaf (it has no child yet), and leaves them now;
 *   - frontier: the unpinned material neighbours of the interior and the base, minus the base.
 *     The only new ones are the outputs, and an output borders the region only through a
 *     material parent, i.e. the base itself: those whose reverse frontier holds the base.
 *     The frontier the region holds may also still list members pinned since, or the base
 *     itself (an absorb unions a neighbour's frontier as it is): the walk drops those, so
 *     they are dropped here too;
 *   - sum: compute summed over the interior, read from the current compute of each member
 *     (a view op may have raised one since the sum was cached; the walk reads it anew too).
 *     Where the cached sum is known exact (sim_region_sum_exact) that is the cached sum less
 *     the outputs' compute, without a pass over the interior.
 * So the region ends as the walk's: same sets, same sum, same score. sim_region_fresh_check
 * (tests) rebuilds each region by the walk after the shortcut and counts differences.
 */
#include <stdlib.h>

#include "sim_internal.h"
#include "sim_pool_bound.h"
#include "sim_regions_priv.h"

int sim_region_fresh = 1;
int sim_region_fresh_check;
uint64_t sim_region_fresh_taken, sim_region_fresh_diff;

int sim_regions_fresh_applies(const sim_view *v, const uint32_t *st, uint32_t n)
{
    if (!sim_region_fresh || !v->rg_gone)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (v->rg_gone[st[i]] || v->rev[st[i]].interior.count)
            return 0;
    return 1;
}

/* Σ compute over R's interior, from the members' compute now. */
static uint64_t interior_sum(const sim_view *v, const sim_region *R)
{
    const sim_set *I = &R->interior;
    uint64_t sum = 0;
    if (!I->count)
        return 0;
    for (uint32_t w = I->wlo; w < I->whi; w++)
        for (uint64_t b = *sim_set_word(I, w); b; b &= b - 1)
            sum += v->scomp[(size_t)w * 64 + (uint32_t)__builtin_ctzll(b)];
    return sum;
}

/* Drops the base and the pinned members from R's frontier (as the walk leaves them out). */
static void clean_frontier(sim_view *v, sim_region *R, uint32_t base)
{
    sim_set *F = &R->frontier;
    for (uint32_t w = F->count ? F->wlo : F->whi; w < F->whi; w++) {
        uint64_t *word = sim_set_word(F, w);
        for (uint64_t b = *word; b; b &= b - 1) {
            uint32_t x = w * 64 + (uint32_t)__builtin_ctzll(b);
            if (x == base || (v->fl[x] & SIM_FL_PINNED)) {
                *word &= ~(UINT64_C(1) << (x & 63));
                F->count--;
            }
        }
    }
}

/* The walk's result, kept for the check: members of both sets and the sum. */
static int same_as_walk(sim_view *v, uint32_t base)
{
    sim_region *R = &v->fwd[base];
    uint64_t sum = *sim_rcomp(v, base, 1);
    uint32_t ni = R->interior.count, nf = R->frontier.count;
    uint32_t *mine = malloc(((size_t)ni + nf + 1) * sizeof *mine);
    if (!mine)
        return 1; /* nothing to compare with: not counted */
    uint32_t k = 0, x;
    sim_set_iter it;
    for (sim_set_iter_init(&it, &R->interior); sim_set_iter_next(&it, &x);)
        mine[k++] = x;
    for (sim_set_iter_init(&it, &R->frontier); sim_set_iter_next(&it, &x);)
        mine[k++] = x;
    sim_regions_rebuild_one(v, base, 1);
    int same = !v->failed_alloc && *sim_rcomp(v, base, 1) == sum &&
               R->interior.count == ni && R->frontier.count == nf;
    k = 0;
    for (sim_set_iter_init(&it, &R->interior); same && sim_set_iter_next(&it, &x);)
        same = mine[k++] == x;
    for (sim_set_iter_init(&it, &R->frontier); same && sim_set_iter_next(&it, &x);)
        same = mine[k++] == x;
    free(mine);
    return same;
}

void sim_regions_fresh_forward(sim_view *v, const uint32_t *st, uint32_t n,
                               const uint32_t *bases, uint32_t nb)
{
    /* the outputs move to the frontiers of the bases their reverse frontiers name */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = st[i], x;
        sim_set_iter it;
        for (sim_set_iter_init(&it, &v->rev[s].frontier); sim_set_iter_next(&it, &x);) {
            if (v->fl[x] & SIM_FL_PINNED)
                continue; /* not a base: its regions are never read */
            if (sim_set_has(&v->fwd[x].interior, s)) { /* walked before it was computed */
                sim_set_remove(&v->fwd[x].interior, s);
                if (sim_region_sum_exact(v, x, 1)) /* the sum of the interior less s */
                    *sim_rcomp(v, x, 1) -= v->scomp[s];
            }
            if (!(v->fl[s] & SIM_FL_PINNED) && sim_set_add(&v->fwd[x].frontier, &v->set_pool, s) < 0)
                sim_regions_fail(v);
        }
    }
    for (uint32_t i = 0; i < nb && !v->failed_alloc; i++) {
        uint32_t p = bases[i];
        sim_region *R = &v->fwd[p];
        clean_frontier(v, R, p);
        if (!sim_region_sum_exact(v, p, 1)) { /* else kept exact above: no pass */
            *sim_rcomp(v, p, 1) = interior_sum(v, R); /* 0 where interiors are not kept */
            sim_region_summed(v, p, 1);
        }
        sim_pkb_note(v, p);                        /* as a rebuild notes its sum */
        if (sim_region_fresh_check) { /* tests only: the counters are shared */
            sim_region_fresh_taken++;
            sim_region_fresh_diff += !same_as_walk(v, p);
        }
    }
}
