/*
 * opt_program: Checkmate's MILP (Jain et al., MLSys 2020) for one graph and budget, built as
 * the authors' ILPSolverGurobi builds it with the full imposed schedule (parasj/checkmate,
 * checkmate/core/solvers/gurobi_solver.py): stage t computes node t; binaries R[t,i], S[t,i],
 * FREE_E[t,e]; continuous U[t,k] in [0, budget]; minimize the sum of R[t,i] * cost_i subject
 * to their correctness constraints (S[t+1,i] <= S[t,i] + R[t,i]; R[t,v] <= R[t,u] + S[t,u]
 * for every edge), their FREE_E bounds through the hazard count and their memory recurrence
 * (U[t,0] = R[t,0] m_0 + sum_i S[t,i] m_i; U[t,k+1] = U[t,k] + R[t,k+1] m_{k+1} - sum of
 * m_i FREE_E[t,(i,k)]). Memory is divided by the gcd of the sizes and the budget, as theirs.
 *
 * What differs, and why it changes no optimum (docs/optimal.md, "The program"): variables the
 * full schedule fixes at 0 (R[t,i] for i > t, S[t,i] for i >= t) are not created, nor U[t,k]
 * for k > t and FREE_E[t,(i,k)] for k >= t, which only follow U[t,t] downwards once nothing
 * more runs in the stage; R[t,t] = 1 is a bound, not their sum row; no eps noise on the
 * costs (the optimum is exact, not perturbed). The LP relaxation is the same program with
 * every variable continuous in [0, 1], as their lower_bound_lp.py.
 *
 * The program is solver-neutral (columns, rows, a sparse matrix); opt_solver.h hands it to the
 * MILP solver.
 */
#ifndef OPT_PROGRAM_H
#define OPT_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "opt_graph.h"
#include "opt_schedule.h"

typedef struct opt_program {
    uint32_t n_cols, n_rows;
    double *col_lb, *col_ub, *obj;
    uint8_t *col_int;   /* 1: binary */
    double *row_lb, *row_ub;
    /* the matrix, row by row: row r's entries are [row_start[r], row_start[r+1]) */
    size_t *row_start;
    uint32_t *ent_col;
    double *ent_val;
    size_t n_ent;
    double obj_offset;  /* constant part of the objective (none today: R[t,t] are columns) */
    /* layout */
    uint32_t n;               /* nodes */
    uint32_t r_base, s_base, u_base, f_base;
    uint32_t *f_stage_off;    /* n + 1: FREE_E[t, e] for edges e with v_e < t */
    double ram_unit;          /* bytes per memory unit (the gcd) */
    double budget_units;      /* activation budget / ram_unit */
    int integral;
    char **col_names;         /* NULL, or each column's name (another program's layout,
                               * opt_xengine.c); freed with the program */
} opt_program;

/* Column indices (callers keep i <= t for R and U, i < t for S, edge v < t for FREE). */
static inline uint32_t opt_col_R(const opt_program *p, uint32_t t, uint32_t i)
{
    return p->r_base + (uint32_t)((uint64_t)t * (t + 1) / 2) + i;
}
static inline uint32_t opt_col_S(const opt_program *p, uint32_t t, uint32_t i)
{
    return p->s_base + (uint32_t)((uint64_t)t * (t - 1) / 2) + i;
}
static inline uint32_t opt_col_U(const opt_program *p, uint32_t t, uint32_t k)
{
    return p->u_base + (uint32_t)((uint64_t)t * (t + 1) / 2) + k;
}

/* Builds the program for g under an activation budget (bytes; constant_bytes already taken
 * off). integral 0: the LP relaxation. tighten: our extension (docs/optimal.md, "Tightened"):
 * the authors' aggregated bound maxh (1 - FREE_E) >= hazards is replaced by one inequality per
 * hazard (FREE_E <= R[t,k], FREE_E <= 1 - S[t+1,i], FREE_E <= 1 - R[t,j]), which imply it, and
 * FREE_E is continuous: for integral R and S these force FREE_E to the same 0 or 1, so the
 * integer optimum is the authors', while the LP relaxation is tighter. 0, GMS_ENOMEM or
 * GMS_EINVAL (a graph too large for the index range, said so). */
int opt_program_build(const opt_graph *g, uint64_t budget, int integral, int tighten,
                      opt_program **out, gms_error *err);
void opt_program_free(opt_program *p);

/* A column's name after the authors' (R[t,i] and so on, in LP-format spelling): R_t_i,
 * S_t_i, U_t_k, FREE_E_t_e. */
void opt_program_col_name(const opt_program *p, const opt_graph *g, uint32_t col, char *buf,
                          size_t len);

/* The binary part of a MIP start for schedule s: values of every R, S and FREE_E column into
 * x (n_cols long; U left 0). */
void opt_program_start(const opt_program *p, const opt_graph *g, const opt_schedule *s,
                       double *x);

/* Reads a solution x back into s: S[t,i] = x >= s_threshold (0.5 for a MILP solution, the
 * sweep's thresholds for the LP rounding) and R[t,i] = x >= 0.5; prune: R instead the
 * cheapest R that S allows (opt_schedule_solve_r), as the authors prune R after solving. */
void opt_program_schedule(const opt_program *p, const opt_graph *g, const double *x,
                          double s_threshold, int prune, opt_schedule *s);

/* Writes p as an LP-format file (CPLEX LP, read by CBC, Gurobi, HiGHS, GLPK) to path,
 * whole or not at all. 0, GMS_EIO or GMS_ENOMEM. */
int opt_program_write_lp(const opt_program *p, const opt_graph *g, const char *path,
                         gms_error *err);

#endif
