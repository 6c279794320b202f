/* trc_tmap: TMA descriptor -> global address table (see trc_tmap.h). */
#include "trc_tmap.h"

#include <stdlib.h>
#include <string.h>

static size_t hash(const uint8_t *p)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < TRC_TMAP_BYTES; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29)) & (TRC_TMAP_SLOTS - 1);
}

int trc_tmap_insert(trc_tmap *t, const void *desc, uint64_t addr)
{
    if (!addr)
        return 0;
    if (!t->slots && !(t->slots = calloc(TRC_TMAP_SLOTS, sizeof *t->slots)))
        return -1;
    t->inserted++;
    if (t->n >= TRC_TMAP_SLOTS / 2) { /* full enough: start over (descriptors are reused
                                       * rarely; the newest matter) */
        memset(t->slots, 0, TRC_TMAP_SLOTS * sizeof *t->slots);
        t->n = 0;
    }
    size_t i = hash(desc);
    while (t->slots[i].addr && memcmp(t->slots[i].desc, desc, TRC_TMAP_BYTES) != 0)
        i = (i + 1) & (TRC_TMAP_SLOTS - 1);
    if (!t->slots[i].addr) {
        memcpy(t->slots[i].desc, desc, TRC_TMAP_BYTES);
        t->n++;
    }
    t->slots[i].addr = addr;
    return 0;
}

uint64_t trc_tmap_lookup(const trc_tmap *t, const void *desc)
{
    if (!t->slots || t->n == 0)
        return 0;
    for (size_t i = hash(desc);; i = (i + 1) & (TRC_TMAP_SLOTS - 1)) {
        if (!t->slots[i].addr)
            return 0;
        if (memcmp(t->slots[i].desc, desc, TRC_TMAP_BYTES) == 0)
            return t->slots[i].addr;
    }
}

void trc_tmap_free(trc_tmap *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}
