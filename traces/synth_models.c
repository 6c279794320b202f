/*
 * synth_models: the per-model layer recipes of `gpumemsim synth` (docs/synth.md, "Models").
 *
 * Each model has a declare function (creates the parameters as persistent CONSTANTs, in the
 * order PyTorch's module would list them) and a forward function (one iteration's forward pass,
 * returning the scalar loss). Forward takes the parameters back in the same order through a
 * cursor and checks each shape, so a mismatch between the two fails loudly instead of replaying
 * a wrong graph.
 */
#include "synth_graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- parameters ---------------------------------------------------------------------------- */

/* Declares a parameter of shape (d0..d3)[0..ndim) named by printf-style fmt. */
static int32_t param(sg_builder *b, uint32_t ndim, uint64_t d0, uint64_t d1, uint64_t d2,
                     uint64_t d3, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static int32_t param(sg_builder *b, uint32_t ndim, uint64_t d0, uint64_t d1, uint64_t d2,
                     uint64_t d3, const char *fmt, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    uint64_t dims[SG_MAX_DIMS] = {d0, d1, d2, d3};
    return sg_param(b, name, ndim, dims);
}

/* The forward pass's view of the declared parameters: next one in declaration order. */
typedef struct cursor {
    sg_builder *b;
    uint32_t next;
} cursor;

/* Takes the next parameter and checks its shape; -1 (and a failure) on a mismatch. */
static int32_t take(cursor *c, uint32_t ndim, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3)
{
    sg_builder *b = c->b;
    while (c->next < b->n_persistent && !b->t[c->next].is_param)
        c->next++;
    if (b->failed || c->next >= b->n_persistent)
        return sg_fail(b, GMS_EINVAL, "internal: model forward uses more parameters than declared");
    const sg_tensor *t = &b->t[c->next];
    uint64_t want[SG_MAX_DIMS] = {d0, d1, d2, d3};
    if (t->ndim != ndim || memcmp(t->dims, want, ndim * sizeof want[0]) != 0)
        return sg_fail(b, GMS_EINVAL, "internal: parameter shape differs between declare and forward");
    return (int32_t)c->next++;
}

/* The first persistent tensor that is not a parameter (a buffer), or -1. */
static int32_t first_buffer(const sg_builder *b)
{
    for (uint32_t i = 0; i < b->n_persistent; i++)
        if (!b->t[i].is_param)
            return (int32_t)i;
    return -1;
}

static int32_t input4(sg_builder *b, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3,
                      uint32_t ndim, uint32_t esize)
{
    uint64_t dims[SG_MAX_DIMS] = {d0, d1, d2, d3};
    return sg_input(b, ndim, dims, esize);
}

/* The loss in a top-level scope "loss" (what PyTorch computes outside the model). */
static int32_t loss_scoped(sg_builder *b, int32_t (*loss)(sg_builder *, int32_t, int32_t),
                           int32_t x, int32_t target)
{
    sg_scope_begin(b, "loss");
    int32_t l = loss(b, x, target);
    sg_scope_end(b);
    return l;
}

/* ---- mlp: (layers-1) x [Linear(H,H) + ReLU], Linear(H, classes), cross entropy ------------- */

static int mlp_declare(sg_builder *b)
{
    const gmt_synth_params *p = b->p;
    for (uint32_t i = 0; i < p->layers; i++) {
        uint64_t out = i + 1 == p->layers ? p->classes : p->hidden;
        param(b, 2, out, p->hidden, 0, 0, "layers.%u.weight", i);
        param(b, 1, out, 0, 0, 0, "layers.%u.bias", i);
    }
    return b->failed;
}

static int32_t mlp_forward(sg_builder *b, const sm_input *in)
{
    const gmt_synth_params *p = b->p;
    cursor c = {b, 0};
    int32_t x = input4(b, in->batch, p->hidden, 0, 0, 2, b->dsize);
    int32_t target = input4(b, in->batch, 0, 0, 0, 1, 8);
    for (uint32_t i = 0; i < p->layers; i++) {
        uint64_t out = i + 1 == p->layers ? p->classes : p->hidden;
        int32_t w = take(&c, 2, out, p->hidden, 0, 0);
        int32_t bias = take(&c, 1, out, 0, 0, 0);
        sg_scope_begin(b, "layers.%u", i);
        x = so_linear(b, x, w, bias);
        if (i + 1 < p->layers)
            x = so_relu(b, x);
        sg_scope_end(b);
    }
    return loss_scoped(b, so_cross_entropy, x, target);
}

/* ---- resnet: torchvision basic-block ResNet (10/18/34) ------------------------------------- */

static const uint32_t *resnet_blocks(uint32_t depth)
{
    static const uint32_t r10[4] = {1, 1, 1, 1}, r18[4] = {2, 2, 2, 2}, r34[4] = {3, 4, 6, 3};
    return depth == 10 ? r10 : depth == 18 ? r18 : depth == 34 ? r34 : NULL;
}

static void bn_declare(sg_builder *b, uint64_t ch, const char *prefix)
{
    param(b, 1, ch, 0, 0, 0, "%s.weight", prefix);
    param(b, 1, ch, 0, 0, 0, "%s.bias", prefix);
}

static int resnet_declare(sg_builder *b)
{
    const gmt_synth_params *p = b->p;
    const uint32_t *blocks = resnet_blocks(p->layers);
    uint64_t w = p->hidden;
    param(b, 4, w, 3, 7, 7, "conv1.weight");
    bn_declare(b, w, "bn1");
    uint64_t in_ch = w;
    for (uint32_t s = 0; s < 4; s++) {
        uint64_t ch = w << s;
        for (uint32_t k = 0; k < blocks[s]; k++) {
            char pre[64];
            uint32_t stride = s > 0 && k == 0 ? 2 : 1;
            snprintf(pre, sizeof pre, "layer%u.%u", s + 1, k);
            param(b, 4, ch, in_ch, 3, 3, "%s.conv1.weight", pre);
            char bn[80];
            snprintf(bn, sizeof bn, "%s.bn1", pre);
            bn_declare(b, ch, bn);
            param(b, 4, ch, ch, 3, 3, "%s.conv2.weight", pre);
            snprintf(bn, sizeof bn, "%s.bn2", pre);
            bn_declare(b, ch, bn);
            if (stride != 1 || in_ch != ch) {
                param(b, 4, ch, in_ch, 1, 1, "%s.downsample.0.weight", pre);
                snprintf(bn, sizeof bn, "%s.downsample.1", pre);
                bn_declare(b, ch, bn);
            }
            in_ch = ch;
        }
    }
    param(b, 2, p->classes, w * 8, 0, 0, "fc.weight");
    param(b, 1, p->classes, 0, 0, 0, "fc.bias");
    return b->failed;
}

/* conv (no bias) + batch norm with the cursor's next three parameters. */
static int32_t conv_bn(cursor *c, int32_t x, uint64_t out, uint64_t in, uint32_t k,
                       uint32_t stride, uint32_t pad)
{
    int32_t w = take(c, 4, out, in, k, k);
    int32_t y = so_conv(c->b, x, w, -1, stride, pad);
    int32_t g = take(c, 1, out, 0, 0, 0);
    int32_t beta = take(c, 1, out, 0, 0, 0);
    return so_batch_norm(c->b, y, g, beta);
}

static int32_t resnet_forward(sg_builder *b, const sm_input *in)
{
    const gmt_synth_params *p = b->p;
    const uint32_t *blocks = resnet_blocks(p->layers);
    cursor c = {b, 0};
    uint64_t w = p->hidden;
    int32_t x = input4(b, in->batch, 3, in->h, in->w, 4, b->dsize);
    int32_t target = input4(b, in->batch, 0, 0, 0, 1, 8);
    sg_scope_begin(b, "stem");
    int32_t y = so_relu_(b, conv_bn(&c, x, w, 3, 7, 2, 3));
    y = so_maxpool(b, y, 3, 2, 1);
    sg_scope_end(b);
    uint64_t in_ch = w;
    for (uint32_t s = 0; s < 4; s++) {
        uint64_t ch = w << s;
        sg_scope_begin(b, "layer%u", s + 1);
        for (uint32_t k = 0; k < blocks[s]; k++) {
            uint32_t stride = s > 0 && k == 0 ? 2 : 1;
            sg_scope_begin(b, "layer%u.%u", s + 1, k);
            int32_t o = so_relu_(b, conv_bn(&c, y, ch, in_ch, 3, stride, 1));
            o = conv_bn(&c, o, ch, ch, 3, 1, 1);
            int32_t idn = y;
            if (stride != 1 || in_ch != ch)
                idn = conv_bn(&c, y, ch, in_ch, 1, stride, 0);
            y = so_relu_(b, so_add(b, o, idn));
            in_ch = ch;
            sg_scope_end(b);
        }
        sg_scope_end(b);
    }
    sg_scope_begin(b, "head");
    y = so_global_avgpool(b, y);
    uint64_t flat[2] = {in->batch, w * 8};
    y = so_view(b, y, 2, flat);
    int32_t fw = take(&c, 2, p->classes, w * 8, 0, 0);
    int32_t fb = take(&c, 1, p->classes, 0, 0, 0);
    y = so_linear(b, y, fw, fb);
    sg_scope_end(b);
    return loss_scoped(b, so_cross_entropy, y, target);
}

/* ---- transformer: GPT-2 style decoder, tied embeddings --------------------------------------- */

/* Rows of the position table and the causal mask: the longest sequence the trace uses. */
static uint64_t max_seq(const gmt_synth_params *p)
{
    return p->vary_min ? p->vary_max : p->seq;
}

static int transformer_declare(sg_builder *b)
{
    const gmt_synth_params *p = b->p;
    uint64_t h = p->hidden, lmax = max_seq(p);
    param(b, 2, p->vocab, h, 0, 0, "wte.weight");
    param(b, 2, lmax, h, 0, 0, "wpe.weight");
    for (uint32_t i = 0; i < p->layers; i++) {
        param(b, 1, h, 0, 0, 0, "h.%u.ln_1.weight", i);
        param(b, 1, h, 0, 0, 0, "h.%u.ln_1.bias", i);
        param(b, 2, 3 * h, h, 0, 0, "h.%u.attn.c_attn.weight", i);
        param(b, 1, 3 * h, 0, 0, 0, "h.%u.attn.c_attn.bias", i);
        param(b, 2, h, h, 0, 0, "h.%u.attn.c_proj.weight", i);
        param(b, 1, h, 0, 0, 0, "h.%u.attn.c_proj.bias", i);
        param(b, 1, h, 0, 0, 0, "h.%u.ln_2.weight", i);
        param(b, 1, h, 0, 0, 0, "h.%u.ln_2.bias", i);
        param(b, 2, 4 * h, h, 0, 0, "h.%u.mlp.c_fc.weight", i);
        param(b, 1, 4 * h, 0, 0, 0, "h.%u.mlp.c_fc.bias", i);
        param(b, 2, h, 4 * h, 0, 0, "h.%u.mlp.c_proj.weight", i);
        param(b, 1, h, 0, 0, 0, "h.%u.mlp.c_proj.bias", i);
    }
    param(b, 1, h, 0, 0, 0, "ln_f.weight");
    param(b, 1, h, 0, 0, 0, "ln_f.bias");
    uint64_t mask[2] = {lmax, lmax};
    sg_buffer(b, "attn.causal_mask", 2, mask, 1);
    return b->failed;
}

/* [B, L, H] -> [B, heads, L, H/heads] (a view and a transpose, both aliases). */
static int32_t heads_split(sg_builder *b, int32_t x, uint64_t bsz, uint64_t l, uint64_t nh,
                           uint64_t hd)
{
    uint64_t d[4] = {bsz, l, nh, hd};
    return so_transpose(b, so_view(b, x, 4, d), 1, 2);
}

static int32_t transformer_block(cursor *c, int32_t x, int32_t mask, uint64_t bsz, uint64_t l,
                                 uint32_t index)
{
    sg_builder *b = c->b;
    const gmt_synth_params *p = b->p;
    uint64_t h = p->hidden, nh = p->heads, hd = h / nh;
    sg_scope_begin(b, "h.%u", index);
    int32_t g = take(c, 1, h, 0, 0, 0), beta = take(c, 1, h, 0, 0, 0);
    int32_t a = so_layer_norm(b, x, g, beta);
    sg_scope_begin(b, "h.%u.attn", index);
    int32_t wq = take(c, 2, 3 * h, h, 0, 0), bq = take(c, 1, 3 * h, 0, 0, 0);
    int32_t qkv[3];
    if (so_split3(b, so_linear(b, a, wq, bq), qkv))
        return -1;
    int32_t q = heads_split(b, qkv[0], bsz, l, nh, hd);
    int32_t k = heads_split(b, qkv[1], bsz, l, nh, hd);
    int32_t v = heads_split(b, qkv[2], bsz, l, nh, hd);
    uint64_t md[2] = {l, l};
    int32_t m = so_slice_persistent(b, mask, 2, md);
    int32_t att = so_bmm(b, q, so_transpose(b, k, 2, 3));
    att = so_softmax(b, so_masked_fill(b, so_scale(b, att), m));
    int32_t ctx = so_clone(b, so_transpose(b, so_bmm(b, att, v), 1, 2));
    uint64_t cd[3] = {bsz, l, h};
    ctx = so_view(b, ctx, 3, cd);
    int32_t wo = take(c, 2, h, h, 0, 0), bo = take(c, 1, h, 0, 0, 0);
    int32_t att_out = so_linear(b, ctx, wo, bo);
    sg_scope_end(b);
    x = so_add(b, x, att_out);
    g = take(c, 1, h, 0, 0, 0);
    beta = take(c, 1, h, 0, 0, 0);
    a = so_layer_norm(b, x, g, beta);
    sg_scope_begin(b, "h.%u.mlp", index);
    int32_t w1 = take(c, 2, 4 * h, h, 0, 0), b1 = take(c, 1, 4 * h, 0, 0, 0);
    a = so_gelu(b, so_linear(b, a, w1, b1));
    int32_t w2 = take(c, 2, h, 4 * h, 0, 0), b2 = take(c, 1, h, 0, 0, 0);
    a = so_linear(b, a, w2, b2);
    sg_scope_end(b);
    x = so_add(b, x, a);
    sg_scope_end(b);
    return x;
}

static int32_t transformer_forward(sg_builder *b, const sm_input *in)
{
    const gmt_synth_params *p = b->p;
    cursor c = {b, 0};
    uint64_t h = p->hidden, l = in->seq, lmax = max_seq(p);
    int32_t tokens = input4(b, in->batch, l, 0, 0, 2, 8);
    int32_t target = input4(b, in->batch * l, 0, 0, 0, 1, 8);
    int32_t wte = take(&c, 2, p->vocab, h, 0, 0);
    int32_t wpe = take(&c, 2, lmax, h, 0, 0);
    uint64_t pd[2] = {l, h};
    sg_scope_begin(b, "embeddings");
    /* one statement each: C leaves the order of arguments open (gcc made the samples with
     * the slice first, clang would emit the embedding first) */
    int32_t pos = so_slice_persistent(b, wpe, 2, pd);
    int32_t x = so_add_bcast(b, so_embedding(b, wte, tokens), pos);
    sg_scope_end(b);
    int32_t mask = first_buffer(b);
    for (uint32_t i = 0; i < p->layers && !b->failed; i++)
        x = transformer_block(&c, x, mask, in->batch, l, i);
    sg_scope_begin(b, "head");
    int32_t g = take(&c, 1, h, 0, 0, 0), beta = take(&c, 1, h, 0, 0, 0);
    x = so_layer_norm(b, x, g, beta);
    int32_t logits = so_linear(b, x, wte, -1); /* lm_head tied to wte */
    uint64_t ld[2] = {in->batch * l, p->vocab};
    logits = so_view(b, logits, 2, ld);
    sg_scope_end(b);
    return loss_scoped(b, so_cross_entropy, logits, target);
}

/* ---- unet: encoder-decoder with skip connections -------------------------------------------- */

static void dconv_declare(sg_builder *b, uint64_t in, uint64_t out, const char *pre)
{
    char bn[80];
    param(b, 4, out, in, 3, 3, "%s.conv1.weight", pre);
    snprintf(bn, sizeof bn, "%s.bn1", pre);
    bn_declare(b, out, bn);
    param(b, 4, out, out, 3, 3, "%s.conv2.weight", pre);
    snprintf(bn, sizeof bn, "%s.bn2", pre);
    bn_declare(b, out, bn);
}

static int unet_declare(sg_builder *b)
{
    const gmt_synth_params *p = b->p;
    uint64_t w = p->hidden;
    char pre[32];
    for (uint32_t i = 0; i <= p->layers; i++) {
        snprintf(pre, sizeof pre, "down%u", i);
        dconv_declare(b, i == 0 ? 3 : w << (i - 1), w << i, pre);
    }
    for (uint32_t j = p->layers; j-- > 0;) {
        uint64_t ch = w << j;
        param(b, 4, 2 * ch, ch, 2, 2, "up%u.convt.weight", j);
        param(b, 1, ch, 0, 0, 0, "up%u.convt.bias", j);
        snprintf(pre, sizeof pre, "up%u", j);
        dconv_declare(b, 2 * ch, ch, pre);
    }
    param(b, 4, p->classes, w, 1, 1, "outc.weight");
    param(b, 1, p->classes, 0, 0, 0, "outc.bias");
    return b->failed;
}

static int32_t dconv(cursor *c, int32_t x, uint64_t in, uint64_t out)
{
    int32_t y = so_relu_(c->b, conv_bn(c, x, out, in, 3, 1, 1));
    return so_relu_(c->b, conv_bn(c, y, out, out, 3, 1, 1));
}

static int32_t unet_forward(sg_builder *b, const sm_input *in)
{
    const gmt_synth_params *p = b->p;
    cursor c = {b, 0};
    uint64_t w = p->hidden;
    int32_t skip[32];
    int32_t x = input4(b, in->batch, 3, in->h, in->w, 4, b->dsize);
    int32_t target = input4(b, in->batch, p->classes, in->h, in->w, 4, b->dsize);
    int32_t y = x;
    for (uint32_t i = 0; i <= p->layers && !b->failed; i++) {
        sg_scope_begin(b, "down%u", i);
        if (i > 0)
            y = so_maxpool(b, y, 2, 2, 0);
        y = dconv(&c, y, i == 0 ? 3 : w << (i - 1), w << i);
        sg_scope_end(b);
        skip[i] = y;
    }
    for (uint32_t j = p->layers; j-- > 0 && !b->failed;) {
        uint64_t ch = w << j;
        sg_scope_begin(b, "up%u", j);
        int32_t wt = take(&c, 4, 2 * ch, ch, 2, 2), bt = take(&c, 1, ch, 0, 0, 0);
        int32_t u = so_convt(b, y, wt, bt);
        y = dconv(&c, so_cat_channels(b, skip[j], u), 2 * ch, ch);
        sg_scope_end(b);
    }
    sg_scope_begin(b, "outc");
    int32_t ow = take(&c, 4, p->classes, w, 1, 1), ob = take(&c, 1, p->classes, 0, 0, 0);
    y = so_conv(b, y, ow, ob, 1, 0);
    sg_scope_end(b);
    return loss_scoped(b, so_bce_logits, y, target);
}

/* ---- dispatch ---------------------------------------------------------------------------------- */

int sm_declare(sg_builder *b)
{
    switch (b->p->model) {
    case GMT_SYNTH_MLP: return mlp_declare(b);
    case GMT_SYNTH_RESNET: return resnet_declare(b);
    case GMT_SYNTH_TRANSFORMER: return transformer_declare(b);
    case GMT_SYNTH_UNET: return unet_declare(b);
    }
    return sg_fail(b, GMS_EINVAL, "unknown model");
}

int32_t sm_forward(sg_builder *b, const sm_input *in)
{
    switch (b->p->model) {
    case GMT_SYNTH_MLP: return mlp_forward(b, in);
    case GMT_SYNTH_RESNET: return resnet_forward(b, in);
    case GMT_SYNTH_TRANSFORMER: return transformer_forward(b, in);
    case GMT_SYNTH_UNET: return unet_forward(b, in);
    }
    return sg_fail(b, GMS_EINVAL, "unknown model");
}
