/*
 * opt_replay: the schedule-replay engine (opt_replay.h). Kept apart from the default replay
 * (sim_run.c): it carries out a schedule someone else decided, it decides nothing.
 */
#include "opt_replay.h"

#include <stdlib.h>
#include <string.h>

typedef struct replay_state {
    const opt_graph *g;
    opt_replay *out;
    uint8_t *resident;
    uint8_t *computed_once;
    uint64_t used;
    size_t cap_steps;
    int keep_steps;
} replay_state;

static int record(replay_state *st, opt_step_kind kind, uint32_t stage, uint32_t node,
                  gms_error *err)
{
    if (st->used > st->out->peak)
        st->out->peak = st->used;
    if (!st->keep_steps)
        return 0;
    opt_replay *r = st->out;
    if (r->n_steps == st->cap_steps) {
        size_t cap = st->cap_steps ? 2 * st->cap_steps : 64;
        opt_step *p = realloc(r->steps, cap * sizeof *p);
        if (!p)
            return gms_error_set(err, GMS_ENOMEM, "replay: out of memory for %zu steps", cap);
        r->steps = p;
        st->cap_steps = cap;
    }
    r->steps[r->n_steps++] = (opt_step){kind, stage, node, st->used};
    return 0;
}

static int free_value(replay_state *st, uint32_t stage, uint32_t node, gms_error *err)
{
    st->resident[node] = 0;
    st->used -= st->g->nodes[node].bytes;
    st->out->frees++;
    return record(st, OPT_STEP_FREE, stage, node, err);
}

static const char *node_name(const opt_graph *g, uint32_t i)
{
    return g->nodes[i].name ? g->nodes[i].name : "";
}

/* Node k of stage t: its inputs must be resident; its output is allocated while they are
 * (the program's U[t,k] counts both). A value already resident is computed into a new
 * buffer and the old copy freed at once: the program instead keeps counting both copies
 * until the value's FREE_E (docs/optimal.md). */
static int compute(replay_state *st, const opt_schedule *s, uint32_t t, uint32_t k,
                   gms_error *err)
{
    const opt_graph *g = st->g;
    const opt_node *nd = &g->nodes[k];
    for (uint32_t j = 0; j < nd->n_inputs; j++)
        if (!st->resident[nd->inputs[j]])
            return gms_error_set(err, GMS_EINVAL,
                                 "replay: stage %u computes node %u (\"%s\") but its input %u "
                                 "(\"%s\") is not resident: the schedule is not correct",
                                 t, k, node_name(g, k), nd->inputs[j],
                                 node_name(g, nd->inputs[j]));
    opt_replay *r = st->out;
    r->computes++;
    r->recomputes += st->computed_once[k];
    st->computed_once[k] = 1;
    r->compute += nd->cost;
    st->used += nd->bytes;
    int rc = record(st, OPT_STEP_COMPUTE, t, k, err);
    if (rc)
        return rc;
    if (st->resident[k]) {
        st->used -= nd->bytes; /* the old copy */
        r->duplicate_frees++;
        r->frees++;
        if ((rc = record(st, OPT_STEP_FREE, t, k, err)))
            return rc;
    }
    st->resident[k] = 1;
    for (uint32_t j = 0; j < nd->n_inputs; j++) {
        uint32_t i = nd->inputs[j];
        if (st->resident[i] && opt_schedule_frees(g, s, t, i, k))
            if ((rc = free_value(st, t, i, err)))
                return rc;
    }
    return 0;
}

static int run_stage(replay_state *st, const opt_schedule *s, uint32_t t, gms_error *err)
{
    const opt_graph *g = st->g;
    uint32_t n = g->n;
    const uint8_t *r = s->R + (size_t)t * n, *keep = s->S + (size_t)t * n;
    for (uint32_t i = 0; i < n; i++)
        if (keep[i] && !st->resident[i])
            return gms_error_set(err, GMS_EINVAL,
                                 "replay: stage %u keeps node %u (\"%s\"), which is not "
                                 "resident: the schedule is not correct", t, i,
                                 node_name(g, i));
    if (!r[t])
        return gms_error_set(err, GMS_EINVAL,
                             "replay: stage %u does not compute its node %u (\"%s\")", t, t,
                             node_name(g, t));
    for (uint32_t k = 0; k <= t; k++)
        if (r[k]) {
            int rc = compute(st, s, t, k, err);
            if (rc)
                return rc;
        }
    /* the stage's end: what stage t + 1 does not keep goes */
    const uint8_t *next = t + 1 < n ? s->S + (size_t)(t + 1) * n : NULL;
    for (uint32_t i = 0; i < n; i++)
        if (st->resident[i] && !(next && next[i])) {
            int rc = free_value(st, t, i, err);
            if (rc)
                return rc;
        }
    return 0;
}

int opt_replay_run(const opt_graph *g, const opt_schedule *s, int keep_steps, opt_replay *out,
                   gms_error *err)
{
    memset(out, 0, sizeof *out);
    if (s->n != g->n)
        return gms_error_set(err, GMS_EINVAL, "replay: a schedule of %u stages for a graph "
                             "of %u nodes", s->n, g->n);
    replay_state st = {.g = g, .out = out, .keep_steps = keep_steps};
    st.resident = calloc((size_t)g->n + 1, 1);
    st.computed_once = calloc((size_t)g->n + 1, 1);
    st.used = g->constant_bytes;
    out->peak = st.used;
    int rc = 0;
    if (!st.resident || !st.computed_once)
        rc = gms_error_set(err, GMS_ENOMEM, "replay: out of memory for %u nodes", g->n);
    for (uint32_t t = 0; rc == 0 && t < g->n; t++)
        rc = run_stage(&st, s, t, err);
    free(st.resident);
    free(st.computed_once);
    if (rc)
        opt_replay_clear(out);
    return rc;
}

void opt_replay_clear(opt_replay *r)
{
    free(r->steps);
    memset(r, 0, sizeof *r);
}
