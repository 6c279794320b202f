/*
 * rotor_trace: the chain Rotor plans for, from one iteration of a trace (docs/planners.md,
 * "rotor"). Stage i < L is the iteration's i-th top-level forward layer (docs/layers.md);
 * stage L, the loss, is every other op of the iteration.
 *
 *   fw[i]      the layer's compute (ns); fw[L]: the forward ops outside every layer
 *   bw[i]      the compute of the backward scope named as layer i (synth and the ET importer
 *              write them); bw[L]: every other backward op. Every persistent schedule runs
 *              each backward once, so where backward time sits changes no choice.
 *   cw[i+1]    bytes layer i makes that a later forward op reads (its output x_{i+1});
 *              cw[0]: bytes made in the iteration before layer 0 that layer 0 reads
 *   cbw[i+1]   cw[i+1] plus the bytes layer i makes that only backward reads (xbar_{i+1})
 *   fwd_tmp[i] the most bytes of the layer's own temporaries (storages no op of another
 *              stage reads) live at once
 *   fwd_tmp[L] the bytes the ops after the last layer make (head, loss): the loss stage
 *   bwd_tmp[i] the same for layer i's backward scope (0 without scopes)
 * Bytes are sim_dataflow's (a storage whose last reference dies inside the iteration); what
 * outlives the iteration, what is live at its start and what the ops before the first layer
 * make (but x_0) is `constant` (taken off the budget).
 */
#ifndef POL_ROTOR_TRACE_H
#define POL_ROTOR_TRACE_H

#include "gms_error.h"
#include "rotor.h"
#include "sim_layers.h"

/* The chain of iteration `it` of the layers' trace; *constant gets the bytes outside the
 * chain model. 0, GMS_EINVAL (an iteration without layers) or GMS_ENOMEM. */
int rotor_chain_from_trace(const sim_layers *layers, uint32_t it, rotor_chain **out,
                           uint64_t *constant, gms_error *err);

/* The rotor planner's steps for iteration `it` with `budget` bytes: the chain, the budget less
 * the constant, discretized into `slots` slots as Rotor does, the table, persistent(). *q gets
 * the sequence (its makespan is the program's predicted time); it is left empty when the
 * budget is unlimited (UINT64_MAX; *fits = 1) or when no persistent schedule fits, nothing
 * being left beside the constant included (*fits = 0). *chain (may be NULL) gets the chain in
 * bytes, to free. 0, or GMS_EINVAL / GMS_ENOMEM with err set. */
int rotor_trace_sequence(const sim_layers *layers, uint32_t it, uint64_t budget, uint32_t slots,
                         rotor_chain **chain, rotor_sequence *q, int *fits, gms_error *err);

#endif
