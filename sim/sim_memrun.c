/*
 * sim_memrun: a run with a memory model other than ideal (sim_config.allocator).
 *
 * The engine's schedule, pool, policies and clock are unchanged; what changes is the test
 * "do the outputs fit": instead of "resident bytes + the op's output bytes <= budget", each
 * output storage that becomes resident asks the model for a block, and while the model
 * cannot place it within the budget (which caps its reserved bytes) the policy evicts a
 * victim, whose block goes back to the model. Output storages are placed one at a time, in
 * output order, as an op's allocations are made in PyTorch. A copy of an output that is
 * resident already (simrd's duplicate, dropped right after the op) is not placed: the ideal
 * model counts it for an instant, an allocator would not keep it.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

int sim_mem_reset(sim_view *v, gms_error *err)
{
    if (v->mem && v->mem_state)
        v->mem->destroy(v->mem_state);
    v->mem_state = NULL;
    v->mem = v->cfg->allocator;
    v->mem_pending = 0;
    v->mem_peak_reserved = v->mem_peak_allocated = v->mem_largest_free = 0;
    v->mem_frag_allocs = 0;
    v->mem_frag_sum = 0;
    v->mem_seen_allocs = v->mem_seen_frees = UINT64_MAX;
    if (!v->mem)
        return 0;
    const sim_trace *tr = v->tr;
    if (!v->mem_blk) {
        v->mem_blk = malloc(((size_t)tr->n_storages + 1) * sizeof *v->mem_blk);
        if (!v->mem_blk)
            return gms_error_set(err, GMS_ENOMEM, "out of memory for the memory model");
    }
    for (uint32_t s = 0; s < tr->n_storages; s++)
        v->mem_blk[s] = SIM_MEM_NONE;
    sim_memory_options defaults;
    sim_memory_options_init(&defaults);
    const sim_memory_options *o = v->cfg->allocator_options ? v->cfg->allocator_options
                                                            : &defaults;
    int rc = v->mem->create(o, v->budget, tr, &v->mem_state, err);
    if (rc)
        v->mem = NULL; /* nothing to destroy */
    return rc;
}

void sim_mem_event_figures(const sim_view *v, uint64_t *reserved, uint64_t *allocated)
{
    sim_memory_stats st;
    v->mem->stats(v->mem_state, &st);
    *reserved = st.reserved;
    *allocated = st.allocated;
}

static void note_peaks(sim_view *v)
{
    sim_memory_stats st;
    v->mem->stats(v->mem_state, &st);
    assert(st.allocated <= st.reserved && st.reserved <= v->budget);
    if (st.reserved > v->mem_peak_reserved) {
        v->mem_peak_reserved = st.reserved;
        v->mem_largest_free = st.largest_free;
    }
    if (st.allocated > v->mem_peak_allocated)
        v->mem_peak_allocated = st.allocated;
}

/* Coop's fragmentation metric at an allocation that did not fit: the share of the budget
 * that is free (reserved but unused, or not reserved yet) and still could not hold it. */
static void note_fragmented(sim_view *v)
{
    sim_memory_stats st;
    v->mem->stats(v->mem_state, &st);
    uint64_t free_bytes = v->budget > st.allocated ? v->budget - st.allocated : 0;
    v->mem_frag_allocs++;
    if (v->budget != UINT64_MAX && v->budget > 0)
        v->mem_frag_sum += (double)free_bytes / (double)v->budget;
}

static int place(sim_view *v, uint32_t s)
{
    uint64_t size = v->tr->storages[s].size;
    int first_miss = 1;
    for (;;) {
        uint32_t h;
        int rc = v->mem->reserve(v->mem_state, size, s, &h);
        if (rc >= 0) /* a miss may have given cached segments back */
            sim_mem_note_segments(v, s, 0);
        if (rc == 0) {
            v->mem_blk[s] = h;
            v->mem_pending = 0;
            return 0;
        }
        if (rc < 0) {
            v->failed_alloc = 1;
            return -1;
        }
        if (first_miss) {
            note_fragmented(v);
            first_miss = 0;
        }
        v->mem_pending = size;
        if (sim_evict_one(v))
            return -1;
    }
}

int sim_mem_place_outputs(sim_view *v, uint32_t o, uint32_t t)
{
    const sim_trace *tr = v->tr;
    const sim_op *op = &tr->ops[o];
    (void)t; /* t's storage is one of the outputs that are not resident */
    for (uint32_t k = 0; k < op->n_out; k++) {
        const sim_tensor *te = &tr->tensors[op->out_first + k];
        if (te->is_view || (v->fl[te->storage] & SIM_FL_MAT) ||
            v->mem_blk[te->storage] != SIM_MEM_NONE)
            continue;
        if (place(v, te->storage))
            return -1;
    }
    note_peaks(v);
    return 0;
}

void sim_mem_on_evict(sim_view *v, uint32_t s)
{
    v->mem->release(v->mem_state, v->mem_blk[s]);
    v->mem_blk[s] = SIM_MEM_NONE;
    sim_mem_note_segments(v, UINT32_MAX, 0);
}

void sim_mem_finish(sim_view *v, sim_result *res)
{
    if (!v->mem) {
        res->peak_reserved = res->peak_allocated = res->peak_memory;
        return;
    }
    sim_mem_note_segments(v, UINT32_MAX, 1);
    res->peak_reserved = v->mem_peak_reserved;
    res->peak_allocated = v->mem_peak_allocated;
    res->largest_free = v->mem_largest_free;
    res->frag_allocs = v->mem_frag_allocs;
    res->frag_ratio = v->mem_frag_allocs ? v->mem_frag_sum / (double)v->mem_frag_allocs : 0;
}

void sim_mem_free(sim_view *v)
{
    if (v->mem && v->mem_state)
        v->mem->destroy(v->mem_state);
    v->mem_state = NULL;
    v->mem = NULL;
    free(v->mem_blk);
    v->mem_blk = NULL;
    free(v->mem_list);
    v->mem_list = NULL;
    v->cap_mem_list = 0;
}

/* ---- views for address-aware policies (policy.h) ---------------------------------------- */

int sim_view_has_addresses(const sim_view *v)
{
    return v->mem != NULL;
}

uint64_t sim_view_pending_bytes(const sim_view *v)
{
    return v->mem_pending;
}

size_t sim_view_blocks(const sim_view *v, sim_mem_block *out, size_t cap)
{
    return v->mem ? v->mem->list_blocks(v->mem_state, out, cap) : 0;
}

uint64_t sim_view_free_around(const sim_view *v, uint32_t s)
{
    if (!v->mem || s >= v->tr->n_storages || v->mem_blk[s] == SIM_MEM_NONE)
        return 0;
    return v->mem->free_around(v->mem_state, v->mem_blk[s]);
}

int sim_view_evictable(const sim_view *v, uint32_t s)
{
    return s < v->tr->n_storages && v->ss[s].pool_idx != SIM_NONE;
}
