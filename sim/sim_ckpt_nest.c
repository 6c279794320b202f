/*
 * sim_ckpt_nest: the tree of an iteration's nested checkpoint intervals (sim_ckpt_nest.h).
 * Sorted by first layer, larger first, a laminar family nests like brackets: a stack of open
 * intervals gives each its parent (the innermost open one that holds it, else its top-level
 * unit).
 */
#include "sim_ckpt_nest.h"

#include <stdlib.h>
#include <string.h>

struct sim_nest {
    uint32_t cap;            /* max layers */
    uint32_t l0, n, base, count;
    uint32_t *first, *last;  /* per nested interval, global layers */
    uint8_t *state;
    uint32_t *off, *child;   /* children of parent p (top unit u: u - l0; nested k: n + k) */
    uint32_t *order, *stack, *parent, *fill;
};

sim_nest *sim_nest_new(uint32_t max_layers)
{
    sim_nest *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    size_t m = 2 * (size_t)max_layers + 1;
    t->cap = max_layers;
    t->first = malloc(m * sizeof *t->first);
    t->last = malloc(m * sizeof *t->last);
    t->state = calloc(m, 1);
    t->off = malloc((m + max_layers + 2) * sizeof *t->off);
    t->fill = malloc((m + max_layers + 2) * sizeof *t->fill);
    t->child = malloc(m * sizeof *t->child);
    t->order = malloc(m * sizeof *t->order);
    t->stack = malloc(m * sizeof *t->stack);
    t->parent = malloc(m * sizeof *t->parent);
    if (!t->first || !t->last || !t->state || !t->off || !t->child || !t->order || !t->stack ||
        !t->parent || !t->fill) {
        sim_nest_free(t);
        return NULL;
    }
    return t;
}

void sim_nest_free(sim_nest *t)
{
    if (!t)
        return;
    free(t->first), free(t->last), free(t->state), free(t->off), free(t->child);
    free(t->order), free(t->stack), free(t->parent), free(t->fill);
    free(t);
}

static const uint32_t *sort_pairs; /* qsort has no context argument in C11 */

static int by_first_then_larger(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t fx = sort_pairs[2 * x], fy = sort_pairs[2 * y];
    if (fx != fy)
        return fx < fy ? -1 : 1;
    uint32_t lx = sort_pairs[2 * x + 1], ly = sort_pairs[2 * y + 1];
    if (lx != ly)
        return lx > ly ? -1 : 1;
    return x < y ? -1 : x > y;
}

int sim_nest_set(sim_nest *t, uint32_t l0, uint32_t n, const uint8_t *flags,
                 const uint32_t *unit_first, const uint32_t *unit_last, const uint32_t *pairs,
                 uint32_t n_pairs, uint32_t base, gms_error *err)
{
    t->l0 = l0, t->n = n, t->base = base, t->count = 0;
    if (n > t->cap || n_pairs > 2 * n)
        return gms_error_set(err, GMS_EINVAL,
                             "plan: %u nested checkpoint intervals for %u layers (at most %u)",
                             n_pairs, n, 2 * n);
    for (uint32_t k = 0; k < n_pairs; k++) {
        uint32_t f = pairs[2 * k], l = pairs[2 * k + 1];
        if (f > l || l >= n)
            return gms_error_set(err, GMS_EINVAL,
                                 "plan: nested checkpoint interval %u (layers %u..%u) is empty "
                                 "or past the iteration's %u layers", k, f, l, n);
        if (!flags[l0 + f] || !flags[l0 + l] || unit_first[l0 + f] != unit_first[l0 + l])
            return gms_error_set(err, GMS_EINVAL,
                                 "plan: nested checkpoint interval %u (layers %u..%u) is not "
                                 "inside one checkpointed unit", k, f, l);
        t->order[k] = k;
    }
    sort_pairs = pairs;
    qsort(t->order, n_pairs, sizeof *t->order, by_first_then_larger);
    /* parents: the innermost open interval holding it, else its top-level unit */
    uint32_t top = 0;
    for (uint32_t r = 0; r < n_pairs; r++) {
        uint32_t k = t->order[r], f = l0 + pairs[2 * k], l = l0 + pairs[2 * k + 1];
        while (top > 0 && t->last[t->stack[top - 1]] < f)
            top--;
        uint32_t pf, pl, p;
        if (top > 0) {
            uint32_t q = t->stack[top - 1];
            pf = t->first[q], pl = t->last[q], p = n + q;
        } else {
            uint32_t u = unit_first[f];
            pf = u, pl = unit_last[u], p = u - l0;
        }
        if (l > pl || (f == pf && l == pl))
            return gms_error_set(err, GMS_EINVAL,
                                 "plan: nested checkpoint interval %u (layers %u..%u) crosses "
                                 "or equals the interval around it (%u..%u)", k, f - l0, l - l0,
                                 pf - l0, pl - l0);
        t->first[r] = f, t->last[r] = l, t->state[r] = 0, t->parent[r] = p;
        t->stack[top++] = r;
    }
    t->count = n_pairs;
    /* children lists, in layer order (the sorted order) */
    uint32_t np = n + n_pairs;
    memset(t->off, 0, ((size_t)np + 1) * sizeof *t->off);
    for (uint32_t r = 0; r < n_pairs; r++)
        t->off[t->parent[r] + 1]++;
    for (uint32_t p = 0; p < np; p++)
        t->off[p + 1] += t->off[p];
    memcpy(t->fill, t->off, (size_t)np * sizeof *t->fill);
    for (uint32_t r = 0; r < n_pairs; r++)
        t->child[t->fill[t->parent[r]]++] = base + r;
    return 0;
}

uint32_t sim_nest_count(const sim_nest *t)
{
    return t->count;
}

int sim_nest_is(const sim_nest *t, uint32_t id)
{
    return id >= t->base && id - t->base < t->count;
}

void sim_nest_layers(const sim_nest *t, uint32_t id, uint32_t *first, uint32_t *last)
{
    *first = t->first[id - t->base];
    *last = t->last[id - t->base];
}

uint8_t *sim_nest_state(sim_nest *t, uint32_t id)
{
    return &t->state[id - t->base];
}

const uint32_t *sim_nest_children(const sim_nest *t, uint32_t id, uint32_t *n)
{
    uint32_t p;
    if (sim_nest_is(t, id))
        p = t->n + (id - t->base);
    else if (id >= t->l0 && id - t->l0 < t->n && t->count)
        p = id - t->l0;
    else {
        *n = 0;
        return NULL;
    }
    *n = t->off[p + 1] - t->off[p];
    return t->child + t->off[p];
}
