/*
 * opt_lns: a large-neighbourhood search over Checkmate's program (issue 28, item 3), improving
 * a schedule where the whole program's LP does not finish in the time given.
 *
 * From the incumbent (the best seed), it frees a window of consecutive stages (opt_window.h:
 * every other variable fixed to the incumbent), solves that small MILP with the solver under a
 * short limit and a cutoff just below the incumbent's cost in the window, and keeps a better
 * solution once the whole schedule passes every check (correct, its peak under the program
 * within the budget, and replayed step by step within the budget: opt_replay.h). Windows
 * slide by half their width; a pass over the graph that improves nothing doubles the width;
 * the search stops at its deadline, or when a pass at the widest window improves nothing.
 * Windows where the incumbent recomputes nothing are skipped (nothing to gain). So the result
 * is never worse than the start and never over the budget.
 */
#ifndef OPT_LNS_H
#define OPT_LNS_H

#include <stdint.h>

#include "opt_graph.h"
#include "opt_schedule.h"

typedef struct opt_lns_opts {
    double seconds;        /* wall-clock time for the whole search (> 0) */
    uint32_t width;        /* first window width in stages (0: OPT_LNS_WIDTH) */
    uint32_t max_width;    /* widest window (0: the graph) */
    uint32_t depth;        /* input levels a window may recompute (0: OPT_LNS_DEPTH) */
    double window_seconds; /* the solver's limit per window (0: OPT_LNS_WINDOW_SECONDS) */
    double max_nonzeros;   /* a wider window whose program is larger ends the widening
                            * (0: OPT_LNS_MAX_NONZEROS) */
    int log;               /* one line per improving window on stderr */
    int whole_node_windows; /* a node window's nodes may be recomputed in every stage from
                             * its first (as before issue 28's follow-up; for comparison),
                             * not only where the incumbent computes or reads them
                             * (opt_window_quiet_stages) */
} opt_lns_opts;

#define OPT_LNS_WIDTH 8
#define OPT_LNS_DEPTH 2
#define OPT_LNS_WINDOW_SECONDS 10.0
#define OPT_LNS_MAX_NONZEROS 400000.0

typedef struct opt_lns_result {
    double start_cost, cost; /* ms: the incumbent's compute before and after */
    uint32_t windows;        /* window programs solved */
    uint32_t improved;       /* of those, accepted as a better schedule */
    uint32_t rejected;       /* solutions the checks refused (numerics) */
    uint32_t failed;         /* window solves that failed (the solver's process died, a fork
                              * failed): the incumbent stays, the search goes on */
    char last_failure[200];  /* the last one's message */
    uint32_t passes;
    uint32_t last_width;
    int converged;           /* stopped because nothing improved at the widest window */
    double seconds;
} opt_lns_result;

/* Improves inc in place (correct and within the activation budget act, bytes) for at most
 * o->seconds. 0, or GMS_ENOMEM; a window's solve that fails is counted (r->failed), not an
 * error: the incumbent is still an answer. */
int opt_lns_improve(const opt_graph *g, uint64_t act, opt_schedule *inc, const opt_lns_opts *o,
                    opt_lns_result *r, gms_error *err);

#endif
