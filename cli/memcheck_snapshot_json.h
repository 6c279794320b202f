/*
 * memcheck_snapshot_json: memcheck --json on a PyTorch memory snapshot, the figures of the
 * text report (memcheck_snapshot.c) as JSON values (jansson). docs/memory.md lists the keys.
 */
#ifndef CLI_MEMCHECK_SNAPSHOT_JSON_H
#define CLI_MEMCHECK_SNAPSHOT_JSON_H

#include <jansson.h>

#include "memory_replay.h"
#include "snapshot.h"

/* Event i of device d: index, action, addr (oom: device_free), size, stream, top frames. */
json_t *mcj_event(const snapshot *s, int d, long i);
/* The exact check's figures (first_divergence null when none). */
json_t *mcj_exact(const snapshot *s, int d, const snap_state *st, const sim_replay_result *r);
/* The cold start's: the predicted and real peak reserved, or the OOM under device_memory. */
json_t *mcj_cold(const snapshot *s, int d, const sim_replay_result *c, uint64_t device_memory);
/* One what-if row: the setting, its peak reserved and error against real_peak (null after an
 * OOM), largest free block, fragmentation and OOM (null when none or no device_memory). */
json_t *mcj_whatif_row(const snapshot *s, int d, const char *name, const sim_replay_result *r,
                       uint64_t real_peak, uint64_t device_memory);

#endif
