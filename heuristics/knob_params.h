/*
 * knob_params: the --policy-args of the knob replicas (rotor, sac, ac-budget; issue 29),
 * parsed from the canonical string planner_params_canon makes. Pure (gms_error and
 * planner_params only), so a libFuzzer target drives it alone (tests/fuzz/fuzz_knob_params.c).
 * Every error names its planner and says what to give instead.
 */
#ifndef POL_KNOB_PARAMS_H
#define POL_KNOB_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

#define KNOB_ROTOR_SLOTS_DEFAULT 500
#define KNOB_ROTOR_SLOTS_MAX 100000
#define KNOB_SAC_MAX_OPS 64
#define KNOB_OP_NAME 96

/* rotor: slots (1..100000, default 500). */
int knob_rotor_params(const char *params, uint32_t *slots, gms_error *err);

typedef struct knob_sac_params {
    char ops[KNOB_SAC_MAX_OPS][KNOB_OP_NAME]; /* base names (knob_op_base) */
    uint32_t n_ops;
    int op_sac;     /* save the listed ops (else whole layers: layer SAC) */
    int mm_rule;    /* torchtitan: every second mm of a layer is recomputed */
    uint32_t every; /* checkpoint every N-th layer; 0: every layer */
} knob_sac_params;

/* sac: save=OP+OP+..., preset=torchtitan, every=N (docs/planners.md, "sac"). */
int knob_sac_params_parse(const char *params, knob_sac_params *out, gms_error *err);

typedef struct knob_acb_params {
    double budget;   /* 0..1 */
    int solver;      /* 0 dp, 1 greedy, 2 ilp (ac_solver's values) */
    int trace_costs; /* estimator=trace */
} knob_acb_params;

/* ac-budget: budget=0..1 (default 1), solver=dp|greedy|ilp, estimator=flops|trace. */
int knob_acb_params_parse(const char *params, knob_acb_params *out, gms_error *err);

/* An op's base name: after the last "::", without ".default" ("aten::mm.default" -> "mm"). */
void knob_op_base(const char *name, char *out, size_t len);

#endif
