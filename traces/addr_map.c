/* addr_map: address -> index (addr_map.h). Open addressing with linear probing; keys are
 * stored plus one so that 0 marks an empty slot. */
#include <stdlib.h>

#include "addr_map.h"

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
    m->key = calloc(m->cap, sizeof *m->key);
    m->val = calloc(m->cap, sizeof *m->val);
    return m->key && m->val ? 0 : -1;
}

/* 1 found (*v), 0 absent. */
int addr_map_get(const addr_map *m, uint64_t k, uint32_t *v)
{
    size_t i = slot(m, k + 1);
    if (!m->key[i])
        return 0;
    *v = m->val[i];
    return 1;
}

int addr_map_put(addr_map *m, uint64_t k, uint32_t v)
{
    k++; /* 0 marks an empty slot */
    if (2 * (m->n + 1) > m->cap) {
        addr_map g;
        g.cap = m->cap * 2;
        g.n = 0;
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
                g.n++;
            }
        free(m->key);
        free(m->val);
        *m = g;
    }
    size_t i = slot(m, k);
    m->n += !m->key[i];
    m->key[i] = k;
    m->val[i] = v;
    return 0;
}

/* Removes k (backward-shift deletion keeps probe chains whole). */
void addr_map_del(addr_map *m, uint64_t k)
{
    size_t i = slot(m, k + 1);
    if (!m->key[i])
        return;
    m->key[i] = 0;
    m->n--;
    for (size_t j = (i + 1) & (m->cap - 1); m->key[j]; j = (j + 1) & (m->cap - 1)) {
        uint64_t kk = m->key[j];
        uint32_t vv = m->val[j];
        m->key[j] = 0;
        size_t t = slot(m, kk);
        m->key[t] = kk;
        m->val[t] = vv;
    }
}

void addr_map_free(addr_map *m)
{
    free(m->key);
    free(m->val);
}

