/* Private to the lifter (lift*.c): helpers shared by its files. */
#ifndef TRC_LIFT_INT_H
#define TRC_LIFT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lift.h"

/* 1 when name marks an iteration: "gpumemsim:iteration", or "gpumemsim:iteration=N";
 * *value (may be NULL) gets N, or -1 when the name carries none. */
int trc_is_iteration(const char *name, int64_t *value);

/* Writes name into buf without the per-call details emit_nvtx appends (", seq = N", ...). */
void trc_op_name(char *buf, size_t cap, const char *name);

/* The view a record type belongs to (TRC_ALLOCS_*), 0 for non-allocation records. */
trc_alloc_view trc_alloc_source(trc_rec_type type);

/* Sends the header metadata (producer, source, the tracer's INFO facts) to sink and fills the
 * INFO-derived fields of st (dropped records, status, clean end, device) and the allocation
 * view (alloc_source and the record counts of both views). */
int trc_lift_meta(const trc_rec *recs, size_t n, const trc_sink *sink, trc_lift_stats *st,
                  gms_error *err);

#endif
