/* mem_pair: allocations and frees paired by address (see mem_pair.h). */
#include "mem_pair.h"

#include "addr_map.h"

int mem_pair(size_t n, mem_pair_event_fn event, const void *ctx, size_t *pair, uint8_t *reused)
{
    addr_map open = {0}; /* address -> the allocation open there */
    for (size_t i = 0; i < n; i++) {
        pair[i] = MEM_PAIR_NONE;
        if (reused)
            reused[i] = 0;
        uint64_t addr, at;
        int kind = event(ctx, i, &addr);
        if (kind > 0) {
            if (addr_map_get(&open, addr, &at)) { /* its free is missing: freed by now */
                pair[at] = i;
                if (reused)
                    reused[at] = 1;
            }
            if (addr_map_put(&open, addr, i)) {
                addr_map_free(&open);
                return -1;
            }
        } else if (kind < 0 && addr_map_take(&open, addr, &at)) {
            pair[at] = i;
            pair[i] = (size_t)at;
        }
    }
    addr_map_free(&open);
    return 0;
}
