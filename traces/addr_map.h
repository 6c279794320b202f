/*
 * addr_map: a hash map from 64-bit addresses to 32-bit indices, for the replays that follow
 * an allocator's blocks by address (snapshot_state.c, sim/memory_replay.c).
 */
#ifndef GMS_ADDR_MAP_H
#define GMS_ADDR_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct addr_map {
    uint64_t *key;
    uint32_t *val;
    size_t cap, n;
} addr_map;

/* An empty map with room for about n keys. 0, or -1 when out of memory. */
int addr_map_init(addr_map *m, size_t n);
/* 1 and *v when k is there, 0 otherwise. */
int addr_map_get(const addr_map *m, uint64_t k, uint32_t *v);
/* Adds or replaces k. 0, or -1 when out of memory (the map is unchanged). */
int addr_map_put(addr_map *m, uint64_t k, uint32_t v);
void addr_map_del(addr_map *m, uint64_t k);
void addr_map_free(addr_map *m);

#endif
