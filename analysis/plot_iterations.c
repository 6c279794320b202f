/*
 * plot_iterations: per-iteration input size, peak memory against the budget and overhead,
 * one line per policy (see plot.h). From a result store it draws the stored iterations of
 * planner runs; from a trace it runs each policy once: planners report their iterations
 * (sim_plan_report.h), eviction policies are cut into iterations from their events.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iter_log.h"
#include "planners.h"
#include "plot.h"
#include "plot_internal.h"
#include "plugin.h"
#include "policy.h"
#include "registry.h"
#include "sim.h"
#include "sim_layers.h"
#include "store.h"

typedef struct it_point {
    uint32_t iteration;
    int64_t input_size;
    uint64_t peak;
    double overhead; /* NAN when the iteration did not finish */
    int failed;      /* the run stopped in it */
} it_point;

typedef struct it_series {
    char name[160];
    it_point *p;
    size_t n, cap;
    uint64_t budget;
} it_series;

typedef struct it_set {
    it_series *s;
    size_t n;
    int oom;
} it_set;

static it_point *add_point(it_series *s)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 32;
        it_point *np = realloc(s->p, cap * sizeof *np);
        if (!np)
            return NULL;
        s->p = np;
        s->cap = cap;
    }
    it_point *p = &s->p[s->n++];
    memset(p, 0, sizeof *p);
    return p;
}

static void free_set(it_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        free(set->s[i].p);
    free(set->s);
}

/* ---- from a trace: eviction policies, iteration by iteration from their events ---- */

typedef struct ev_ctx {
    const sim_layers *l;
    uint32_t it, n_it;     /* current iteration (n_it before the first) */
    uint64_t last_clock;   /* clock after the previous event */
    uint64_t *start_clock; /* per iteration: clock before its first op */
    uint64_t *peak;        /* per iteration: the most resident bytes after an event in it */
    uint32_t reached;      /* iterations begun */
} ev_ctx;

static void ev_observe(void *ctx, const sim_event *ev)
{
    ev_ctx *c = ctx;
    if (ev->kind == SIM_EV_COMPUTE) {
        uint32_t next = c->it == c->n_it ? 0 : c->it + 1;
        while (next < c->n_it && ev->op_index >= sim_layers_iteration(c->l, next)->first_op) {
            c->it = next;
            c->start_clock[next] = c->last_clock;
            c->reached = next + 1;
            next++;
        }
    }
    if (c->it < c->n_it && ev->memory > c->peak[c->it])
        c->peak[c->it] = ev->memory;
    c->last_clock = ev->clock;
}

/* Runs an eviction policy and fills per-iteration clock spans and peaks. spans[i] = 0 for
 * iterations not reached. */
static int run_events(const sim_trace *t, const sim_layers *l, const sim_policy *pol,
                      uint64_t budget, uint64_t *spans, uint64_t *peaks, uint32_t *reached,
                      sim_result *res, gms_error *err)
{
    uint32_t n = sim_layers_iterations(l);
    ev_ctx c = {.l = l, .it = n, .n_it = n, .last_clock = 1, .peak = peaks,
                .start_clock = calloc(n + 1, sizeof(uint64_t))};
    if (!c.start_clock)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    memset(peaks, 0, n * sizeof *peaks);
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol;
    cfg.budget = budget;
    cfg.observer = ev_observe;
    cfg.observer_ctx = &c;
    int rc = sim_run(t, &cfg, res, err);
    if (!rc) {
        for (uint32_t i = 0; i < n; i++) {
            uint64_t end = i + 1 < c.reached ? c.start_clock[i + 1] : res->clock;
            spans[i] = i < c.reached ? end - c.start_clock[i] : 0;
        }
        *reached = c.reached;
    }
    free(c.start_clock);
    return rc;
}

static int from_trace(const plot_iterations_opts *o, it_set *set, uint64_t *budget_out,
                      gms_error *err)
{
    sim_trace *t;
    int rc = sim_trace_load(o->source, &t, err);
    if (rc)
        return rc;
    sim_layers *l = NULL;
    uint64_t *base = NULL, *spans = NULL, *peaks = NULL;
    if ((rc = sim_layers_build(t, &l, err)))
        goto out;
    uint32_t n = sim_layers_iterations(l), reached;
    uint64_t budget = o->ratio > 0 ? sim_budget_for_ratio(t, o->ratio) : o->budget;
    *budget_out = budget;
    base = calloc(n + 1, sizeof *base);
    spans = calloc(n + 1, sizeof *spans);
    peaks = calloc(n + 1, sizeof *peaks);
    set->s = calloc(o->n_policies, sizeof *set->s);
    if (!base || !spans || !peaks || !set->s) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        goto out;
    }
    sim_result res;
    /* each iteration's time without a budget: what its overhead is measured against */
    if ((rc = run_events(t, l, pol_find("dtr"), UINT64_MAX, base, peaks, &reached, &res, err)))
        goto out;
    for (size_t k = 0; k < o->n_policies; k++) {
        it_series *s = &set->s[set->n++];
        s->budget = budget;
        const char *name = o->policies[k];
        const sim_planner *pl = planner_find(name);
        if (pl) {
            snprintf(s->name, sizeof s->name, "%s%s%s", name,
                     o->policy_args && *o->policy_args ? " " : "",
                     o->policy_args ? o->policy_args : "");
            iter_log log = {0};
            sim_config cfg;
            sim_config_init(&cfg);
            cfg.planner = pl;
            cfg.planner_params = o->policy_args;
            cfg.budget = budget;
            cfg.iteration_observer = iter_log_observe;
            cfg.iteration_ctx = &log;
            rc = sim_run(t, &cfg, &res, err);
            for (size_t i = 0; !rc && i < log.n; i++) {
                const iter_rec *r = &log.recs[i];
                it_point *p = add_point(s);
                if (!p) {
                    rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
                    break;
                }
                *p = (it_point){r->iteration, r->input_size, r->peak_memory,
                                r->status == SIM_OK ? iter_rec_overhead(r) : NAN,
                                r->status != SIM_OK};
            }
            if (!rc && log.failed)
                rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
            iter_log_free(&log);
        } else {
            snprintf(s->name, sizeof s->name, "%s", name);
            const sim_policy *pol;
            if ((rc = pol_resolve(name, &pol, err)))
                goto out;
            if ((rc = run_events(t, l, pol, budget, spans, peaks, &reached, &res, err)))
                goto out;
            for (uint32_t i = 0; i < reached; i++) {
                it_point *p = add_point(s);
                if (!p) {
                    rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
                    goto out;
                }
                int failed = res.status != SIM_OK && i + 1 == reached;
                *p = (it_point){i, sim_layers_iteration(l, i)->input_size, peaks[i],
                                failed || !base[i] ? NAN : (double)spans[i] / (double)base[i],
                                failed};
            }
        }
        if (rc)
            goto out;
    }
out:
    free(base);
    free(spans);
    free(peaks);
    sim_layers_free(l);
    sim_trace_free(t);
    return rc;
}

/* ---- from a store: the stored iterations of planner runs ---- */

typedef struct st_ctx {
    const plot_iterations_opts *o;
    int64_t *ids;
    char (*names)[160];
    uint64_t *budgets;
    size_t n, cap;
    char trace[256];
    int several_traces, oom;
} st_ctx;

static int collect_run(void *ctx, const store_row *r)
{
    st_ctx *c = ctx;
    if (r->plan_iterations == 0)
        return 0; /* not a planner run */
    if (c->o->ratio > 0 && !(fabs(r->ratio - c->o->ratio) < 1e-9))
        return 0;
    if (c->o->budget && r->budget != c->o->budget)
        return 0;
    if (!c->trace[0])
        snprintf(c->trace, sizeof c->trace, "%s", r->trace_hash);
    else if (strcmp(c->trace, r->trace_hash) != 0)
        c->several_traces = 1;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        int64_t *ni = realloc(c->ids, cap * sizeof *ni);
        if (ni)
            c->ids = ni;
        char(*nn)[160] = realloc(c->names, cap * sizeof *nn);
        if (nn)
            c->names = nn;
        uint64_t *nb = realloc(c->budgets, cap * sizeof *nb);
        if (nb)
            c->budgets = nb;
        if (!ni || !nn || !nb) {
            c->oom = 1;
            return 1;
        }
        c->cap = cap;
    }
    c->ids[c->n] = r->id;
    c->budgets[c->n] = r->budget;
    snprintf(c->names[c->n], 160, "%s%s%s%s%s", r->policy, r->params[0] ? " " : "", r->params,
             c->o->ratio > 0 || c->o->budget ? "" : " @", "");
    if (!(c->o->ratio > 0 || c->o->budget)) {
        size_t u = strlen(c->names[c->n]);
        snprintf(c->names[c->n] + u, 160 - u, "%.3g", r->ratio);
    }
    c->n++;
    return 0;
}

static int add_stored(void *ctx, const store_iteration *it)
{
    it_series *s = ctx;
    it_point *p = add_point(s);
    if (!p)
        return 1;
    int ok = strcmp(it->status, "ok") == 0;
    *p = (it_point){it->iteration, it->input_size, it->peak_memory,
                    ok && it->compute_ns ? (double)it->clock_ns / (double)it->compute_ns : NAN,
                    !ok};
    return 0;
}

static int from_store(const plot_iterations_opts *o, it_set *set, uint64_t *budget_out,
                      gms_error *err)
{
    store *s;
    int rc = store_open(o->source, STORE_READONLY, &s, err);
    if (rc)
        return rc;
    store_filter f = {.trace_name = o->trace, .policies = o->policies,
                      .n_policies = o->n_policies, .params = o->policy_args};
    st_ctx c = {.o = o};
    if ((rc = store_check_filter(s, &f, err)))
        goto out;
    rc = store_query_runs(s, &f, collect_run, &c, err);
    if (c.oom)
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    if (rc)
        goto out;
    if (c.n == 0) {
        rc = gms_error_set(err, GMS_EINVAL,
                           "%s: no planner run with stored iterations matches (iterations are "
                           "stored for checkpoint planners swept with schema 6 or later; "
                           "check --trace, --policies and --budget)", o->source);
        goto out;
    }
    if (c.several_traces) {
        rc = gms_error_set(err, GMS_EINVAL,
                           "%s: the matching runs are of several traces: pick one with --trace",
                           o->source);
        goto out;
    }
    set->s = calloc(c.n, sizeof *set->s);
    if (!set->s) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        goto out;
    }
    *budget_out = c.budgets[0];
    for (size_t i = 0; i < c.n && !rc; i++) {
        it_series *sr = &set->s[set->n++];
        snprintf(sr->name, sizeof sr->name, "%s", c.names[i]);
        sr->budget = c.budgets[i];
        rc = store_query_iterations(s, c.ids[i], add_stored, sr, err);
        if (rc > 0 && !err->code)
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
out:
    free(c.ids);
    free(c.names);
    free(c.budgets);
    store_close(s);
    return rc;
}

/* ---- the chart ---- */

static double mem_unit(uint64_t max, const char **name)
{
    if (max >= (UINT64_C(1) << 30)) {
        *name = "GiB";
        return 1073741824.0;
    }
    if (max >= (UINT64_C(1) << 20)) {
        *name = "MiB";
        return 1048576.0;
    }
    *name = "KiB";
    return 1024.0;
}

/* The first series before k whose figure (peak memory: what = 0, overhead: 1) equals series
 * k's at every iteration, or SIZE_MAX. Its line would hide k's entirely. */
static size_t same_as(const it_set *set, size_t k, int what)
{
    const it_series *a = &set->s[k];
    for (size_t j = 0; j < k; j++) {
        const it_series *b = &set->s[j];
        int same = a->n == b->n && a->n > 0;
        for (size_t i = 0; same && i < a->n; i++) {
            const it_point *x = &a->p[i], *y = &b->p[i];
            same = x->iteration == y->iteration &&
                   (what == 0 ? x->peak == y->peak
                              : (isnan(x->overhead) && isnan(y->overhead)) ||
                                    fabs(x->overhead - y->overhead) <=
                                        1e-9 * fabs(y->overhead));
        }
        if (same)
            return j;
    }
    return SIZE_MAX;
}

/* One policy's line in a panel: a line that coincides with an earlier one is drawn first,
 * wide and with large open marks, so that it shows around the other, and its title says so. */
static void series_line(plot_buf *b, const it_set *set, size_t k, int what, const char *qd,
                        int column)
{
    plot_style st;
    plot_style_for(set->s[k].name, &st);
    size_t j = same_as(set, k, what);
    char title[400];
    if (j == SIZE_MAX)
        snprintf(title, sizeof title, "%s", set->s[k].name);
    else
        snprintf(title, sizeof title, "%s (same as %s)", set->s[k].name, set->s[j].name);
    for (char *c = title; *c; c++)
        if (*c == '\'')
            *c = '"';
    plot_buf_printf(b,
                    "%s index %zu using 1:%d with linespoints lc rgb '%s' dt %s pt %d ps %s "
                    "lw %s title '%s'",
                    qd, k, column, st.color, j == SIZE_MAX ? st.dash : "1",
                    j == SIZE_MAX ? st.point : 6, j == SIZE_MAX ? "0.6" : "1.6",
                    j == SIZE_MAX ? "1" : "5", title);
}

/* Series indexes with the coinciding ones (same_as) first, so the others draw over them. */
static void draw_order(const it_set *set, int what, size_t *order)
{
    size_t n = 0;
    for (size_t k = 0; k < set->n; k++)
        if (same_as(set, k, what) != SIZE_MAX)
            order[n++] = k;
    for (size_t k = 0; k < set->n; k++)
        if (same_as(set, k, what) == SIZE_MAX)
            order[n++] = k;
}

static int draw(const plot_iterations_opts *o, const it_set *set, uint64_t budget,
                gms_error *err)
{
    plot_buf data = {0}, script = {0};
    char *data_path = NULL;
    int rc = 0;
    uint64_t maxmem = budget != UINT64_MAX ? budget : 0;
    uint32_t last = 0;
    int inputs = 0;
    size_t *order = calloc(set->n ? set->n : 1, sizeof *order);
    if (!order)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    for (size_t k = 0; k < set->n; k++)
        for (size_t i = 0; i < set->s[k].n; i++) {
            if (set->s[k].p[i].peak > maxmem)
                maxmem = set->s[k].p[i].peak;
            if (set->s[k].p[i].iteration > last)
                last = set->s[k].p[i].iteration;
            inputs |= set->s[k].p[i].input_size >= 0;
        }
    /* iterations are whole numbers: ticks on them only, about a dozen at most */
    unsigned xstep = last / 12 + 1;
    const char *mn;
    double mu = mem_unit(maxmem ? maxmem : 1, &mn);
    /* index k: policy k's points "iteration input peak overhead failed" */
    for (size_t k = 0; k < set->n; k++) {
        const it_series *s = &set->s[k];
        for (size_t i = 0; i < s->n; i++) {
            const it_point *p = &s->p[i];
            plot_buf_printf(&data, "%u %lld %.6g ", p->iteration, (long long)p->input_size,
                            (double)p->peak / mu);
            if (isnan(p->overhead))
                plot_buf_printf(&data, "NaN %d\n", p->failed);
            else
                plot_buf_printf(&data, "%.6g %d\n", p->overhead, p->failed);
        }
        if (s->n == 0)
            plot_buf_printf(&data, "NaN NaN NaN NaN 0\n");
        plot_buf_printf(&data, "\n\n");
    }
    if (data.oom) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = plot_temp_file(data.s, data.len, &data_path, err)))
        goto out;
    char qd[4200];
    plot_quote(data_path, qd, sizeof qd);
    const char *base = strrchr(o->source, '/');
    char title[512];
    snprintf(title, sizeof title, "%s%s%s", o->title ? o->title : "per-iteration figures: ",
             o->title ? "" : base ? base + 1 : o->source,
             o->title || !o->trace ? "" : "");
    for (char *p = title; *p; p++)
        if (*p == '"')
            *p = '\'';
    plot_buf_printf(&script,
                    "set multiplot layout %d,1 title \"%s\" noenhanced\n"
                    "set grid xtics ytics lc rgb '#d9d9d9' lw 1 dt 1\n"
                    "set border 3 lc rgb '#444444'\nset tics nomirror out\n"
                    "set key outside right top noenhanced font ',10'\n"
                    "set xlabel 'iteration'\nset lmargin 12\nset rmargin 30\n"
                    "set xrange [%g:%g]\nset xtics 0,%u format '%%.0f'\nset mxtics 1\n",
                    inputs ? 3 : 2, title, -0.25, (double)last + 0.25, xstep);
    if (inputs) /* the input sizes are the trace's: the first series has them all */
        plot_buf_printf(&script,
                        "set ylabel 'input size'\n"
                        "plot %s index 0 using 1:($2 >= 0 ? $2 : NaN) with linespoints "
                        "pt 7 ps 0.6 lc rgb '#555555' title 'input size'\n",
                        qd);
    plot_buf_printf(&script, "set ylabel 'peak memory (%s)'\n", mn);
    if (budget != UINT64_MAX)
        plot_buf_printf(&script,
                        "set arrow 1 from graph 0, first %.6g to graph 1, first %.6g nohead "
                        "lc rgb '#D55E00' lw 2 dt 2 back\n",
                        (double)budget / mu, (double)budget / mu);
    plot_buf_printf(&script, "set yrange [0:%.6g]\nplot ", (double)maxmem / mu * 1.1);
    draw_order(set, 0, order);
    for (size_t i = 0; i < set->n; i++) {
        size_t k = order[i];
        plot_style st;
        plot_style_for(set->s[k].name, &st);
        series_line(&script, set, k, 0, qd, 3);
        plot_buf_printf(&script,
                        ", \\\n     %s index %zu using 1:($5 > 0 ? $3 : NaN) with points pt %d "
                        "ps 1.2 lc rgb '%s' notitle, \\\n     ",
                        qd, k, PLOT_POINT_OOM, st.color);
    }
    plot_buf_printf(&script, "NaN with lines lc rgb '#D55E00' lw 2 dt 2 title 'budget'\n"
                             "unset arrow 1\nset yrange [*:*]\n"
                             "set ylabel 'overhead (time / compute)'\nplot ");
    draw_order(set, 1, order);
    for (size_t i = 0; i < set->n; i++) {
        plot_buf_printf(&script, "%s", i ? ", \\\n     " : "");
        series_line(&script, set, order[i], 1, qd, 4);
    }
    plot_buf_printf(&script, "\nunset multiplot\n");
    if (script.oom) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        goto out;
    }
    rc = plot_render(script.s, 1400, inputs ? 1050 : 750, o->out, err);
out:
    free(order);
    if (data_path) {
        unlink(data_path);
        free(data_path);
    }
    plot_buf_free(&data);
    plot_buf_free(&script);
    return rc;
}

int plot_iterations(const plot_iterations_opts *o, size_t *n_lines, gms_error *err)
{
    plot_format fmt;
    char gp[4096];
    int rc = plot_format_for_path(o->out, &fmt, err);
    if (!rc)
        rc = plot_find_gnuplot(gp, sizeof gp, err);
    if (rc)
        return rc;
    int is_store = 0;
    FILE *f = fopen(o->source, "rb");
    if (f) {
        char head[16] = {0};
        is_store = fread(head, 1, sizeof head, f) == sizeof head &&
                   memcmp(head, "SQLite format 3", 16) == 0;
        fclose(f);
    }
    if (!is_store && !(o->ratio > 0 || o->budget))
        return gms_error_set(err, GMS_EINVAL,
                             "%s is a trace: give --budget, the budget its policies run at",
                             o->source);
    if (!is_store && o->n_policies == 0)
        return gms_error_set(err, GMS_EINVAL,
                             "%s is a trace: give --policies, the policies to run", o->source);
    it_set set = {0};
    uint64_t budget = UINT64_MAX;
    rc = is_store ? from_store(o, &set, &budget, err) : from_trace(o, &set, &budget, err);
    if (!rc)
        rc = draw(o, &set, budget, err);
    if (!rc && n_lines)
        *n_lines = set.n;
    free_set(&set);
    return rc;
}
