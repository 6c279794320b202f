/* plot_overhead: overhead vs budget ratio from a result store (see plot.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot.h"
#include "plot_internal.h"

#define PANEL_W 520
#define PANEL_H 390
#define MAX_PANELS 64

/* The order policies appear in when the user names none: the DTR paper's. */
static const char *const preferred[] = {"dtr", "dtr-eq", "dtr-local", "msps", "lru", "size",
                                        "random"};

/* One (trace, policy, budget) point, aggregated over seeds. */
typedef struct ov_point {
    size_t trace, policy;
    double ratio;
    size_t runs, ok;
    double sum;
} ov_point;

typedef struct ov_trace {
    char *name;
    char hash[17];
} ov_trace;

typedef struct ov_ctx {
    const plot_overhead_opts *o;
    ov_trace *traces;
    size_t n_traces, cap_traces;
    char **policies;
    size_t n_policies, cap_policies;
    size_t *seeds; /* per policy: most runs seen at one point */
    ov_point *pts;
    size_t n_pts, cap_pts;
    double remat_limit; /* largest stored */
    int oom, too_many;
} ov_ctx;

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static size_t policy_index(ov_ctx *c, const char *name)
{
    for (size_t i = 0; i < c->n_policies; i++)
        if (strcmp(c->policies[i], name) == 0)
            return i;
    if (grow((void **)&c->policies, &c->cap_policies, c->n_policies + 1, sizeof *c->policies) ||
        !(c->policies[c->n_policies] = strdup(name))) {
        c->oom = 1;
        return SIZE_MAX;
    }
    return c->n_policies++;
}

/* Rows come ordered by trace, policy, budget: a point's seeds are consecutive. */
static int collect(void *vctx, const store_row *r)
{
    ov_ctx *c = vctx;
    if (c->n_traces == 0 || strcmp(c->traces[c->n_traces - 1].hash, r->trace_hash) != 0) {
        if (c->n_traces == MAX_PANELS) {
            c->too_many = 1; /* more traces than a readable grid holds */
            return 1;
        }
        if (grow((void **)&c->traces, &c->cap_traces, c->n_traces + 1, sizeof *c->traces) ||
            !(c->traces[c->n_traces].name = strdup(r->trace_name))) {
            c->oom = 1;
            return 1;
        }
        snprintf(c->traces[c->n_traces].hash, 17, "%s", r->trace_hash);
        c->n_traces++;
    }
    size_t t = c->n_traces - 1;
    size_t p = policy_index(c, r->policy);
    if (p == SIZE_MAX)
        return 1;
    if (r->remat_limit > c->remat_limit)
        c->remat_limit = r->remat_limit;
    ov_point *last = c->n_pts ? &c->pts[c->n_pts - 1] : NULL;
    if (!last || last->trace != t || last->policy != p || last->ratio != r->ratio) {
        if (grow((void **)&c->pts, &c->cap_pts, c->n_pts + 1, sizeof *c->pts)) {
            c->oom = 1;
            return 1;
        }
        last = &c->pts[c->n_pts++];
        *last = (ov_point){t, p, r->ratio, 0, 0, 0};
    }
    last->runs++;
    if (r->has_overhead) {
        last->ok++;
        last->sum += r->overhead;
    }
    return 0;
}

/* Orders the policies: as the user listed them, else the paper's order, then the rest. */
static void order_policies(ov_ctx *c, size_t *order)
{
    size_t k = 0;
    const plot_overhead_opts *o = c->o;
    size_t n_pref = o->n_policies ? o->n_policies : sizeof preferred / sizeof preferred[0];
    for (size_t i = 0; i < n_pref; i++) {
        const char *want = o->n_policies ? o->policies[i] : preferred[i];
        for (size_t p = 0; p < c->n_policies; p++)
            if (strcmp(c->policies[p], want) == 0)
                order[k++] = p;
    }
    for (size_t p = 0; p < c->n_policies; p++) {
        size_t j = 0;
        while (j < k && order[j] != p)
            j++;
        if (j == k)
            order[k++] = p;
    }
}

static void free_ctx(ov_ctx *c)
{
    for (size_t i = 0; i < c->n_traces; i++)
        free(c->traces[i].name);
    for (size_t i = 0; i < c->n_policies; i++)
        free(c->policies[i]);
    free(c->traces);
    free(c->policies);
    free(c->seeds);
    free(c->pts);
}

/* Writes one data file per trace: a block per policy (blocks apart by two blank lines,
 * gnuplot's `index`), one blank line where runs failed so the line breaks there. Sets
 * has[t * n_policies + p] when the block has at least one point to draw. */
static int write_data(ov_ctx *c, char **files, int *has, double *ymax, gms_error *err)
{
    for (size_t t = 0; t < c->n_traces; t++) {
        plot_buf b = {0};
        for (size_t p = 0; p < c->n_policies; p++) {
            plot_buf_printf(&b, "# %s\n", c->policies[p]);
            /* a single blank line between two points breaks the line; none before the first
             * point or after the last, so that only pairs of blank lines separate blocks */
            int gap = 0, drawn = 0;
            for (size_t i = 0; i < c->n_pts; i++) {
                const ov_point *pt = &c->pts[i];
                if (pt->trace != t || pt->policy != p)
                    continue;
                if (pt->runs > c->seeds[p])
                    c->seeds[p] = pt->runs;
                if (pt->ok != pt->runs || isnan(pt->ratio)) {
                    gap = drawn;
                    continue;
                }
                double mean = pt->sum / (double)pt->ok;
                plot_buf_printf(&b, "%s%.6g %.9g\n", gap ? "\n" : "", pt->ratio, mean);
                has[t * c->n_policies + p] = drawn = 1;
                gap = 0;
                if (mean > *ymax)
                    *ymax = mean;
            }
            if (!has[t * c->n_policies + p]) /* keep the block: later indexes must not shift */
                plot_buf_printf(&b, "NaN NaN\n");
            plot_buf_printf(&b, "\n\n"); /* two blank lines end a gnuplot index block */
        }
        int rc = b.oom ? gms_error_set(err, GMS_ENOMEM, "out of memory")
                       : plot_temp_file(b.s, b.len, &files[t], err);
        plot_buf_free(&b);
        if (rc)
            return rc;
    }
    return 0;
}

static void style_lines(plot_buf *b, ov_ctx *c, const size_t *order)
{
    for (size_t k = 0; k < c->n_policies; k++) {
        size_t p = order[k], s = k % PLOT_N_STYLES;
        plot_buf_printf(b,
                        "set style line %zu lc rgb '%s' lw 2 dt %d pt %d ps 0.8\n", p + 1,
                        plot_colors[s], plot_dashes[s], plot_points[s]);
    }
}

/* The legend title of policy p ("random (mean of 10 seeds)"). */
static void policy_title(ov_ctx *c, size_t p, char *buf, size_t len)
{
    char title[160];
    if (c->seeds[p] > 1)
        snprintf(title, sizeof title, "%s (mean of %zu seeds)", c->policies[p], c->seeds[p]);
    else
        snprintf(title, sizeof title, "%s", c->policies[p]);
    plot_quote(title, buf, len);
}

static int build_script(ov_ctx *c, char **files, const int *has, double ymax, plot_buf *b,
                        int *w, int *h)
{
    size_t *order = calloc(c->n_policies ? c->n_policies : 1, sizeof *order);
    if (!order)
        return -1;
    order_policies(c, order);
    size_t cells = c->n_traces == 1 ? 1 : c->n_traces + 1; /* + a legend cell */
    size_t cols = cells <= 2 ? cells : cells <= 4 ? 2 : cells <= 9 ? 3 : 4;
    size_t rows = (cells + cols - 1) / cols;
    *w = cells == 1 ? 800 : (int)(cols * PANEL_W);
    *h = cells == 1 ? 560 : (int)(rows * PANEL_H + 50);

    double limit = c->remat_limit > 1 ? c->remat_limit : 2.0;
    double top = 1.0 + ceil((ymax - 1.0) * 1.1 * 10.0) / 10.0;
    if (top < 1.1)
        top = 1.1;
    if (top > limit + 0.05)
        top = limit + 0.05;
    double maxr = 1.0;
    for (size_t i = 0; i < c->n_pts; i++)
        if (c->pts[i].ratio > maxr)
            maxr = c->pts[i].ratio;

    char title[600], q[700];
    if (c->o->title)
        snprintf(title, sizeof title, "%s", c->o->title);
    else
        snprintf(title, sizeof title, "Simulated compute overhead vs. memory budget");
    plot_quote(title, q, sizeof q);
    style_lines(b, c, order);
    plot_buf_printf(b,
                    "set grid xtics ytics lc rgb '#d9d9d9' lw 1 dt 1\n"
                    "set border 3 lc rgb '#444444'\nset tics nomirror out\n"
                    "set xrange [0:%g]\nset yrange [0.98:%g]\n"
                    "set xtics 0.1 format '%%.1f'\nset ytics %g format '%%.1f'\n"
                    "set key top right Left reverse samplen 3 spacing 1.1 box opaque\n"
                    "set multiplot layout %zu,%zu title %s font ',14'\n",
                    maxr * 1.02, top, top - 1.0 > 0.5 ? 0.2 : 0.1, rows, cols, q);
    char gap_note[300], note[300];
    snprintf(gap_note, sizeof gap_note,
             "Gaps: runs that failed (out of memory, or\\nrematerialization over %g× the "
             "baseline compute)",
             limit - 1.0);
    snprintf(note, sizeof note,
             "Gaps: runs that failed (out of memory, or rematerialization over %g× the baseline "
             "compute)",
             limit - 1.0);
    if (c->n_traces == 1) /* a note under the single panel; several have a legend cell */
        plot_buf_printf(b, "set bmargin 5.5\nset label 98 '%s' at screen 0.5,0.03 center "
                           "font ',9'\n", note);
    for (size_t t = 0; t < c->n_traces; t++) {
        char shortname[256];
        plot_short_name(c->traces[t].name, shortname, sizeof shortname);
        plot_quote(shortname, q, sizeof q);
        size_t row = t / cols, col = t % cols;
        int bottom = row == rows - 1 || t + cols >= cells;
        plot_buf_printf(b, "set title %s font ',12' noenhanced\n", q);
        plot_buf_printf(b, "%s\n", bottom ? "set xlabel 'Memory budget (fraction of the "
                                            "baseline peak memory)'"
                                          : "unset xlabel");
        plot_buf_printf(b, "%s\n", col == 0 ? "set ylabel 'Overhead (× baseline compute "
                                              "time)'"
                                            : "unset ylabel");
        plot_buf_printf(b, "%s\n", c->n_traces == 1 ? "set key" : "unset key");
        char qf[4200];
        plot_quote(files[t], qf, sizeof qf);
        int any = 0;
        for (size_t p = 0; p < c->n_policies; p++)
            any |= has[t * c->n_policies + p];
        if (!any) /* nothing succeeded on this trace: an empty panel that says so */
            plot_buf_printf(b, "set label 99 'every run failed' at graph 0.5,0.5 center\n");
        plot_buf_printf(b, "plot ");
        int first = 1;
        for (size_t k = 0; k < c->n_policies; k++) {
            size_t p = order[k];
            char pt[200];
            policy_title(c, p, pt, sizeof pt);
            if (!has[t * c->n_policies + p])
                continue;
            plot_buf_printf(b, "%s%s index %zu using 1:2 with linespoints ls %zu title %s",
                            first ? "" : ", \\\n     ", qf, p, p + 1, pt);
            first = 0;
        }
        if (first)
            plot_buf_printf(b, "NaN notitle");
        plot_buf_printf(b, "\nunset label 99\n");
    }
    /* the legend cell */
    if (c->n_traces > 1) {
        plot_buf_printf(b,
                        "unset title\nunset xlabel\nunset ylabel\nunset grid\nunset border\n"
                        "unset tics\nset xrange [0:1]\nset yrange [0:1]\n"
                        "set key center center vertical Left reverse samplen 4 spacing 1.5 "
                        "noopaque nobox font ',12'\n"
                        "set label 98 \"%s\" at graph 0.5,0.06 center font ',10'\n"
                        "plot ",
                        gap_note);
        for (size_t k = 0; k < c->n_policies; k++) {
            char pt[200];
            policy_title(c, order[k], pt, sizeof pt);
            plot_buf_printf(b, "%sNaN with linespoints ls %zu title %s", k ? ", " : "",
                            order[k] + 1, pt);
        }
        plot_buf_printf(b, "\n");
    }
    plot_buf_printf(b, "unset multiplot\n");
    free(order);
    return b->oom ? -1 : 0;
}

int plot_overhead(store *s, const plot_overhead_opts *o, size_t *n_traces, gms_error *err)
{
    plot_format fmt;
    char gp[4096];
    int rc = plot_format_for_path(o->out, &fmt, err);
    if (!rc)
        rc = plot_find_gnuplot(gp, sizeof gp, err);
    if (rc)
        return rc;
    ov_ctx c = {.o = o};
    store_filter f = {o->trace, o->policies, o->n_policies};
    rc = store_query_runs(s, &f, collect, &c, err);
    if (c.too_many)
        rc = gms_error_set(err, GMS_EINVAL,
                           "the store holds more than %d traces, too many panels for one chart; "
                           "pick some with --trace (a name or a glob such as 'unet*')",
                           MAX_PANELS);
    else if (rc == 1 && c.oom)
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    if (!rc && c.oom)
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    if (!rc && c.n_pts == 0)
        rc = gms_error_set(err, GMS_EINVAL,
                           "no runs to plot%s%s; check --trace/--policies against "
                           "'gpumemsim db runs'",
                           o->trace ? " for trace " : "", o->trace ? o->trace : "");
    char **files = NULL;
    int *has = NULL;
    if (!rc) {
        files = calloc(c.n_traces, sizeof *files);
        has = calloc(c.n_traces * c.n_policies, sizeof *has);
        c.seeds = calloc(c.n_policies, sizeof *c.seeds);
        if (!files || !has || !c.seeds)
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
    double ymax = 1.0;
    if (!rc)
        rc = write_data(&c, files, has, &ymax, err);
    plot_buf script = {0};
    int w = 0, h = 0;
    if (!rc && build_script(&c, files, has, ymax, &script, &w, &h))
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    if (!rc)
        rc = plot_render(script.s, w, h, o->out, err);
    if (!rc && n_traces)
        *n_traces = c.n_traces;
    plot_buf_free(&script);
    for (size_t t = 0; files && t < c.n_traces; t++)
        if (files[t]) {
            unlink(files[t]);
            free(files[t]);
        }
    free(files);
    free(has);
    free_ctx(&c);
    return rc;
}
