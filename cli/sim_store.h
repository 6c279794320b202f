/*
 * sim_store: `gpumemsim sim TRACE --policy P --budget B --db FILE` stores its run in FILE under
 * the key a sweep gives it (policy, params, budget bytes, remat limit, allocator), so that
 * `db runs` and `db gaps` see it and a later sweep skips it. The store is written by
 * sweep_run on a one-trace, one-policy, one-budget spec, so the key cannot drift from a
 * sweep's; the run is simulated once more for it (sim's own run is the one printed).
 */
#ifndef CLI_SIM_STORE_H
#define CLI_SIM_STORE_H

#include <stdint.h>

#include "gms_error.h"
#include "sim.h"

typedef struct sim_store_req {
    const char *db, *trace;
    const char *policy_id;  /* pol_id() of an eviction policy, or a planner's name */
    double ratio;           /* the budget as given: a ratio (> 0) ... */
    uint64_t bytes;         /* ... or bytes */
    unsigned seeds;         /* sim --seeds (1 = the one seed cfg->seed) */
    const char *allocator;  /* the memory model's name as given to --allocator */
    const char *alloc_conf; /* --alloc-conf, or NULL */
} sim_store_req;

/* Why sim cannot store its run with these options (an option a sweep has no key for), or
 * NULL. */
const char *sim_store_refusal(const sim_config *cfg, const char *kineto);

/* Stores the run (nothing when its key is stored already; *added says which). 0 or an error. */
int sim_store_run(const sim_store_req *q, const sim_config *cfg, int *added, gms_error *err);

#endif
