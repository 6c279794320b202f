/*
 * synth_ops: the differentiable ops of the synthetic models, forward and backward.
 *
 * Each forward emits the ops PyTorch's eager mode would run (names follow ATen: "addmm",
 * "convolution", "native_batch_norm", "relu_" ...), with FLOPs from the shapes (docs/synth.md,
 * "Per-op FLOPs") and bytes moved = inputs read + new outputs written unless stated. The
 * backward of an entry consumes the gradients of its outputs and accumulates gradients into its
 * inputs, the way autograd's engine does.
 */
#include "synth_graph.h"

#include <string.h>

#define ALIAS0 ((const int32_t[]){0})

/* Does any of ins[0..n) need a gradient? */
static int any_grad(const sg_builder *b, const int32_t *ins, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (ins[i] >= 0 && b->t[ins[i]].needs_grad)
            return 1;
    return 0;
}

static int needs(const sg_builder *b, int32_t t)
{
    return t >= 0 && b->t[t].needs_grad;
}

/* A new tensor shaped like t (optionally with another element size). */
static int32_t like(sg_builder *b, int32_t t, uint32_t esize)
{
    if (t < 0 || b->failed)
        return -1;
    uint64_t dims[SG_MAX_DIMS];
    memcpy(dims, b->t[t].dims, sizeof dims);
    return sg_tensor_new(b, b->t[t].ndim, dims, esize ? esize : b->t[t].esize);
}

static int32_t shaped(sg_builder *b, uint32_t esize, uint32_t ndim, uint64_t d0, uint64_t d1,
                      uint64_t d2, uint64_t d3)
{
    uint64_t dims[SG_MAX_DIMS] = {d0, d1, d2, d3};
    return sg_tensor_new(b, ndim, dims, esize);
}

static uint64_t dim(const sg_builder *b, int32_t t, uint32_t i)
{
    return t >= 0 && i < b->t[t].ndim ? b->t[t].dims[i] : 0;
}

static uint64_t last_dim(const sg_builder *b, int32_t t)
{
    return t >= 0 ? b->t[t].dims[b->t[t].ndim - 1] : 0;
}

static double numel(const sg_builder *b, int32_t t)
{
    return (double)sg_numel(b, t);
}

/* Compacts ins (dropping -1 entries) into out; returns the count. */
static uint32_t compact(const int32_t *ins, uint32_t n, int32_t *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ins[i] >= 0)
            out[k++] = ins[i];
    return k;
}

/* Records a tape entry when the op's result needs a gradient, and marks the differentiable
 * outputs (the first; all three of a split) as needing one. Statistics and indices saved for
 * the backward (batch-norm mean, pooling indices ...) never get a gradient. */
static void record(sg_builder *b, sg_tape_op op, const int32_t *ins, uint32_t n_in,
                   const int32_t *outs, uint32_t n_out, const int64_t *p)
{
    if (b->failed || !any_grad(b, ins, n_in))
        return;
    sg_tape e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.n_in = n_in;
    e.n_out = n_out;
    for (uint32_t i = 0; i < n_in; i++)
        e.in[i] = ins[i];
    for (uint32_t i = 0; i < n_out; i++) {
        e.out[i] = outs[i];
        if (outs[i] >= 0 && (i == 0 || op == SG_SPLIT3))
            b->t[outs[i]].needs_grad = 1;
    }
    if (p)
        memcpy(e.p, p, sizeof e.p);
    sg_tape_push(b, &e);
}

/* One-output CALL helper. */
static int32_t call1(sg_builder *b, const char *op, const int32_t *ins, uint32_t n_in,
                     int32_t out, double flops, double bytes)
{
    int32_t c[SG_MAX_IN];
    uint32_t n = compact(ins, n_in, c);
    sg_call(b, op, c, n, &out, NULL, 1, flops, bytes);
    return out;
}

/* A view op: out is an alias of in (costs the launch overhead only). */
static int32_t view_call(sg_builder *b, const char *op, int32_t in, int32_t out)
{
    sg_call(b, op, &in, 1, &out, ALIAS0, 1, 0, 0);
    return out;
}

/* ---- forward ops -------------------------------------------------------------------------- */

int32_t so_linear(sg_builder *b, int32_t x, int32_t w, int32_t bias)
{
    uint64_t n_out = dim(b, w, 0), k = dim(b, w, 1);
    if (b->failed || last_dim(b, x) != k)
        return sg_fail(b, GMS_EINVAL, "internal: linear shape mismatch");
    double m = numel(b, x) / (double)k;
    int32_t wt = view_call(b, "t", w, shaped(b, b->t[w].esize, 2, k, n_out, 0, 0));
    int32_t y = like(b, x, 0);
    if (y < 0)
        return -1;
    b->t[y].dims[b->t[y].ndim - 1] = n_out;
    double f = 2.0 * m * (double)n_out * (double)k;
    if (bias >= 0)
        call1(b, "addmm", (int32_t[]){bias, x, wt}, 3, y, f + m * (double)n_out, -1);
    else
        call1(b, "mm", (int32_t[]){x, wt}, 2, y, f, -1);
    record(b, SG_LINEAR, (int32_t[]){x, w, bias}, 3, &y, 1, NULL);
    return y;
}

/* Output side of a conv: (h + 2 pad - k) / stride + 1. */
static uint64_t conv_out(uint64_t h, uint64_t k, uint32_t stride, uint32_t pad)
{
    return h + 2 * (uint64_t)pad < k ? 0 : (h + 2 * (uint64_t)pad - k) / stride + 1;
}

int32_t so_conv(sg_builder *b, int32_t x, int32_t w, int32_t bias, uint32_t stride,
                uint32_t pad)
{
    if (b->failed || dim(b, x, 1) != dim(b, w, 1))
        return sg_fail(b, GMS_EINVAL, "internal: conv shape mismatch");
    uint64_t n = dim(b, x, 0), kout = dim(b, w, 0), c = dim(b, w, 1), r = dim(b, w, 2),
             s = dim(b, w, 3);
    uint64_t ho = conv_out(dim(b, x, 2), r, stride, pad), wo = conv_out(dim(b, x, 3), s, stride, pad);
    if (ho == 0 || wo == 0)
        return sg_fail(b, GMS_EINVAL, "image too small for the model (a feature map shrank to 0)");
    int32_t y = shaped(b, b->t[x].esize, 4, n, kout, ho, wo);
    double outn = (double)(n * kout * ho * wo);
    double f = 2.0 * outn * (double)(c * r * s) + (bias >= 0 ? outn : 0);
    call1(b, "convolution", (int32_t[]){x, w, bias}, 3, y, f, -1);
    int64_t p[6] = {stride, pad, 0, 0, 0, 0};
    record(b, SG_CONV, (int32_t[]){x, w, bias}, 3, &y, 1, p);
    return y;
}

int32_t so_convt(sg_builder *b, int32_t x, int32_t w, int32_t bias)
{
    if (b->failed || dim(b, x, 1) != dim(b, w, 0))
        return sg_fail(b, GMS_EINVAL, "internal: conv_transpose shape mismatch");
    uint64_t n = dim(b, x, 0), kout = dim(b, w, 1), r = dim(b, w, 2);
    int32_t y = shaped(b, b->t[x].esize, 4, n, kout, dim(b, x, 2) * r, dim(b, x, 3) * r);
    double f = 2.0 * numel(b, x) * (double)(kout * r * r) + (bias >= 0 ? numel(b, y) : 0);
    call1(b, "conv_transpose2d", (int32_t[]){x, w, bias}, 3, y, f, -1);
    record(b, SG_CONVT, (int32_t[]){x, w, bias}, 3, &y, 1, NULL);
    return y;
}

int32_t so_batch_norm(sg_builder *b, int32_t x, int32_t gamma, int32_t beta)
{
    int32_t y = like(b, x, 0);
    int32_t mean = shaped(b, 4, 1, dim(b, x, 1), 0, 0, 0);
    int32_t invstd = shaped(b, 4, 1, dim(b, x, 1), 0, 0, 0);
    int32_t outs[3] = {y, mean, invstd};
    sg_call(b, "native_batch_norm", (int32_t[]){x, gamma, beta}, 3, outs, NULL, 3,
            8.0 * numel(b, x), -1);
    record(b, SG_BN, (int32_t[]){x, gamma, beta}, 3, outs, 3, NULL);
    return y;
}

int32_t so_layer_norm(sg_builder *b, int32_t x, int32_t gamma, int32_t beta)
{
    uint64_t rows = last_dim(b, x) ? sg_numel(b, x) / last_dim(b, x) : 0;
    int32_t y = like(b, x, 0);
    int32_t mean = shaped(b, 4, 1, rows, 0, 0, 0);
    int32_t rstd = shaped(b, 4, 1, rows, 0, 0, 0);
    int32_t outs[3] = {y, mean, rstd};
    sg_call(b, "native_layer_norm", (int32_t[]){x, gamma, beta}, 3, outs, NULL, 3,
            8.0 * numel(b, x), -1);
    record(b, SG_LN, (int32_t[]){x, gamma, beta}, 3, outs, 3, NULL);
    return y;
}

int32_t so_relu_(sg_builder *b, int32_t x)
{
    static const uint32_t mut0[1] = {0};
    sg_mutate(b, "relu_", &x, 1, mut0, 1, numel(b, x), -1);
    record(b, SG_RELU_, &x, 1, &x, 1, NULL);
    return x;
}

/* Elementwise one-input op with a tape entry. */
static int32_t unary(sg_builder *b, const char *op, sg_tape_op tape, int32_t x, double fpe)
{
    int32_t y = like(b, x, 0);
    call1(b, op, &x, 1, y, fpe * numel(b, x), -1);
    record(b, tape, &x, 1, &y, 1, NULL);
    return y;
}

int32_t so_relu(sg_builder *b, int32_t x) { return unary(b, "relu", SG_RELU, x, 1.0); }
int32_t so_gelu(sg_builder *b, int32_t x) { return unary(b, "gelu", SG_GELU, x, 8.0); }
int32_t so_softmax(sg_builder *b, int32_t x) { return unary(b, "_softmax", SG_SOFTMAX, x, 5.0); }
int32_t so_scale(sg_builder *b, int32_t x) { return unary(b, "div", SG_SCALE, x, 1.0); }
int32_t so_clone(sg_builder *b, int32_t x) { return unary(b, "clone", SG_CLONE, x, 0.0); }

/* An elementwise op of a and c with a's shape: one FLOP per element of the output. */
static int32_t binary(sg_builder *b, const char *op, sg_tape_op tape, int32_t a, int32_t c)
{
    int32_t y = like(b, a, 0);
    call1(b, op, (int32_t[]){a, c}, 2, y, numel(b, a), -1);
    record(b, tape, (int32_t[]){a, c}, 2, &y, 1, NULL);
    return y;
}

int32_t so_add(sg_builder *b, int32_t a, int32_t c) { return binary(b, "add", SG_ADD, a, c); }

int32_t so_add_bcast(sg_builder *b, int32_t a, int32_t c)
{
    return binary(b, "add", SG_ADD_BCAST, a, c);
}

int32_t so_maxpool(sg_builder *b, int32_t x, uint32_t k, uint32_t stride, uint32_t pad)
{
    uint64_t ho = conv_out(dim(b, x, 2), k, stride, pad), wo = conv_out(dim(b, x, 3), k, stride, pad);
    if (!b->failed && (ho == 0 || wo == 0))
        return sg_fail(b, GMS_EINVAL, "image too small for the model (a feature map shrank to 0)");
    int32_t y = shaped(b, b->t[x].esize, 4, dim(b, x, 0), dim(b, x, 1), ho, wo);
    int32_t idx = shaped(b, 8, 4, dim(b, x, 0), dim(b, x, 1), ho, wo);
    int32_t outs[2] = {y, idx};
    sg_call(b, "max_pool2d_with_indices", &x, 1, outs, NULL, 2,
            (double)k * k * numel(b, y), -1);
    record(b, SG_MAXPOOL, &x, 1, outs, 2, NULL);
    return y;
}

int32_t so_global_avgpool(sg_builder *b, int32_t x)
{
    int32_t y = shaped(b, b->t[x].esize, 4, dim(b, x, 0), dim(b, x, 1), 1, 1);
    call1(b, "adaptive_avg_pool2d", &x, 1, y, numel(b, x), -1);
    record(b, SG_AVGPOOL, &x, 1, &y, 1, NULL);
    return y;
}

int32_t so_view(sg_builder *b, int32_t x, uint32_t ndim, const uint64_t *dims)
{
    int32_t y = x >= 0 ? sg_tensor_new(b, ndim, dims, b->t[x].esize) : -1;
    if (y >= 0 && sg_numel(b, y) != sg_numel(b, x))
        return sg_fail(b, GMS_EINVAL, "internal: view changes the element count");
    view_call(b, "view", x, y);
    record(b, SG_VIEW, &x, 1, &y, 1, NULL);
    return y;
}

int32_t so_transpose(sg_builder *b, int32_t x, uint32_t d0, uint32_t d1)
{
    int32_t y = like(b, x, 0);
    if (y < 0 || d0 >= b->t[x].ndim || d1 >= b->t[x].ndim)
        return sg_fail(b, GMS_EINVAL, "internal: bad transpose");
    uint64_t tmp = b->t[y].dims[d0];
    b->t[y].dims[d0] = b->t[y].dims[d1];
    b->t[y].dims[d1] = tmp;
    view_call(b, "transpose", x, y);
    int64_t p[6] = {d0, d1, 0, 0, 0, 0};
    record(b, SG_TRANSPOSE, &x, 1, &y, 1, p);
    return y;
}

int32_t so_slice_persistent(sg_builder *b, int32_t w, uint32_t ndim, const uint64_t *dims)
{
    int32_t y = w >= 0 ? sg_tensor_new(b, ndim, dims, b->t[w].esize) : -1;
    if (y >= 0 && sg_numel(b, y) > sg_numel(b, w))
        return sg_fail(b, GMS_EINVAL, "internal: slice larger than its base");
    view_call(b, "slice", w, y);
    record(b, SG_SLICE_PARAM, &w, 1, &y, 1, NULL);
    return y;
}

int so_split3(sg_builder *b, int32_t x, int32_t out[3])
{
    for (int i = 0; i < 3; i++) {
        out[i] = like(b, x, 0);
        if (out[i] < 0)
            return -1;
        b->t[out[i]].dims[b->t[x].ndim - 1] /= 3;
        view_call(b, "slice", x, out[i]);
    }
    record(b, SG_SPLIT3, &x, 1, out, 3, NULL);
    return b->failed ? -1 : 0;
}

int32_t so_cat_channels(sg_builder *b, int32_t a, int32_t c)
{
    int32_t y = like(b, a, 0);
    if (y < 0)
        return -1;
    b->t[y].dims[1] += dim(b, c, 1);
    call1(b, "cat", (int32_t[]){a, c}, 2, y, 0, -1);
    record(b, SG_CAT, (int32_t[]){a, c}, 2, &y, 1, NULL);
    return y;
}

int32_t so_bmm(sg_builder *b, int32_t a, int32_t c)
{
    uint32_t nd = a >= 0 ? b->t[a].ndim : 0;
    if (b->failed || nd < 3 || b->t[c].ndim != nd || b->t[a].dims[nd - 1] != b->t[c].dims[nd - 2])
        return sg_fail(b, GMS_EINVAL, "internal: bmm shape mismatch");
    int32_t y = like(b, a, 0);
    if (y < 0)
        return -1;
    b->t[y].dims[nd - 1] = b->t[c].dims[nd - 1];
    double f = 2.0 * numel(b, y) * (double)b->t[a].dims[nd - 1];
    call1(b, "bmm", (int32_t[]){a, c}, 2, y, f, -1);
    record(b, SG_BMM, (int32_t[]){a, c}, 2, &y, 1, NULL);
    return y;
}

int32_t so_masked_fill(sg_builder *b, int32_t x, int32_t mask)
{
    return binary(b, "masked_fill", SG_MASK, x, mask);
}

int32_t so_embedding(sg_builder *b, int32_t w, int32_t idx)
{
    int32_t y = shaped(b, b->t[w].esize, 3, dim(b, idx, 0), dim(b, idx, 1), dim(b, w, 1), 0);
    /* a gather reads only the selected rows */
    double bytes = 2.0 * (double)sg_bytes(b, y) + (double)sg_bytes(b, idx);
    call1(b, "embedding", (int32_t[]){w, idx}, 2, y, 0, bytes);
    record(b, SG_EMBED, (int32_t[]){w, idx}, 2, &y, 1, NULL);
    return y;
}

int32_t so_cross_entropy(sg_builder *b, int32_t logits, int32_t target)
{
    double rows = (double)dim(b, logits, 0);
    int32_t lsm = like(b, logits, 0);
    call1(b, "_log_softmax", &logits, 1, lsm, 5.0 * numel(b, logits), -1);
    int32_t loss = shaped(b, 4, 1, 1, 0, 0, 0);
    int32_t tw = shaped(b, 4, 1, 1, 0, 0, 0);
    int32_t outs[2] = {loss, tw};
    /* nll_loss reads one log-probability per row */
    double bytes = rows * b->dsize + (double)sg_bytes(b, target) + 8.0;
    sg_call(b, "nll_loss_forward", (int32_t[]){lsm, target}, 2, outs, NULL, 2, rows, bytes);
    int64_t p[6] = {lsm, tw, 0, 0, 0, 0};
    record(b, SG_XENT, (int32_t[]){logits, target}, 2, &loss, 1, p);
    return loss;
}

int32_t so_bce_logits(sg_builder *b, int32_t logits, int32_t target)
{
    int32_t loss = shaped(b, 4, 1, 1, 0, 0, 0);
    call1(b, "binary_cross_entropy_with_logits", (int32_t[]){logits, target}, 2, loss,
          6.0 * numel(b, logits), -1);
    record(b, SG_BCE, (int32_t[]){logits, target}, 2, &loss, 1, NULL);
    return loss;
}

/* ---- backward ----------------------------------------------------------------------------- */

/* The backward of one tape entry; gy = gradient of e->out[0]. */
static void backward_entry(sg_builder *b, const sg_tape *e, int32_t gy)
{
    int32_t x = e->in[0], w = e->in[1], bias = e->in[2], y = e->out[0];
    switch (e->op) {
    case SG_LINEAR: {
        uint64_t n_out = dim(b, w, 0), k = dim(b, w, 1);
        double m = numel(b, x) / (double)k, f = 2.0 * m * (double)n_out * (double)k;
        if (needs(b, x))
            sg_grad_accumulate(b, x, call1(b, "mm", (int32_t[]){gy, w}, 2, like(b, x, 0), f, -1));
        uint64_t mm = (uint64_t)m;
        int32_t gyt = view_call(b, "t", gy, shaped(b, b->t[gy].esize, 2, n_out, mm, 0, 0));
        sg_grad_accumulate(b, w, call1(b, "mm", (int32_t[]){gyt, x}, 2, like(b, w, 0), f, -1));
        if (bias >= 0)
            sg_grad_accumulate(b, bias, call1(b, "sum", &gy, 1, like(b, bias, 0), m * (double)n_out, -1));
        break;
    }
    case SG_CONV:
    case SG_CONVT: {
        double f = e->op == SG_CONV
                       ? 2.0 * numel(b, y) * (double)(dim(b, w, 1) * dim(b, w, 2) * dim(b, w, 3))
                       : 2.0 * numel(b, x) * (double)(dim(b, w, 1) * dim(b, w, 2) * dim(b, w, 3));
        int32_t outs[3];
        uint32_t n = 0;
        double flops = f; /* weight gradient */
        int32_t gx = -1, gw = like(b, w, 0), gb = -1;
        if (needs(b, x)) {
            gx = like(b, x, 0);
            outs[n++] = gx;
            flops += f;
        }
        outs[n++] = gw;
        if (bias >= 0) {
            gb = like(b, bias, 0);
            outs[n++] = gb;
            flops += numel(b, y);
        }
        sg_call(b, e->op == SG_CONV ? "convolution_backward" : "conv_transpose2d_backward",
                (int32_t[]){gy, x, w}, 3, outs, NULL, n, flops, -1);
        sg_grad_accumulate(b, x, gx);
        sg_grad_accumulate(b, w, gw);
        sg_grad_accumulate(b, bias, gb);
        break;
    }
    case SG_BN:
    case SG_LN: {
        int32_t mean = e->out[1], rstd = e->out[2];
        int32_t gx = like(b, x, 0), gg = like(b, w, 0), gb = like(b, bias, 0);
        int32_t outs[3] = {gx, gg, gb};
        int32_t ins[5] = {gy, x, w, mean, rstd};
        sg_call(b, e->op == SG_BN ? "native_batch_norm_backward" : "native_layer_norm_backward",
                ins, 5, outs, NULL, 3, 12.0 * numel(b, x), -1);
        sg_grad_accumulate(b, x, gx);
        sg_grad_accumulate(b, w, gg);
        sg_grad_accumulate(b, bias, gb);
        break;
    }
    case SG_RELU_:
        /* x now holds the ReLU output; its gradient is replaced by the pre-ReLU one */
        b->t[x].grad = -1;
        sg_grad_accumulate(b, x, call1(b, "threshold_backward", (int32_t[]){gy, x}, 2,
                                       like(b, x, 0), numel(b, x), -1));
        break;
    case SG_RELU:
        sg_grad_accumulate(b, x, call1(b, "threshold_backward", (int32_t[]){gy, y}, 2,
                                       like(b, x, 0), numel(b, x), -1));
        break;
    case SG_GELU:
        sg_grad_accumulate(b, x, call1(b, "gelu_backward", (int32_t[]){gy, x}, 2, like(b, x, 0),
                                       12.0 * numel(b, x), -1));
        break;
    case SG_SOFTMAX:
        sg_grad_accumulate(b, x, call1(b, "_softmax_backward_data", (int32_t[]){gy, y}, 2,
                                       like(b, x, 0), 4.0 * numel(b, x), -1));
        break;
    case SG_SCALE:
        sg_grad_accumulate(b, x, call1(b, "div", &gy, 1, like(b, x, 0), numel(b, x), -1));
        break;
    case SG_MASK:
        sg_grad_accumulate(b, x, call1(b, "masked_fill", (int32_t[]){gy, w}, 2, like(b, x, 0),
                                       numel(b, x), -1));
        break;
    case SG_CLONE:
        sg_grad_accumulate(b, x, gy);
        break;
    case SG_ADD:
        sg_grad_accumulate(b, x, gy);
        sg_grad_accumulate(b, w, gy);
        break;
    case SG_ADD_BCAST:
        sg_grad_accumulate(b, x, gy);
        if (needs(b, w))
            sg_grad_accumulate(b, w, call1(b, "sum", &gy, 1, like(b, w, 0), numel(b, gy), -1));
        break;
    case SG_MAXPOOL:
        sg_grad_accumulate(b, x, call1(b, "max_pool2d_with_indices_backward",
                                       (int32_t[]){gy, x, e->out[1]}, 3, like(b, x, 0),
                                       numel(b, x), -1));
        break;
    case SG_AVGPOOL:
        sg_grad_accumulate(b, x, call1(b, "adaptive_avg_pool2d_backward", (int32_t[]){gy, x}, 2,
                                       like(b, x, 0), numel(b, x), -1));
        break;
    case SG_VIEW:
        sg_grad_accumulate(b, x, view_call(b, "view", gy, like(b, x, b->t[gy].esize)));
        break;
    case SG_TRANSPOSE:
        sg_grad_accumulate(b, x, view_call(b, "transpose", gy, like(b, x, b->t[gy].esize)));
        break;
    case SG_SLICE_PARAM:
        sg_grad_accumulate(b, x, call1(b, "slice_backward", &gy, 1, like(b, x, 0), 0, -1));
        break;
    case SG_SPLIT3: {
        int32_t g[3];
        for (int i = 0; i < 3; i++) {
            g[i] = b->t[e->out[i]].grad;
            if (g[i] < 0) {
                sg_fail(b, GMS_EINVAL, "internal: split3 output without a gradient");
                return;
            }
        }
        sg_grad_accumulate(b, x, call1(b, "cat", g, 3, like(b, x, 0), 0, -1));
        break;
    }
    case SG_CAT: {
        int32_t ga = view_call(b, "slice", gy, like(b, x, b->t[gy].esize));
        int32_t gc = view_call(b, "slice", gy, like(b, w, b->t[gy].esize));
        sg_grad_accumulate(b, x, ga);
        sg_grad_accumulate(b, w, gc);
        break;
    }
    case SG_BMM: {
        uint32_t nd = b->t[x].ndim;
        double f = 2.0 * numel(b, y) * (double)b->t[x].dims[nd - 1];
        if (needs(b, x)) {
            int32_t wt = like(b, w, 0);
            if (wt >= 0) {
                b->t[wt].dims[nd - 2] = b->t[w].dims[nd - 1];
                b->t[wt].dims[nd - 1] = b->t[w].dims[nd - 2];
            }
            view_call(b, "transpose", w, wt);
            sg_grad_accumulate(b, x, call1(b, "bmm", (int32_t[]){gy, wt}, 2, like(b, x, 0), f, -1));
        }
        if (needs(b, w)) {
            int32_t xt = like(b, x, 0);
            if (xt >= 0) {
                b->t[xt].dims[nd - 2] = b->t[x].dims[nd - 1];
                b->t[xt].dims[nd - 1] = b->t[x].dims[nd - 2];
            }
            view_call(b, "transpose", x, xt);
            sg_grad_accumulate(b, w, call1(b, "bmm", (int32_t[]){xt, gy}, 2, like(b, w, 0), f, -1));
        }
        break;
    }
    case SG_EMBED:
        sg_grad_accumulate(b, x, call1(b, "embedding_dense_backward", (int32_t[]){gy, w}, 2,
                                       like(b, x, 0), numel(b, gy), -1));
        break;
    case SG_XENT: {
        int32_t lsm = (int32_t)e->p[0], tw = (int32_t)e->p[1];
        double rows = (double)dim(b, x, 0);
        int32_t glsm = like(b, lsm, 0);
        double bytes = (double)sg_bytes(b, glsm) + (double)sg_bytes(b, w) + 8.0;
        call1(b, "nll_loss_backward", (int32_t[]){gy, lsm, w, tw}, 4, glsm, rows, bytes);
        sg_grad_accumulate(b, x, call1(b, "_log_softmax_backward_data", (int32_t[]){glsm, lsm},
                                       2, like(b, x, 0), 4.0 * numel(b, x), -1));
        break;
    }
    case SG_BCE:
        sg_grad_accumulate(b, x, call1(b, "binary_cross_entropy_with_logits_backward",
                                       (int32_t[]){gy, x, w}, 3, like(b, x, 0),
                                       6.0 * numel(b, x), -1));
        break;
    }
}

void sg_backward(sg_builder *b, int32_t loss)
{
    if (b->failed || loss < 0)
        return;
    sg_annotate(b, "BACKWARD", 0, 0);
    int32_t g = call1(b, "ones_like", &loss, 1, like(b, loss, 0), 0, -1);
    b->t[loss].grad = g;
    for (uint32_t i = b->n_tape; i-- > 0 && !b->failed;) {
        const sg_tape *e = &b->tape[i];
        int32_t gy = b->t[e->out[0]].grad;
        if (e->op != SG_SPLIT3 && gy < 0)
            continue; /* output did not reach the loss */
        sg_scope_move(b, e->scope); /* its gradient ops in a scope named as its layer */
        backward_entry(b, e, gy);
    }
    sg_scope_move(b, -1);
}
