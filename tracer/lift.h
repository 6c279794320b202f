/*
 * trc_lift: turns the tracer's raw records (lift_raw.h) into gmt events (gmt.h).
 *
 * Pure C, no CUDA: everything the tracer saw is in the raw records, so every inference rule
 * below is unit-tested on hand-made record sequences. docs/tracer.md explains each rule and
 * its limits; in short:
 *   - records are put in host-time order (launch time for kernels; ties: range start, alloc,
 *     launch, free, range end; then file order);
 *   - device allocations alive at the boundary are CONSTANTs, except those freed before the
 *     first iteration ends (outputs of a zero-input "setup_state" CALL); the boundary is the
 *     start of the
 *     first "gpumemsim:iteration" range (kernels before it are setup and are left out), or the
 *     first kernel when the job marks no iterations;
 *   - kernels launched inside one NVTX range instance (the innermost range open on the
 *     launching thread) form one op named after the range; cost = summed kernel time; a kernel
 *     outside any range is an op of its own, named after the kernel;
 *   - an allocation first referenced by an op (a kernel parameter pointing anywhere inside it)
 *     is that op's output; allocations referenced before are its inputs;
 *   - allocations come from the allocation callbacks' records, or from MEMORY2 records when
 *     there are none; a free is a RELEASE (emitted after the op in flight, if any);
 *   - a range named "gpumemsim:iteration" is ANNOTATE "iteration" (value = its payload);
 *   - only NVTX ranges of the default domain form ops and iterations (trc_lift_opts);
 *   - a reference to memory that is no longer allocated is ignored and counted;
 *   - a host-to-device copy into a buffer no op has produced is GPU work with no inputs (a
 *     "copy_h2d" op outside ranges) whose output is that buffer (an input batch);
 *   - a pointer one past the end of an allocation the launch also references, that is the start
 *     of the next allocation, is ambiguous: counted, and dropped when trc_lift_opts asks;
 *     device-to-device copies and memsets are GPU work like kernels.
 *
 * Events go to a sink (two callbacks), so the same lifter writes .gmt files (trc_lift_to_gmt)
 * and in-memory event lists (the tests).
 */
#ifndef TRC_LIFT_H
#define TRC_LIFT_H

#include <stdint.h>

#include "gmt.h"
#include "lift_raw.h"

#define TRC_ITERATION_RANGE "gpumemsim:iteration"

typedef struct trc_sink {
    void *ctx;
    /* Header metadata; every call comes before the first event. */
    int (*meta)(void *ctx, const char *key, const char *value, gms_error *err);
    /* One event; pointers inside ev are valid only during the call. */
    int (*event)(void *ctx, const gmt_event *ev, gms_error *err);
} trc_sink;

/* Where allocations come from: the tracer's allocation callbacks (host timestamps taken like
 * the launches', so the lifter sees exactly the live set the launch scan saw; preferred), or
 * CUPTI's MEMORY2 activity records (when the callbacks wrote none). */
typedef enum trc_alloc_view { TRC_ALLOCS_CALLBACKS = 1, TRC_ALLOCS_MEMORY2 = 2 } trc_alloc_view;

typedef struct trc_lift_stats {
    uint64_t records;                /* raw records read */
    uint64_t events, ops;            /* gmt events written, of which CALL */
    uint64_t kernels;                /* kernel executions placed into ops */
    uint64_t launches_without_kernel; /* launch seen, kernel record missing (dropped?) */
    uint64_t kernels_without_launch; /* kernel record without launch callback: no references */
    uint64_t setup_kernels;          /* kernels before the first iteration range: not ops */
    uint64_t allocs, frees;          /* device allocations / frees seen */
    uint64_t pool_allocs;            /* of which from a memory pool (cudaMallocAsync) */
    uint64_t constants, outputs, releases, iterations;
    uint64_t freed_refs;             /* references to memory that was already freed */
    uint64_t unresolved_refs;        /* references to memory never seen allocated */
    uint64_t unknown_frees;          /* frees of addresses that were not allocated */
    uint64_t memcpys, memsets, markers; /* activity records */
    uint64_t copies_in;              /* host-to-device copies into tracked memory */
    uint64_t copies_h2d_ops;         /* of which into fresh buffers: "copy_h2d" ops */
    uint64_t setup_state;            /* boundary allocations freed later: not constants */
    uint64_t past_end_refs;          /* ambiguous: one past the end of an allocation the launch
                                        references and the start of the next one */
    uint64_t copies_on_device;       /* device-to-device copies (ops like kernels) */
    uint64_t memset_calls;           /* memsets of tracked memory (ops like kernels) */
    uint64_t dropped_records;        /* CUPTI records lost (the tracer's count) */
    uint64_t peak_bytes;             /* peak live device allocation bytes */
    trc_alloc_view alloc_source;     /* the allocation records the trace was built from */
    uint64_t alloc_records_callbacks; /* allocation records of each view, for comparison */
    uint64_t alloc_records_memory2;
    uint64_t foreign_markers;        /* NVTX range starts/marks of domains not asked for */
    char foreign_domains[256];       /* their domain names, comma-separated ("" when none) */
    int thread_ids_mismatch;         /* NVTX and launch thread ids never matched: ignored */
    int clean_end;                   /* the tracer finished writing (job exited normally) */
    char status[512];                /* the tracer's problems ("" when none) */
    char device[128];                /* GPU name, "" if unknown */
} trc_lift_stats;

/* Options; all-zero is the default. nvtx_domains: comma-separated NVTX domain names whose ranges
 * form ops besides the default domain (NULL or "": only the default domain; "*": every domain).
 * Libraries (cuBLAS, cuDNN, NCCL, CUB) annotate with their own domains: their ranges must not
 * name or split the job's ops, so they are ignored (and counted) unless asked for. */
typedef struct trc_lift_opts {
    const char *nvtx_domains;
    /* 1: a pointer that is one past the end of an allocation the launch also references and
     * the start of the next allocation is taken as an end bound and dropped; 0 (default): it
     * is a reference to the next allocation. Either way it is counted (past_end_refs). */
    int drop_past_end;
} trc_lift_opts;

/* 1 when an NVTX record of domain (NULL or "" = the default domain) is asked for by opts. */
int trc_lift_domain_wanted(const trc_lift_opts *opts, const char *domain);

/* trc_lift_records with options (opts may be NULL: the defaults). */
int trc_lift_records_opt(const trc_rec *recs, size_t n, const trc_sink *sink,
                         const trc_lift_opts *opts, trc_lift_stats *st, gms_error *err);
int trc_lift_to_gmt_opt(const char *raw_path, const char *gmt_path, const trc_lift_opts *opts,
                        trc_lift_stats *st, char *raw_warning, size_t warning_len,
                        gms_error *err);

/* Lifts n records (any order) into sink. st may be NULL. Returns 0 or the sink's error. */
int trc_lift_records(const trc_rec *recs, size_t n, const trc_sink *sink, trc_lift_stats *st,
                     gms_error *err);

/* Lifts raw_path into gmt_path (written atomically: nothing at gmt_path on failure).
 * Fails with GMS_EINVAL and "no CUDA activity was recorded" when the file holds no kernel and
 * no device allocation. raw_warning (may be NULL, >= 512 bytes) receives the reader's
 * truncation warning or "". */
int trc_lift_to_gmt(const char *raw_path, const char *gmt_path, trc_lift_stats *st,
                    char *raw_warning, size_t warning_len, gms_error *err);

#endif
