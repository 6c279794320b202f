/*
 * rotor_trace: an iteration's layers as Rotor's chain (rotor_trace.h).
 *
 * Every op of the iteration gets a stage: forward layer i -> i; the backward scope named as
 * layer i -> L + 2 + i; any other forward op -> L, any other backward op -> L + 1. A storage
 * is a stage's temporary when no op of another stage reads it; a stage's temporaries' peak
 * is its fwd_tmp / bwd_tmp. Stages are runs of consecutive ops (a layer, a scope).
 */
#include "rotor_trace.h"

#include <stdlib.h>
#include <string.h>

#include "sim_dataflow.h"

/* Backward scopes: stage[k] = L + 2 + i for ops inside the top-level backward scope that
 * bears layer i's name. */
static void backward_stages(const sim_layers *layers, const sim_iteration_span *sp,
                            const sim_flow *f, uint32_t *stage)
{
    const sim_trace *t = sim_layers_trace(layers);
    uint32_t L = sp->n_layers, ns = sim_trace_scope_count(t), k = 0;
    for (uint32_t s = 0; s < ns; s++) {
        uint32_t first, end, depth;
        const char *name;
        sim_trace_scope_at(t, s, &first, &end, &depth, &name);
        if (depth != 0 || first < sp->backward_op || first >= sp->end_op || !name)
            continue;
        uint32_t i = 0;
        while (i < L && strcmp(sim_layers_at(layers, sp->first_layer + i)->name, name) != 0)
            i++;
        if (i == L)
            continue;
        while (k < f->n_ops && f->ops[k].op < first)
            k++;
        for (uint32_t q = k; q < f->n_ops && f->ops[q].op < end; q++)
            stage[q] = L + 2 + i;
    }
}

int rotor_chain_from_trace(const sim_layers *layers, uint32_t it, rotor_chain **out,
                           uint64_t *constant, gms_error *err)
{
    *out = NULL;
    const sim_iteration_span *sp = sim_layers_iteration(layers, it);
    if (!sp || sp->n_layers == 0)
        return gms_error_set(err, GMS_EINVAL, "rotor: iteration %u has no forward layers", it);
    sim_flow *f = NULL;
    int rc = sim_flow_build(sim_layers_trace(layers), sp->first_op, sp->end_op, &f, err);
    if (rc)
        return rc;
    uint32_t L = sp->n_layers, n = f->n_ops, nn = n ? n : 1;
    rotor_chain *c = rotor_chain_new(L);
    uint32_t *stage = malloc(nn * sizeof *stage);
    uint32_t *last = malloc(nn * sizeof *last); /* its last reader (itself when none) */
    uint8_t *other = calloc(nn, 1);   /* read by an op of another stage */
    uint8_t *fwd_out = calloc(nn, 1); /* read by a forward op of another stage */
    uint8_t *x0 = calloc(nn, 1);      /* counted in cw[0] */
    if (!c || !stage || !last || !other || !fwd_out || !x0) {
        rc = gms_error_set(err, GMS_ENOMEM, "rotor: out of memory building the chain");
        goto done;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t op = f->ops[k].op, ly = sim_layers_of_op(layers, op);
        if (op >= sp->backward_op)
            stage[k] = L + 1;
        else if (ly == SIM_LAYER_NONE || ly < sp->first_layer || ly >= sp->first_layer + L)
            stage[k] = L;
        else
            stage[k] = ly - sp->first_layer;
        last[k] = k;
    }
    backward_stages(layers, sp, f, stage);
    uint32_t first_layer_op = sim_layers_at(layers, sp->first_layer)->first_op;
    for (uint32_t v = 0; v < n; v++) {
        const sim_flow_op *o = &f->ops[v];
        for (uint32_t q = 0; q < o->n_inputs; q++) {
            uint32_t u = f->inputs[o->inputs_off + q];
            last[u] = v;
            if (stage[v] == stage[u])
                continue;
            other[u] = 1;
            if (f->ops[v].op < sp->backward_op)
                fwd_out[u] = 1;
            /* x_0: what layer 0 reads that the iteration made before it */
            if (stage[v] == 0 && stage[u] == L && f->ops[u].op < first_layer_op && !x0[u]) {
                x0[u] = 1;
                c->cw[0] += f->ops[u].bytes;
            }
        }
    }
    uint64_t live = 0, peak = 0, pre = 0;
    for (uint32_t k = 0; k < n; k++) {
        const sim_flow_op *o = &f->ops[k];
        uint32_t s = stage[k];
        if (k == 0 || stage[k - 1] != s)
            live = 0, peak = 0; /* a new stage's temporaries start from nothing */
        if (s == L + 1) {
            c->bw[L] += (double)o->cost;
        } else if (s >= L + 2) {
            c->bw[s - L - 2] += (double)o->cost;
        } else {
            c->fw[s] += (double)o->cost;
        }
        if (s == L) {
            /* outside the layers: before the first, held (x_0 apart) and taken off the
             * budget; after the last (head, loss), the loss stage's own memory */
            if (o->op < first_layer_op)
                pre += x0[k] ? 0 : o->bytes;
            else
                c->fwd_tmp[L] += o->bytes;
        } else if (s < L && fwd_out[k]) {
            c->cw[s + 1] += o->bytes;
        } else if (s < L && other[k]) {
            c->cbw[s + 1] += o->bytes;
        }
        if (s == L || s == L + 1 || other[k])
            continue;
        live += o->bytes;
        peak = live > peak ? live : peak;
        uint64_t *tmp = s < L ? &c->fwd_tmp[s] : &c->bwd_tmp[s - L - 2];
        if (peak > *tmp)
            *tmp = peak;
        /* temporaries of this stage whose last reader is this op die after it */
        for (uint32_t q = 0; q < o->n_inputs; q++) {
            uint32_t u = f->inputs[o->inputs_off + q];
            if (stage[u] == s && last[u] == k && !other[u])
                live -= f->ops[u].bytes;
        }
        if (last[k] == k)
            live -= o->bytes; /* nobody reads it */
    }
    for (uint32_t i = 1; i <= L; i++)
        c->cbw[i] += c->cw[i];
    *constant = f->constant_bytes + pre;
    *out = c;
    c = NULL;
done:
    rotor_chain_free(c);
    free(stage), free(last), free(other), free(fwd_out), free(x0);
    sim_flow_free(f);
    return rc;
}

#define ROTOR_TABLE_MAX ((size_t)2 << 30) /* 2 GiB: about 300 layers at 500 slots */

int rotor_trace_sequence(const sim_layers *layers, uint32_t it, uint64_t budget, uint32_t slots,
                         rotor_chain **chain, rotor_sequence *q, int *fits, gms_error *err)
{
    rotor_chain *c = NULL, *d = NULL;
    rotor_table *t = NULL;
    uint64_t constant = 0, unit = 1;
    memset(q, 0, sizeof *q);
    *fits = 1;
    if (chain)
        *chain = NULL;
    int rc = rotor_chain_from_trace(layers, it, &c, &constant, err);
    if (rc)
        return rc;
    if (budget != UINT64_MAX && budget <= constant)
        *fits = 0; /* nothing left for activations */
    if (budget == UINT64_MAX || budget <= constant)
        goto done;
    if (!(d = rotor_discretize(c, budget - constant, slots, &unit))) {
        rc = gms_error_set(err, GMS_ENOMEM, "rotor: out of memory");
        goto done;
    }
    rc = rotor_table_build(d, slots, ROTOR_TABLE_MAX, &t, err);
    if (rc == 0) {
        gms_error why = {0};
        if (rotor_persistent(d, t, slots, q, &why) != 0) {
            if (why.code == GMS_ENOMEM)
                rc = gms_error_set(err, GMS_ENOMEM, "%s", why.msg);
            *fits = 0;
        }
    }
done:
    rotor_table_free(t);
    rotor_chain_free(d);
    if (chain && rc == 0)
        *chain = c;
    else
        rotor_chain_free(c);
    return rc;
}
