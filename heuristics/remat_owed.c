/*
 * remat_owed: see remat_owed.h. A price taken when a storage is dropped counts the ancestors
 * evicted then; the ones released (and freed) after it must be rerun with it too, so the
 * drops still owed are priced again at each choice (issue 30: resnet-small at 0.4).
 */
#include <stdlib.h>

#include "remat_owed.h"

void remat_owed_free(remat_owed *o)
{
    free(o->s);
    free(o->at);
    *o = (remat_owed){0};
}

/* Room for one more entry; -1 when out of memory. */
static int room(remat_owed *o)
{
    if (o->n < o->cap)
        return 0;
    uint32_t cap = o->cap ? 2 * o->cap : 64;
    uint32_t *s = realloc(o->s, (size_t)cap * sizeof *s);
    if (s)
        o->s = s;
    uint32_t *at = s ? realloc(o->at, (size_t)cap * sizeof *at) : NULL;
    if (!at)
        return -1;
    o->at = at;
    o->cap = cap;
    return 0;
}

uint64_t remat_owed_with(const sim_view *v, remat_owed *o, uint32_t s)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < o->n; i++) { /* forget the recomputed, the swapped and the dead */
        uint32_t x = o->s[i], next = sim_view_next_use(v, x);
        if (!sim_view_material(v, x) && !sim_view_on_host(v, x) && next != SIM_NONE) {
            o->s[keep] = x;
            o->at[keep++] = next;
        }
    }
    o->n = keep;
    if (room(o))
        return UINT64_MAX;
    o->s[keep] = s;
    o->at[keep] = sim_view_next_use(v, s);
    return sim_view_remat_cost_at(v, o->s, o->at, keep + 1, NULL);
}

void remat_owed_commit(remat_owed *o)
{
    if (o->n < o->cap)
        o->n++;
}

int remat_chain_fits(const sim_view *v, uint32_t s, uint64_t fixed)
{
    uint32_t at = sim_view_next_use(v, s);
    uint64_t size = sim_view_size(v, s), budget = sim_view_budget(v), comp = sim_view_compute(v, s);
    /* the walk may stop once the answer is "no": cost above s's own compute and bytes above
     * budget - fixed + size (0 when fixed alone is over: any ancestor's bytes then are) */
    uint64_t bmax = fixed > budget ? 0 : budget - fixed;
    bmax = bmax > UINT64_MAX - size ? UINT64_MAX : bmax + size;
    uint64_t bytes = 0, cost = sim_view_remat_cost_upto(v, s, at, comp, bmax, &bytes);
    uint64_t ancestors = bytes - size; /* s's own room is made when it runs */
    return cost <= comp || fixed + ancestors <= budget;
}
