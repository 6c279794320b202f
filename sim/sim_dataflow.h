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
} sim_flow_op;

typedef struct sim_flow {
    sim_flow_op *ops;
    uint32_t n_ops;
    uint32_t *inputs;
    uint64_t constant_bytes;
} sim_flow;

/* The dataflow of ops [first_op, end_op) of t (an iteration's span from sim_layers.h).
 * 0, GMS_EINVAL for a bad range or GMS_ENOMEM (err says so). */
int sim_flow_build(const sim_trace *t, uint32_t first_op, uint32_t end_op, sim_flow **out,
                   gms_error *err);
void sim_flow_free(sim_flow *f);

/* The i-th scope of t in begin order (i < sim_trace_scope_count): ops [first, end) ran while
 * it was open; depth 0 = top level; name lives with the trace. */
void sim_trace_scope_at(const sim_trace *t, uint32_t i, uint32_t *first, uint32_t *end,
                        uint32_t *depth, const char **name);

#endif
