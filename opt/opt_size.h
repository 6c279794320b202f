/*
 * opt_size: the size of Checkmate's program for a graph, counted before it is built, and the
 * `auto` coarsening that picks the finest graph the solver can take (issue 28, items 2, 4).
 *
 * The count follows opt_program_build's loops (R, S, U, FREE_E columns; correctness, edge,
 * hazard and memory rows) without allocating them; the test checks the count against the
 * built program. Memory = nonzeros x opt_solver_bytes_per_nonzero.
 */
#ifndef OPT_SIZE_H
#define OPT_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "opt_extract.h"
#include "opt_graph.h"
#include "sim.h"

typedef struct opt_size {
    uint64_t cols, rows, nonzeros;
    double bytes;        /* what the solver would need, nonzeros x bytes per nonzero */
    double lp_seconds;   /* a rough estimate of the LP relaxation's time (OPT_SIZE_LP_RATE) */
} opt_size;

/* Nonzeros per second of CPU Clp gets through on the LP relaxation, from the LPs measured on
 * the shared 2-core machine (docs/optimal.md: the unet log's outputs graph, 1.96 M nonzeros,
 * 21 to 77 s of CPU; resnet32's, 3.84 M, 152 to 388 s): a coarse guide, not a promise. */
#define OPT_SIZE_LP_RATE 25000.0

/* The most memory a solve may take (issue 28: no solve needs more than 8 GB). */
#define OPT_SIZE_MEMORY_CAP 8e9

/* The cap in force: OPT_SIZE_MEMORY_CAP, or the environment's GMS_OPT_MEMORY_CAP (bytes, a
 * number > 0; ignored otherwise), so a test can make a small graph "too big" (issue 28,
 * item 4) and a user with less memory can lower it. */
double opt_size_memory_cap(void);

/* Sizes the program of g. */
void opt_size_program(const opt_graph *g, opt_size *out);

/* The `auto` coarsening of t's iteration at budget (bytes): the outputs graph (the finest,
 * freed as the replay frees) when the budget holds its unconstrained peak (no solver needed),
 * or when its program fits OPT_SIZE_MEMORY_CAP and its LP is estimated to take at most a
 * quarter of time_limit (600 s when time_limit <= 0: "answers in minutes"); else the layer
 * graph. Deterministic (no free-memory probe), so a sweep's run key and its solution's agree.
 * *out gets the graph, *picked its coarsening, why a sentence saying what was picked and
 * why, and where the layer graph is infeasible at budget while the outputs graph is not, that
 * too. out may be NULL (the choice alone). 0 or as opt_graph_from_trace. */
int opt_graph_auto(const sim_trace *t, uint32_t iteration, uint64_t budget, double time_limit,
                   opt_graph **out, opt_coarsen *picked, char *why, size_t len, gms_error *err);

#endif
