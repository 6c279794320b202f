/*
 * synth_graph: the private graph builder behind synth (not part of the public API).
 *
 * Model recipes (synth_models.c) call differentiable ops (synth_ops.c), which append trace items
 * (CONSTANT / CALL / MUTATE / ANNOTATE / NAME) to the current iteration and record a tape entry.
 * sg_backward() walks the tape in reverse like autograd, accumulating gradients. sg_flush()
 * computes each handle's last use in the iteration and emits the items with a RELEASE right after
 * the last use of every non-persistent handle.
 *
 * Tensors are referred to by index (int32_t) into the builder's table; persistent tensors
 * (weights, optimizer state, buffers) are created before the first iteration and survive
 * flushes; everything else is dropped after its iteration is flushed.
 */
#ifndef SYNTH_GRAPH_H
#define SYNTH_GRAPH_H

#include <stdint.h>

#include "synth.h"

#define SG_MAX_DIMS 4
#define SG_MAX_IN 8
#define SG_MAX_OUT 4

typedef struct sg_tensor {
    uint64_t id;                   /* trace handle */
    uint64_t dims[SG_MAX_DIMS];
    uint32_t ndim;
    uint32_t esize;                /* bytes per element */
    uint8_t persistent;            /* weight / state / buffer: never released */
    uint8_t needs_grad;
    uint8_t is_param;              /* trainable: gets an optimizer update */
    int32_t grad;                  /* accumulated gradient tensor, -1 = none yet */
    int32_t state[2];              /* optimizer state tensors of a parameter, -1 = none */
    int32_t name;                  /* index into the builder's names, -1 = none */
    int32_t last_use;              /* item index of the last use in this iteration */
} sg_tensor;

typedef enum sg_tape_op {
    SG_LINEAR, SG_CONV, SG_CONVT, SG_BN, SG_LN, SG_RELU_, SG_RELU, SG_GELU, SG_ADD,
    SG_ADD_BCAST, SG_MAXPOOL, SG_AVGPOOL, SG_VIEW, SG_TRANSPOSE, SG_SLICE_PARAM, SG_SPLIT3,
    SG_CAT, SG_BMM, SG_SOFTMAX, SG_SCALE, SG_MASK, SG_EMBED, SG_CLONE, SG_XENT, SG_BCE,
} sg_tape_op;

typedef struct sg_tape {
    sg_tape_op op;
    int32_t scope; /* the layer scope open when the forward op ran (set by sg_tape_push) */
    int32_t in[SG_MAX_IN];
    int32_t out[SG_MAX_OUT];
    uint32_t n_in, n_out;
    int64_t p[6]; /* op parameters (stride, padding, kernel, transposed flags ...) */
} sg_tape;

typedef struct sg_item {
    gmt_kind kind;
    const char *text; /* CALL/MUTATE op name, ANNOTATE kind, NAME text (static or arena) */
    int32_t tensor;   /* CONSTANT, NAME */
    uint32_t in_off, n_in;
    uint32_t out_off, n_out;
    uint32_t mut_off, n_mut;
    int has_value;
    int64_t value;
    int scope_end; /* SCOPE: 1 = end (text: the scope's name) */
    double flops, bytes;
    int host_copy; /* costed as a host-to-device copy */
} sg_item;

typedef struct sg_builder {
    const gmt_synth_params *p;
    unsigned dsize; /* bytes per element of the model dtype */
    gmt_synth_sink sink;
    void *ctx;
    gmt_synth_totals *tot;
    gms_error *err;
    int failed;      /* sticky: the first error stops every later call (checked at flush) */
    uint64_t next_id;

    sg_tensor *t;
    uint32_t n_t, cap_t;
    uint32_t n_persistent;

    sg_item *items;
    uint32_t n_items, cap_items;
    int32_t *pool; /* inputs / outputs / mutated indices of the items */
    int32_t *alias; /* parallel to pool: alias_of for outputs */
    uint32_t n_pool, cap_pool, cap_alias;

    sg_tape *tape;
    uint32_t n_tape, cap_tape;

    char **names; /* arena of NAME texts */
    uint32_t n_names, cap_names;

    /* layer scopes of the current iteration (docs/synth.md, "Layer scopes"): a tree of
     * named nodes; forward ops record the open node in their tape entry, so the backward
     * pass can reopen a scope of the same name around their gradients */
    char **scope_name;     /* per node, owned */
    int32_t *scope_parent; /* per node, -1 = top level */
    uint32_t n_scopes, cap_scopes, cap_scope_parent;
    int32_t scope_cur;     /* the open node, -1 = none */

    uint64_t *scratch_ids;
    gmt_output *scratch_out;
    uint32_t *scratch_mut;
    uint32_t cap_scratch;
} sg_builder;

void sg_init(sg_builder *b, const gmt_synth_params *p, gmt_synth_sink sink, void *ctx,
             gmt_synth_totals *tot, gms_error *err);
void sg_free(sg_builder *b);

/* Records an allocation failure or similar; later calls become no-ops. Returns -1. */
int sg_fail(sg_builder *b, int code, const char *msg);

/* A new tensor of shape dims[0..ndim) (not yet in any item). -1 on failure. */
int32_t sg_tensor_new(sg_builder *b, uint32_t ndim, const uint64_t *dims, uint32_t esize);
uint64_t sg_numel(const sg_builder *b, int32_t t);
uint64_t sg_bytes(const sg_builder *b, int32_t t);

/* A persistent CONSTANT (weight if param, else buffer), with a NAME event. */
int32_t sg_param(sg_builder *b, const char *name, uint32_t ndim, const uint64_t *dims);
int32_t sg_buffer(sg_builder *b, const char *name, uint32_t ndim, const uint64_t *dims,
                  uint32_t esize);
/* Declares the optimizer state (1 or 2 CONSTANTs per parameter, named after it); call once
 * after every parameter exists. */
void sg_optimizer_init(sg_builder *b);
/* A per-iteration input: a copy_h2d CALL without inputs (released after its last use; the
 * simulator can evict it and "rematerialize" it by copying it again). */
int32_t sg_input(sg_builder *b, uint32_t ndim, const uint64_t *dims, uint32_t esize);

void sg_annotate(sg_builder *b, const char *kind, int has_value, int64_t value);

/* Opens a layer scope named by printf-style fmt inside the open one (a SCOPE begin item,
 * unless p->scopes is 0); sg_scope_end closes the innermost. Forward recipes bracket each
 * module with them. */
void sg_scope_begin(sg_builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sg_scope_end(sg_builder *b);
/* Backward: closes and opens scopes so that node `to` (-1 = none) is the open one. */
void sg_scope_move(sg_builder *b, int32_t to);

/* Appends a CALL. outs[i] are fresh tensors; alias[i] = -1 or an index into ins. bytes < 0
 * means "every input read once + every non-alias output written once". */
void sg_call(sg_builder *b, const char *op, const int32_t *ins, uint32_t n_in,
             const int32_t *outs, const int32_t *alias, uint32_t n_out, double flops,
             double bytes);
/* Appends a MUTATE of ins[mut[i]]; bytes < 0: inputs read + mutated written. */
void sg_mutate(sg_builder *b, const char *op, const int32_t *ins, uint32_t n_in,
               const uint32_t *mut, uint32_t n_mut, double flops, double bytes);

/* Records a tape entry (forward op) for sg_backward. */
void sg_tape_push(sg_builder *b, const sg_tape *e);

/* Adds gradient g to tensor t's accumulated gradient (emitting an "add" when one exists). */
void sg_grad_accumulate(sg_builder *b, int32_t t, int32_t g);

/* Runs the backward pass from a scalar loss: ANNOTATE BACKWARD, ones_like, then the tape in
 * reverse (synth_ops.c). */
void sg_backward(sg_builder *b, int32_t loss);

/* The optimizer step: one MUTATE per parameter that got a gradient (parameter order). */
void sg_optimizer_step(sg_builder *b);

/* ------------------------------------------------------------------------------------------
 * Differentiable ops (synth_ops.c). Each appends its forward item(s), records a tape entry when
 * an input needs a gradient, and returns the output tensor (-1 after a failure). Shapes follow
 * PyTorch: images NCHW, linear weights [out, in], conv weights [out, in, kh, kw].
 */
int32_t so_linear(sg_builder *b, int32_t x, int32_t w, int32_t bias);
int32_t so_conv(sg_builder *b, int32_t x, int32_t w, int32_t bias, uint32_t stride,
                uint32_t pad);
/* Transposed conv with kernel == stride, no padding (U-Net up-convolution); w [in, out, k, k]. */
int32_t so_convt(sg_builder *b, int32_t x, int32_t w, int32_t bias);
int32_t so_batch_norm(sg_builder *b, int32_t x, int32_t gamma, int32_t beta);
int32_t so_layer_norm(sg_builder *b, int32_t x, int32_t gamma, int32_t beta);
int32_t so_relu_(sg_builder *b, int32_t x); /* in place (MUTATE); returns x */
int32_t so_relu(sg_builder *b, int32_t x);
int32_t so_gelu(sg_builder *b, int32_t x);
int32_t so_add(sg_builder *b, int32_t a, int32_t c);
/* a + c with c broadcast over a's leading dimensions (c's shape is a suffix of a's). */
int32_t so_add_bcast(sg_builder *b, int32_t a, int32_t c);
int32_t so_maxpool(sg_builder *b, int32_t x, uint32_t k, uint32_t stride, uint32_t pad);
int32_t so_global_avgpool(sg_builder *b, int32_t x);
int32_t so_view(sg_builder *b, int32_t x, uint32_t ndim, const uint64_t *dims);
int32_t so_transpose(sg_builder *b, int32_t x, uint32_t d0, uint32_t d1);
/* A leading slice of a persistent tensor (alias); dims give the slice's shape. */
int32_t so_slice_persistent(sg_builder *b, int32_t w, uint32_t ndim, const uint64_t *dims);
/* Splits the last dimension into three equal alias slices. */
int so_split3(sg_builder *b, int32_t x, int32_t out[3]);
int32_t so_cat_channels(sg_builder *b, int32_t a, int32_t c);
int32_t so_bmm(sg_builder *b, int32_t a, int32_t c);
int32_t so_softmax(sg_builder *b, int32_t x);
int32_t so_scale(sg_builder *b, int32_t x);
int32_t so_masked_fill(sg_builder *b, int32_t x, int32_t mask);
int32_t so_embedding(sg_builder *b, int32_t w, int32_t idx);
int32_t so_clone(sg_builder *b, int32_t x);
/* Cross entropy of logits [M, C] against int64 targets [M]: log_softmax + nll_loss. */
int32_t so_cross_entropy(sg_builder *b, int32_t logits, int32_t target);
int32_t so_bce_logits(sg_builder *b, int32_t logits, int32_t target);

/* ------------------------------------------------------------------------------------------
 * Model recipes (synth_models.c).
 */
typedef struct sm_input {
    uint64_t batch, seq, h, w; /* the iteration's input shape (fields the model uses) */
} sm_input;

/* Declares the model's parameters (and buffers) as persistent CONSTANTs. */
int sm_declare(sg_builder *b);
/* Appends one iteration's inputs and forward pass; returns the loss tensor or -1. */
int32_t sm_forward(sg_builder *b, const sm_input *in);

/* Emits a RELEASE for every persistent handle (the end of the trace: the model goes away). */
void sg_release_persistent(sg_builder *b);

/* Emits the iteration's items with releases after last uses, then drops its tensors, items and
 * tape. Returns 0 or the error code. */
int sg_flush(sg_builder *b);

#endif
