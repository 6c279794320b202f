/*
 * swap_opts: the swapping options shared by sim and sweep (--link, --host-memory), their
 * checks against the trace and policy, and how runs report them (docs/swap.md).
 */
#ifndef CLI_SWAP_OPTS_H
#define CLI_SWAP_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "link.h"
#include "sim.h"

typedef struct swap_opts {
    const char *link;     /* --link text, NULL = default */
    const char *host;     /* --host-memory text, NULL = unlimited */
} swap_opts;

/* Parses the options alone (also for `optimal`'s two-device program): *link and *host are
 * set only for the options given. On bad text prints an error for cmd and returns 2. */
int swap_opts_parse(const char *cmd, const swap_opts *o, sim_link *link, uint64_t *host);

/* Fills cfg's link and host memory from the options. On bad text prints an error for cmd and
 * returns 2. */
int swap_opts_apply(const char *cmd, const swap_opts *o, sim_config *cfg);

/* Checks the options against the run: a non-swapping policy with --link/--host-memory, or host
 * memory smaller than every tensor the trace could swap. Prints an error and returns 2. */
int swap_opts_check(const char *cmd, const swap_opts *o, const sim_config *cfg,
                    const sim_trace *t);

/* The engine parameters for a run key's params: "" when the policy does not swap, else
 * "link=31.5GBps/10000ns" plus ",host=BYTES" when host memory is limited. */
void swap_opts_params(const sim_config *cfg, char *buf, size_t len);

/* ", \"swap\": {...}" for sim --json (nothing when the policy does not swap). */
void swap_opts_print_json(const sim_config *cfg, const sim_result *r);
/* Text lines for sim (nothing when the policy does not swap). */
void swap_opts_print_text(const sim_config *cfg, const sim_result *r);

#endif
