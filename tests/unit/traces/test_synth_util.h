/*
 * Helpers of the synth tests: a sink that replays the generated events with the spec's
 * infinite-budget (V1) rules while checking that the trace is well formed -- every handle an op
 * reads is live, every handle dies exactly once, nothing is left at the end -- and that every
 * op's duration is the documented roofline of its FLOPs and bytes.
 */
#ifndef TEST_SYNTH_UTIL_H
#define TEST_SYNTH_UTIL_H

#include <stdint.h>

#include "synth.h"

#define TS_MAX_ITER 64

typedef struct ts_replay {
    const gmt_synth_params *p;
    /* handle id -> storage index (-1 = not bound) */
    int64_t *bind;
    uint64_t n_bind;
    uint64_t *st_size;
    uint32_t *st_ref;
    uint64_t n_st, cap_st;
    uint64_t mem, peak;     /* V1 resident bytes (constants freed on release) */
    uint64_t events, ops, calls, mutates, constants, releases, names, views;
    uint64_t constant_bytes;
    uint64_t n_start, n_backward, n_iteration;
    int64_t iter_value[TS_MAX_ITER];
    int start_first;        /* the first event was ANNOTATE START */
    double flops, bytes;
    uint64_t dur;
    /* the first op named watch_op, for exact checks */
    const char *watch_op;
    int watch_seen;
    double watch_flops, watch_bytes;
    uint64_t watch_dur;
    uint64_t fused_mutates, fused_calls; /* optimizer ops (_fused_sgd_/_fused_adam_) */
    double mm_flops;        /* FLOPs of every addmm/mm/bmm/convolution(+backward) op */
    /* layer scopes: open names (innermost last), the begins seen, and every event in order
     * as "+name" / "-name" separated by spaces (the first 64 KiB) */
    char scope_open[32][128];
    uint32_t scope_depth;
    uint64_t scopes;
    char scope_log[1 << 16];
    char bad[512];          /* first problem found, "" if none */
} ts_replay;

void ts_replay_init(ts_replay *r, const gmt_synth_params *p);
void ts_replay_free(ts_replay *r);
/* gmt_synth_sink: ctx is a ts_replay. Never fails generation; problems land in r->bad. */
int ts_sink(void *ctx, const gmt_event *ev, const gmt_synth_opcost *cost, gms_error *err);
/* Checks at the end of the trace: no live handle, no resident byte. Sets r->bad. */
void ts_replay_finish(ts_replay *r);

/* Generates p into a fresh replay (ck_asserts generation succeeds and the trace is clean). */
void ts_generate(const gmt_synth_params *p, ts_replay *r, gmt_synth_totals *tot);

/* A scratch path under the build folder's temporary area ("synth-<name>"). */
void ts_path(char *buf, size_t len, const char *name);

#endif
