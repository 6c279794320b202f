/*
 * Helpers shared by the analysis subcommands (sweep, db, plot): comma lists and output files
 * that appear whole or not at all.
 */
#ifndef CLI_ANALYSIS_UTIL_H
#define CLI_ANALYSIS_UTIL_H

#include <stddef.h>
#include <stdio.h>

/* Splits "a,b,c" into a NULL-terminated array of fresh strings (empty items are an error).
 * Returns 0, or -1 on bad text or out of memory. Free with cli_list_free. */
int cli_list_split(const char *text, char ***items, size_t *n);
void cli_list_free(char **items);

/* Parses a --remat-limit value: a number in [1, 1e6], or 0 for no limit (as sim takes it).
 * Returns 0, or -1 on bad text. */
int cli_parse_remat_limit(const char *s, double *out);

/* An output file written to a temporary name beside the target and renamed into place on
 * cli_outfile_commit, so a failed command never leaves a partial file. */
typedef struct cli_outfile {
    FILE *f;
    char *tmp;
    const char *path;
} cli_outfile;

/* Returns 0 or -1 (message printed as "gpumemsim CMD: ..."). */
int cli_outfile_open(cli_outfile *o, const char *cmd, const char *path);
int cli_outfile_commit(cli_outfile *o, const char *cmd);
/* Removes the temporary file (after a failure). */
void cli_outfile_abort(cli_outfile *o);

#endif
