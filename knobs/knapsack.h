/*
 * knapsack: the three 0/1 knapsack solvers torch.compile's activation memory budget chooses
 * among (pytorch/pytorch torch/_functorch/_activation_checkpointing/knapsack.py:
 * greedy_knapsack, dp_knapsack; ilp_knapsack is scipy's milp, here an exact search). Items are
 * the values the partitioner may recompute; memory[i] their normalized sizes, runtime[i]
 * their estimated runtimes; a solver picks the items to SAVE (maximizing the saved runtime
 * within max_memory), the others are allowed to be recomputed.
 */
#ifndef KNOBS_KNAPSACK_H
#define KNOBS_KNAPSACK_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

/* save[i] = 1 for an item saved, 0 for one allowed to be recomputed. Each returns 0, or
 * GMS_ENOMEM / GMS_EINVAL (err says why); *value = the saved runtime the solver reports. */

/* greedy_knapsack: items by runtime / memory, largest first (a stable sort, so equal ratios
 * keep their order), each saved while it still fits. */
int knap_greedy(const double *memory, const double *runtime, size_t n, double max_memory,
                uint8_t *save, double *value, gms_error *err);

/* dp_knapsack: memory quantized to round(m * 10000) (round half to even, as Python's round),
 * a float32 table of the best saved runtime per quantized capacity, then backtracking from
 * the full capacity: an item is saved only where the table's value differs with and without
 * it, so a tie leaves it to be recomputed. A table over max_cells cells is refused. */
int knap_dp(const double *memory, const double *runtime, size_t n, double max_memory,
            size_t max_cells, uint8_t *save, double *value, gms_error *err);

/* The exact optimum (what ilp_knapsack's MILP returns): the largest saved runtime within
 * max_memory (with 1e-9 of feasibility tolerance, as a MILP solver has), by depth-first branch and bound over items sorted by ratio; ties between equal
 * optima are broken toward saving earlier items. n <= 64 for brute-force-sized checks and up
 * to any n in practice (it is exponential only in adversarial cases). */
int knap_exact(const double *memory, const double *runtime, size_t n, double max_memory,
               uint8_t *save, double *value, gms_error *err);

#endif
