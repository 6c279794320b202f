/* The run-key filter options shared by `db runs`, `db export` and `plot overhead`:
 *   --remat-limit L, --semantics S, --where KEY=VALUE (KEY: params, status, remat-limit,
 *   semantics). */
#ifndef FILTER_OPTS_H
#define FILTER_OPTS_H

#include "store.h"

/* Looks at argv[*i]: when it is a filter option, reads its value into f, advances *i past it
 * and returns 1; returns 0 when argv[*i] is no filter option, and 2 (after printing an error
 * naming cmd) when its value is bad. Values point into argv. */
int cli_filter_option(const char *cmd, int argc, char **argv, int *i, store_filter *f);

/* Help lines describing those options (for usage texts). */
extern const char cli_filter_help[];

#endif
