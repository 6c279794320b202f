/*
 * gmt_namemap: a small hash map from byte-string keys to uint64 values that remembers
 * insertion order. The DTR log importer uses it for tensor names that are not "x<digits>",
 * the exporter for id -> display name, and gmt_stats for distinct op names and annotation
 * kinds. Keys are copied (and NUL-terminated); pointers to stored keys stay valid until
 * gmt_namemap_free.
 */
#ifndef GMT_NAMEMAP_H
#define GMT_NAMEMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct gmt_namemap gmt_namemap;

/* Returns a new empty map, or NULL when out of memory. */
gmt_namemap *gmt_namemap_new(void);
void gmt_namemap_free(gmt_namemap *m);

/* Looks key up. Returns the entry index (insertion order) or -1 when absent; when present and
 * val is not NULL, *val receives the value. */
long gmt_namemap_find(const gmt_namemap *m, const void *key, size_t len, uint64_t *val);

/* Adds key -> val, or replaces the value when key is present. Returns the entry index, or -1
 * when out of memory (the map is then unchanged). */
long gmt_namemap_put(gmt_namemap *m, const void *key, size_t len, uint64_t val);

/* Adds delta to key's value, inserting key with value delta when absent. Returns the entry
 * index or -1 when out of memory. */
long gmt_namemap_add(gmt_namemap *m, const void *key, size_t len, uint64_t delta);

size_t gmt_namemap_count(const gmt_namemap *m);
/* Entry i (insertion order, i < count): its key (NUL-terminated copy), key length and value. */
const char *gmt_namemap_key(const gmt_namemap *m, size_t i, size_t *len);
uint64_t gmt_namemap_value(const gmt_namemap *m, size_t i);

#endif
