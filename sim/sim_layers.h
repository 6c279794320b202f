/*
 * sim_layers: the layers of a loaded trace, for checkpoint and swap planners (issue 11).
 *
 * For each training iteration, the top-level layers of its forward pass, as op ranges in the
 * trace's op numbering (the same index as sim_event.op_index: constants count as ops). They
 * come from the trace's layer scopes (SCOPE events, docs/trace-format.md section 2.4) when the
 * iteration's forward pass has any, else from a segmentation of the forward pass, so every
 * planner runs on every trace. docs/layers.md states the rules:
 *
 *   iterations  op ranges between ANNOTATE iteration markers (the first starts at its marker;
 *               ops before it, the constants, belong to none). No marker: one iteration from
 *               the first CALL/MUTATE op to the end.
 *   forward     the iteration's ops before its ANNOTATE BACKWARD (all of them without one).
 *   scopes      every top-level scope that begins inside the forward pass and holds an op is
 *               a layer: its ops up to its end or the backward marker, whichever is first.
 *               Forward ops outside every top-level scope (inputs, anything between layers)
 *               belong to no layer.
 *   segments    without a top-level scope in its forward pass, an iteration's n forward ops
 *               are cut into k = ceil(sqrt(n)) consecutive segments of about equal compute:
 *               segment j ends at the first op where the running cost reaches (j+1)/k of the
 *               forward total (op counts when every op costs 0), never empty. Named
 *               "segment.J".
 *
 * A sim_layers is immutable and independent of any run; build it once per trace.
 */
#ifndef SIM_LAYERS_H
#define SIM_LAYERS_H

#include <stdint.h>

#include "gms_error.h"
#include "sim.h"

typedef enum sim_layer_source {
    SIM_LAYERS_SCOPES = 1,   /* from the trace's top-level scopes */
    SIM_LAYERS_SEGMENTS = 2, /* from the segmentation rule (no scope in that forward pass) */
} sim_layer_source;

typedef struct sim_layer {
    uint32_t first_op, last_op; /* inclusive op range */
    uint32_t iteration;         /* 0-based */
    sim_layer_source source;
    const char *name;           /* scope name ("h.3") or "segment.J"; lives with the layers */
    uint64_t compute;           /* sum of the layer's op costs (ns) */
} sim_layer;

typedef struct sim_iteration_span {
    uint32_t first_op;    /* the iteration's first op */
    uint32_t backward_op; /* first op after its ANNOTATE BACKWARD (= end_op when none) */
    uint32_t end_op;      /* one past its last op */
    uint32_t first_layer; /* index of its first layer in the whole list */
    uint32_t n_layers;
    sim_layer_source source;
    int64_t input_size;   /* the value of its ANNOTATE iteration marker (synth: the input
                           * size), -1 when it has none */
} sim_iteration_span;

typedef struct sim_layers sim_layers;

/* Computes the layers of t. 0 or GMS_ENOMEM (err says so). */
int sim_layers_build(const sim_trace *t, sim_layers **out, gms_error *err);
void sim_layers_free(sim_layers *l);

/* Every layer of every iteration, in op order. */
uint32_t sim_layers_count(const sim_layers *l);
const sim_layer *sim_layers_at(const sim_layers *l, uint32_t i);

uint32_t sim_layers_iterations(const sim_layers *l);
const sim_iteration_span *sim_layers_iteration(const sim_layers *l, uint32_t it);

/* The layer holding op (an index into the list), or SIM_LAYER_NONE. */
#define SIM_LAYER_NONE UINT32_MAX
uint32_t sim_layers_of_op(const sim_layers *l, uint32_t op);

/* SIM_LAYERS_SCOPES when every iteration's layers come from scopes, SIM_LAYERS_SEGMENTS when
 * none do, 0 when the trace mixes both (or has no iteration with a forward op). */
sim_layer_source sim_layers_source(const sim_layers *l);

/* The trace the layers were built from (it must outlive them): for planners that analyse the
 * iteration's dataflow before it runs (rotor; sim/sim_dataflow.h). */
const sim_trace *sim_layers_trace(const sim_layers *l);

/* The trace's scopes as the builder recorded them: how many began (forward and backward,
 * every depth) and the deepest nesting (0 = no scopes). */
uint32_t sim_trace_scope_count(const sim_trace *t);
uint32_t sim_trace_scope_depth(const sim_trace *t);
/* Ops of t (constants included): the range of op indices. */
uint32_t sim_trace_op_count(const sim_trace *t);

#endif
