/*
 * ac_partition: torch.compile's choice of what to save for backward under
 * torch._functorch.config.activation_memory_budget, replicated on an abstract joint graph
 * (pytorch/pytorch torch/_functorch/partitioners.py: choose_saved_values_set, solve_min_cut,
 * get_default_op_list, estimate_runtime's callers; config.py's defaults). Every rule in
 * ac_partition.c names the function it reproduces. docs/planners.md ("ac-budget") says what
 * is faithful and what a trace cannot express.
 *
 * The graph is the joint graph in execution order: forward nodes (required in forward), then
 * backward nodes; inputs (primals) are not nodes (see the docs: they are always resident and
 * never recomputed; the memory ratio's offset, their size, is 0 here). A node's users are
 * later nodes that read it.
 */
#ifndef KNOBS_AC_PARTITION_H
#define KNOBS_AC_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

typedef struct ac_node {
    const char *op;     /* the op's base name ("mm", "native_dropout"): decides its class */
    int backward;       /* 1: a backward node (required_bw); 0: forward (required_fw) */
    double size;        /* _size_of: bytes of its output */
    double runtime;     /* estimate_runtime */
    const uint32_t *users; /* later nodes reading it, ascending */
    uint32_t n_users;
    const uint32_t *args;  /* earlier nodes it reads (the reduction rule sums their sizes) */
    uint32_t n_args;
    int must_save;      /* node.meta["recompute"] == MUST_SAVE */
} ac_node;

typedef enum ac_solver { AC_SOLVER_DP = 0, AC_SOLVER_GREEDY = 1, AC_SOLVER_ILP = 2 } ac_solver;

/* How choose_saved_values_set returned. */
typedef enum ac_stage {
    AC_STAGE_INPUTS = 0,     /* budget 0: the inputs only */
    AC_STAGE_DEFAULT = 1,    /* budget 1, or the default cut already smallest */
    AC_STAGE_MORE_AGGR = 2,  /* the cut without three bans, its ratio < budget */
    AC_STAGE_AGGRESSIVE = 3, /* also without the allowlist ban, its ratio < budget */
    AC_STAGE_KNAPSACK = 4,   /* the knapsack over the banned nodes, then the final cut */
    AC_STAGE_NO_CANDIDATES = 5, /* no banned node may be recomputed: inputs + must-save */
} ac_stage;

typedef struct ac_choice {
    uint8_t *saved;       /* per node: 1 = saved for backward (caller-allocated, n) */
    ac_stage stage;
    double ratio;         /* get_mem_ratio of the answer */
    uint32_t candidates;  /* the knapsack's items (recomputable banned nodes) */
    uint32_t knap_saved;  /* of which the knapsack saved */
} ac_choice;

/* choose_saved_values_set(joint_graph, node_info, memory_budget). GMS_EINVAL for a budget
 * outside [0, 1] or a graph whose cut is unbounded, GMS_ENOMEM. */
int ac_choose_saved(const ac_node *nodes, uint32_t n, double budget, ac_solver solver,
                    ac_choice *out, gms_error *err);

/* The op classes of get_default_op_list, by base name (exposed for tests and docs). */
int ac_op_recomputable(const char *op);
int ac_op_compute_intensive(const char *op);
int ac_op_random(const char *op);
int ac_op_view(const char *op);
/* estimate_runtime under "flops": FlopCounterMode counts these ops only (others count 1). */
int ac_op_has_flops(const char *op);

#endif
