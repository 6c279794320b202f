/*
 * sim_extra: the runs 'gpumemsim sim' adds for --seeds (the overhead's distribution over
 * seeds: the median run, the range, the runs that stopped, and the mean only when every seed
 * finished) and --budget-band (the overhead at the budget x (1 - band) and x (1 + band), and
 * whether the prediction sits on a cliff), and their part of sim's JSON and text output.
 */
#ifndef SIM_EXTRA_H
#define SIM_EXTRA_H

#include "calibrate.h"
#include "sim.h"
#include "sim_peak.h"

typedef struct sim_extra {
    unsigned seeds;           /* >= 1 */
    double band;              /* relative, 0 = none; needs a finite budget */
    const sim_categories *cats; /* non-NULL: follow each run's peak (analysis/peak_run.h) */
    /* results */
    cal_summary center;       /* at the budget (center.median_run: the median seed's run) */
    double *each;             /* center's overhead per seed (NAN: stopped); sim_extra_free */
    uint64_t band_budget[2];
    cal_summary band_runs[2]; /* at budget x (1 - band), x (1 + band) */
    sim_peak peak;            /* with cats: the median seed's run's peak at the budget */
    sim_peak band_peak[2];    /* and at the band's edges (their median seeds' runs) */
} sim_extra;

/* A prediction whose mean overhead moves by more than this within the band is on a cliff. */
#define SIM_CLIFF 0.02

/* Runs cfg with x->seeds seeds, and at the band's edges when x->band > 0. 0 or an error. */
int sim_extra_run(const sim_trace *t, const sim_config *cfg, sim_extra *x, gms_error *err);
/* Appends the "seeds" and "budget_band" members (each only when asked for) to a JSON object
 * being printed on stdout (starts with ", "). */
void sim_extra_print_json(const sim_extra *x);
/* Prints the seeds and band lines of the text report. */
void sim_extra_print_text(const sim_extra *x);
/* Releases what sim_extra_run allocated. */
void sim_extra_free(sim_extra *x);

#endif
