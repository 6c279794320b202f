/*
 * synth: parameters, the iteration loop and the .gmt writer glue of the synthetic generator
 * (synth.h). The graph itself is built by synth_graph.c / synth_ops.c / synth_models.c.
 */
#include "synth.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "synth_graph.h"

#ifndef GMS_VERSION
#define GMS_VERSION "dev"
#endif

/* Largest value any size option may take; keeps every shape product far from overflow. */
#define MAX_DIM (1u << 20)
#define MAX_ITERATIONS 100000u

void gmt_synth_params_default(gmt_synth_params *p, gmt_synth_model model)
{
    memset(p, 0, sizeof *p);
    p->model = model;
    p->iterations = 1;
    p->dtype = GMT_SYNTH_FP32;
    p->gpu = gmt_synth_gpu_find("h100");
    p->optim = GMT_SYNTH_SGD;
    /* transient: weights stay pinned, so multi-iteration traces replay meaningfully under
     * simrd semantics (docs/synth.md, "Optimizer step"); mutate is opt-in. */
    p->update = GMT_SYNTH_UPDATE_TRANSIENT;
    p->heads = 1;
    p->scopes = 1;
    p->vocab = 50257;
    p->seq = 512;
    p->image_h = p->image_w = 224;
    switch (model) {
    case GMT_SYNTH_MLP:
        p->batch = 64;
        p->layers = 4;
        p->hidden = 1024;
        p->classes = 10;
        break;
    case GMT_SYNTH_RESNET:
        p->batch = 32;
        p->layers = 18;
        p->hidden = 64;
        p->classes = 1000;
        break;
    case GMT_SYNTH_TRANSFORMER:
        p->batch = 8;
        p->layers = 12;
        p->hidden = 768;
        p->heads = 12;
        p->classes = 0;
        p->optim = GMT_SYNTH_ADAM;
        break;
    case GMT_SYNTH_UNET:
        p->batch = 4;
        p->image_h = p->image_w = 256;
        p->layers = 4;
        p->hidden = 64;
        p->classes = 1;
        break;
    }
}

/* Fails with "--name must be between lo and hi" when v is outside [lo, hi]. */
static int check_range(const char *name, uint64_t v, uint64_t lo, uint64_t hi, gms_error *err)
{
    if (v < lo || v > hi)
        return gms_error_set(err, GMS_EINVAL, "%s must be between %" PRIu64 " and %" PRIu64
                             " (got %" PRIu64 ")", name, lo, hi, v);
    return 0;
}

/* Multiple unet input sides must be divisible by (2^levels). */
static uint32_t side_multiple(const gmt_synth_params *p)
{
    return p->model == GMT_SYNTH_UNET ? 1u << p->layers : 1u;
}

int gmt_synth_params_validate(const gmt_synth_params *p, gms_error *err)
{
    if (!p || (unsigned)p->model > GMT_SYNTH_UNET)
        return gms_error_set(err, GMS_EINVAL, "unknown model");
    if (!p->gpu)
        return gms_error_set(err, GMS_EINVAL, "no GPU given (--gpu h200|h100|a100|v100|titanv)");
    if ((unsigned)p->dtype > GMT_SYNTH_BF16 || (unsigned)p->optim > GMT_SYNTH_NOOPT ||
        (unsigned)p->update > GMT_SYNTH_UPDATE_TRANSIENT)
        return gms_error_set(err, GMS_EINVAL, "unknown dtype or optimizer");
    if (gmt_synth_peak_flops(p->gpu, p->dtype) <= 0)
        return gms_error_set(err, GMS_EINVAL, "--dtype %s is not supported on %s (%s); use fp16 "
                             "or fp32", gmt_synth_dtype_name(p->dtype), p->gpu->key, p->gpu->name);
    int rc;
    if ((rc = check_range("--batch", p->batch, 1, MAX_DIM, err)) ||
        (rc = check_range("--iterations", p->iterations, 1, MAX_ITERATIONS, err)) ||
        (rc = check_range("--hidden", p->hidden, 1, MAX_DIM, err)))
        return rc;
    if (p->vary_min || p->vary_max) {
        if (p->vary_min < 1 || p->vary_max < p->vary_min || p->vary_max > MAX_DIM)
            return gms_error_set(err, GMS_EINVAL, "--vary-input MIN:MAX needs 1 <= MIN <= MAX <= %u",
                                 MAX_DIM);
    }
    switch (p->model) {
    case GMT_SYNTH_MLP:
        if ((rc = check_range("--layers", p->layers, 1, 4096, err)) ||
            (rc = check_range("--classes", p->classes, 1, MAX_DIM, err)))
            return rc;
        break;
    case GMT_SYNTH_RESNET:
        if (p->layers != 10 && p->layers != 18 && p->layers != 34)
            return gms_error_set(err, GMS_EINVAL, "--layers for resnet must be 10, 18 or 34 "
                                 "(basic-block depths; got %u)", p->layers);
        if ((rc = check_range("--classes", p->classes, 1, MAX_DIM, err)) ||
            (rc = check_range("--hidden (base width)", p->hidden, 1, 4096, err)))
            return rc;
        break;
    case GMT_SYNTH_TRANSFORMER:
        if ((rc = check_range("--layers", p->layers, 1, 4096, err)) ||
            (rc = check_range("--heads", p->heads, 1, p->hidden, err)) ||
            (rc = check_range("--vocab", p->vocab, 2, 1u << 24, err)))
            return rc;
        if (p->hidden % p->heads)
            return gms_error_set(err, GMS_EINVAL, "--hidden (%u) must be a multiple of --heads (%u)",
                                 p->hidden, p->heads);
        if (!p->vary_min && (rc = check_range("--seq", p->seq, 1, MAX_DIM, err)))
            return rc;
        break;
    case GMT_SYNTH_UNET:
        if ((rc = check_range("--layers (levels)", p->layers, 1, 8, err)) ||
            (rc = check_range("--classes", p->classes, 1, 4096, err)) ||
            (rc = check_range("--hidden (base width)", p->hidden, 1, 4096, err)))
            return rc;
        break;
    }
    if (p->model == GMT_SYNTH_RESNET || p->model == GMT_SYNTH_UNET) {
        uint32_t m = side_multiple(p);
        if (!p->vary_min) {
            if ((rc = check_range("--image height", p->image_h, 1, 65536, err)) ||
                (rc = check_range("--image width", p->image_w, 1, 65536, err)))
                return rc;
            if (p->image_h % m || p->image_w % m)
                return gms_error_set(err, GMS_EINVAL, "--image %ux%u: unet with %u levels needs "
                                     "both sides divisible by %u", p->image_h, p->image_w,
                                     p->layers, m);
        } else {
            if (p->vary_max > 65536)
                return gms_error_set(err, GMS_EINVAL, "--vary-input: image side at most 65536");
            if (p->vary_max / m < (p->vary_min + m - 1) / m)
                return gms_error_set(err, GMS_EINVAL, "--vary-input %u:%u holds no image side "
                                     "divisible by %u (needed by unet with %u levels)",
                                     p->vary_min, p->vary_max, m, p->layers);
        }
    }
    return 0;
}

/* SplitMix64: a well-mixed 64-bit hash, so draw i is independent of draws before it. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Uniform integer in [0, n) from the stream (seed, i), by rejection (no modulo bias). */
static uint64_t draw_below(uint64_t seed, uint32_t i, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t state = splitmix64(seed) ^ ((uint64_t)i * 0xD1B54A32D192ED03ull);
    for (;;) {
        state = splitmix64(state);
        if (state < limit)
            return state % n;
    }
}

uint32_t gmt_synth_input_dim(const gmt_synth_params *p, uint32_t i)
{
    if (!p->vary_min) {
        switch (p->model) {
        case GMT_SYNTH_MLP: return p->batch;
        case GMT_SYNTH_TRANSFORMER: return p->seq;
        default: return p->image_h;
        }
    }
    uint32_t m = side_multiple(p);
    uint32_t lo = (p->vary_min + m - 1) / m, hi = p->vary_max / m;
    if (hi < lo)
        return 0;
    return (uint32_t)(lo + draw_below(p->seed, i, (uint64_t)hi - lo + 1)) * m;
}

/* The input shape of iteration i and its ANNOTATE value (docs/synth.md). */
static void iteration_input(const gmt_synth_params *p, uint32_t i, sm_input *in, int64_t *value)
{
    uint32_t d = gmt_synth_input_dim(p, i);
    memset(in, 0, sizeof *in);
    in->batch = p->batch;
    in->seq = p->seq;
    in->h = p->image_h;
    in->w = p->image_w;
    switch (p->model) {
    case GMT_SYNTH_MLP:
        in->batch = d;
        *value = (int64_t)d;
        break;
    case GMT_SYNTH_TRANSFORMER:
        in->seq = d;
        *value = (int64_t)(in->batch * in->seq);
        break;
    default:
        if (p->vary_min)
            in->h = in->w = d;
        *value = (int64_t)(in->batch * in->h * in->w);
        break;
    }
}

int gmt_synth_generate(const gmt_synth_params *p, gmt_synth_sink sink, void *ctx,
                       gmt_synth_totals *totals, gms_error *err)
{
    int rc = gmt_synth_params_validate(p, err);
    if (rc)
        return rc;
    gmt_synth_totals local;
    gmt_synth_totals *tot = totals ? totals : &local;
    memset(tot, 0, sizeof *tot);
    sg_builder b;
    sg_init(&b, p, sink, ctx, tot, err);
    sg_annotate(&b, "START", 0, 0);
    sm_declare(&b);
    sg_optimizer_init(&b);
    rc = sg_flush(&b);
    for (uint32_t i = 0; i < p->iterations && !rc; i++) {
        sm_input in;
        int64_t value;
        iteration_input(p, i, &in, &value);
        sg_annotate(&b, "iteration", 1, value);
        int32_t loss = sm_forward(&b, &in);
        sg_backward(&b, loss);
        sg_optimizer_step(&b);
        rc = sg_flush(&b);
    }
    if (!rc) {
        sg_release_persistent(&b);
        rc = b.failed;
    }
    sg_free(&b);
    return rc;
}

/* Sink that writes each event to a gmt_writer. */
static int writer_sink(void *ctx, const gmt_event *ev, const gmt_synth_opcost *cost,
                       gms_error *err)
{
    (void)cost;
    return gmt_writer_write((gmt_writer *)ctx, ev, err);
}

/* Adds one printf-formatted metadata value. */
static int meta(gmt_writer *w, const char *key, gms_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include <stdarg.h>

static int meta(gmt_writer *w, const char *key, gms_error *err, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return gmt_writer_meta(w, key, buf, err);
}

/* The header: producer, model, every parameter, GPU, dtype and the precomputed totals. */
static int write_meta(gmt_writer *w, const gmt_synth_params *p, const gmt_synth_totals *t,
                      gms_error *err)
{
    char vary[64] = "off";
    if (p->vary_min)
        snprintf(vary, sizeof vary, "%u:%u", p->vary_min, p->vary_max);
    int rc = 0;
    if ((rc = meta(w, "producer", err, "gpumemsim synth %s", GMS_VERSION)) ||
        (rc = meta(w, "source", err, "synthetic")) ||
        (rc = meta(w, "model", err, "%s", gmt_synth_model_name(p->model))) ||
        (rc = meta(w, "device", err, "%s", p->gpu->name)) ||
        (rc = meta(w, "device_memory", err, "%" PRIu64, p->gpu->memory)) ||
        (rc = meta(w, "time_unit", err, "ns")) ||
        (rc = meta(w, "synth.gpu", err, "%s", p->gpu->key)) ||
        (rc = meta(w, "synth.dtype", err, "%s", gmt_synth_dtype_name(p->dtype))) ||
        (rc = meta(w, "synth.optimizer", err, "%s", gmt_synth_optim_name(p->optim))) ||
        (rc = meta(w, "synth.weight_update", err, "%s", gmt_synth_update_name(p->update))) ||
        (rc = meta(w, "synth.batch", err, "%u", p->batch)) ||
        (rc = meta(w, "synth.seq", err, "%u", p->seq)) ||
        (rc = meta(w, "synth.image", err, "%ux%u", p->image_h, p->image_w)) ||
        (rc = meta(w, "synth.layers", err, "%u", p->layers)) ||
        (rc = meta(w, "synth.hidden", err, "%u", p->hidden)) ||
        (rc = meta(w, "synth.heads", err, "%u", p->heads)) ||
        (rc = meta(w, "synth.vocab", err, "%u", p->vocab)) ||
        (rc = meta(w, "synth.classes", err, "%u", p->classes)) ||
        (rc = meta(w, "synth.iterations", err, "%u", p->iterations)) ||
        (rc = meta(w, "synth.vary_input", err, "%s", vary)) ||
        (rc = meta(w, "synth.seed", err, "%" PRIu64, p->seed)) ||
        (rc = meta(w, "synth.scopes", err, "%s", p->scopes ? "on" : "off")) ||
        (rc = meta(w, "synth.param_count", err, "%" PRIu64, t->param_count)) ||
        (rc = meta(w, "synth.param_bytes", err, "%" PRIu64, t->param_bytes)) ||
        (rc = meta(w, "synth.state_bytes", err, "%" PRIu64, t->state_bytes)) ||
        (rc = meta(w, "synth.constant_bytes", err, "%" PRIu64, t->constant_bytes)) ||
        (rc = meta(w, "synth.ops", err, "%" PRIu64, t->ops)) ||
        (rc = meta(w, "synth.events", err, "%" PRIu64, t->events)) ||
        (rc = meta(w, "synth.total_flops", err, "%.17g", t->flops)) ||
        (rc = meta(w, "synth.total_dur_ns", err, "%" PRIu64, t->dur_ns)))
        return rc;
    return 0;
}

int gmt_synth_write(const gmt_synth_params *p, const char *path, gmt_synth_totals *totals,
                    gms_error *err)
{
    gmt_synth_totals pre;
    /* First pass without output: the header carries the totals, which need the whole graph. */
    int rc = gmt_synth_generate(p, NULL, NULL, &pre, err);
    if (rc)
        return rc;
    gmt_writer *w = NULL;
    if ((rc = gmt_writer_open(path, &w, err)))
        return rc;
    if ((rc = write_meta(w, p, &pre, err)) ||
        (rc = gmt_synth_generate(p, writer_sink, w, totals, err))) {
        gmt_writer_abort(w);
        return rc;
    }
    return gmt_writer_close(w, err);
}
