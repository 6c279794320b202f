/*
 * opt_schedule: a schedule in Checkmate's matrix form and what the program says of it.
 *
 * Stage t computes node t, after recomputing what it needs. R[t][i] = 1: node i is computed
 * in stage t (nodes of a stage run in index order); S[t][i] = 1: node i's output is kept from
 * stage t - 1 into stage t (a checkpoint). Only i <= t (R) and i < t (S) can be 1 under the
 * full imposed schedule. Memory is the program's own accounting (docs/optimal.md, "The
 * program"): a stage starts with its checkpoints, each computed node adds its bytes, and after
 * node k the inputs i of k are freed when k was their last consumer computed in the stage and
 * i is not kept into the next stage (the authors' FREE_E).
 */
#ifndef OPT_SCHEDULE_H
#define OPT_SCHEDULE_H

#include <stdint.h>

#include "opt_graph.h"

typedef struct opt_schedule {
    uint32_t n;
    uint8_t *R; /* n x n, row t = stage t: R[t * n + i] */
    uint8_t *S;
} opt_schedule;

opt_schedule *opt_schedule_new(uint32_t n); /* all zero; NULL when out of memory */
void opt_schedule_free(opt_schedule *s);

/* 1 when the authors' FREE_E[t, (i, k)] is 1 in s: node k runs in stage t, i is not kept into
 * stage t + 1 and no consumer of i after k runs in stage t. */
int opt_schedule_frees(const opt_graph *g, const opt_schedule *s, uint32_t t, uint32_t i,
                       uint32_t k);

/* The schedule's total compute (ms): sum of R times cost. */
double opt_schedule_cost(const opt_graph *g, const opt_schedule *s);

/* The program's peak memory of s (bytes, activations only: constant_bytes not included). */
uint64_t opt_schedule_peak(const opt_graph *g, const opt_schedule *s);

/* 0 when s satisfies the program's correctness constraints, else -1 with the first violation
 * described in why (may be NULL). */
int opt_schedule_check(const opt_graph *g, const opt_schedule *s, char *why, size_t len);

/* Replaces R by the cheapest R that S allows (the authors' solve_r_opt): R[t][t] = 1, every
 * checkpoint new in stage t + 1 computed in stage t, and every input of a computed node
 * that is not a checkpoint computed too. */
void opt_schedule_solve_r(const opt_graph *g, opt_schedule *s);

/* Checkpoint-all: each node once, each output kept while a later node needs it. */
void opt_schedule_checkpoint_all(const opt_graph *g, opt_schedule *s);

/* A greedy schedule under an activation budget (bytes): stage by stage, keep what later
 * stages need and, while the stage's memory exceeds the budget, drop the kept output with the
 * least cost per byte (recomputing it where needed). 0, or -1 when even a stage that keeps
 * nothing exceeds the budget (s is then unspecified). The seed of the MILP and the yardstick
 * of the tests. */
int opt_schedule_greedy(const opt_graph *g, uint64_t budget, opt_schedule *s);

#endif
