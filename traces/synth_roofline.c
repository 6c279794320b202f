/*
 * synth_roofline: the named GPUs of `gpumemsim synth` and the roofline op cost.
 *
 * Numbers are the vendors' public spec-sheet peaks (dense, no sparsity), cited in docs/synth.md.
 * FP32 uses the CUDA-core rate (PyTorch runs fp32 matmuls without TF32 by default); FP16/BF16
 * use the tensor-core rate for every op, which only matters for compute-bound ops.
 */
#include "synth.h"

#include <math.h>
#include <string.h>

#define TFLOPS 1e12
#define GBPS 1e9
#define GIB (1024ull * 1024ull * 1024ull)

static const gmt_synth_gpu gpus[] = {
    {"h200", "NVIDIA H200 SXM 141GB", 67.0 * TFLOPS, 989.4 * TFLOPS, 989.4 * TFLOPS,
     4800.0 * GBPS, 63.0 * GBPS, 2000.0, 141 * GIB},
    {"h100", "NVIDIA H100 SXM5 80GB", 67.0 * TFLOPS, 989.4 * TFLOPS, 989.4 * TFLOPS,
     3350.0 * GBPS, 63.0 * GBPS, 2000.0, 80 * GIB},
    {"a100", "NVIDIA A100 SXM4 80GB", 19.5 * TFLOPS, 312.0 * TFLOPS, 312.0 * TFLOPS,
     2039.0 * GBPS, 31.5 * GBPS, 2000.0, 80 * GIB},
    {"v100", "NVIDIA Tesla V100 SXM2 32GB", 15.7 * TFLOPS, 125.0 * TFLOPS, 0.0, 900.0 * GBPS,
     15.75 * GBPS, 2000.0, 32 * GIB},
    {"titanv", "NVIDIA TITAN V", 14.9 * TFLOPS, 110.0 * TFLOPS, 0.0, 652.8 * GBPS,
     15.75 * GBPS, 2000.0, 12 * GIB},
};
#define N_GPUS (sizeof gpus / sizeof gpus[0])

const gmt_synth_gpu *gmt_synth_gpu_find(const char *key)
{
    for (size_t i = 0; key && i < N_GPUS; i++)
        if (strcmp(gpus[i].key, key) == 0)
            return &gpus[i];
    return NULL;
}

size_t gmt_synth_gpu_count(void)
{
    return N_GPUS;
}

const gmt_synth_gpu *gmt_synth_gpu_at(size_t i)
{
    return i < N_GPUS ? &gpus[i] : NULL;
}

double gmt_synth_peak_flops(const gmt_synth_gpu *gpu, gmt_synth_dtype dtype)
{
    switch (dtype) {
    case GMT_SYNTH_FP32: return gpu->flops_fp32;
    case GMT_SYNTH_FP16: return gpu->flops_fp16;
    case GMT_SYNTH_BF16: return gpu->flops_bf16;
    }
    return 0.0;
}

uint64_t gmt_synth_cost_ns(const gmt_synth_gpu *gpu, gmt_synth_dtype dtype, double flops,
                           double bytes)
{
    double peak = gmt_synth_peak_flops(gpu, dtype);
    double t_compute = peak > 0 ? flops / peak : 0.0;
    double t_memory = bytes / gpu->bandwidth;
    double t = (t_compute > t_memory ? t_compute : t_memory) * 1e9 + gpu->launch_ns;
    return (uint64_t)llround(t);
}

uint64_t gmt_synth_h2d_cost_ns(const gmt_synth_gpu *gpu, double bytes)
{
    return (uint64_t)llround(bytes / gpu->host_bandwidth * 1e9 + gpu->launch_ns);
}

unsigned gmt_synth_dtype_size(gmt_synth_dtype dtype)
{
    return dtype == GMT_SYNTH_FP32 ? 4u : 2u;
}

static const char *const model_names[] = {"mlp", "resnet", "transformer", "unet"};
static const char *const dtype_names[] = {"fp32", "fp16", "bf16"};
static const char *const optim_names[] = {"sgd", "adam", "none"};
static const char *const update_names[] = {"mutate", "transient"};
#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

/* names[v], or "?" for a value outside the table. */
static const char *name_of(const char *const *names, int n, int v)
{
    return v >= 0 && v < n ? names[v] : "?";
}

/* Index of s in names[0..n), or -1. */
static int find_name(const char *const *names, int n, const char *s)
{
    for (int i = 0; s && i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

const char *gmt_synth_model_name(gmt_synth_model m)
{
    return name_of(model_names, COUNT(model_names), (int)m);
}

int gmt_synth_model_parse(const char *s, gmt_synth_model *out)
{
    int i = find_name(model_names, COUNT(model_names), s);
    if (i < 0)
        return -1;
    *out = (gmt_synth_model)i;
    return 0;
}

const char *gmt_synth_dtype_name(gmt_synth_dtype d)
{
    return name_of(dtype_names, COUNT(dtype_names), (int)d);
}

int gmt_synth_dtype_parse(const char *s, gmt_synth_dtype *out)
{
    int i = find_name(dtype_names, COUNT(dtype_names), s);
    if (i < 0)
        return -1;
    *out = (gmt_synth_dtype)i;
    return 0;
}

const char *gmt_synth_optim_name(gmt_synth_optim o)
{
    return name_of(optim_names, COUNT(optim_names), (int)o);
}

int gmt_synth_optim_parse(const char *s, gmt_synth_optim *out)
{
    int i = find_name(optim_names, COUNT(optim_names), s);
    if (i < 0)
        return -1;
    *out = (gmt_synth_optim)i;
    return 0;
}

const char *gmt_synth_update_name(gmt_synth_update u)
{
    return name_of(update_names, COUNT(update_names), (int)u);
}

int gmt_synth_update_parse(const char *s, gmt_synth_update *out)
{
    int i = find_name(update_names, COUNT(update_names), s);
    if (i < 0)
        return -1;
    *out = (gmt_synth_update)i;
    return 0;
}
