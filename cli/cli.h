/*
 * The gpumemsim command line: main.c dispatches to one function per subcommand, each in its
 * own cmd_<name>.c. A subcommand gets argv with argv[0] = its own name, prints its own --help,
 * and returns the process exit code: 0 success, 1 failure (message on stderr), 2 usage error.
 */
#ifndef CLI_H
#define CLI_H

#include <stdint.h>
#include <stdio.h>

int cmd_info(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_memcheck(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_optimal(int argc, char **argv);

/* --coarsen: "layers" or "none" (opt_extract.h's opt_coarsen). 0 or -1. */
int cli_parse_coarsen(const char *s, int *out);

/* Prints "gpumemsim CMD: message" to stderr (printf style). */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 when s is "-h" or "--help". */
int cli_is_help(const char *s);

/* Parses a byte count: "123", "1.5GiB", "800MB", "64k" (k/M/G/T = powers of 1000 when
 * followed by "B", powers of 1024 with "iB" or a bare letter). Returns 0 or -1 on bad text. */
int cli_parse_bytes(const char *s, uint64_t *out);

/* Parses a budget, with one meaning in every command: a plain number (0.4, 1.5) or a
 * percentage (40%) is a ratio of the trace's baseline peak memory, at most
 * CLI_MAX_BUDGET_RATIO; bytes need a unit (800MB, 3.2GiB, 123456789B). Sets exactly one of
 * *ratio (> 0) or *bytes (> 0). Returns 0, -1 on bad text, -2 for a plain number above
 * CLI_MAX_BUDGET_RATIO (most likely bytes written without a unit). */
#define CLI_MAX_BUDGET_RATIO 10.0
int cli_parse_budget(const char *s, double *ratio, uint64_t *bytes);
/* The message for a budget cli_parse_budget refused with rc, into buf. */
const char *cli_budget_error(const char *s, int rc, char *buf, size_t len);

/* Parses a --sample value: a count of storages (0 = all, exact) or "sqrt" (UINT32_MAX, as
 * SIM_SAMPLE_SQRT). Returns 0 or -1. */
int cli_parse_sample(const char *s, uint32_t *out);

/* Parses a duration with its unit: "20us", "1.5ms", "500ns", "0.2s" ("µs" too). A unit is
 * required (a bare number is refused: ns and us are both plausible). Returns 0 or -1. */
int cli_parse_duration(const char *s, uint64_t *ns);
/* The longest duration taken: these are per-op costs (real ones are microseconds), and a
 * million-op trace at 10 s each still keeps the simulated clock (ns, 64 bits) far from
 * overflowing. What a refused duration should have been, for every command's message. */
#define CLI_MAX_DURATION_NS 10000000000.0
#define CLI_DURATION_RANGE "expected a duration with a unit (500ns, 20us, 1.5ms), from 0 to 10s"

/* Parses a time limit in seconds: "60", "60s", "2m" / "2min"; > 0 and finite. 0 or -1. */
int cli_parse_seconds(const char *s, double *out);

/* --plugin-timeout S: seconds ("30", "30s", "2m") one plugin run may take, or 0 for no
 * limit; sets the limit for the process (plugin_isolate.h). 0, or 2 after printing
 * "gpumemsim CMD: ..." on a bad value. */
int cli_plugin_timeout(const char *cmd, const char *s);
/* The lines --help prints for it: sep follows the option, pad starts the next line. */
#define CLI_PLUGIN_TIMEOUT_HELP(sep, pad)                                                      \
    "  --plugin-timeout S" sep "seconds one run of a plugin policy may take; then it\n" pad   \
    "is killed and fails (default 600; 0 = no limit)\n"

/* Parses an iteration number (0, 1, ...; at most UINT32_MAX). 0 or -1. */
int cli_parse_iteration(const char *s, uint32_t *out);

/* Parses a relative band: "2%" or "0.02" (0 < band < 1). Returns 0 or -1. */
int cli_parse_band(const char *s, double *band);

/* The shortest decimal that reads back as d (what Python's repr prints), into buf, so that
 * overheads can be compared with the reference table as text. Returns buf. */
const char *cli_shortest_double(double d, char *buf, size_t len);

/* Formats bytes as "1.50 GiB" into buf; returns buf. */
const char *cli_format_bytes(uint64_t bytes, char *buf, size_t len);

#endif
