/*
 * policies: the policy objects defined in heuristics/ (one file each), for registry.c and
 * the tests. Everything else finds them by name through registry.h.
 */
#ifndef POL_POLICIES_H
#define POL_POLICIES_H

#include "policy.h"

extern const sim_policy pol_dtr;
extern const sim_policy pol_dtr_eq;
extern const sim_policy pol_dtr_local;
extern const sim_policy pol_lru;
extern const sim_policy pol_size;
extern const sim_policy pol_msps;
extern const sim_policy pol_random;
extern const sim_policy pol_coop;
extern const sim_policy pol_dtr_frag;
extern const sim_policy pol_dtr_proto;
extern const sim_policy pol_dtr_proto_all;
extern const sim_policy pol_swap_lru;
extern const sim_policy pol_hybrid;
extern const sim_policy pol_hybrid_mix;
extern const sim_policy pol_capuchin;
extern const sim_policy pol_autoswap;

#endif
