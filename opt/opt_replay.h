/*
 * opt_replay: carries a solved Checkmate schedule out step by step, as explicit compute and
 * free steps over a resident set, and measures what it cost (issue 19, item 3).
 *
 * Stage t: the values resident must be exactly S[t] (the checkpoints); nodes with R[t][k] = 1
 * run in index order, each needing all its inputs resident; after node k, each input i of k
 * that the program frees there (the authors' FREE_E[t,(i,k)], opt_schedule_frees) is freed;
 * at the stage's end every value not kept into stage t + 1 is freed. Memory is counted in
 * bytes, constant_bytes included. Where the engine frees at other moments than the program
 * assumes is documented in docs/optimal.md ("Replaying a schedule").
 */
#ifndef OPT_REPLAY_H
#define OPT_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"
#include "opt_graph.h"
#include "opt_schedule.h"

typedef enum opt_step_kind {
    OPT_STEP_COMPUTE = 0,
    OPT_STEP_FREE = 1,
} opt_step_kind;

typedef struct opt_step {
    opt_step_kind kind;
    uint32_t stage, node;
    uint64_t resident; /* bytes resident after the step, constant_bytes included */
} opt_step;

typedef struct opt_replay {
    double compute;         /* ms: every compute step's cost */
    uint64_t peak;          /* bytes, constant_bytes included */
    uint32_t computes;      /* compute steps */
    uint32_t recomputes;    /* compute steps of a node computed before */
    uint32_t frees;         /* free steps */
    uint32_t duplicate_frees; /* old copies freed when a resident value was computed again */
    opt_step *steps;        /* every step, when asked for (opt_replay_run's keep_steps) */
    size_t n_steps;
} opt_replay;

/* Replays s on g into *out. keep_steps: also record every step. 0; GMS_EINVAL when s cannot
 * be carried out (a stage computing without an input resident, keeping a value not resident
 * or not computing its own node), said with the stage and node; GMS_ENOMEM. */
int opt_replay_run(const opt_graph *g, const opt_schedule *s, int keep_steps, opt_replay *out,
                   gms_error *err);
void opt_replay_clear(opt_replay *r);

#endif
