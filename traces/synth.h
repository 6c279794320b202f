/*
 * synth: synthetic training-iteration traces (`gpumemsim synth`).
 *
 * Builds the op graph of a few well-known models (mlp, resnet, transformer, unet) for one or more
 * training iterations -- forward pass, backward pass in reverse, optimizer step -- and emits it
 * in the gmt event vocabulary (gmt.h), with every op's cost taken from a simple roofline of a
 * named GPU: dur = max(flops / peak_flops(dtype), bytes_moved / bandwidth) + launch overhead.
 * docs/synth.md documents the model recipes, the per-op FLOP and byte formulas and the GPU
 * constants.
 *
 * Event layout (replays meaningfully under ../shared/spec/dtr-semantics.md):
 *   ANNOTATE START; CONSTANT (+NAME) for every weight and optimizer-state tensor (pinned);
 *   then per iteration: ANNOTATE "iteration" = input size; copy_h2d CALLs (no inputs) that load
 *   the batch and targets; forward CALLs; ANNOTATE BACKWARD; backward CALLs; optimizer MUTATEs
 *   on weights and state; finally a RELEASE of every weight and state handle. Unless
 *   p->scopes is 0, SCOPE begin/end events bracket each layer in forward, and each layer's
 *   gradient ops in backward (same names; docs/synth.md, "Layer scopes").
 * Every non-persistent handle is RELEASEd right after its last use (activations live from
 * forward to backward exactly as long as autograd keeps them); gradients die after the
 * optimizer step. Output is a pure function of the parameters (byte-identical for a given seed).
 */
#ifndef GMT_SYNTH_H
#define GMT_SYNTH_H

#include <stdint.h>

#include "gmt.h"
#include "gms_error.h"

typedef enum gmt_synth_model {
    GMT_SYNTH_MLP = 0,
    GMT_SYNTH_RESNET = 1,
    GMT_SYNTH_TRANSFORMER = 2,
    GMT_SYNTH_UNET = 3,
} gmt_synth_model;

typedef enum gmt_synth_dtype {
    GMT_SYNTH_FP32 = 0,
    GMT_SYNTH_FP16 = 1,
    GMT_SYNTH_BF16 = 2,
} gmt_synth_dtype;

typedef enum gmt_synth_optim {
    GMT_SYNTH_SGD = 0,  /* SGD with momentum: one state tensor per parameter */
    GMT_SYNTH_ADAM = 1, /* Adam: two state tensors (exp_avg, exp_avg_sq) per parameter */
    GMT_SYNTH_NOOPT = 2, /* no optimizer step: weights stay the CONSTANTs (DTR-log style) */
} gmt_synth_optim;

/* How the optimizer step writes the new weights and state (docs/synth.md, "Optimizer"). */
typedef enum gmt_synth_update {
    /* MUTATE on the weight and state handles: the spec's out-of-place copy + rebind. Under
     * simrd replay the released CONSTANTs stay pinned, so the first step leaves params + state
     * resident twice, and later iterations read weights rematerializable only through the
     * previous backward pass. Right for one iteration. */
    GMT_SYNTH_UPDATE_MUTATE = 0,
    /* A CALL reading weight, gradient and state and writing new copies that die at once: same
     * time and transient memory, weights stay the pinned CONSTANTs, iterations independent. */
    GMT_SYNTH_UPDATE_TRANSIENT = 1,
} gmt_synth_update;

/* A named GPU of the roofline (spec-sheet numbers, see docs/synth.md). */
typedef struct gmt_synth_gpu {
    const char *key;         /* "h100" ... (the --gpu value) */
    const char *name;        /* "NVIDIA H100 SXM5 80GB" */
    double flops_fp32;       /* dense FP32 FLOP/s (CUDA cores, no TF32) */
    double flops_fp16;       /* dense FP16 tensor-core FLOP/s */
    double flops_bf16;       /* dense BF16 tensor-core FLOP/s; 0 = not supported */
    double bandwidth;        /* memory bandwidth, bytes/s */
    double host_bandwidth;   /* host-to-device link (PCIe x16, one direction), bytes/s */
    double launch_ns;        /* fixed per-op overhead (kernel launch), ns */
    uint64_t memory;         /* device memory, bytes */
} gmt_synth_gpu;

/* The GPU named key (case-sensitive "h100", "a100", "v100", "titanv"), or NULL. */
const gmt_synth_gpu *gmt_synth_gpu_find(const char *key);
size_t gmt_synth_gpu_count(void);
const gmt_synth_gpu *gmt_synth_gpu_at(size_t i);

/* Peak FLOP/s of gpu for dtype (0 when the GPU lacks it, e.g. bf16 on Volta). */
double gmt_synth_peak_flops(const gmt_synth_gpu *gpu, gmt_synth_dtype dtype);

/* The roofline cost of one op in ns, rounded to the nearest integer:
 * max(flops / peak_flops(dtype), bytes / bandwidth) * 1e9 + launch_ns. */
uint64_t gmt_synth_cost_ns(const gmt_synth_gpu *gpu, gmt_synth_dtype dtype, double flops,
                           double bytes);

/* Cost in ns of copying bytes from host memory (the per-iteration inputs):
 * bytes / host_bandwidth * 1e9 + launch_ns, rounded to the nearest integer. */
uint64_t gmt_synth_h2d_cost_ns(const gmt_synth_gpu *gpu, double bytes);

/* Bytes per element of dtype (4 or 2). */
unsigned gmt_synth_dtype_size(gmt_synth_dtype dtype);

/* Name <-> enum ("mlp", "fp16", "adam" ...). *_parse return 0 or -1 for an unknown name. */
const char *gmt_synth_model_name(gmt_synth_model m);
int gmt_synth_model_parse(const char *s, gmt_synth_model *out);
const char *gmt_synth_dtype_name(gmt_synth_dtype d);
int gmt_synth_dtype_parse(const char *s, gmt_synth_dtype *out);
const char *gmt_synth_optim_name(gmt_synth_optim o);
int gmt_synth_optim_parse(const char *s, gmt_synth_optim *out);
const char *gmt_synth_update_name(gmt_synth_update u);
int gmt_synth_update_parse(const char *s, gmt_synth_update *out);

/* Everything that determines a trace. Fields a model does not use are ignored. */
typedef struct gmt_synth_params {
    gmt_synth_model model;
    uint32_t batch;       /* samples per iteration */
    uint32_t seq;         /* transformer: tokens per sample */
    uint32_t image_h;     /* resnet/unet: input height */
    uint32_t image_w;     /* resnet/unet: input width */
    uint32_t layers;      /* mlp: linear layers; resnet: depth 10/18/34; transformer: blocks;
                             unet: levels (downsamplings) */
    uint32_t hidden;      /* mlp/transformer: width; resnet/unet: base channel count */
    uint32_t heads;       /* transformer: attention heads (hidden % heads == 0) */
    uint32_t vocab;       /* transformer: vocabulary size */
    uint32_t classes;     /* mlp/resnet: classes; unet: output channels */
    uint32_t iterations;  /* training iterations in the trace */
    uint32_t vary_min;    /* 0 = fixed input; else each iteration draws its input size */
    uint32_t vary_max;    /* (seq / image side / batch) uniformly from [vary_min, vary_max] */
    uint64_t seed;        /* seeds the --vary-input draws */
    gmt_synth_optim optim;
    gmt_synth_update update;
    gmt_synth_dtype dtype;
    const gmt_synth_gpu *gpu;
    int scopes;           /* 1 (default): SCOPE events around each layer (docs/synth.md) */
} gmt_synth_params;

/* Fills p with the defaults of model (docs/synth.md lists them). */
void gmt_synth_params_default(gmt_synth_params *p, gmt_synth_model model);

/* Checks p for values no trace can be built from (zero sizes, hidden % heads, unet image not
 * divisible by 2^levels, bf16 on a GPU without it, sizes that overflow ...). 0 or GMS_EINVAL
 * with a message naming the option. */
int gmt_synth_params_validate(const gmt_synth_params *p, gms_error *err);

/* What one generated trace adds up to (computed while generating). */
typedef struct gmt_synth_totals {
    uint64_t param_count;    /* trainable parameters (elements) */
    uint64_t param_bytes;    /* param_count x dtype size */
    uint64_t state_bytes;    /* optimizer state (1 or 2 x param_bytes) */
    uint64_t buffer_bytes;   /* non-trainable persistent CONSTANTs (transformer causal mask) */
    uint64_t input_bytes;    /* per-iteration inputs/targets (copy_h2d outputs), all iterations */
    uint64_t constant_bytes; /* every CONSTANT: param + state + buffer bytes */
    uint64_t ops;            /* CALL + MUTATE events */
    uint64_t events;         /* all events */
    double flops;            /* sum of per-op FLOPs */
    double bytes_moved;      /* sum of per-op bytes moved */
    uint64_t dur_ns;         /* sum of op durations */
} gmt_synth_totals;

/* Per-op cost detail handed to a sink with each CALL/MUTATE (NULL for other events). */
typedef struct gmt_synth_opcost {
    double flops;
    double bytes;
    int host_copy; /* 1: a copy_h2d input load, costed by gmt_synth_h2d_cost_ns(bytes) */
} gmt_synth_opcost;

/* Receives every event in order; return non-zero (with err set) to stop generation. */
typedef int (*gmt_synth_sink)(void *ctx, const gmt_event *ev, const gmt_synth_opcost *cost,
                              gms_error *err);

/* Generates the trace of p into sink. totals may be NULL. */
int gmt_synth_generate(const gmt_synth_params *p, gmt_synth_sink sink, void *ctx,
                       gmt_synth_totals *totals, gms_error *err);

/* The input size drawn for iteration i (0-based): the seq / image side / batch the iteration
 * uses (the fixed value when vary_min == 0). Deterministic in (p->seed, i). */
uint32_t gmt_synth_input_dim(const gmt_synth_params *p, uint32_t i);

/* Generates p into a .gmt file at path (atomically: no partial file on failure), with header
 * metadata naming the producer, model, every parameter, gpu, dtype and the totals. */
int gmt_synth_write(const gmt_synth_params *p, const char *path, gmt_synth_totals *totals,
                    gms_error *err);

#endif
