/*
 * import_et_map: a uint64 -> uint32 hash map (open addressing, linear probing) for the
 * Execution Trace importer's storage and tensor ids. Header-only: two small users.
 */
#ifndef IMPORT_ET_MAP_H
#define IMPORT_ET_MAP_H

#include <stdint.h>
#include <stdlib.h>

typedef struct et_map {
    uint64_t *key;
    uint32_t *val;
    uint8_t *used;
    size_t cap, n;
} et_map;

static inline size_t et_map_slot(const et_map *m, uint64_t k)
{
    size_t i = (size_t)((k * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (m->cap - 1);
    while (m->used[i] && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* Returns 1 and *v when k is present, else 0. */
static inline int et_map_get(const et_map *m, uint64_t k, uint32_t *v)
{
    if (!m->cap)
        return 0;
    size_t i = et_map_slot(m, k);
    if (!m->used[i])
        return 0;
    *v = m->val[i];
    return 1;
}

/* Sets k to v; -1 when out of memory. */
static inline int et_map_put(et_map *m, uint64_t k, uint32_t v)
{
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 1024;
        et_map g = {malloc(cap * sizeof *g.key), malloc(cap * sizeof *g.val), calloc(cap, 1),
                    cap, 0};
        if (!g.key || !g.val || !g.used) {
            free(g.key);
            free(g.val);
            free(g.used);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->used[i]) {
                size_t j = et_map_slot(&g, m->key[i]);
                g.used[j] = 1;
                g.key[j] = m->key[i];
                g.val[j] = m->val[i];
                g.n++;
            }
        free(m->key);
        free(m->val);
        free(m->used);
        *m = g;
    }
    size_t i = et_map_slot(m, k);
    if (!m->used[i])
        m->n++;
    m->used[i] = 1;
    m->key[i] = k;
    m->val[i] = v;
    return 0;
}

static inline void et_map_free(et_map *m)
{
    free(m->key);
    free(m->val);
    free(m->used);
}

#endif
