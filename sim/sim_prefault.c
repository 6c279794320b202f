/* sim_prefault: one madvise instead of a page fault per page (see sim_prefault.h). */
#define _DEFAULT_SOURCE /* madvise */
#include "sim_prefault.h"

#include <stdint.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define PREFAULT_MIN ((size_t)1 << 20)
#define PAGE ((uintptr_t)4096) /* whole 4 KiB pages inside the array; larger pages are fine */

void sim_prefault(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    if (!p || bytes < PREFAULT_MIN)
        return;
    uintptr_t lo = ((uintptr_t)p + PAGE - 1) & ~(PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(PAGE - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE); /* refused: faults as before */
#else
    (void)p;
    (void)bytes;
#endif
}
