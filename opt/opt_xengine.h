/*
 * opt_xengine: the two-device program (issue 19 item 5), after XEngine (Schuler, Membarth,
 * Slusallek, ACM TACO 20(1), 2022; the authors' MIP builder is dfki-asr/xengine,
 * src/core/ilp_solver.cpp). Device 0 is the GPU, device 1 the host. Each device d has its own
 * Checkmate variables R[d,t,i], S[d,t,i], FREE_E[d,t,e], U[d,t,k] and its own memory budget;
 * stage t computes node t on exactly one device; a node may run on the host only when the
 * graph gives its `cost_host`; a value used on the device that does not hold it is copied over
 * the link (latency + bytes / bandwidth) and its time is added to the objective: total time =
 * compute on both devices + copies, run one after another (no overlap). docs/optimal.md, "Two
 * devices", says what is the authors' and what is ours (their quadratic copy term linearized,
 * frees counted per device only of what the device holds, a copy's bytes counted on the
 * reading device).
 *
 * Without any cost_host the host can hold and run nothing, and the program's optimum is
 * Checkmate's (tests/unit/opt/test_opt_xengine.c checks it on random graphs).
 */
#ifndef OPT_XENGINE_H
#define OPT_XENGINE_H

#include <stdint.h>

#include "link.h"
#include "opt_graph.h"
#include "opt_solver.h"

enum { OPT_XE_GPU = 0, OPT_XE_HOST = 1 };

/* A two-device schedule: per device, Checkmate's R and S (n x n, row t = stage t). */
typedef struct opt_xe_schedule {
    uint32_t n;
    uint8_t *R[2];
    uint8_t *S[2];
} opt_xe_schedule;

opt_xe_schedule *opt_xe_schedule_new(uint32_t n); /* all zero; NULL when out of memory */
void opt_xe_schedule_free(opt_xe_schedule *s);

/* What a two-device schedule costs and holds, by the program's own accounting. */
typedef struct opt_xe_eval {
    double compute[2];       /* ms of compute on each device */
    uint32_t transfers[2];   /* copies to each device (to the GPU: [OPT_XE_GPU]) */
    uint64_t transfer_bytes[2];
    double transfer_ms;      /* time of all copies, serial */
    double total_ms;         /* compute on both + copies */
    uint64_t peak[2];        /* activation bytes on each device (constants not included) */
} opt_xe_eval;

/* Checks s against the program's correctness constraints (each stage computes its node on
 * exactly one device, a host computation has a cost_host, checkpoints were kept or computed
 * on the same device, every input is on some device) and evaluates it. 0, or -1 with the
 * first violation in why (may be NULL). */
int opt_xe_evaluate(const opt_graph *g, const sim_link *link, const opt_xe_schedule *s,
                    opt_xe_eval *e, char *why, size_t len);

typedef struct opt_xe_request {
    uint64_t budget;       /* GPU bytes, constant_bytes included (they stay on the GPU) */
    uint64_t host_memory;  /* host bytes for activations; UINT64_MAX: unlimited */
    sim_link link;
    int relax;             /* the LP relaxation's bound alone */
    double time_limit;     /* seconds for the whole request; <= 0: none */
    const char *write_model; /* LP file of the program solved */
    int log;               /* solver log on stderr */
    int no_seed;           /* do not seed the MILP (opt_xengine.c: seed_start) */
} opt_xe_request;

typedef struct opt_xe_answer {
    opt_solve_status status;
    double objective;       /* total time (ms) of the schedule; the LP value when relax */
    double lower_bound;     /* the LP relaxation's value (ms); < 0 when not known */
    double solver_bound;    /* the best bound the MILP search proved; < 0 when none */
    double gap;             /* (objective - best bound) / objective; 0 when optimal */
    double seconds, lp_seconds;
    long nodes;             /* branch-and-bound nodes */
    int seeded;
    double seed_objective;
    const char *seed_kind;  /* "gpu-only" (Checkmate's answer) or "host-only" */
    int skipped_search;     /* too little time left for CBC's root LP: the seed is the answer */
    uint32_t host_capable;  /* nodes with a cost_host */
    uint32_t n_cols, n_rows; /* size of the program */
    opt_xe_schedule *schedule; /* OPTIMAL / FEASIBLE, not relax */
    opt_xe_eval eval;       /* of the schedule */
} opt_xe_answer;

/* Builds and solves the two-device program for g. 0 (the status says infeasible, and so
 * on), or an error (out of memory, a graph too large, the model file unwritable). */
int opt_xe_solve(const opt_graph *g, const opt_xe_request *rq, opt_xe_answer *a,
                 gms_error *err);
void opt_xe_answer_clear(opt_xe_answer *a);

/* The time (ms) one copy of `bytes` takes over the link (sim_link_copy_ns). */
double opt_xe_copy_ms(const sim_link *link, uint64_t bytes);

#endif
