/*
 * sim_prefault: maps, in one call, the pages of a large new array the run will write in full,
 * instead of taking a page fault per 4 KiB on first touch. On the 1M-op GPT trace a replay
 * touches ~450 MB, and the page faults cost a sixth of its CPU time (issue 15); populating
 * the arrays each run writes throughout (the regions, the per-storage state) takes the
 * kernel's per-page work in one loop, without a trap per page, and without the read fault
 * that precedes a write to a page of calloc'd zeros. Linux 5.14+ (MADV_POPULATE_WRITE):
 * elsewhere, or when the kernel refuses, it does nothing, so only speed depends on it.
 */
#ifndef SIM_PREFAULT_H
#define SIM_PREFAULT_H

#include <stddef.h>

/* Populates the whole pages inside [p, p + bytes) for writing (p may be NULL). Arrays below
 * a megabyte are left alone: they come from the heap, where their pages may be mapped. */
void sim_prefault(void *p, size_t bytes);

#endif
