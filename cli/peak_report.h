/*
 * peak_report: where the peak is (sim/sim_peak.h), as info and sim print it: the peak's op and
 * phase, the resident bytes there by category, the largest op's footprint.
 */
#ifndef PEAK_REPORT_H
#define PEAK_REPORT_H

#include <jansson.h>

#include "sim.h"
#include "sim_peak.h"

/* Text lines, their labels padded to width columns (the categories' to at least 20). */
void peak_report_text(const sim_peak *p, int width);
/* {"memory", "op_index", "op", "phase", "by_category": {key: bytes...}, "largest_op":
 * {"bytes", "op_index", "op"}}; NULL when out of memory. */
json_t *peak_report_json(const sim_peak *p);

/* Follows one run's peak through its observer, passing every event on to the observer cfg
 * had (perfetto's, say). */
typedef struct peak_follow {
    sim_categories *cats;
    sim_peak_tracker *tracker;
    sim_observer next;
    void *next_ctx;
} peak_follow;
/* Installs the follower as cfg's observer. 0, or an error code (err set). */
int peak_follow_start(peak_follow *f, const sim_trace *t, sim_config *cfg, gms_error *err);
void peak_follow_result(const peak_follow *f, sim_peak *out);
void peak_follow_free(peak_follow *f);

#endif
