/*
 * rotor: the optimal persistent checkpointing schedule of a chain (Beaumont, Eyraud-Dubois,
 * Herrmann, Joly, Shilova, "Optimal checkpointing for heterogeneous chains: how to train deep
 * neural networks with limited memory", hal-02352969), as the authors' Rotor computes it:
 * gitlab.inria.fr/hiepacs/rotor, rotor/persistent.py (compute_table, persistent_rec,
 * persistent). Pure arithmetic on a chain; knows nothing of traces.
 *
 * The chain (the authors' Chain): stages 0..L-1 are layers, stage L is the loss.
 *   fw[i], bw[i]   forward and backward time of stage i (i = 0..L)
 *   cw[i]          size of x_i, layer i's input (and of its gradient delta_i), i = 0..L
 *   cbw[i]         size of xbar_i, layer i-1's output with everything its backward reads,
 *                  i = 1..L (cbw[0] unused)
 *   fwd_tmp[i], bwd_tmp[i]  temporaries of stage i's forward / backward
 * Memory is counted in slots (integers); rotor_discretize turns bytes into slots as Rotor does.
 * docs/planners.md ("rotor") states the memory model and how it differs from Checkmate's.
 */
#ifndef KNOBS_ROTOR_H
#define KNOBS_ROTOR_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

typedef struct rotor_chain {
    uint32_t length;     /* L */
    double *fw, *bw;     /* L + 1 each */
    uint64_t *cw, *cbw;  /* L + 1 each (bytes, or slots after rotor_discretize) */
    uint64_t *fwd_tmp, *bwd_tmp; /* L + 1 each */
} rotor_chain;

/* A chain of L layers, every array zeroed. NULL when out of memory. */
rotor_chain *rotor_chain_new(uint32_t length);
void rotor_chain_free(rotor_chain *c);

/* Rotor's discretization: unit = budget / slots (integer division, at least 1 byte) and every
 * size rounded up to whole units, so a schedule that fits in slots fits in bytes. The copy is
 * new; *unit gets the unit. NULL when out of memory. */
rotor_chain *rotor_discretize(const rotor_chain *c, uint64_t budget, uint32_t slots,
                              uint64_t *unit);

typedef enum rotor_op_kind {
    ROTOR_FWD_ENABLE = 0, /* ForwardEnable(i): run layer i keeping xbar_{i+1} */
    ROTOR_FWD_CHECK = 1,  /* ForwardCheck(i): run layer i keeping its input x_i, output x_{i+1} */
    ROTOR_FWD_NOGRAD = 2, /* ForwardNograd(i): run layer i keeping only its output x_{i+1} */
    ROTOR_BACKWARD = 3,   /* Backward(i) */
    ROTOR_LOSS = 4,       /* Loss(): the loss stage's forward and backward */
} rotor_op_kind;

typedef struct rotor_op {
    rotor_op_kind kind;
    uint32_t index;
} rotor_op;

typedef struct rotor_sequence {
    rotor_op *ops;
    size_t n, cap;
    double makespan; /* sum of the ops' times (the authors' Sequence.makespan) */
} rotor_sequence;

/* The optimal table for memory 0..mmax slots: compute_table. Opaque. */
typedef struct rotor_table rotor_table;

/* compute_table(chain, mmax) on a discretized chain. GMS_ENOMEM, or GMS_EINVAL when the table
 * would exceed max_bytes (said with its size and how to shrink it: fewer slots). */
int rotor_table_build(const rotor_chain *c, uint32_t mmax, size_t max_bytes, rotor_table **out,
                      gms_error *err);
void rotor_table_free(rotor_table *t);
/* Opt[m][i][l] (the makespan; INFINITY when nothing fits) and what[m][i][l]: 0 = chain
 * checkpoint (ForwardEnable), j > 0 = leaf checkpoint of length j. */
double rotor_table_opt(const rotor_table *t, uint32_t m, uint32_t i, uint32_t l);
uint32_t rotor_table_what(const rotor_table *t, uint32_t m, uint32_t i, uint32_t l);

/* persistent(chain, memory): the optimal persistent sequence for `memory` slots in all (x_0
 * included: the recursion gets memory - cw[0], as the authors' persistent). GMS_EINVAL when no
 * persistent schedule fits (err says the least memory to try) or memory <= cw[0]. */
int rotor_persistent(const rotor_chain *c, const rotor_table *t, uint32_t memory,
                     rotor_sequence *out, gms_error *err);
void rotor_sequence_clear(rotor_sequence *s);

/* The least memory (slots, x_0 included) for which the table has a schedule; UINT32_MAX when
 * none up to the table's mmax. */
uint32_t rotor_min_memory(const rotor_chain *c, const rotor_table *t);

/* The sequence's time on the chain (fw / bw of each op; Loss = fw[L] + bw[L]). */
double rotor_sequence_time(const rotor_chain *c, const rotor_sequence *s);

#endif
