/* addr_map: address -> value (addr_map.h). Open addressing with linear probing; keys are
 * stored plus one so that 0 marks an empty slot, and the one key that would wrap to 0
 * (UINT64_MAX) is held aside. */
#include <stdlib.h>

#include "addr_map.h"

/* k's slot (stored form), or the empty slot where it would go. */
static size_t slot(const addr_map *m, uint64_t k)
{
    size_t i = (size_t)((k * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (m->cap - 1);
    while (m->key[i] && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

int addr_map_init(addr_map *m, size_t n)
{
    m->cap = 64;
    while (m->cap < 2 * n + 2)
        m->cap *= 2;
    m->n = 0;
    m->has_top = 0;
    m->top_val = 0;
    m->key = calloc(m->cap, sizeof *m->key);
    m->val = calloc(m->cap, sizeof *m->val);
    return m->key && m->val ? 0 : -1;
}

int addr_map_get(const addr_map *m, uint64_t k, uint64_t *v)
{
    if (k == UINT64_MAX) {
        if (m->has_top)
            *v = m->top_val;
        return m->has_top;
    }
    if (!m->cap)
        return 0;
    size_t i = slot(m, k + 1);
    if (!m->key[i])
        return 0;
    *v = m->val[i];
    return 1;
}

/* Doubles the table (at most half full, so that probes stay short). 0 or -1. */
static int grow(addr_map *m)
{
    addr_map g = *m;
    g.cap = m->cap * 2;
    g.key = calloc(g.cap, sizeof *g.key);
    g.val = calloc(g.cap, sizeof *g.val);
    if (!g.key || !g.val) {
        free(g.key);
        free(g.val);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->key[i]) {
            size_t j = slot(&g, m->key[i]);
            g.key[j] = m->key[i];
            g.val[j] = m->val[i];
        }
    free(m->key);
    free(m->val);
    *m = g;
    return 0;
}

int addr_map_put(addr_map *m, uint64_t k, uint64_t v)
{
    if (k == UINT64_MAX) {
        m->has_top = 1;
        m->top_val = v;
        return 0;
    }
    if (!m->cap && addr_map_init(m, 0)) {
        addr_map_free(m);
        return -1;
    }
    k++; /* 0 marks an empty slot */
    if (2 * (m->n + 1) > m->cap && grow(m))
        return -1;
    size_t i = slot(m, k);
    m->n += !m->key[i];
    m->key[i] = k;
    m->val[i] = v;
    return 0;
}

/* Backward-shift deletion: the rest of the cluster moves up, so probe chains stay whole. */
int addr_map_take(addr_map *m, uint64_t k, uint64_t *v)
{
    if (k == UINT64_MAX) {
        int had = m->has_top;
        if (had && v)
            *v = m->top_val;
        m->has_top = 0;
        return had;
    }
    if (!m->cap)
        return 0;
    size_t i = slot(m, k + 1);
    if (!m->key[i])
        return 0;
    if (v)
        *v = m->val[i];
    m->key[i] = 0;
    m->n--;
    for (size_t j = (i + 1) & (m->cap - 1); m->key[j]; j = (j + 1) & (m->cap - 1)) {
        uint64_t kk = m->key[j], vv = m->val[j];
        m->key[j] = 0;
        size_t t = slot(m, kk);
        m->key[t] = kk;
        m->val[t] = vv;
    }
    return 1;
}

size_t addr_map_count(const addr_map *m)
{
    return m->n + (m->has_top != 0);
}

void addr_map_free(addr_map *m)
{
    free(m->key);
    free(m->val);
    m->key = m->val = NULL;
    m->cap = m->n = 0;
    m->has_top = 0;
}
