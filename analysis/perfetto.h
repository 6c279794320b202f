/*
 * perfetto: one simulated run as a Chrome trace-event JSON file, the format ui.perfetto.dev
 * and chrome://tracing open (docs/perfetto.md).
 *
 * The writer is a sim observer (sim_config.observer): it turns each sim_event into trace
 * events as the run goes and streams them to the file, so a trace of millions of ops never
 * sits in memory. What the file holds, all in process 1:
 *   - thread 1 "compute": a complete ("X") slice per op run, category "op", named after the
 *     op, and per rematerialization, category "remat", named "remat <op>"; args give the op's
 *     index in the schedule and the bytes it produced. The clock is sequential, so a slice
 *     runs from the previous op's end to this op's end.
 *   - thread 2 "evictions": an instant ("i") per freed storage, "evict" (the policy chose it,
 *     category "evict") or "free" (its last reference was released, category "eager-free"),
 *     args bytes, storage, op_index (the op that produced it).
 *   - counters ("C"): "resident" (resident bytes), "budget" (when there is one) and, with a
 *     memory model that has addresses, "reserved" and "allocated"; each with one arg "bytes".
 *     An op's outputs count from the start of its slice (the simulator adds them all before
 *     it drops copies that were already resident), so the resident counter's maximum is the
 *     run's peak_memory exactly.
 * Timestamps are microseconds ("ts"), the simulated clock in ns divided by 1000, written
 * with three decimals so no nanosecond is lost. There is no displayTimeUnit: some Perfetto
 * versions took it for the unit of the timestamps themselves.
 *
 * The file is written to PATH.tmp-<pid> and renamed into place by perfetto_close: it is
 * either complete or absent.
 */
#ifndef PERFETTO_H
#define PERFETTO_H

#include <stdint.h>

#include "gms_error.h"
#include "sim.h"

typedef struct perfetto_writer perfetto_writer;

typedef struct perfetto_info {
    const char *title;     /* the process name shown in the UI ("unet.gmt, dtr, budget ...") */
    uint64_t budget;       /* bytes; UINT64_MAX = none (no budget counter) */
    int memory_model;      /* 1: the run uses a model with addresses: reserved/allocated
                            * counters are written */
    int swap;              /* 1: the policy swaps: device-to-host and host-to-device
                            * copy tracks (their copies as slices) */
} perfetto_info;

/* Creates the temporary file beside path and writes the header and metadata events.
 * Refuses an empty path, "-" and a folder. */
int perfetto_open(const char *path, const perfetto_info *info, perfetto_writer **out,
                  gms_error *err);

/* The sim_observer to set in sim_config, with the writer as observer_ctx. A write error is
 * remembered and reported by perfetto_close. */
void perfetto_observe(void *writer, const sim_event *ev);

/* Ends the file (the run's summary res goes into "otherData"), flushes and renames it into
 * place, and frees w. On any error the temporary file is removed and nothing is left. */
int perfetto_close(perfetto_writer *w, const sim_result *res, gms_error *err);

/* Removes the temporary file and frees w (after a failed run). NULL is allowed. */
void perfetto_abort(perfetto_writer *w);

/* Events written so far (slices, instants, counters; metadata excluded). */
uint64_t perfetto_events(const perfetto_writer *w);

#endif
