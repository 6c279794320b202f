/*
 * sim_dataflow: one iteration of a loaded trace as a static dataflow graph of its ops, for the
 * optimal planners (opt/, issue 19). Read-only over the trace, independent of any run.
 *
 * The rules (docs/optimal.md, "From a trace"):
 *   nodes      every op of the iteration's range [first_op, end_op) except CONSTANTs, in op
 *              order (the execution order).
 *   inputs     for each argument tensor: the op that produced it and the op that produced its
 *              storage (they differ for views), when that op is a node of the iteration.
 *              Arguments made before the iteration (parameters, inputs) are not nodes.
 *   bytes      the op's new storages (views add none) whose last reference dies inside the
 *              iteration; a storage that outlives the iteration counts in constant_bytes.
 *   constant   bytes live at the iteration's start (made before it, released at or after its
 *              first op, CONSTANTs included), plus the storages of its ops that outlive it,
 *              plus CONSTANTs made inside it. Taken off the budget by the program.
 */
#ifndef SIM_DATAFLOW_H
#define SIM_DATAFLOW_H

#include <stdint.h>

#include "gms_error.h"
#include "sim.h"

typedef struct sim_flow_op {
    uint32_t op;         /* the simulator's op index */
    const char *name;    /* the op's name (lives with the trace) */
    uint64_t cost;       /* ns */
    uint64_t bytes;      /* see above */
    uint64_t touched;    /* bytes read (each distinct argument storage, whole: views are not
                          * sized) plus written (its new storages): the host roofline's
                          * traffic (opt_hostcost.h) */
    uint32_t inputs_off; /* into sim_flow.inputs */
    uint32_t n_inputs;   /* indices of earlier flow ops, ascending, no duplicates */
    uint32_t part;       /* sim_flow_build_outputs: which of the op's output storages (0 first) */
    uint32_t held_off;   /* into sim_flow.held: the storages whose sizes make up bytes */
    uint32_t n_held;
} sim_flow_op;

typedef struct sim_flow {
    sim_flow_op *ops;
    uint32_t n_ops;
    uint32_t *inputs;
    uint64_t constant_bytes;
    /* which trace storages the bytes stand for (the graph's node-to-storage map, for where a
     * solved schedule peaks): each op's held storages, and the storages whose sizes are in
     * constant_bytes (a CONSTANT op's new storages among them); each storage at most once */
    uint32_t *held;
    uint32_t *constants;
    uint32_t n_constants;
} sim_flow;

/* The dataflow of ops [first_op, end_op) of t (an iteration's span from sim_layers.h).
 * 0, GMS_EINVAL for a bad range or GMS_ENOMEM (err says so). */
int sim_flow_build(const sim_trace *t, uint32_t first_op, uint32_t end_op, sim_flow **out,
                   gms_error *err);
void sim_flow_free(sim_flow *f);

/* As sim_flow_build, one flow op per output storage (an extension of Checkmate's graph, so the
 * program frees as the replay does; docs/optimal.md, "`--coarsen outputs`"):
 *   parts      an op with storages s_0..s_m-1 (views add none) becomes m flow ops, in op
 *              order: part 0 costs the op and holds s_0; part q > 0 costs 0, holds s_q and
 *              reads parts 0..q-1 and the op's inputs, so the last part's stage holds every
 *              output at once, as the op's compute does. An op without storages is one
 *              flow op of 0 bytes; an op with storages and views has one more part of 0 bytes for
 *              its views.
 *   inputs     for each argument tensor: the part holding its storage and, for a view, the
 *              view op's last part (its views' part, or its only part).
 *   outliving  a storage that outlives the iteration is a part too, read by the last flow op,
 *              so it is held from its op to the end instead of counting in constant_bytes.
 *   constant   bytes live at the iteration's start and CONSTANTs made inside it.
 * A storage is then held until the last op that reads it (the replay holds it until its last
 * reference dies, at or after that). 0, GMS_EINVAL or GMS_ENOMEM. */
int sim_flow_build_outputs(const sim_trace *t, uint32_t first_op, uint32_t end_op,
                           sim_flow **out, gms_error *err);

/* The i-th scope of t in begin order (i < sim_trace_scope_count): ops [first, end) ran while
 * it was open; depth 0 = top level; name lives with the trace. */
void sim_trace_scope_at(const sim_trace *t, uint32_t i, uint32_t *first, uint32_t *end,
                        uint32_t *depth, const char **name);

#endif
