/*
 * iter_log: the per-iteration reports of a planner run (sim/sim_plan_report.h) collected in
 * memory, for `sim --json` / text, the store and `plot iterations`. Pass iter_log_observe and
 * the log as sim_config.iteration_observer / iteration_ctx. Only the first run is kept (a log
 * reused for --seeds or --budget-band runs ignores what comes after iteration numbers restart).
 */
#ifndef ITER_LOG_H
#define ITER_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"

typedef struct iter_rec {
    uint32_t iteration;
    int64_t input_size;     /* -1 = unknown */
    sim_status status;
    uint64_t start_memory, peak_memory;
    double predicted_peak;  /* < 0 = none */
    int cache_hit;          /* -1, 0, 1 */
    uint64_t plan_ns, clock_ns, compute_ns, recompute_ns;
    uint32_t n_layers, n_checkpointed;
    char *plan;             /* names of the checkpointed layers, comma-separated */
} iter_rec;

typedef struct iter_log {
    iter_rec *recs;
    size_t n, cap;
    int closed;   /* a second run started: ignore it */
    int failed;   /* out of memory while logging (the log is then incomplete) */
} iter_log;

struct sim_iteration_report;
void iter_log_observe(void *ctx, const struct sim_iteration_report *r);
void iter_log_free(iter_log *l);

/* The overhead of a record: clock / compute (1 when compute is 0). */
double iter_rec_overhead(const iter_rec *r);

/* Appends `, "planner": {...}, "iterations": [...]` to a JSON object being printed on stdout
 * (summary figures from res). */
void iter_log_print_json(const iter_log *l, const sim_result *res);
/* A short text summary (a few lines). */
void iter_log_print_text(const iter_log *l, const sim_result *res);

#endif
