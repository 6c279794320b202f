/*
 * snapshot_cli: what info and memcheck do with a PyTorch memory snapshot (sniffed before
 * their trace readers: a snapshot is an allocator event stream, not an op trace).
 */
#ifndef CLI_SNAPSHOT_CLI_H
#define CLI_SNAPSHOT_CLI_H

#include "snapshot.h"

/* gpumemsim info on a snapshot: events per device and action, the final segments, the
 * allocator settings, the reconstructed state before the first event and what cannot be
 * modelled (warnings on stderr). Exit status. */
int cli_snapshot_info(const char *path, int json);

/* Prints each line of snap_unmodelled for device d to stderr as "gpumemsim CMD: warning:". */
void cli_snapshot_warn(const char *cmd, const snapshot *s, int device);

/* gpumemsim memcheck on a snapshot (memcheck_snapshot.c): the exact check and the
 * cold-start prediction, or with confs (PYTORCH_CUDA_ALLOC_CONF strings) the what-if table;
 * device_memory (UINT64_MAX: none) makes the replays stop at the first allocation that does
 * not fit; device -1 picks the device with the most events; json: one JSON object of the
 * same figures. Exit status. */
int cli_memcheck_snapshot(const char *path, const char *const *confs, int nconf,
                          uint64_t device_memory, int device, int cold_only, int json);

#endif
