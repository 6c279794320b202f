/*
 * peak_report: where the peak is (sim/sim_peak.h), as info and sim print it: the peak's op and
 * phase, the resident bytes there by category, the largest op's footprint.
 */
#ifndef PEAK_REPORT_H
#define PEAK_REPORT_H

#include <jansson.h>

#include "sim.h"
#include "sim_peak.h"

/* Text lines, their labels padded to width columns (the categories' to at least 20); note
 * ends the first line (which run the peak is of, say). */
void peak_report_text(const sim_peak *p, int width, const char *note);
/* {"memory", "op_index", "op", "phase", "by_category": {key: bytes...}, "largest_op":
 * {"bytes", "op_index", "op"}}; NULL when out of memory. */
json_t *peak_report_json(const sim_peak *p);
/* The same for sim's runs, naming the run: "seed" (the median seed's with seeds > 1) and, with
 * seeds > 1, "median_of_seeds". Returned as compact JSON text to free, or NULL. */
char *peak_report_run_json(const sim_peak *p, uint64_t seed, unsigned seeds);

#endif
