#include "test_synth_util.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ts_replay_init(ts_replay *r, const gmt_synth_params *p)
{
    memset(r, 0, sizeof *r);
    r->p = p;
}

void ts_replay_free(ts_replay *r)
{
    free(r->bind);
    free(r->st_size);
    free(r->st_ref);
    memset(r, 0, sizeof *r);
}

static void problem(ts_replay *r, const char *fmt, unsigned long long a, const char *s)
{
    if (r->bad[0])
        return;
    char msg[256];
    snprintf(msg, sizeof msg, fmt, a);
    snprintf(r->bad, sizeof r->bad, "event %llu (%.200s): %s", (unsigned long long)r->events,
             s ? s : "-", msg);
}

/* Makes id addressable in r->bind. */
static void bind_room(ts_replay *r, uint64_t id)
{
    if (id < r->n_bind)
        return;
    uint64_t n = r->n_bind ? r->n_bind : 1024;
    while (n <= id)
        n *= 2;
    r->bind = realloc(r->bind, n * sizeof *r->bind);
    ck_assert_ptr_nonnull(r->bind);
    for (uint64_t i = r->n_bind; i < n; i++)
        r->bind[i] = -1;
    r->n_bind = n;
}

static int64_t storage_new(ts_replay *r, uint64_t size)
{
    if (r->n_st == r->cap_st) {
        r->cap_st = r->cap_st ? r->cap_st * 2 : 1024;
        r->st_size = realloc(r->st_size, r->cap_st * sizeof *r->st_size);
        r->st_ref = realloc(r->st_ref, r->cap_st * sizeof *r->st_ref);
        ck_assert(r->st_size && r->st_ref);
    }
    r->st_size[r->n_st] = size;
    r->st_ref[r->n_st] = 1;
    r->mem += size;
    if (r->mem > r->peak)
        r->peak = r->mem;
    return (int64_t)r->n_st++;
}

static void storage_unref(ts_replay *r, int64_t s)
{
    if (--r->st_ref[s] == 0)
        r->mem -= r->st_size[s];
}

/* Storage bound to a live handle id, or -1 (and a problem). */
static int64_t live(ts_replay *r, uint64_t id, const char *what)
{
    if (id >= r->n_bind || r->bind[id] < 0) {
        problem(r, "reads handle %llu, which is not live", (unsigned long long)id, what);
        return -1;
    }
    return r->bind[id];
}

/* Binds a new handle (must be unbound). */
static void bind_new(ts_replay *r, uint64_t id, int64_t s, const char *what)
{
    bind_room(r, id);
    if (r->bind[id] >= 0)
        problem(r, "handle %llu is bound twice", (unsigned long long)id, what);
    r->bind[id] = s;
}

static int is_matmul(const char *op)
{
    return strcmp(op, "addmm") == 0 || strcmp(op, "mm") == 0 || strcmp(op, "bmm") == 0 ||
           strncmp(op, "convolution", 11) == 0 || strncmp(op, "conv_transpose2d", 16) == 0;
}

int ts_sink(void *ctx, const gmt_event *ev, const gmt_synth_opcost *cost, gms_error *err)
{
    ts_replay *r = ctx;
    gms_error verr;
    if (gmt_event_validate(ev, &verr) != 0)
        problem(r, "fails gmt_event_validate%.0llu", 0, verr.msg);
    if (r->events == 0)
        r->start_first = ev->kind == GMT_ANNOTATE && strcmp(ev->text, "START") == 0;
    switch (ev->kind) {
    case GMT_CONSTANT:
        r->constants++;
        r->constant_bytes += ev->size;
        bind_new(r, ev->id, storage_new(r, ev->size), "CONSTANT");
        break;
    case GMT_CALL:
    case GMT_MUTATE: {
        r->ops++;
        int64_t in_st[16];
        if (ev->n_inputs > 16)
            problem(r, "%llu inputs", ev->n_inputs, ev->op);
        for (uint32_t i = 0; i < ev->n_inputs && i < 16; i++)
            in_st[i] = live(r, ev->inputs[i], ev->op);
        if (!cost) {
            problem(r, "op without a cost%.0llu", 0, ev->op);
            break;
        }
        uint64_t want = cost->host_copy ? gmt_synth_h2d_cost_ns(r->p->gpu, cost->bytes)
                                        : gmt_synth_cost_ns(r->p->gpu, r->p->dtype, cost->flops,
                                                            cost->bytes);
        if (ev->dur_ns != want)
            problem(r, "dur %llu is not the roofline", (unsigned long long)ev->dur_ns, ev->op);
        r->flops += cost->flops;
        r->bytes += cost->bytes;
        r->dur += ev->dur_ns;
        if (strncmp(ev->op, "_fused_", 7) == 0) {
            if (ev->kind == GMT_MUTATE)
                r->fused_mutates++;
            else
                r->fused_calls++;
        }
        if (is_matmul(ev->op))
            r->mm_flops += cost->flops;
        if (r->watch_op && !r->watch_seen && strcmp(ev->op, r->watch_op) == 0) {
            r->watch_seen = 1;
            r->watch_flops = cost->flops;
            r->watch_bytes = cost->bytes;
            r->watch_dur = ev->dur_ns;
        }
        if (r->bad[0])
            break;
        if (ev->kind == GMT_CALL) {
            r->calls++;
            for (uint32_t o = 0; o < ev->n_outputs; o++) {
                const gmt_output *out = &ev->outputs[o];
                int64_t s;
                if (out->alias_of >= 0) {
                    r->views++;
                    s = in_st[out->alias_of];
                    r->st_ref[s]++;
                } else {
                    s = storage_new(r, out->size);
                }
                bind_new(r, out->id, s, ev->op);
            }
        } else {
            r->mutates++;
            for (uint32_t m = 0; m < ev->n_mutated; m++) {
                uint64_t id = ev->inputs[ev->mutated[m]];
                int64_t old = r->bind[id];
                r->bind[id] = storage_new(r, r->st_size[old]);
                storage_unref(r, old);
            }
        }
        break;
    }
    case GMT_RELEASE: {
        r->releases++;
        int64_t s = live(r, ev->id, "RELEASE");
        if (s >= 0) {
            storage_unref(r, s);
            r->bind[ev->id] = -1;
        }
        break;
    }
    case GMT_ANNOTATE:
        if (strcmp(ev->text, "START") == 0)
            r->n_start++;
        else if (strcmp(ev->text, "BACKWARD") == 0)
            r->n_backward++;
        else if (strcmp(ev->text, "iteration") == 0) {
            if (!ev->has_value)
                problem(r, "iteration without a value%.0llu", 0, NULL);
            if (r->n_iteration < TS_MAX_ITER)
                r->iter_value[r->n_iteration] = ev->value;
            r->n_iteration++;
        } else
            problem(r, "unexpected ANNOTATE%.0llu", 0, ev->text);
        break;
    case GMT_NAME:
        /* names a tensor that the next CONSTANT creates: nothing live is read */
        r->names++;
        break;
    case GMT_SCOPE: {
        size_t at = strlen(r->scope_log);
        snprintf(r->scope_log + at, sizeof r->scope_log - at, "%s%c%s", at ? " " : "",
                 ev->scope_end ? '-' : '+', ev->text);
        if (!ev->scope_end) {
            r->scopes++;
            if (r->scope_depth >= 32)
                problem(r, "scopes nested deeper than %llu", 32, ev->text);
            else
                snprintf(r->scope_open[r->scope_depth++], 128, "%s", ev->text);
        } else if (r->scope_depth == 0) {
            problem(r, "SCOPE end without an open scope%.0llu", 0, ev->text);
        } else if (strcmp(r->scope_open[--r->scope_depth], ev->text) != 0) {
            problem(r, "SCOPE end does not match the open scope%.0llu", 0, ev->text);
        }
        break;
    }
    default:
        problem(r, "unexpected event kind %llu", ev->kind, NULL);
    }
    r->events++;
    (void)err;
    return 0;
}

void ts_replay_finish(ts_replay *r)
{
    for (uint64_t i = 0; i < r->n_bind; i++)
        if (r->bind[i] >= 0) {
            problem(r, "handle %llu is never released", (unsigned long long)i, "end");
            break;
        }
    if (r->mem != 0)
        problem(r, "%llu bytes resident at the end", (unsigned long long)r->mem, "end");
    if (r->scope_depth != 0)
        problem(r, "%llu scopes still open at the end", r->scope_depth, r->scope_open[0]);
}

void ts_generate(const gmt_synth_params *p, ts_replay *r, gmt_synth_totals *tot)
{
    gms_error err;
    gms_error_clear(&err);
    ts_replay_init(r, p);
    int rc = gmt_synth_generate(p, ts_sink, r, tot, &err);
    ck_assert_msg(rc == 0, "generate failed: %s", err.msg);
    ts_replay_finish(r);
    ck_assert_msg(r->bad[0] == '\0', "%s trace: %s", gmt_synth_model_name(p->model), r->bad);
}

void ts_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "synth-%ld-%s", (long)getpid(), name);
}
