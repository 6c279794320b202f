/*
 * sim_yardstick: `gpumemsim sim TRACE --policy P --budget B --db FILE` for a heuristic: the
 * run beside every exact Checkmate answer that FILE holds for the trace's content at the same
 * budget in bytes, with its gap to the optimum and to the LP bound (analysis/yardstick.h;
 * docs/optimal.md, "The yardstick"). The store is only read; an answer gets there from
 * `sim TRACE --policy checkmate --budget B --db FILE` or a sweep with checkmate.
 */
#ifndef SIM_YARDSTICK_H
#define SIM_YARDSTICK_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"
#include "sim.h"

typedef struct sim_yardstick_entry {
    char coarsen[16], status[16];
    uint32_t iteration, nodes;
    double time_limit, objective, lower_bound, compute; /* NAN / < 0 when not known */
} sim_yardstick_entry;

typedef struct sim_yardstick {
    const char *db;
    uint32_t iterations; /* the trace's iterations: 1 = the gaps compare like with like */
    uint64_t budget;
    sim_yardstick_entry *e;
    size_t n;
} sim_yardstick;

/* Reads the answers at (trace_path's content, budget) from the store db (which must exist).
 * 0 or an error (no such store, not a store, ...). */
int sim_yardstick_load(const char *db, const char *trace_path, const sim_trace *t,
                       uint64_t budget, sim_yardstick *y, gms_error *err);
void sim_yardstick_free(sim_yardstick *y);

/* `, "yardstick": {...}` for sim's JSON object (nothing when y is NULL). */
void sim_yardstick_print_json(const sim_yardstick *y, const char *trace, int run_ok,
                              double overhead);
/* Text lines for sim's report (nothing when y is NULL). */
void sim_yardstick_print_text(const sim_yardstick *y, const char *trace, int run_ok,
                              double overhead);

#endif
