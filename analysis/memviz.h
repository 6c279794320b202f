/*
 * memviz: one simulated run as a PyTorch memory snapshot, the pickle pytorch.org/memory_viz
 * opens (torch.cuda.memory._dump_snapshot's format; docs/memory.md, "Export").
 *
 * The writer is a sim observer (with sim_config.storage_events set): each storage that
 * becomes resident is an `alloc`, each one freed (evicted by the policy, or released) a
 * `free_requested` + `free_completed`, in the run's order, so evictions and
 * rematerializations show in the Active Memory Timeline. Each event's one frame names the op
 * (`name`), its phase (`filename`: compute, remat, evict, free, swap-out, swap-in; `allocator`
 * for segment events) and its index in the
 * schedule (`line`). Addresses: the memory model's (--allocator caching), or with the ideal
 * model, which has none, one address range per storage, kept across its rematerializations.
 * Segments: with a memory model (--allocator caching), the model's own: a `segment_alloc`
 * or `segment_free` (`segment_map`/`segment_unmap` with expandable segments) whenever its
 * segments change (SIM_EV_SEGMENTS), and its final layout, free blocks included, as the
 * final `segments`. With the ideal model, one segment per storage (a `segment_alloc` before
 * its alloc and a `segment_free` after its free). Either way the final `segments` are
 * consistent with the events, as the Allocator State History's backward replay needs.
 * Swapping runs (ideal model only): a swap-out frees the storage's device bytes when its copy
 * ends (SIM_EV_SWAP_DONE, phase `swap-out`; one taken back before that never left), a swap-in
 * allocates them again when it is queued (phase `swap-in`), at the storage's own range.
 *
 * Events are kept in memory (about 40 bytes each) and written at close, to a temporary file
 * renamed into place: the file is whole or absent.
 */
#ifndef MEMVIZ_H
#define MEMVIZ_H

#include <stdint.h>

#include "gms_error.h"
#include "sim.h"

typedef struct memviz_writer memviz_writer;

/* A writer for a run of a trace with n_storages storages and memory model `model` (NULL:
 * ideal). The caching model with expandable segments and the lifetime pool's arena grow and
 * shrink at their ends: their changes are segment_map/segment_unmap. */
int memviz_open(const char *path, uint64_t n_storages, const struct sim_memory_model *model,
                memviz_writer **out, gms_error *err);
/* Passes every event but SIM_EV_MATERIALIZE on to another observer (e.g. --perfetto's). */
void memviz_chain(memviz_writer *w, sim_observer next, void *next_ctx);
/* The sim_observer, with the writer as observer_ctx. */
void memviz_observe(void *writer, const sim_event *ev);
/* Writes the snapshot (allocator_settings.PYTORCH_CUDA_ALLOC_CONF = conf, the run's model
 * and settings) and frees w. 0, or an error; nothing is left at path then. */
int memviz_close(memviz_writer *w, const char *conf, gms_error *err);
/* After a failed run: frees w, writes nothing. NULL is allowed. */
void memviz_abort(memviz_writer *w);

#endif
