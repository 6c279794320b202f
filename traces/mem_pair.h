/*
 * mem_pair: pairs an allocator's frees with its allocations by address, for the readers of
 * alloc/free event streams: the Kineto memory importer (kineto_mem.c) and the Execution
 * Trace's lifetimes from the joined Kineto trace (import_et_lifetimes.c).
 *
 * Over events in the caller's order (time order), an allocation opens its address and the
 * next free of that address closes it. A free with no allocation open at its address frees
 * a block from before the events (unpaired); an allocation at an address still open means
 * the earlier one's free is missing (the earlier one is paired with it, marked reused). What
 * to make of the unpaired and the reused is each caller's.
 */
#ifndef GMS_MEM_PAIR_H
#define GMS_MEM_PAIR_H

#include <stddef.h>
#include <stdint.h>

#define MEM_PAIR_NONE SIZE_MAX

/* Event i of the caller's: its address in *addr, and > 0 for an allocation, < 0 for a free,
 * 0 for an event to leave out (another device's). */
typedef int (*mem_pair_event_fn)(const void *ctx, size_t i, uint64_t *addr);

/* For events 0..n-1 fills pair[i]: for an allocation, the free that frees it, or the
 * allocation that took its address while it was open (reused[i] = 1; reused may be NULL);
 * for a free, the allocation it frees; MEM_PAIR_NONE when none (and for events left out).
 * 0, or -1 when out of memory. */
int mem_pair(size_t n, mem_pair_event_fn event, const void *ctx, size_t *pair, uint8_t *reused);

#endif
