/*
 * sim_plan_report: what a planner run (sim_config.planner) reports per training iteration,
 * through sim_config.iteration_observer, for `sim --json`, the store and `plot iterations`.
 */
#ifndef SIM_PLAN_REPORT_H
#define SIM_PLAN_REPORT_H

#include <stdint.h>

#include "sim.h"

struct sim_layers;

typedef struct sim_iteration_report {
    uint32_t iteration;        /* 0-based */
    int64_t input_size;        /* -1 = the trace does not say */
    sim_status status;         /* SIM_OK, or why the run stopped inside this iteration */
    uint64_t start_memory;     /* resident bytes when it started */
    uint64_t peak_memory;      /* its peak resident bytes (so far, when it stopped) */
    double predicted_peak;     /* the planner's, < 0 = none */
    int cache_hit;             /* -1 = no cache, 0 = miss, 1 = hit */
    uint64_t plan_ns;          /* wall time of the planner's plan call */
    uint64_t clock_ns;         /* simulated time the iteration took */
    uint64_t compute_ns;       /* its ops' own compute (the baseline) */
    uint64_t recompute_ns;     /* compute spent re-running checkpointed layers */
    /* The plan: layer i of the iteration is sim_layers_at(layers, first_layer + i) and was
     * checkpointed when checkpoint[i] != 0. */
    const struct sim_layers *layers;
    uint32_t first_layer, n_layers;
    const uint8_t *checkpoint;
    uint32_t n_checkpointed;
} sim_iteration_report;

/* The name of layer i (< n_layers) of the report's iteration ("h.3", "segment.J"), for
 * programs linking the library, which do not see sim_layers; it lives with the run. */
const char *sim_iteration_report_layer(const sim_iteration_report *r, uint32_t i);

#endif
