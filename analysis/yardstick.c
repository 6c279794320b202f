/* yardstick: a heuristic run's gap to the optimum and the LP bound (see yardstick.h). */
#include "yardstick.h"

#include <math.h>
#include <string.h>

/* Gaps within this of zero are rounding (the objective is a sum of float costs), not a
 * heuristic beating the program. */
#define YS_EPS 1e-9

static int is_layers(const yardstick_solution *s)
{
    return s->coarsen && strcmp(s->coarsen, "layers") == 0;
}

void yardstick_gap_of(int run_ok, double overhead, const yardstick_solution *s,
                      yardstick_gap *g)
{
    g->opt_overhead = g->bound_overhead = g->gap_optimum = g->gap_bound = NAN;
    g->proven = 0;
    g->finding = NULL;
    if (!s)
        return;
    int scheduled = s->has_objective && s->status &&
                    (strcmp(s->status, "optimal") == 0 || strcmp(s->status, "feasible") == 0);
    int infeasible = s->status && strcmp(s->status, "infeasible") == 0;
    if (s->compute > 0 && scheduled && isfinite(s->objective)) {
        g->opt_overhead = s->objective / s->compute;
        g->proven = strcmp(s->status, "optimal") == 0;
    }
    if (s->compute > 0 && s->lower_bound >= 0 && isfinite(s->lower_bound))
        g->bound_overhead = s->lower_bound / s->compute;
    if (!run_ok) {
        if (scheduled)
            g->finding = "the heuristic failed where the program has a schedule";
        return;
    }
    if (infeasible) {
        g->finding = is_layers(s)
                         ? "the heuristic fits a budget where the layer-coarsened program is "
                           "infeasible (a layer node holds its outputs at once, and the "
                           "program frees later than the replay)"
                         : "the heuristic fits a budget where the program is infeasible (an "
                           "op's outputs are one node, held until the last reader of any; "
                           "graph --coarsen outputs frees as the replay does)";
        return;
    }
    if (isfinite(g->opt_overhead) && g->opt_overhead > 0)
        g->gap_optimum = overhead / g->opt_overhead - 1;
    if (isfinite(g->bound_overhead) && g->bound_overhead > 0)
        g->gap_bound = overhead / g->bound_overhead - 1;
    if (g->gap_bound < -YS_EPS)
        g->finding = is_layers(s) ? "below the LP bound of the layer-coarsened program, which "
                                    "is no bound for an op-level heuristic (coarser choices)"
                                  : "below the program's LP bound: the op-level graph holds an "
                                    "op's outputs until the last reader of any (graph "
                                    "--coarsen outputs frees as the replay does)";
    else if (g->gap_optimum < -YS_EPS)
        g->finding = is_layers(s) ? "beats the layer-coarsened optimum, which is no bound for "
                                    "an op-level heuristic (coarser choices)"
                                  : g->proven ? "beats the program's optimum: the op-level "
                                                "graph holds an op's outputs until the last "
                                                "reader of any (graph --coarsen outputs)"
                                              : "beats the best schedule the solver found "
                                                "within its time limit";
}
