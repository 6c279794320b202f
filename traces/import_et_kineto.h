/*
 * import_et_kineto: measured op costs for an Execution Trace from the run's Kineto trace
 * (`--kineto FILE`), replacing import_et_cost's roofline estimates. docs/import-pytorch.md
 * ("Costs from a Kineto trace") states every rule.
 *
 * Two steps. kt_load reads the Kineto trace into compact records: the outermost CPU op of each
 * thread whose name is one of the ET's op names, the GPU time (kernel, gpu_memcpy, gpu_memset)
 * it launched (GPU event -> "correlation" -> cuda_runtime launch -> the CPU op whose interval on
 * the same thread holds the launch, as Chakra's trace_link and HolisticTraceAnalysis link them),
 * and the step it ran in. et_kineto_join then gives each ET op the time of its Kineto op: the
 * k-th call of an op name in an ET step takes the k-th call of that name in the Kineto trace
 * (one to one: the Kineto trace holds the same calls) or the median over Kineto steps of
 * the k-th call (step by step). Too few matches: the traces are not of the same model, refused.
 */
#ifndef IMPORT_ET_KINETO_H
#define IMPORT_ET_KINETO_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"
#include "import_et.h"

typedef struct kt_trace kt_trace;

/* What a Kineto trace says about the job it recorded, for the pairing checks
 * (import_et_pairing.c); -1 where it says nothing. */
typedef struct kt_job {
    long long pid;             /* of its CPU ops; -2 when they name several */
    long long rank, world;     /* distributedInfo.rank and .world_size */
    int device;                /* the GPU its kernels ran on; -2 when several */
    long long step_first, step_last; /* ProfilerStep#N numbers */
} kt_job;

typedef struct et_kineto_totals {
    const char *join;        /* "one to one" or "step by step" */
    char device[128];        /* deviceProperties[0].name, or "unknown" */
    size_t kineto_steps;     /* steps of the Kineto trace used by the join */
    size_t matched, unmatched; /* ET ops on CUDA with and without a Kineto op */
    size_t gpu_events, gpu_events_linked; /* kernels, memcpys, memsets; those on a joined op */
    uint64_t gpu_ns, gpu_ns_linked;       /* their summed durations */
    uint64_t step_gpu_ns_median;          /* GPU time launched in a Kineto step, median step */
    char pairing[512];                    /* what et_kineto_pairing compared */
} et_kineto_totals;

/* Reads a Kineto trace (plain or gzip). t's op names choose the CPU ops kept. Errors name the
 * file: not JSON, not a Kineto trace (no traceEvents), no GPU events. */
int kt_load(const char *path, const et_trace *t, kt_trace **out, gms_error *err);
int kt_load_buffer(const char *buf, size_t len, const char *name, const et_trace *t,
                   kt_trace **out, gms_error *err);
void kt_free(kt_trace *k);
const kt_job *kt_job_of(const kt_trace *k);

/* Replaces the costs of t's CUDA ops (after et_estimate_costs) with measured ones. Refuses
 * (GMS_EFORMAT, naming path) when fewer than 95% of them find a Kineto op. */
int et_kineto_join(et_trace *t, const kt_trace *k, const char *path, et_kineto_totals *tot,
                   gms_error *err);

/* Compares what t and the Kineto trace (k) say about the job they recorded: the process,
 * the GPU, the ProfilerStep numbers, each where both state it (import_et_pairing.c). Fills
 * summary (n bytes) with what was compared, for the header. A mismatch is refused
 * (GMS_EFORMAT, naming both values and --kineto-force), or with force reported in the
 * summary and accepted. */
int et_kineto_pairing(const et_trace *t, const kt_job *k, const char *et_path,
                      const char *kt_path, int force, char *summary, size_t n, gms_error *err);

#endif
