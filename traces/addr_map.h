/*
 * addr_map: a hash map from 64-bit addresses to 64-bit values, for the readers and replays
 * that follow an allocator's blocks by address: the pairing of frees with their allocations
 * (mem_pair.c, for the Kineto memory readers), the snapshot replays find a block's or
 * segment's record or the model's handle (snapshot_state.c, sim/memory_replay.c). Every key
 * is allowed, 0 and UINT64_MAX included. A zeroed map ({0}) is an empty one too (its first
 * put makes room). The fields are the implementation's: use the functions.
 */
#ifndef GMS_ADDR_MAP_H
#define GMS_ADDR_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct addr_map {
    uint64_t *key; /* key + 1, 0 = an empty slot */
    uint64_t *val;
    size_t cap, n; /* n counts the slots in use, not the key held aside */
    int has_top;   /* UINT64_MAX (whose key + 1 is 0) is held aside */
    uint64_t top_val;
} addr_map;

/* An empty map with room for about n keys. 0, or -1 when out of memory (then free it). */
int addr_map_init(addr_map *m, size_t n);
/* 1 and *v when k is there, 0 otherwise. */
int addr_map_get(const addr_map *m, uint64_t k, uint64_t *v);
/* Adds or replaces k. 0, or -1 when out of memory (the map is unchanged). */
int addr_map_put(addr_map *m, uint64_t k, uint64_t v);
/* Removes k: 1 and its value in *v (v may be NULL) when it was there, 0 otherwise. */
int addr_map_take(addr_map *m, uint64_t k, uint64_t *v);
/* The keys held. */
size_t addr_map_count(const addr_map *m);
void addr_map_free(addr_map *m);

#endif
