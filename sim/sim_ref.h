/*
 * sim_ref: reads the reference table (../shared/reference/simrd-pareto.csv: simrd's results,
 * one row per log, policy, trial and budget ratio), for `gpumemsim sim --reference-table`
 * and the reference test. The file has a fixed header and no quoted fields.
 */
#ifndef SIM_REF_H
#define SIM_REF_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

typedef struct sim_ref_row {
    char *log, *model, *policy; /* log_file names a DTR log of the traces folder */
    int trial;                  /* the random policy's seed */
    double ratio;
    uint64_t budget, base_mem, base_compute;
    char status[16];            /* "ok", "oom" or "remat-limit" */
    int has_overhead;           /* the overhead field is empty unless the run finished */
    double overhead;            /* 0 when !has_overhead */
    uint64_t evictions, eager, remat, peak;
    double simrd_s;             /* simrd's recorded wall time */
} sim_ref_row;

/* Reads every row of the table at path into *rows (*n rows; free with sim_ref_free). 0, or
 * an error naming the file and line: GMS_EIO, GMS_EFORMAT (not the expected header, a row
 * without 15 fields, a field that is not a number), GMS_ENOMEM. */
int sim_ref_load(const char *path, sim_ref_row **rows, size_t *n, gms_error *err);
void sim_ref_free(sim_ref_row *rows, size_t n);

#endif
