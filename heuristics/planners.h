/*
 * planners: the checkpoint planners gpumemsim knows (sim/planner.h), by CLI name, and their
 * parameter strings. Adding a planner = one new file in heuristics/ + one line in
 * planner_registry.c (docs/developer.md, "Adding a policy"; catalog.h lists it everywhere).
 * They are chosen with --policy like eviction policies (docs/planners.md).
 */
#ifndef POL_PLANNERS_H
#define POL_PLANNERS_H

#include <stddef.h>

#include "gms_error.h"
#include "planner.h"

extern const sim_planner planner_ckpt_all;
extern const sim_planner planner_ckpt_sqrt;
extern const sim_planner planner_mimose;        /* mimose.c */
extern const sim_planner planner_mimose_static;
extern const sim_planner planner_rotor;         /* rotor.c */
extern const sim_planner planner_sac;           /* sac.c */
extern const sim_planner planner_ac_budget;     /* ac_budget.c */

/* The planner named `name`, or NULL. */
const sim_planner *planner_find(const char *name);
size_t planner_count(void);
const sim_planner *planner_at(size_t i);

/* --policy-args "K=V[,K=V...]" in canonical form, so that equal settings give equal run keys:
 * keys sorted, spaces around keys and values dropped, numbers written the shortest way that
 * reads back to the same double (5.0 -> 5, 1e3 -> 1000, 0.50 -> 0.5), other values as given.
 * NULL or "" -> "". Errors (an empty key or value, no '=', a repeated key, a character other
 * than [A-Za-z0-9_.-] in a key) name the offending part. *out is malloc'ed. */
int planner_params_canon(const char *args, char **out, gms_error *err);

/* For a planner's init: every key of the canonical `params` must be one of the NULL-ended
 * `known`; else an error naming the planner, the key and the known ones. */
int planner_params_check(const char *planner, const char *params, const char *const *known,
                         gms_error *err);
/* The value of `key` in canonical `params` as a double: 1 = found, 0 = absent, -1 = not a
 * number (err says so). */
int planner_param_double(const char *planner, const char *params, const char *key, double *out,
                         gms_error *err);

#endif
