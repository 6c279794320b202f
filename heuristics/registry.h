/*
 * The eviction policies gpumemsim knows, by CLI name: dtr, dtr-eq, dtr-local, lru, size, msps,
 * random, ... Adding a policy = one new file in heuristics/ + one line in registry.c; every
 * listing and message then knows it through catalog.h (docs/developer.md, "Adding a policy").
 */
#ifndef POL_REGISTRY_H
#define POL_REGISTRY_H

#include <stddef.h>

struct sim_policy;

/* The policy named `name`, or NULL. */
const struct sim_policy *pol_find(const char *name);
/* Number of policies and the i-th one (registry order), for listings. */
size_t pol_count(void);
const struct sim_policy *pol_at(size_t i);
/* CLI name and one-line description of a policy. */
const char *pol_name(const struct sim_policy *p);
const char *pol_description(const struct sim_policy *p);
/* 1 when the policy chooses victims by address (SIM_NEEDS_ADDRESSES): it needs a memory model
 * other than ideal. */
int pol_needs_addresses(const struct sim_policy *p);
/* 1 when the policy swaps to host memory (SIM_NEEDS_SWAP; docs/swap.md): the ideal model
 * only. */
int pol_swaps(const struct sim_policy *p);

#endif
