/*
 * opt_window: Checkmate's program over a window of consecutive stages, every other variable
 * fixed to an incumbent schedule (issue 28, item 3: the large-neighbourhood search of
 * opt_lns.h).
 *
 * Stages a .. b-1 are free; the checkpoints into stage a (S[a]) and into stage b (S[b]) are the
 * incumbent's, so the stages outside the window keep their memory and correctness exactly,
 * and any solution of the window program put into the incumbent is a schedule of the whole
 * program. The program is built over the window alone (its columns are those of the window's
 * stages), so its size does not grow with the graph: it also improves schedules of graphs
 * whose whole program is too big to build.
 *
 * Inside the window only the free nodes' R and S are variables; every other node keeps the
 * incumbent's values there. Two neighbourhoods use it (opt_lns.c): a few consecutive stages
 * with every node they could touch free (opt_window_stage_nodes), and a few consecutive nodes
 * free over every stage from their own on, which can change what is kept across the long
 * stretch from a forward node to its backward reader; in a node window the stages where the
 * incumbent neither computes nor reads a free node are quiet (opt_window_quiet_stages): the
 * free nodes' R stay the incumbent's there, their S stay free, so the program grows with the
 * stages that matter to the window, not with the graph. The rows are the tightened program's
 * (opt_program.h, tighten): the same integer solutions, a tighter LP. Memory is in units of
 * the budget, as the whole program's.
 */
#ifndef OPT_WINDOW_H
#define OPT_WINDOW_H

#include <stdint.h>

#include "opt_program.h"
#include "opt_schedule.h"

typedef struct opt_window {
    opt_program *p;     /* the window's MILP (only n_cols .. integral and the matrix are set) */
    uint32_t a, b;      /* free stages [a, b) */
    uint32_t n_nodes;   /* the free nodes, ascending */
    uint32_t *nodes;
    /* per free stage t (row t - a) and node slot j: the column of R[t, nodes[j]] and of
     * S[t, nodes[j]], or UINT32_MAX (fixed to the incumbent's value) */
    uint32_t *r_col, *s_col;
    double incumbent_cost; /* the incumbent's compute of the free R (ms) */
} opt_window;

/* Builds the program of stages [a, b) (a < b <= g->n) with the nodes free[i] != 0 free,
 * around the incumbent inc, which must be correct and fit the activation budget act (bytes).
 * quiet (b - a bytes, or NULL): stages where the free nodes' R stay the incumbent's (their S
 * stay free: a node window keeps its choice of what is kept across them), so the program
 * has no columns for what runs there and one memory row per node that runs; the other rows
 * of such a stage that hold nothing free are left out. 0, GMS_EINVAL (an empty window),
 * GMS_ENOMEM. */
int opt_window_build(const opt_graph *g, const opt_schedule *inc, uint64_t act, uint32_t a,
                     uint32_t b, const uint8_t *free_nodes, const uint8_t *quiet,
                     opt_window **out, gms_error *err);

/* The quiet stages of a window (issue 28's follow-up: the ResNet-50 ET's node windows spanned
 * up to 2,052 stages, over the size cap): quiet[t - a] = 1 for each stage t of [a, b) where
 * inc computes no free node and no node that reads one, and t's own node is not free nor
 * reads one. A window then recomputes its nodes only where inc computes or reads them (the
 * stages where recomputing can save: elsewhere nothing needs them), and decides what it keeps
 * everywhere. */
void opt_window_quiet_stages(const opt_graph *g, const opt_schedule *inc, uint32_t a,
                             uint32_t b, const uint8_t *free_nodes, uint8_t *quiet);

/* The stage neighbourhood's free nodes into free (g->n bytes): the stages' own nodes, what
 * inc computes or keeps in stages [a, b] and their inputs, depth levels deep. */
void opt_window_stage_nodes(const opt_graph *g, const opt_schedule *inc, uint32_t a, uint32_t b,
                            uint32_t depth, uint8_t *free_nodes);

void opt_window_free(opt_window *w);

/* The incumbent as a MIP start of the window program (x: w->p->n_cols values; FREE_E and U
 * left 0, the solver derives them). */
void opt_window_start(const opt_window *w, const opt_graph *g, const opt_schedule *inc,
                      double *x);

/* Writes the window's R and S of solution x into s (a copy of the incumbent): stages [a, b),
 * S from stage a + 1 on. */
void opt_window_apply(const opt_window *w, const opt_graph *g, const double *x,
                      opt_schedule *s);

#endif
