/*
 * sim_ckpt_nest: checkpoints nested inside a unit's re-run (sim_plan.nested, sim/planner.h;
 * added for Rotor's persistent schedules, issue 29), for sim_ckpt.c only.
 *
 * A plan may name intervals of layers strictly inside its checkpointed units, forming a
 * laminar family (two intervals are disjoint or one holds the other). When a unit is re-run in
 * backward, the intervals directly inside it are checkpointed within the re-run, as
 * torch.utils.checkpoint called inside a checkpointed function is: such an interval holds what
 * it reads from before it, frees what it made and does not pass on at its end, and is itself
 * re-run (with the intervals directly inside it checkpointed the same way) when backward first
 * needs what it freed. This file knows the intervals and their tree; sim_ckpt.c acts on them.
 *
 * Unit ids: a top-level unit is its first layer (global index); the iteration's k-th nested
 * interval, in (first layer, larger first) order, is base + k.
 */
#ifndef SIM_CKPT_NEST_H
#define SIM_CKPT_NEST_H

#include <stdint.h>

#include "gms_error.h"

typedef struct sim_nest sim_nest;

/* Room for an iteration of up to max_layers layers (2 x max_layers intervals, the most a
 * laminar family of distinct nested intervals has). NULL when out of memory. */
sim_nest *sim_nest_new(uint32_t max_layers);
void sim_nest_free(sim_nest *t);

/* The iteration's intervals: layers l0 .. l0 + n - 1; flags[l] / unit_first[l] / unit_last[u]
 * the top-level units (global layer indices, as sim_ckpt.c keeps them); pairs: n_pairs
 * (first, last) layer indices relative to l0. GMS_EINVAL when an interval is empty, out of
 * the iteration, not inside one checkpointed unit, equal to its parent or crossing another
 * (err names it); 0 otherwise (n_pairs 0: no nesting). */
int sim_nest_set(sim_nest *t, uint32_t l0, uint32_t n, const uint8_t *flags,
                 const uint32_t *unit_first, const uint32_t *unit_last, const uint32_t *pairs,
                 uint32_t n_pairs, uint32_t base, gms_error *err);

/* Nested intervals set; 1 when id is one of them. */
uint32_t sim_nest_count(const sim_nest *t);
int sim_nest_is(const sim_nest *t, uint32_t id);
/* Nested interval id's layers (global). */
void sim_nest_layers(const sim_nest *t, uint32_t id, uint32_t *first, uint32_t *last);
/* Its state byte (sim_ckpt.c's UNIT_* values), 0 when the iteration starts. */
uint8_t *sim_nest_state(sim_nest *t, uint32_t id);
/* The nested intervals directly inside unit id (a top-level unit or a nested interval), in
 * layer order; *n gets how many. */
const uint32_t *sim_nest_children(const sim_nest *t, uint32_t id, uint32_t *n);

#endif
