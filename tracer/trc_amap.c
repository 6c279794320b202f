/* trc_amap: the live-allocation map as sorted blocks (see trc_amap.h). */
#include "trc_amap.h"

#include <stdlib.h>
#include <string.h>

/* The block that holds (or would hold) addr: the last block whose first base <= addr, else 0.
 * m->n_blocks > 0. */
static size_t block_of(const trc_amap *m, uint64_t addr)
{
    size_t lo = 0, hi = m->n_blocks;
    while (lo < hi) { /* first block whose first base > addr */
        size_t mid = lo + (hi - lo) / 2;
        if (m->blocks[mid]->e[0].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : 0;
}

/* First index in b with base >= addr. */
static size_t lower(const trc_amap_block *b, uint64_t addr)
{
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->e[mid].base < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Inserts block nb at position at of the block list; -1 when out of memory. */
static int add_block(trc_amap *m, size_t at, trc_amap_block *nb)
{
    if (m->n_blocks == m->cap_blocks) {
        size_t cap = m->cap_blocks ? 2 * m->cap_blocks : 16;
        trc_amap_block **nl = realloc(m->blocks, cap * sizeof *nl);
        if (!nl)
            return -1;
        m->blocks = nl;
        m->cap_blocks = cap;
    }
    memmove(m->blocks + at + 1, m->blocks + at, (m->n_blocks - at) * sizeof *m->blocks);
    m->blocks[at] = nb;
    m->n_blocks++;
    return 0;
}

int trc_amap_insert(trc_amap *m, uint64_t base, uint64_t size, uint64_t tag)
{
    if (size == 0)
        size = 1;
    if (m->n_blocks == 0) {
        trc_amap_block *nb = malloc(sizeof *nb);
        if (!nb || add_block(m, 0, nb) != 0) {
            free(nb);
            return -1;
        }
        nb->n = 0;
    }
    size_t bi = block_of(m, base);
    trc_amap_block *b = m->blocks[bi];
    size_t i = lower(b, base);
    if (i < b->n && b->e[i].base == base) {
        b->e[i].size = size;
        b->e[i].tag = tag;
        return 0;
    }
    if (b->n == TRC_AMAP_BLOCK) { /* split in halves, then insert into the right one */
        trc_amap_block *nb = malloc(sizeof *nb);
        if (!nb || add_block(m, bi + 1, nb) != 0) {
            free(nb);
            return -1;
        }
        size_t half = TRC_AMAP_BLOCK / 2;
        nb->n = b->n - half;
        memcpy(nb->e, b->e + half, nb->n * sizeof *nb->e);
        b->n = half;
        if (i > half) {
            b = nb;
            i -= half;
        } else if (i == half && base > b->e[half - 1].base) {
            /* goes first into the new block only if it is below its old first entry */
            b = nb;
            i = 0;
        }
    }
    memmove(b->e + i + 1, b->e + i, (b->n - i) * sizeof *b->e);
    b->e[i] = (trc_amap_range){base, size, tag};
    b->n++;
    m->count++;
    if (base + size > m->max_end)
        m->max_end = base + size;
    return 1;
}

int trc_amap_remove(trc_amap *m, uint64_t base, uint64_t *size)
{
    if (m->n_blocks == 0)
        return 0;
    size_t bi = block_of(m, base);
    trc_amap_block *b = m->blocks[bi];
    size_t i = lower(b, base);
    if (i >= b->n || b->e[i].base != base)
        return 0;
    if (size)
        *size = b->e[i].size;
    memmove(b->e + i, b->e + i + 1, (b->n - i - 1) * sizeof *b->e);
    b->n--;
    m->count--;
    if (b->n == 0) {
        free(b);
        memmove(m->blocks + bi, m->blocks + bi + 1, (m->n_blocks - bi - 1) * sizeof *m->blocks);
        m->n_blocks--;
    }
    return 1;
}

int trc_amap_find(const trc_amap *m, uint64_t v, trc_amap_range *out)
{
    if (m->n_blocks == 0 || v < m->blocks[0]->e[0].base || v >= m->max_end)
        return 0;
    const trc_amap_block *b = m->blocks[block_of(m, v)];
    size_t i = lower(b, v);
    const trc_amap_range *r = NULL;
    if (i < b->n && b->e[i].base == v)
        r = &b->e[i];
    else if (i > 0 && v - b->e[i - 1].base < b->e[i - 1].size)
        r = &b->e[i - 1];
    if (r && out)
        *out = *r;
    return r != NULL;
}

int trc_amap_hit(const trc_amap *m, uint64_t v)
{
    return trc_amap_find(m, v, NULL);
}

void trc_amap_free(trc_amap *m)
{
    for (size_t i = 0; i < m->n_blocks; i++)
        free(m->blocks[i]);
    free(m->blocks);
    memset(m, 0, sizeof *m);
}
