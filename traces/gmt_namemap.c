/* gmt_namemap: open-addressing hash map (linear probing) over an insertion-ordered entry
 * array. The slot table holds entry index + 1 (0 = empty) and is kept at most half full. */
#include "gmt_namemap.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
    char *key;
    size_t len;
    uint64_t val;
    uint64_t hash;
} entry;

struct gmt_namemap {
    entry *entries;
    size_t count, cap;
    uint32_t *slots; /* entry index + 1, 0 = empty */
    size_t nslots;   /* power of two */
};

/* FNV-1a, 64 bit: fast and good enough for short names. */
static uint64_t hash_bytes(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

gmt_namemap *gmt_namemap_new(void)
{
    gmt_namemap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->nslots = 64;
    m->slots = calloc(m->nslots, sizeof *m->slots);
    if (!m->slots) {
        free(m);
        return NULL;
    }
    return m;
}

void gmt_namemap_free(gmt_namemap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->count; i++)
        free(m->entries[i].key);
    free(m->entries);
    free(m->slots);
    free(m);
}

/* Slot where key lives, or the empty slot where it would go. */
static size_t probe(const gmt_namemap *m, const void *key, size_t len, uint64_t h)
{
    size_t mask = m->nslots - 1;
    size_t i = (size_t)h & mask;
    for (;;) {
        uint32_t s = m->slots[i];
        if (s == 0)
            return i;
        const entry *e = &m->entries[s - 1];
        if (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0)
            return i;
        i = (i + 1) & mask;
    }
}

long gmt_namemap_find(const gmt_namemap *m, const void *key, size_t len, uint64_t *val)
{
    size_t i = probe(m, key, len, hash_bytes(key, len));
    uint32_t s = m->slots[i];
    if (s == 0)
        return -1;
    if (val)
        *val = m->entries[s - 1].val;
    return (long)(s - 1);
}

/* Doubles the slot table and reinserts every entry. Returns 0 or -1 when out of memory. */
static int grow_slots(gmt_namemap *m)
{
    size_t n = m->nslots * 2;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t k = 0; k < m->count; k++) {
        size_t i = (size_t)m->entries[k].hash & (n - 1);
        while (slots[i] != 0)
            i = (i + 1) & (n - 1);
        slots[i] = (uint32_t)(k + 1);
    }
    free(m->slots);
    m->slots = slots;
    m->nslots = n;
    return 0;
}

long gmt_namemap_put(gmt_namemap *m, const void *key, size_t len, uint64_t val)
{
    uint64_t h = hash_bytes(key, len);
    size_t i = probe(m, key, len, h);
    if (m->slots[i] != 0) {
        m->entries[m->slots[i] - 1].val = val;
        return (long)(m->slots[i] - 1);
    }
    if (m->count >= UINT32_MAX - 1)
        return -1;
    if ((m->count + 1) * 2 > m->nslots) {
        if (grow_slots(m) != 0)
            return -1;
        i = probe(m, key, len, h);
    }
    if (m->count == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 32;
        entry *e = realloc(m->entries, cap * sizeof *e);
        if (!e)
            return -1;
        m->entries = e;
        m->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, key, len);
    copy[len] = '\0';
    m->entries[m->count] = (entry){copy, len, val, h};
    m->slots[i] = (uint32_t)(m->count + 1);
    return (long)m->count++;
}

long gmt_namemap_add(gmt_namemap *m, const void *key, size_t len, uint64_t delta)
{
    uint64_t v = 0;
    long i = gmt_namemap_find(m, key, len, &v);
    if (i >= 0) {
        m->entries[i].val = v + delta;
        return i;
    }
    return gmt_namemap_put(m, key, len, delta);
}

size_t gmt_namemap_count(const gmt_namemap *m)
{
    return m->count;
}

const char *gmt_namemap_key(const gmt_namemap *m, size_t i, size_t *len)
{
    if (len)
        *len = m->entries[i].len;
    return m->entries[i].key;
}

uint64_t gmt_namemap_value(const gmt_namemap *m, size_t i)
{
    return m->entries[i].val;
}
