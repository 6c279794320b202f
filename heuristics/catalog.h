/*
 * catalog: every name that --policy / --policies accepts, in one list, so that
 * `sim --list-policies`, the unknown-policy messages of sim, sweep, fit, calibrate and the
 * Python module, and sweep's "all" agree on what exists. Three kinds:
 *   - eviction policies (registry.c: one line per policy), the heuristics DTR evicts with;
 *   - checkpoint planners (planner_registry.c: one line per planner), run with --policy too;
 *   - solved schedules (the `solved` table in catalog.c): an optimum computed by a solver
 *     (Checkmate's MILP via CBC) and replayed, a yardstick rather than a heuristic.
 * Adding one = its file + one line in its kind's table (docs/developer.md, "Adding a policy");
 * the catalog reads the tables, so nothing here changes.
 */
#ifndef POL_CATALOG_H
#define POL_CATALOG_H

#include <stddef.h>
#include <stdio.h>

#include "gms_error.h"

typedef enum {
    POL_KIND_EVICT = 1,   /* an eviction policy (registry.h) */
    POL_KIND_PLANNER = 2, /* a checkpoint planner (planners.h) */
    POL_KIND_SOLVED = 4,  /* a solved schedule (checkmate, checkmate-approx) */
} pol_kind;
#define POL_KIND_ANY (POL_KIND_EVICT | POL_KIND_PLANNER | POL_KIND_SOLVED)

typedef struct {
    const char *name;
    const char *description; /* one line; planners' start "planner: ", solved "solved: " */
    pol_kind kind;
} pol_entry;

/* All entries: eviction policies, then planners, then solved schedules, each in table order. */
size_t pol_catalog_count(void);
/* The i-th entry; 0, or -1 past the end. */
int pol_catalog_at(size_t i, pol_entry *out);
/* The kind of a built-in name; 0 when no entry has it. */
pol_kind pol_kind_of(const char *name);
/* "eviction policy", "checkpoint planner", "solved schedule". */
const char *pol_kind_label(pol_kind kind);

/* sim --list-policies: one line per entry, name then description. */
void pol_catalog_print(FILE *f);

/* The error for a --policy NAME a command cannot run. `kinds` are those the command runs
 * (plugins always count as eviction policies): a built-in name of another kind says what it is
 * and which commands run it; an unknown name lists the names of `kinds` and points at the rest
 * (`sim --list-policies`). Always returns GMS_EINVAL. */
int pol_refuse(const char *name, unsigned kinds, gms_error *err);

/* 1 when a sweep's "all" (its default --policies) takes this entry with the given memory
 * models: every eviction policy the models can run (address-aware ones only with a model that
 * has addresses); planners and solved schedules run only when named. */
int pol_in_all(const pol_entry *e, int have_addresses);

#endif
