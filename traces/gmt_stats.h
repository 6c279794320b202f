/*
 * gmt_stats: event statistics of a trace, accumulated one event at a time (constant memory
 * apart from the table of distinct op names and annotation kinds). Pure bookkeeping over
 * gmt_event values: no I/O, no simulation (baseline memory/compute come from sim/).
 */
#ifndef GMT_STATS_H
#define GMT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "gmt.h"

typedef struct gmt_stats gmt_stats;

/* A new, empty accumulator; NULL when out of memory. */
gmt_stats *gmt_stats_new(void);
void gmt_stats_free(gmt_stats *s);

/* Counts one event. Returns 0, or GMS_ENOMEM (the event is then not counted). Events of an
 * unknown kind are counted under kind 0. */
int gmt_stats_add(gmt_stats *s, const gmt_event *ev, gms_error *err);

uint64_t gmt_stats_events(const gmt_stats *s);
/* Events of kind k (k in 1..GMT_KIND_COUNT-1; 0 = unknown kinds). */
uint64_t gmt_stats_kind(const gmt_stats *s, gmt_kind k);
/* CALL + MUTATE events. */
uint64_t gmt_stats_ops(const gmt_stats *s);
/* Outputs of CALLs, and how many of them are views (alias_of >= 0). */
uint64_t gmt_stats_outputs(const gmt_stats *s);
uint64_t gmt_stats_views(const gmt_stats *s);
/* Layer scopes: how many began, and the deepest nesting reached (0 = no scopes). */
uint64_t gmt_stats_scopes(const gmt_stats *s);
uint64_t gmt_stats_scope_depth(const gmt_stats *s);
/* Sum of CONSTANT sizes (bytes). */
uint64_t gmt_stats_constant_bytes(const gmt_stats *s);

/* Distinct op names of CALL/MUTATE events, in order of first appearance, with their counts. */
size_t gmt_stats_op_names(const gmt_stats *s);
const char *gmt_stats_op_name_at(const gmt_stats *s, size_t i, uint64_t *count);

/* Distinct ANNOTATE texts ("START", "BACKWARD"...), in order of first appearance, with
 * their counts. */
size_t gmt_stats_annotations(const gmt_stats *s);
const char *gmt_stats_annotation_at(const gmt_stats *s, size_t i, uint64_t *count);

#endif
