/* plot_timeline: memory over simulated time of one run (see plot.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot.h"
#include "plot_internal.h"
#include "memory.h"
#include "memviz.h"
#include "planners.h"
#include "plugin.h"
#include "policy.h"
#include "registry.h"
#include "sim.h"
#include "checkmate_peak.h"
#include "sweep_checkmate.h"
#include "sim_peak.h"

#define TL_BUCKETS 1600   /* horizontal resolution the memory line is reduced to */
#define TL_MARK_BUCKETS 240 /* at most one marker of a kind per this many x-slices */

typedef struct tl_sample {
    uint64_t clock, memory, reserved;
    unsigned char kind;
} tl_sample;

typedef struct tl_ctx {
    tl_sample *s;
    uint64_t (*cat)[SIM_CAT_COUNT]; /* by_category: resident bytes by category per sample */
    sim_peak_tracker *pk;
    checkmate_peak *ck_pk;           /* by_category of a solved schedule: its nodes' storages */
    size_t n, cap;
    int oom;
    uint64_t ops, computed;    /* the trace's ops; model ops replayed so far */
    const plot_timeline_opts *o;
} tl_ctx;

static void observe(void *vctx, const sim_event *ev)
{
    tl_ctx *c = vctx;
    if (c->oom)
        return;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4096;
        tl_sample *s = realloc(c->s, cap * sizeof *s);
        if (!s) {
            c->oom = 1;
            return;
        }
        c->s = s;
        if (c->pk || c->ck_pk) {
            void *k = realloc(c->cat, cap * sizeof *c->cat);
            if (!k) {
                c->oom = 1;
                return;
            }
            c->cat = k;
        }
        c->cap = cap;
    }
    if (c->pk) {
        sim_peak_observe(c->pk, ev);
        sim_peak_tracker_now(c->pk, c->cat[c->n]);
    } else if (c->ck_pk) {
        checkmate_peak_observe(c->ck_pk, ev);
        checkmate_peak_now(c->ck_pk, c->cat[c->n]);
    }
    /* with a memory model the line is the model's allocated (rounded) bytes, beside reserved */
    /* a swap-out that ended during the last op shows at its end: the line never goes back */
    uint64_t at = c->n && ev->clock < c->s[c->n - 1].clock ? c->s[c->n - 1].clock : ev->clock;
    c->s[c->n++] = (tl_sample){at, ev->allocated, ev->reserved, (unsigned char)ev->kind};
    if (ev->kind == SIM_EV_COMPUTE && (++c->computed & 0xffff) == 0 && c->o->progress && c->ops)
        c->o->progress(c->o->progress_ctx, c->computed, c->ops);
}

/* Unit for a byte axis: divisor and name. */
static double mem_unit(uint64_t max, const char **name)
{
    if (max >= (1ULL << 30)) {
        *name = "GiB";
        return 1073741824.0;
    }
    if (max >= (1ULL << 20)) {
        *name = "MiB";
        return 1048576.0;
    }
    *name = "KiB";
    return 1024.0;
}

/* Unit for the time axis (clock is in ns). */
static double time_unit(uint64_t max, const char **name)
{
    if (max >= 10000000000ULL) {
        *name = "s";
        return 1e9;
    }
    if (max >= 10000000ULL) {
        *name = "ms";
        return 1e6;
    }
    *name = "µs";
    return 1e3;
}

/* Block 5 (by_category): per x-slice the sample with the most resident bytes, as the
 * running sums of its categories (pre-existing, + gradients, ... + unknown), so that each
 * column is the top of its band in a stacked chart. */
static void write_categories(const tl_ctx *c, uint64_t end, double tu, double mu, plot_buf *b)
{
    double width = (double)(end ? end : 1) / TL_BUCKETS;
    plot_buf_printf(b, "\n\n");
    for (size_t i = 0; i < c->n;) {
        size_t bucket = (size_t)((double)c->s[i].clock / width), hi = i, j = i;
        uint64_t most = 0;
        for (; j < c->n && (size_t)((double)c->s[j].clock / width) == bucket; j++) {
            uint64_t sum = 0;
            for (int k = 0; k < SIM_CAT_COUNT; k++)
                sum += c->cat[j][k];
            if (sum > most || j == i) {
                most = sum;
                hi = j;
            }
        }
        plot_buf_printf(b, "%.6g", (double)c->s[hi].clock / tu);
        uint64_t run = 0;
        for (int k = 0; k < SIM_CAT_COUNT; k++) {
            run += c->cat[hi][k];
            plot_buf_printf(b, " %.6g", (double)run / mu);
        }
        plot_buf_printf(b, "\n");
        i = j;
    }
}

/* The memory line reduced to TL_BUCKETS x-slices, each kept as its minimum and maximum in
 * the order they occurred (so peaks and dips survive), plus thinned event markers: block 0
 * memory (and in a third column reserved bytes, at the same instants), block 1 policy
 * evictions, block 2 rematerializations, blocks 3 and 4 swap-outs and swap-ins queued (copy
 * activity; empty for runs that do not swap). */
static void write_data(const tl_ctx *c, uint64_t end, double tu, double mu, plot_buf *b)
{
    double width = (double)(end ? end : 1) / TL_BUCKETS;
    size_t i = 0;
    plot_buf_printf(b, "0 0 0\n");
    while (i < c->n) {
        size_t bucket = (size_t)((double)c->s[i].clock / width);
        size_t lo = i, hi = i, j = i;
        for (; j < c->n && (size_t)((double)c->s[j].clock / width) == bucket; j++) {
            if (c->s[j].memory < c->s[lo].memory)
                lo = j;
            if (c->s[j].memory > c->s[hi].memory)
                hi = j;
        }
        size_t a = lo < hi ? lo : hi, z = lo < hi ? hi : lo;
        plot_buf_printf(b, "%.6g %.6g %.6g\n", (double)c->s[a].clock / tu,
                        (double)c->s[a].memory / mu, (double)c->s[a].reserved / mu);
        if (z != a)
            plot_buf_printf(b, "%.6g %.6g %.6g\n", (double)c->s[z].clock / tu,
                            (double)c->s[z].memory / mu, (double)c->s[z].reserved / mu);
        i = j;
    }
    static const unsigned char kinds[4] = {SIM_EV_EVICT, SIM_EV_REMAT, SIM_EV_SWAP_OUT,
                                           SIM_EV_SWAP_IN};
    double mwidth = (double)(end ? end : 1) / TL_MARK_BUCKETS;
    for (int k = 0; k < 4; k++) {
        plot_buf_printf(b, "\n\n");
        size_t last = SIZE_MAX, n = 0;
        for (size_t s = 0; s < c->n; s++) {
            if (c->s[s].kind != kinds[k])
                continue;
            size_t bucket = (size_t)((double)c->s[s].clock / mwidth);
            if (bucket == last)
                continue;
            last = bucket;
            n++;
            plot_buf_printf(b, "%.6g %.6g\n", (double)c->s[s].clock / tu,
                            (double)c->s[s].memory / mu);
        }
        if (n == 0)
            plot_buf_printf(b, "NaN NaN\n");
    }
    if (c->cat)
        write_categories(c, end, tu, mu, b);
}

int plot_timeline(const plot_timeline_opts *o, plot_timeline_summary *sum, gms_error *err)
{
    plot_format fmt;
    char gp[4096];
    int rc = plot_format_for_path(o->out, &fmt, err);
    if (!rc)
        rc = plot_find_gnuplot(gp, sizeof gp, err);
    if (rc)
        return rc;
    const struct sim_policy *pol = NULL;
    const sim_planner *planner = planner_find(o->policy); /* its timeline shows its re-runs */
    int ck = sweep_checkmate_is(o->policy); /* the solved schedule, replayed */
    if (!ck && !planner && (rc = pol_resolve(o->policy, &pol, err))) /* built-in or plugin */
        return rc;
    if (ck && (o->allocator || o->alloc_conf || o->link_gbps > 0 || o->host_memory ||
               o->sample || o->seed || o->remat_limit >= 0))
        return gms_error_set(err, GMS_EINVAL,
                             "--policy %s replays a solved schedule on the ideal memory model: "
                             "it takes --coarsen, --iteration and --time-limit, not allocator, "
                             "link, host memory, sample, seed or remat-limit options",
                             o->policy);
    if (!ck && (o->ck_coarsen || o->ck_iteration || o->ck_time_limit > 0))
        return gms_error_set(err, GMS_EINVAL, "--coarsen, --iteration and --time-limit are "
                             "for --policy checkmate or checkmate-approx, not %s", o->policy);
    if (ck && o->memory_snapshot)
        return gms_error_set(err, GMS_EINVAL, "--memory-snapshot does not export --policy %s's "
                             "solved schedule yet: use another policy or `gpumemsim sim`",
                             o->policy);
    if ((o->link_gbps > 0 || o->host_memory) && !pol_swaps(pol)) /* as sim refuses them */
        return gms_error_set(err, GMS_EINVAL,
                             "--link and --host-memory need a swapping policy (swap-lru, "
                             "hybrid, capuchin, autoswap); %s never swaps to host memory",
                             o->policy);
    sim_trace *t;
    if ((rc = sim_trace_load(o->trace_path, &t, err)))
        return rc;
    const sim_baseline *base = sim_trace_baseline(t);
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol;
    cfg.planner = planner;
    cfg.budget = o->ratio > 0 ? sim_budget_for_ratio(t, o->ratio) : o->budget;
    cfg.seed = o->seed;
    if (o->remat_limit >= 0)
        cfg.remat_limit = o->remat_limit;
    sim_memory_options mopt;
    char alloc_key[128];
    if (sim_memory_find(o->allocator, &cfg.allocator)) {
        sim_trace_free(t);
        return gms_error_set(err, GMS_EINVAL, "unknown allocator '%s'; valid allocators: %s",
                             o->allocator, sim_memory_names());
    }
    if ((rc = sim_memory_parse_conf(&cfg.allocator, o->alloc_conf, &mopt, alloc_key,
                                    sizeof alloc_key, err))) {
        sim_trace_free(t);
        return rc;
    }
    cfg.allocator_options = &mopt;
    cfg.link_gbps = o->link_gbps;
    cfg.link_latency_ns = o->link_latency_ns;
    if (o->host_memory)
        cfg.host_memory = o->host_memory;
    tl_ctx c = {.ops = base->ops, .o = o};
    sim_categories *cats = NULL;
    /* a solved schedule's events name graph nodes: the same graph, mapped onto storages */
    if (o->by_category &&
        ((rc = sim_categories_build(t, &cats, err)) ||
         (rc = ck ? checkmate_peak_for_trace(t, cats, o->ck_iteration,
                                             o->ck_coarsen ? o->ck_coarsen : "auto",
                                             cfg.budget, o->ck_time_limit, &c.ck_pk, err)
                  : sim_peak_tracker_new(t, cats, &c.pk, err)))) {
        sim_categories_free(cats);
        sim_trace_free(t);
        return rc;
    }
    cfg.sample = o->sample;
    cfg.observer = observe;
    cfg.observer_ctx = &c;
    memviz_writer *mv = NULL;
    int snapshot_written = 0;
    if (o->memory_snapshot) {
        if ((rc = memviz_open(o->memory_snapshot, sim_trace_storages(t), cfg.allocator, &mv,
                              err))) {
            sim_peak_tracker_free(c.pk);
            checkmate_peak_free(c.ck_pk);
            sim_categories_free(cats);
            sim_trace_free(t);
            return rc;
        }
        memviz_chain(mv, observe, &c); /* the timeline sees the events it saw before */
        cfg.observer = memviz_observe;
        cfg.observer_ctx = mv;
        cfg.storage_events = 1;
    }
    sim_result res;
    if (ck) {
        int cached;
        rc = sweep_checkmate_run_observed(NULL, t, "", o->policy, cfg.budget,
                                          o->ck_coarsen ? o->ck_coarsen : "auto",
                                          o->ck_iteration, o->ck_time_limit, 0, NULL,
                                          observe, &c, &res, &cached, NULL, NULL, 0, err);
        if (!rc && res.status != SIM_OK && c.n == 0)
            rc = gms_error_set(err, GMS_EINVAL, "--policy %s: no schedule fits %llu B (the "
                               "program is infeasible there, or no schedule was found in the "
                               "time limit); `gpumemsim sim TRACE --policy %s` says why",
                               o->policy, (unsigned long long)cfg.budget, o->policy);
    } else {
        rc = sim_run(t, &cfg, &res, err);
    }
    if (!rc && c.oom)
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory recording the timeline");
    if (!rc && c.n == 0)
        rc = gms_error_set(err, GMS_EINVAL, "%s: the trace has no ops to draw", o->trace_path);
    plot_buf data = {0}, script = {0};
    char *data_path = NULL;
    if (rc)
        goto out;
    if (mv) { /* before the chart: a refused or failed export leaves no chart either */
        rc = memviz_close(mv, alloc_key, err);
        mv = NULL;
        if (rc)
            goto out;
        snapshot_written = 1;
    }

    uint64_t end = res.clock, maxmem = cfg.budget;
    for (size_t i = 0; i < c.n; i++) {
        if (c.s[i].clock > end)
            end = c.s[i].clock;
        if (c.s[i].memory > maxmem)
            maxmem = c.s[i].memory;
        if (c.s[i].reserved > maxmem)
            maxmem = c.s[i].reserved;
    }
    if (base->memory > maxmem)
        maxmem = base->memory;
    const char *tn, *mn;
    double tu = time_unit(end, &tn), mu = mem_unit(maxmem, &mn);
    write_data(&c, end, tu, mu, &data);
    if (data.oom) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = plot_temp_file(data.s, data.len, &data_path, err)))
        goto out;

    char name[256], title[768], q[900], qd[4200], budget[64];
    const char *base_name = strrchr(o->trace_path, '/');
    base_name = base_name ? base_name + 1 : o->trace_path;
    char file[256];
    snprintf(file, sizeof file, "%s", base_name);
    char *dot = strrchr(file, '.');
    if (dot && (strcmp(dot, ".gmt") == 0 || strcmp(dot, ".log") == 0))
        *dot = '\0';
    plot_short_name(file, name, sizeof name);
    if (o->ratio > 0)
        snprintf(budget, sizeof budget, "%g× baseline peak = %.2f %s", o->ratio,
                 (double)cfg.budget / mu, mn);
    else
        snprintf(budget, sizeof budget, "%.2f %s", (double)cfg.budget / mu, mn);
    if (res.status == SIM_OK)
        snprintf(title, sizeof title,
                 "%s, policy %s, budget %s\\nslowdown %.3f×: %llu evictions, %llu "
                 "rematerializations",
                 name, o->policy, budget, res.overhead, (unsigned long long)res.evictions,
                 (unsigned long long)res.remats);
    else
        snprintf(title, sizeof title,
                 "%s, policy %s, budget %s\\nrun failed (%s) after %llu evictions, %llu "
                 "rematerializations",
                 name, o->policy, budget, sim_status_name(res.status),
                 (unsigned long long)res.evictions, (unsigned long long)res.remats);
    for (char *p = title; *p; p++) /* the title goes into a double-quoted gnuplot string */
        if (*p == '"')
            *p = '\'';
    plot_quote(data_path, qd, sizeof qd);
    (void)q;
    plot_buf_printf(&script,
                    "set title \"%s\" font ',13' noenhanced\n"
                    "set xlabel 'Simulated time (%s)'\nset ylabel 'Resident memory (%s)'\n"
                    "set grid xtics ytics lc rgb '#d9d9d9' lw 1 dt 1\n"
                    "set border 3 lc rgb '#444444'\nset tics nomirror out\n"
                    "set xrange [0:%.6g]\nset yrange [0:%.6g]\n"
                    "set key outside bottom center horizontal samplen 3 spacing 1.2 font ',11'\n"
                    "set bmargin 6.5\n"
                    "set arrow 1 from graph 0, first %.6g to graph 1, first %.6g nohead "
                    "lc rgb '#D55E00' lw 2 dt 2 back\n"
                    "set label 1 'budget' at graph 0.995, first %.6g right offset 0,0.7 "
                    "tc rgb '#D55E00'\n",
                    title, tn, mn, (double)end / tu * 1.005, (double)maxmem / mu * 1.12,
                    (double)cfg.budget / mu, (double)cfg.budget / mu, (double)cfg.budget / mu);
    if (base->memory != cfg.budget)
        plot_buf_printf(&script,
                        "set arrow 2 from graph 0, first %.6g to graph 1, first %.6g nohead "
                        "lc rgb '#999999' lw 1 dt 3 back\n"
                        "set label 2 'peak without a budget' at graph 0.005, first %.6g left "
                        "offset 0,0.7 tc rgb '#777777'\n",
                        (double)base->memory / mu, (double)base->memory / mu,
                        (double)base->memory / mu);
    if (cfg.allocator) /* reserved under allocated, so the gap between them is the cache */
        plot_buf_printf(&script,
                        "plot %s index 0 using 1:3 with steps lc rgb '#CC79A7' lw 1.5 "
                        "title 'reserved (%s)', \\\n     ",
                        qd, alloc_key);
    else
        plot_buf_printf(&script, "plot ");
    if (c.cat) { /* the bands, the top one first so each lower one paints over it */
        static const char *const colors[SIM_CAT_COUNT] = {"#999999", "#E69F00", "#CC79A7",
                                                          "#56B4E9", "#009E73", "#F0E442"};
        for (int k = SIM_CAT_COUNT - 1; k >= 0; k--)
            plot_buf_printf(&script,
                            "%s index 5 using 1:%d with filledcurves x1 fc rgb '%s' "
                            "fs solid 0.55 noborder title '%s', \\\n     ",
                            qd, k + 2, colors[k], sim_category_name((sim_category)k));
    }
    plot_buf_printf(&script,
                    "%s index 0 using 1:2 with steps lc rgb '#0072B2' lw 1.5 "
                    "title '%s', \\\n"
                    "     %s index 1 using 1:2 with points pt 11 ps 0.9 lc rgb '#D55E00' "
                    "title 'policy eviction (%llu)', \\\n"
                    "     %s index 2 using 1:2 with points pt 9 ps 0.9 lc rgb '#009E73' "
                    "title 'rematerialization (%llu)', \\\n",
                    qd, cfg.allocator ? "allocated" : "resident memory", qd,
                    (unsigned long long)res.evictions, qd, (unsigned long long)res.remats);
    if (pol_swaps(pol)) /* copy activity */
        plot_buf_printf(&script,
                        "     %s index 3 using 1:2 with points pt 10 ps 0.9 lc rgb '#E69F00' "
                        "title 'swap-out queued (%llu)', \\\n"
                        "     %s index 4 using 1:2 with points pt 8 ps 0.9 lc rgb '#56B4E9' "
                        "title 'swap-in queued (%llu)', \\\n",
                        qd, (unsigned long long)res.swaps_out, qd,
                        (unsigned long long)res.swaps_in);
    plot_buf_printf(&script,
                    "     NaN with lines lc rgb '#D55E00' lw 2 dt 2 title 'budget'\n");
    if (script.oom) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        goto out;
    }
    rc = plot_render(script.s, 1400, 700, o->out, err);
    if (!rc && sum) {
        sum->status = (int)res.status;
        sum->overhead = res.overhead;
        sum->budget = cfg.budget;
        sum->evictions = res.evictions;
        sum->remats = res.remats;
        sum->samples = c.n;
    }
out:
    memviz_abort(mv);
    if (rc && snapshot_written)
        unlink(o->memory_snapshot);
    if (data_path) {
        unlink(data_path);
        free(data_path);
    }
    plot_buf_free(&data);
    plot_buf_free(&script);
    free(c.s);
    free(c.cat);
    sim_peak_tracker_free(c.pk);
    checkmate_peak_free(c.ck_pk);
    sim_categories_free(cats);
    sim_trace_free(t);
    return rc;
}
