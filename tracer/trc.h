/*
 * trc: internals of libgpumemsim-tracer.so, the CUPTI injection library.
 *
 * trc_main.c      InitializeInjection: subscribe, enable activity kinds, exit/signal/fork hooks
 * trc_out.c       the per-process raw record file (lift_raw.h bytes), thread-safe, fork-safe
 * trc_activity.c  CUPTI activity buffers -> raw records (kernels, MEMORY2, memcpy, NVTX)
 * trc_callback.c  driver/runtime API callbacks: live allocation map, launch parameter scan
 * trc_copy.c      memcpy/memset API callbacks: which buffers copies and memsets fill
 *
 * Nothing here may crash or hang the traced job: every CUPTI/CUDA failure is recorded as an
 * INFO "status" record and reported once on stderr, and the tracer then does less.
 */
#ifndef TRC_H
#define TRC_H

#include <stddef.h>
#include <stdint.h>

#include "lift_raw.h"

/* Output file. trc_out_open creates "<dir>/gms-<pid>.raw" (dir = $GMS_TRACE_DIR or "."),
 * never reusing an existing file. All functions are thread-safe and no-ops when closed. */
int trc_out_open(void);
void trc_out_write(const trc_rec *rec);
void trc_out_info(const char *key, const char *value);
void trc_out_flush(void); /* buffered bytes -> the file (write(2), no stdio) */
/* trc_out_flush unless another thread (or the interrupted one) holds the lock: -1 then. For
 * signal handlers, which must never wait for a lock. */
int trc_out_try_flush(void);
void trc_out_close(void);
/* In a forked child: forget the parent's file without writing anything into it. */
void trc_out_forget_after_fork(void);
const char *trc_out_path(void);

/* Problems: recorded as INFO "status" and printed once to stderr ("gpumemsim-tracer: ..."). */
void trc_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Activity API: registers buffer callbacks and enables the kinds; returns 0 when kernels and
 * memory records are on. */
int trc_activity_start(void);
void trc_activity_flush(void); /* cuptiActivityFlushAll(FORCED) */
uint64_t trc_activity_dropped(void);

/* Callback API: subscribes and enables the launch and allocation callbacks. */
int trc_callback_start(void);
void trc_callback_stop(void);
/* INFO "param_layouts": how the kernels' parameter layouts were read (or not). */
void trc_callback_summary(void);

/* Current OS thread id (gettid), the id CUPTI also uses once the thread id type is SYSTEM. */
uint64_t trc_thread_id(void);

/* 1 when v points into a live device allocation (the callback-side map). */
int trc_map_contains(uint64_t v);

/* memcpy/memset callbacks (trc_copy.c): return 1 when cbid was theirs. */
int trc_copy_driver(uint32_t cbid, const void *cbdata);
int trc_copy_runtime(uint32_t cbid, const void *cbdata);
extern const uint32_t trc_copy_driver_ids[], trc_copy_runtime_ids[];
extern const size_t trc_copy_driver_count, trc_copy_runtime_count;

#endif
