/*
 * sim_reftable: `gpumemsim sim --reference-table CSV`, replays every row of the reference
 * table (../shared/reference/simrd-pareto.csv: simrd's results) in one process, compares each
 * row field by field and prints a per-log, per-policy agreement table with the simulator's
 * CPU time next to simrd's recorded wall time. Used by scripts/compare-reference.sh and the
 * simulator benchmark.
 */
#ifndef CLI_SIM_REFTABLE_H
#define CLI_SIM_REFTABLE_H

typedef struct sim_reftable_opts {
    const char *csv;        /* the reference table */
    const char *traces_dir; /* where its log_file names are; NULL = CSV's ../traces/dtr-iclr21 */
    int rows;               /* print one CSV line per row (with our wall time) */
    int quiet;              /* no per-mismatch diffs */
    int repeat;             /* run the whole table this many times (timing); >= 1 */
} sim_reftable_opts;

/* Returns the process exit code: 0 all rows agree, 1 mismatches or errors (message printed). */
int sim_reftable_run(const char *cmd, const sim_reftable_opts *o);

#endif
