/*
 * sim_chain: a synthetic training-like chain for benchmarks and scaling tests, built through
 * the trace builder like any imported trace.
 *
 * Forward: a_i = layer_i(a_{i-1}, w) for i = 1..n (a_0 is the input, w one shared weight),
 * then the loss; backward: g_{i-1} = layer_i_backward(g_i, a_{i-1}, w) for i = n..1, each
 * activation and gradient released right after its last use. All activations are alive at
 * the end of the forward pass, so the baseline peak is about n activations and a budget below
 * it forces evictions and rematerializations, like checkpointing a deep network. Costs and
 * sizes vary deterministically from layer to layer so that scores rarely tie.
 */
#include <stdio.h>

#include "gmt.h"
#include "sim_internal.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= UINT64_C(0x7fb5d329728ea185);
    x ^= x >> 27;
    return x;
}

static int add_call(sim_trace_builder *b, const char *op, uint64_t dur, const uint64_t *in,
                    uint32_t n_in, uint64_t out, uint64_t size, gms_error *err)
{
    gmt_event ev;
    gmt_event_init(&ev, GMT_CALL);
    gmt_output o = {.id = out, .size = size, .alias_of = -1};
    ev.op = op;
    ev.dur_ns = dur;
    ev.inputs = in;
    ev.n_inputs = n_in;
    ev.outputs = &o;
    ev.n_outputs = 1;
    return sim_trace_builder_add(b, &ev, err);
}

static int add_simple(sim_trace_builder *b, gmt_kind kind, uint64_t id, uint64_t size,
                      gms_error *err)
{
    gmt_event ev;
    gmt_event_init(&ev, kind);
    ev.id = id;
    ev.size = size;
    return sim_trace_builder_add(b, &ev, err);
}

int sim_trace_chain(uint64_t n, sim_trace **out, gms_error *err)
{
    *out = NULL;
    if (n < 1 || n > 100000000)
        return gms_error_set(err, GMS_EINVAL, "sim_trace_chain: %llu layers is out of range",
                             (unsigned long long)n);
    sim_trace_builder *b;
    int rc = sim_trace_builder_new(&b, err);
    if (rc)
        return rc;
    /* ids: weight 1, activation i -> 2 + 2i, gradient i -> 3 + 2i, loss 2n + 4 */
    const uint64_t W = 1, loss = 2 * n + 4;
#define ACT(i) (2 + 2 * (uint64_t)(i))
#define GRAD(i) (3 + 2 * (uint64_t)(i))
    const uint64_t act_size = UINT64_C(1) << 20;
    rc = add_simple(b, GMT_CONSTANT, W, 4096, err);
    if (!rc)
        rc = add_simple(b, GMT_CONSTANT, ACT(0), act_size, err);
    for (uint64_t i = 1; !rc && i <= n; i++) {
        uint64_t in[2] = {ACT(i - 1), W};
        uint64_t h = mix(i);
        rc = add_call(b, "layer", 1000 + h % 1000, in, 2, ACT(i), act_size + (h >> 40) % 4096 * 64,
                      err);
    }
    if (!rc) {
        uint64_t in[1] = {ACT(n)};
        rc = add_call(b, "loss", 500, in, 1, loss, 1024, err);
    }
    if (!rc) {
        uint64_t in[2] = {loss, ACT(n)};
        rc = add_call(b, "loss_backward", 500, in, 2, GRAD(n), act_size, err);
    }
    if (!rc)
        rc = add_simple(b, GMT_RELEASE, loss, 0, err);
    if (!rc)
        rc = add_simple(b, GMT_RELEASE, ACT(n), 0, err);
    for (uint64_t i = n; !rc && i >= 1; i--) {
        uint64_t in[3] = {GRAD(i), ACT(i - 1), W};
        uint64_t h = mix(i + n);
        rc = add_call(b, "layer_backward", 2000 + h % 2000, in, 3, GRAD(i - 1), act_size, err);
        if (!rc)
            rc = add_simple(b, GMT_RELEASE, GRAD(i), 0, err);
        if (!rc && i > 1)
            rc = add_simple(b, GMT_RELEASE, ACT(i - 1), 0, err);
    }
    if (!rc)
        rc = add_simple(b, GMT_RELEASE, GRAD(0), 0, err);
#undef ACT
#undef GRAD
    if (rc) {
        sim_trace_builder_free(b);
        return rc;
    }
    return sim_trace_builder_finish(b, out, err);
}
