/*
 * sim_memsegs: the memory model's segments, reported to the observer as they change
 * (SIM_EV_SEGMENTS, only with sim_config.storage_events): the memory-snapshot export needs
 * the caching model's real segment_alloc/segment_free events and its final block layout.
 * A model's segments change only inside reserve (a new segment, or cached ones given back)
 * and, to be safe, release; its cudaMalloc/cudaFree counters say when, so the block list is
 * walked only then. The default replay never comes here.
 */
#include <stdlib.h>

#include "sim_internal.h"

void sim_mem_note_segments(sim_view *v, uint32_t s, int final)
{
    if (!v->cfg->storage_events || !v->cfg->observer || !v->mem)
        return;
    sim_memory_stats st;
    v->mem->stats(v->mem_state, &st);
    if (!final && st.device_allocs == v->mem_seen_allocs && st.device_frees == v->mem_seen_frees)
        return;
    size_t n = v->mem->list_blocks(v->mem_state, v->mem_list, v->cap_mem_list);
    if (n > v->cap_mem_list) {
        sim_mem_block *p = realloc(v->mem_list, n * sizeof *p);
        if (!p) {
            v->failed_alloc = 1; /* the run ends in an out-of-memory error */
            return;
        }
        v->mem_list = p;
        v->cap_mem_list = n;
        n = v->mem->list_blocks(v->mem_state, v->mem_list, v->cap_mem_list);
    }
    v->mem_seen_allocs = st.device_allocs;
    v->mem_seen_frees = st.device_frees;
    const sim_trace *tr = v->tr;
    sim_event ev = {
        .kind = SIM_EV_SEGMENTS,
        .clock = v->clock,
        .memory = v->memory,
        .reserved = st.reserved,
        .allocated = st.allocated,
        .storage = s,
        .blocks = v->mem_list,
        .n_blocks = n,
        .final = final,
    };
    if (s != UINT32_MAX) {
        uint32_t o = tr->tensors[tr->storages[s].root].op;
        ev.size = tr->storages[s].size;
        ev.op = tr->strings + tr->ops[o].name;
        ev.op_index = o;
    }
    v->cfg->observer(v->cfg->observer_ctx, &ev);
}
