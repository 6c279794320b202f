/*
 * graph: helpers for building small hand-made traces through the sim trace builder, and an
 * observer that records what a run did, for the sim and heuristics unit tests.
 */
#ifndef TEST_SIM_GRAPH_H
#define TEST_SIM_GRAPH_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gmt.h"
#include "registry.h"
#include "sim.h"

static inline void g_add(sim_trace_builder *b, const gmt_event *ev)
{
    gms_error err = {0};
    ck_assert_msg(sim_trace_builder_add(b, ev, &err) == 0, "%s", err.msg);
}

static inline void g_constant(sim_trace_builder *b, uint64_t id, uint64_t size)
{
    gmt_event ev;
    gmt_event_init(&ev, GMT_CONSTANT);
    ev.id = id;
    ev.size = size;
    g_add(b, &ev);
}

/* A CALL with several outputs (alias_of per output, -1 = new storage). */
static inline void g_call_multi(sim_trace_builder *b, const char *op, uint64_t cost,
                                const uint64_t *in, int n_in, const gmt_output *outs, int n_out)
{
    gmt_event ev;
    gmt_event_init(&ev, GMT_CALL);
    ev.op = op;
    ev.dur_ns = cost;
    ev.inputs = in;
    ev.n_inputs = (uint32_t)n_in;
    ev.outputs = outs;
    ev.n_outputs = (uint32_t)n_out;
    g_add(b, &ev);
}

/* A CALL with one new-storage output. in: n_in input ids. */
static inline void g_call(sim_trace_builder *b, const char *op, uint64_t cost, uint64_t out,
                          uint64_t size, int n_in, ...)
{
    uint64_t in[8];
    va_list ap;
    va_start(ap, n_in);
    for (int i = 0; i < n_in; i++)
        in[i] = va_arg(ap, uint64_t);
    va_end(ap);
    gmt_output o = {.id = out, .size = size, .alias_of = -1};
    g_call_multi(b, op, cost, in, n_in, &o, 1);
}

/* A view op: out is a view of `base` (alias_of 0). */
static inline void g_view(sim_trace_builder *b, const char *op, uint64_t cost, uint64_t out,
                          uint64_t base)
{
    gmt_output o = {.id = out, .size = 12345, .alias_of = 0};
    g_call_multi(b, op, cost, &base, 1, &o, 1);
}

static inline void g_mutate(sim_trace_builder *b, const char *op, uint64_t cost,
                            const uint64_t *in, int n_in, const uint32_t *mut, int n_mut)
{
    gmt_event ev;
    gmt_event_init(&ev, GMT_MUTATE);
    ev.op = op;
    ev.dur_ns = cost;
    ev.inputs = in;
    ev.n_inputs = (uint32_t)n_in;
    ev.mutated = mut;
    ev.n_mutated = (uint32_t)n_mut;
    g_add(b, &ev);
}

static inline void g_simple(sim_trace_builder *b, gmt_kind kind, uint64_t id, uint64_t src)
{
    gmt_event ev;
    gmt_event_init(&ev, kind);
    ev.id = id;
    ev.src = src;
    g_add(b, &ev);
}

static inline void g_release(sim_trace_builder *b, uint64_t id)
{
    g_simple(b, GMT_RELEASE, id, 0);
}

static inline void g_annotate(sim_trace_builder *b, const char *text)
{
    gmt_event ev;
    gmt_event_init(&ev, GMT_ANNOTATE);
    ev.text = text;
    g_add(b, &ev);
}

static inline sim_trace_builder *g_new(void)
{
    sim_trace_builder *b;
    gms_error err = {0};
    ck_assert_msg(sim_trace_builder_new(&b, &err) == 0, "%s", err.msg);
    return b;
}

static inline sim_trace *g_finish(sim_trace_builder *b)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_msg(sim_trace_builder_finish(b, &t, &err) == 0, "%s", err.msg);
    return t;
}

/* ------------------------------------------------------------------------------------------
 * Recording observer: a compact log like "C:f R:g E:3 X:4" (compute op f, remat op g,
 * policy eviction of storage 3, eager eviction of storage 4).
 */
typedef struct g_log {
    char text[4096];
    uint64_t max_memory;
} g_log;

static inline void g_observe(void *ctx, const sim_event *ev)
{
    g_log *l = ctx;
    char item[64];
    switch (ev->kind) {
    case SIM_EV_COMPUTE: snprintf(item, sizeof item, "C:%s ", ev->op); break;
    case SIM_EV_REMAT: snprintf(item, sizeof item, "R:%s ", ev->op); break;
    case SIM_EV_EVICT: snprintf(item, sizeof item, "E:%llu ", (unsigned long long)ev->storage); break;
    case SIM_EV_EVICT_EAGER:
        snprintf(item, sizeof item, "X:%llu ", (unsigned long long)ev->storage);
        break;
    default: snprintf(item, sizeof item, "?"); break;
    }
    if (ev->memory > l->max_memory)
        l->max_memory = ev->memory;
    size_t n = strlen(l->text);
    snprintf(l->text + n, sizeof l->text - n, "%s", item);
}

/* Runs t with cfg (which must run: sim_run's error fails the test); records into log when
 * not NULL (cfg's observer is then the log's). */
static inline sim_result g_run_cfg(const sim_trace *t, sim_config *cfg, g_log *log)
{
    if (log) {
        memset(log, 0, sizeof *log);
        cfg->observer = g_observe;
        cfg->observer_ctx = log;
    }
    sim_result r;
    gms_error err = {0};
    ck_assert_msg(sim_run(t, cfg, &r, &err) == 0, "%s", err.msg);
    return r;
}

/* Runs t with policy `pol` and budget; records into log when not NULL. */
static inline sim_result g_run(const sim_trace *t, const char *pol, uint64_t budget, g_log *log)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find(pol);
    ck_assert_msg(cfg.policy, "no policy %s", pol);
    cfg.budget = budget;
    return g_run_cfg(t, &cfg, log);
}

#endif
