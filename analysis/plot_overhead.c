/* plot_overhead: overhead vs budget ratio from a result store (see plot.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot.h"
#include "plot_internal.h"
#include "store_solution.h"

#define MAX_PANELS 64
#define ONE_COLUMN_IN 3.3 /* a figure one column of a two-column paper wide */
#define TWO_COLUMN_IN 7.0 /* a figure across both columns */
#define DEFAULT_FONT_PT 8.0
/* The shaded band of budgets below simrd's baseline bound: the pinned constants plus the
 * largest op's footprint (sim_baseline; spec section 4). The footprint counts an op's
 * arguments with duplicates and weights also counted in the constants, as simrd does, so it
 * is an estimate: a run can fit a little inside the band. */
#define FLOOR_COLOR "#e6e6e6"
#define FLOOR_TITLE "grey: below constants + largest op"
#define FLOOR_TITLE_2 "grey: below constants\\n+ largest op" /* for a narrow legend cell */
/* The region below the LP bound of Checkmate's program (docs/optimal.md, "The yardstick"):
 * no schedule of that program can be there. */
#define BOUND_COLOR "#f2c4c4"
/* The legend's entries for the marks (the failure band's, and a run above the range). */
#define LEGEND_OOM "out of memory"
#define LEGEND_LIMIT "over remat limit"
#define LEGEND_ABOVE "above range"
#define ABOVE_LABEL_TAG 1000 /* set label tags of the values above the range */

/* The order policies appear in when the user names none: the optimum, then the DTR paper's. */
static const char *const preferred[] = {"checkmate", "checkmate-approx", "dtr", "dtr-eq",
                                        "dtr-local", "msps", "lru", "size", "random"};

/* One (trace, policy, budget) point, aggregated over seeds. */
typedef struct ov_point {
    size_t trace, policy;
    double ratio;
    uint64_t budget; /* bytes, to look the LP bound up */
    size_t runs, ok, oom, limit;
    double sum, min, max;
} ov_point;

typedef struct ov_trace {
    char *name;
    char hash[17];
    double floor; /* budget ratio below which nothing fits (constants + largest op); 0 = unknown */
    uint64_t baseline_memory;
    char coarsen[8];    /* the program of the trace's checkmate runs ("" = none plotted) */
    uint32_t iteration;
    double *bound;      /* (ratio, LP bound overhead) pairs by ratio, n_bound of them */
    size_t n_bound;
    char bound_coarsen[8]; /* the program the bound is of */
} ov_trace;

typedef struct ov_ctx {
    const plot_overhead_opts *o;
    ov_trace *traces;
    size_t n_traces, cap_traces;
    /* per line: its policy's name and its parameters less the seed (a planner's knob: each
     * distinct set is its own line, plot_lines.c) */
    char **policies, **params;
    size_t n_policies, cap_policies, cap_params;
    plot_variant *lines; /* what each line's runs share beside those (plot_lines.c) */
    size_t cap_lines;
    size_t *seeds; /* per policy: most runs seen at one point */
    ov_point *pts;
    size_t n_pts, cap_pts;
    double remat_limit; /* largest stored */
    int oom, too_many;
    int mixed; /* runs that differ in more than the seed: err says which */
    gms_error *err;
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

/* The line of (policy, parameters less the seed), made on first sight. */
static size_t policy_index(ov_ctx *c, const char *name, const char *params)
{
    for (size_t i = 0; i < c->n_policies; i++)
        if (strcmp(c->policies[i], name) == 0 && strcmp(c->params[i], params) == 0)
            return i;
    size_t n = c->n_policies;
    if (grow((void **)&c->policies, &c->cap_policies, n + 1, sizeof *c->policies) ||
        grow((void **)&c->params, &c->cap_params, n + 1, sizeof *c->params) ||
        grow((void **)&c->lines, &c->cap_lines, n + 1, sizeof *c->lines)) {
        c->oom = 1;
        return SIZE_MAX;
    }
    memset(&c->lines[n], 0, sizeof c->lines[n]);
    c->lines[n].trace = SIZE_MAX;
    c->policies[n] = strdup(name);
    c->params[n] = strdup(params);
    if (!c->policies[n] || !c->params[n]) {
        free(c->policies[n]), free(c->params[n]);
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
        c->traces[c->n_traces].baseline_memory = r->baseline_memory;
        c->traces[c->n_traces].coarsen[0] = '\0';
        c->traces[c->n_traces].iteration = 0;
        c->traces[c->n_traces].bound = NULL;
        c->traces[c->n_traces].n_bound = 0;
        c->traces[c->n_traces].bound_coarsen[0] = '\0';
        c->traces[c->n_traces].floor =
            (r->trace_constants || r->trace_bottleneck) && r->baseline_memory
                ? (double)(r->trace_constants + r->trace_bottleneck) / (double)r->baseline_memory
                : 0.0;
        c->n_traces++;
    }
    size_t t = c->n_traces - 1;
    char rest[128];
    plot_params_less_seed(r->params, rest, sizeof rest);
    size_t p = policy_index(c, r->policy, rest);
    if (p == SIZE_MAX)
        return 1;
    if (plot_variant_check(&c->lines[p], t, c->params[p], r, c->err)) {
        c->mixed = 1;
        return 1;
    }
    if (strncmp(r->policy, "checkmate", 9) == 0 && !c->traces[t].coarsen[0]) {
        /* params "coarsen=layers,iteration=0,time_limit=..." (sweep_checkmate_params) */
        const char *k = strstr(r->params, "coarsen=");
        const char *it = strstr(r->params, "iteration=");
        if (k)
            snprintf(c->traces[t].coarsen, sizeof c->traces[t].coarsen, "%.*s",
                     (int)strcspn(k + 8, ","), k + 8);
        if (it)
            c->traces[t].iteration = (uint32_t)strtoul(it + 10, NULL, 10);
    }
    if (r->remat_limit > c->remat_limit)
        c->remat_limit = r->remat_limit;
    /* rows come by budget, then parameters: this line's point at this budget, if any, is
     * among the last points, those of the same trace and budget */
    ov_point *last = NULL;
    for (size_t i = c->n_pts; !last && i-- > 0 && c->pts[i].trace == t &&
                              c->pts[i].budget == r->budget;)
        last = c->pts[i].policy == p ? &c->pts[i] : NULL;
    if (!last) {
        if (grow((void **)&c->pts, &c->cap_pts, c->n_pts + 1, sizeof *c->pts)) {
            c->oom = 1;
            return 1;
        }
        last = &c->pts[c->n_pts++];
        *last = (ov_point){t, p, r->ratio, r->budget, 0, 0, 0, 0, 0, INFINITY, -INFINITY};
    }
    last->runs++;
    last->oom += strcmp(r->status, "oom") == 0;
    last->limit += strcmp(r->status, "remat-limit") == 0;
    if (r->has_overhead) {
        last->ok++;
        last->sum += r->overhead;
        if (r->overhead < last->min)
            last->min = r->overhead;
        if (r->overhead > last->max)
            last->max = r->overhead;
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
    for (size_t i = 0; i < c->n_traces; i++) {
        free(c->traces[i].name);
        free(c->traces[i].bound);
    }
    for (size_t i = 0; i < c->n_policies; i++) {
        free(c->policies[i]);
        free(c->params[i]);
    }
    free(c->traces);
    free(c->policies);
    free(c->lines);
    free(c->params);
    free(c->seeds);
    free(c->pts);
}

/* The LP bound at one budget: of the trace's checkmate runs' program where the chart has
 * them, else of the first program stored (op level sorts after layers). */
typedef struct bound_pick {
    const ov_trace *tr;
    double bound; /* overhead; < 0 = none */
    char coarsen[8];
} bound_pick;

static int pick_bound(void *ctx, const store_solution *sol)
{
    bound_pick *b = ctx;
    if (b->tr->coarsen[0] && (strcmp(sol->key.coarsen, b->tr->coarsen) != 0 ||
                              sol->key.iteration != b->tr->iteration))
        return 0;
    if (b->bound >= 0 && strcmp(sol->key.coarsen, b->coarsen) != 0)
        return 0; /* never mix two programs' bounds */
    if (!(sol->lower_bound > 0) || !(sol->compute > 0))
        return 0;
    double v = sol->lower_bound / sol->compute;
    if (v > b->bound) { /* several answers of one program (time limits): the tightest */
        b->bound = v;
        snprintf(b->coarsen, sizeof b->coarsen, "%s", sol->key.coarsen);
    }
    return 0;
}

static int cmp_pair(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Each trace's LP bound at the budgets of its points, from the store's solutions. */
static int find_bounds(store *s, ov_ctx *c, gms_error *err)
{
    for (size_t t = 0; t < c->n_traces; t++) {
        ov_trace *tr = &c->traces[t];
        for (size_t i = 0; i < c->n_pts; i++) {
            const ov_point *pt = &c->pts[i];
            if (pt->trace != t || isnan(pt->ratio))
                continue;
            int dup = 0;
            for (size_t j = 0; j < tr->n_bound && !dup; j++)
                dup = tr->bound[2 * j] == pt->ratio;
            if (dup)
                continue;
            bound_pick b = {.tr = tr, .bound = -1};
            if (tr->bound_coarsen[0])
                snprintf(b.coarsen, sizeof b.coarsen, "%s", tr->bound_coarsen);
            int rc = store_solutions_at(s, tr->hash, pt->budget, pick_bound, &b, err);
            if (rc)
                return rc;
            if (b.bound < 0 || (tr->bound_coarsen[0] && strcmp(b.coarsen, tr->bound_coarsen)))
                continue;
            double *nb = realloc(tr->bound, (tr->n_bound + 1) * 2 * sizeof *nb);
            if (!nb)
                return gms_error_set(err, GMS_ENOMEM, "out of memory");
            tr->bound = nb;
            nb[2 * tr->n_bound] = pt->ratio;
            nb[2 * tr->n_bound + 1] = b.bound;
            tr->n_bound++;
            snprintf(tr->bound_coarsen, sizeof tr->bound_coarsen, "%s", b.coarsen);
        }
        if (tr->n_bound)
            qsort(tr->bound, tr->n_bound, 2 * sizeof *tr->bound, cmp_pair);
    }
    return 0;
}

static void line_style(const ov_ctx *c, size_t p, plot_style *st)
{
    plot_style_nth(c->policies[p], plot_line_nth((const char *const *)c->policies, p), st);
}

/* "policy", or "policy budget=0.3" where its policy has several lines */
static void line_name(const ov_ctx *c, size_t p, char *buf, size_t len)
{
    char pa[96];
    plot_line_params((const char *const *)c->policies, (const char *const *)c->params,
                     c->n_policies, p, pa, sizeof pa);
    snprintf(buf, len, "%s%s%.96s", c->policies[p], pa[0] ? " " : "", pa);
}

#define HAS_LINE 1
#define HAS_BAND 2
#define HAS_OOM 4
#define HAS_LIMIT 8

/* Writes the data of each trace into texts[t]: three blocks per policy p (blocks apart by two
 * blank lines, gnuplot's `index`): 3p the line ("ratio mean"; one blank line where runs
 * failed, so the line breaks there), 3p+1 the seed band ("ratio min max", where a
 * randomized policy has several seeds and all succeeded), 3p+2 the failures ("ratio kind
 * name", kind 1 = oom, 2 = over the remat limit). A block with nothing to draw holds one NaN row so
 * that later indexes do not shift. has[t * n_policies + p] gets the HAS_* bits. */
static int write_data(ov_ctx *c, plot_buf *texts, int *has, double *ymax)
{
    for (size_t t = 0; t < c->n_traces; t++) {
        plot_buf *b = &texts[t];
        for (size_t p = 0; p < c->n_policies; p++) {
            int *h = &has[t * c->n_policies + p];
            char name[200];
            line_name(c, p, name, sizeof name);
            plot_buf_printf(b, "# %s\n", name);
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
                plot_buf_printf(b, "%s%.6g %.9g\n", gap ? "\n" : "", pt->ratio, mean);
                *h |= HAS_LINE;
                drawn = 1;
                gap = 0;
                if (pt->max > *ymax)
                    *ymax = pt->max;
            }
            if (!(*h & HAS_LINE))
                plot_buf_printf(b, "NaN NaN\n");
            plot_buf_printf(b, "\n\n# %s seed band\n", c->policies[p]);
            for (size_t i = 0; i < c->n_pts; i++) {
                const ov_point *pt = &c->pts[i];
                if (pt->trace != t || pt->policy != p || pt->runs < 2 || pt->ok != pt->runs ||
                    isnan(pt->ratio))
                    continue;
                plot_buf_printf(b, "%.6g %.9g %.9g\n", pt->ratio, pt->min, pt->max);
                *h |= HAS_BAND;
            }
            if (!(*h & HAS_BAND))
                plot_buf_printf(b, "NaN NaN NaN\n");
            plot_buf_printf(b, "\n\n# %s failures\n", c->policies[p]);
            int any = 0;
            for (size_t i = 0; i < c->n_pts; i++) {
                const ov_point *pt = &c->pts[i];
                if (pt->trace != t || pt->policy != p || isnan(pt->ratio))
                    continue;
                /* a point where some seed failed is marked by its commonest failure */
                if (pt->oom || pt->limit) {
                    int kind = pt->oom >= pt->limit ? 1 : 2;
                    plot_buf_printf(b, "%.6g %d %s\n", pt->ratio, kind,
                                    kind == 1 ? "oom" : "remat-limit");
                    *h |= kind == 1 ? HAS_OOM : HAS_LIMIT;
                    any = 1;
                }
            }
            if (!any)
                plot_buf_printf(b, "NaN NaN none\n");
            plot_buf_printf(b, "\n\n"); /* two blank lines end a gnuplot index block */
        }
        /* block 3 x n_policies: the LP bound ("ratio bound_overhead") */
        plot_buf_printf(b, "# lp bound %s\n", c->traces[t].bound_coarsen);
        for (size_t j = 0; j < c->traces[t].n_bound; j++)
            plot_buf_printf(b, "%.6g %.9g\n", c->traces[t].bound[2 * j],
                            c->traces[t].bound[2 * j + 1]);
        if (!c->traces[t].n_bound)
            plot_buf_printf(b, "NaN NaN\n");
        plot_buf_printf(b, "\n\n");
        if (b->oom)
            return -1;
    }
    return 0;
}

static void style_lines(plot_buf *b, ov_ctx *c)
{
    for (size_t p = 0; p < c->n_policies; p++) {
        plot_style st;
        char name[200];
        line_style(c, p, &st);
        line_name(c, p, name, sizeof name);
        plot_buf_printf(b, "set style line %zu lc rgb '%s' lw 1.5 dt %s pt %d ps 0.6 # %s\n",
                        p + 1, st.color, st.dash, st.point, name);
    }
}

/* The legend title of policy p ("random (mean, min-max of 10 seeds)"). */
static void policy_title(ov_ctx *c, size_t p, char *buf, size_t len)
{
    char title[160];
    if (strcmp(c->policies[p], "checkmate") == 0 || strcmp(c->policies[p], "checkmate-approx") == 0) {
        const char *k = "";
        for (size_t t = 0; t < c->n_traces && !*k; t++)
            k = c->traces[t].coarsen;
        snprintf(title, sizeof title, "%s (%s%s%s)",
                 c->policies[p][9] ? "LP rounding" : "optimum", c->policies[p],
                 *k ? ", " : "", strcmp(k, "layers") == 0 ? "by layer"
                                : strcmp(k, "outputs") == 0 ? "op level, by output"
                                : *k ? "op level" : "");
    } else {
        char name[128];
        line_name(c, p, name, sizeof name);
        if (c->seeds[p] > 1)
            snprintf(title, sizeof title, "%s (%zu seeds)", name, c->seeds[p]);
        else
            snprintf(title, sizeof title, "%s", name);
    }
    plot_quote(title, buf, len);
}

typedef struct ov_layout {
    size_t cells, cols, rows;
    plot_page page;
    double fs; /* font sizes in the script: points times this */
    /* what the figure shows, found once (write_data's has[] and ymax) */
    int any_oom, any_limit, any_seeds, any_floor, any_bound;
    const char *bound_k; /* the LP bound's program when one serves every panel, else NULL */
    size_t *frow;        /* per policy: its row in the failure strip, or SIZE_MAX */
    size_t fail_rows;
    plot_yframe yf;
    /* one panel: plot area margins (pt) and the legend below it */
    double lm, rm, tm, bm, plot_w, plot_h;
    size_t key_cols, key_rows, key_lines;
} ov_layout;

/* The legend title of policy p without quotes, and its length. */
static size_t title_len(ov_ctx *c, size_t p)
{
    char q[200];
    policy_title(c, p, q, sizeof q);
    size_t n = strlen(q);
    return n >= 2 ? n - 2 : n;
}

/* Finds what the figure shows and sizes it: panels, the failure strip, and for one panel the
 * legend below the plot (outside it) in as many columns as its titles allow. 0 or -1. */
static int layout(ov_ctx *c, const int *has, double ymax, ov_layout *l)
{
    const plot_overhead_opts *o = c->o;
    memset(l, 0, sizeof *l);
    if (!(l->frow = malloc((c->n_policies ? c->n_policies : 1) * sizeof *l->frow)))
        return -1;
    size_t *order = calloc(c->n_policies ? c->n_policies : 1, sizeof *order);
    if (!order)
        return -1;
    order_policies(c, order);
    for (size_t k = 0; k < c->n_policies; k++) {
        size_t p = order[k];
        int failed = 0;
        for (size_t t = 0; t < c->n_traces; t++) {
            int h = has[t * c->n_policies + p];
            l->any_oom |= (h & HAS_OOM) != 0;
            l->any_limit |= (h & HAS_LIMIT) != 0;
            failed |= (h & (HAS_OOM | HAS_LIMIT)) != 0;
        }
        l->frow[p] = failed ? l->fail_rows++ : SIZE_MAX;
        l->any_seeds |= c->seeds[p] > 1;
    }
    free(order);
    for (size_t t = 0; t < c->n_traces; t++) {
        l->any_floor |= c->traces[t].floor > 0;
        if (c->traces[t].n_bound) {
            if (l->any_bound && l->bound_k && strcmp(l->bound_k, c->traces[t].bound_coarsen))
                l->bound_k = NULL;
            else if (!l->any_bound)
                l->bound_k = c->traces[t].bound_coarsen;
            l->any_bound = 1;
        }
    }
    plot_yframe_for(ymax, c->remat_limit, l->fail_rows, &l->yf);

    l->page.font_pt = o->font_pt > 0 ? o->font_pt : DEFAULT_FONT_PT;
    plot_format fmt = PLOT_PDF;
    gms_error ignored;
    plot_format_for_path(o->out, &fmt, &ignored);
    l->fs = plot_text_scale(fmt);
    double fpt = l->page.font_pt, fs = fpt / DEFAULT_FONT_PT;
    l->cells = c->n_traces == 1 ? 1 : c->n_traces + 1; /* + a legend cell */
    if (o->columns > 0)
        l->cols = (size_t)o->columns < l->cells ? (size_t)o->columns : l->cells;
    else if (o->width_in > 0 && o->width_in < 5 * fs)
        l->cols = 1; /* a column-wide figure: panels one above the other */
    else
        l->cols = l->cells <= 2 ? l->cells : l->cells <= 4 ? 2 : l->cells <= 9 ? 3 : 4;
    l->rows = (l->cells + l->cols - 1) / l->cols;
    if (l->cells == 1) {
        l->page.width_in = o->width_in > 0 ? o->width_in : ONE_COLUMN_IN * fs;
        double W = l->page.width_in * 72;
        size_t n = c->n_policies + (size_t)l->any_oom + (size_t)l->any_limit +
                   (size_t)l->yf.above;
        size_t maxlen = l->any_limit ? strlen(LEGEND_LIMIT) : l->any_oom ? strlen(LEGEND_OOM) : 0;
        if (l->yf.above && strlen(LEGEND_ABOVE) > maxlen)
            maxlen = strlen(LEGEND_ABOVE);
        for (size_t p = 0; p < c->n_policies; p++)
            if (title_len(c, p) > maxlen)
                maxlen = title_len(c, p);
        l->key_cols = plot_key_columns(n, maxlen, 0.94 * W - 2 * fpt, fpt);
        l->key_rows = (n + l->key_cols - 1) / l->key_cols;
        l->key_lines = 1 + (size_t)l->any_floor + (size_t)l->any_bound;
        l->lm = 6.2 * fpt; /* y tick labels ("failed") and the y label */
        l->rm = 1.2 * fpt;
        l->tm = 2.8 * fpt;
        l->bm = 4.2 * fpt + ((double)(l->key_rows + l->key_lines) * 1.5 + 1.4) * fpt;
        l->plot_w = W - l->lm - l->rm;
        if (o->height_in > 0) {
            l->page.height_in = o->height_in;
        } else {
            double ph = 0.62 * l->plot_w; /* tall enough for the y label, too */
            if (ph < 136 * fs)
                ph = 136 * fs;
            l->page.height_in = (l->tm + ph + l->bm) / 72.0;
        }
        l->plot_h = l->page.height_in * 72 - l->tm - l->bm;
        return 0;
    }
    if (o->width_in > 0 && o->height_in > 0) {
        l->page.width_in = o->width_in;
        l->page.height_in = o->height_in;
        return 0;
    }
    /* two columns wide; panels about 4:3, and room for the title */
    l->page.width_in = o->width_in > 0 ? o->width_in
                       : l->cols <= 1  ? ONE_COLUMN_IN * fs
                                       : TWO_COLUMN_IN;
    double panel_w = l->page.width_in / (double)l->cols;
    double panel_h = panel_w * 0.78;
    /* the legend cell holds a line per policy, two failure marks and three title lines */
    double legend_h = ((double)c->n_policies + 7) * 1.35 * fpt / 72 + 3.8 * fpt / 72;
    if (panel_h < legend_h)
        panel_h = legend_h;
    if (panel_h < 1.6 * fs)
        panel_h = 1.6 * fs;
    l->page.height_in = (double)l->rows * panel_h + 0.6 * fs;
    return 0;
}

/* 1 when policy p has a successful point of trace t above the range's top. */
static int above_range(const ov_ctx *c, size_t t, size_t p, double top)
{
    for (size_t i = 0; i < c->n_pts; i++) {
        const ov_point *pt = &c->pts[i];
        if (pt->trace == t && pt->policy == p && pt->ok && pt->ok == pt->runs &&
            !isnan(pt->ratio) && pt->sum / (double)pt->ok > top)
            return 1;
    }
    return 0;
}

/* The values of trace t's runs above the range, as labels below their marks at the top:
 * at each budget the policies above it side by side (in legend order), so that neighbouring
 * budgets' values never share a column. Returns how many labels were set, tagged from
 * ABOVE_LABEL_TAG, for the caller to unset after the panel. */
static size_t above_labels(const ov_ctx *c, size_t t, double top, const size_t *order,
                           double fsz, plot_buf *b)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_pts; i++) {
        const ov_point *pt = &c->pts[i];
        if (pt->trace != t || !above_range(c, t, pt->policy, top))
            continue;
        if (!pt->ok || pt->ok != pt->runs || isnan(pt->ratio) || !(pt->sum / (double)pt->ok > top))
            continue;
        /* its rank among the policies above the range at this budget, and their count */
        size_t rank = 0, count = 0;
        for (size_t k = 0; k < c->n_policies; k++)
            for (size_t j = 0; j < c->n_pts; j++) {
                const ov_point *q = &c->pts[j];
                if (q->trace == t && q->policy == order[k] && q->ratio == pt->ratio &&
                    q->ok && q->ok == q->runs && q->sum / (double)q->ok > top) {
                    if (q->policy == pt->policy)
                        rank = count;
                    count++;
                    break;
                }
            }
        plot_style st;
        line_style(c, pt->policy, &st);
        double dx = ((double)rank - (double)(count - 1) / 2) * 1.2;
        plot_buf_printf(b, "set label %zu '%.2f' at first %.6g, first %g rotate by 90 right "
                           "offset %.2f,-0.7 font ',%g' tc rgb '%s' front\n",
                        ABOVE_LABEL_TAG + n, pt->sum / (double)pt->ok, pt->ratio, top, dx, fsz * 0.8,
                        st.color);
        n++;
    }
    return n;
}

/* Builds the script; src[t] is how it names trace t's data (a quoted file or a datablock). */
static int build_script(ov_ctx *c, char **src, const int *has, const ov_layout *l,
                        plot_buf *b)
{
    size_t *order = calloc(c->n_policies ? c->n_policies : 1, sizeof *order);
    if (!order)
        return -1;
    order_policies(c, order);
    size_t cols = l->cols, rows = l->rows, cells = l->cells;
    double fpt = l->page.font_pt, fsz = fpt * l->fs; /* fsz: the script's font size */
    double W = l->page.width_in * 72, H = l->page.height_in * 72;
    const plot_yframe *yf = &l->yf;
    double top = yf->top;
    double maxr = 1.0;
    for (size_t i = 0; i < c->n_pts; i++)
        if (c->pts[i].ratio > maxr)
            maxr = c->pts[i].ratio;
    int any_fail = l->any_oom || l->any_limit;
    char bound_note[160] = "";
    if (l->any_bound)
        snprintf(bound_note, sizeof bound_note, "\\nred: below the LP bound%s",
                 !l->bound_k                        ? ""
                 : strcmp(l->bound_k, "layers") == 0 ? " (by layer)"
                 : strcmp(l->bound_k, "outputs") == 0 ? " (op level, by output)"
                                                     : " (op level)");
    /* the plot area of one panel, in points, for the tick steps */
    double mtop = 5.4 * fpt, mbottom = 4.4 * fpt, mleft = 6.2 * fpt, mright = 0.6 * fpt;
    double vspace = 5.2 * fpt, hspace = 4.6 * fpt; /* panel titles clear the ticks above */
    double panel_w = l->plot_w, panel_h = l->plot_h;
    if (cells > 1) {
        panel_w = (W - mleft - mright - (double)(cols - 1) * hspace) / (double)cols;
        panel_h = (H - mtop - mbottom - (double)(rows - 1) * vspace) / (double)rows;
    }
    double span_y = top - 1.0, data_h = panel_h * (top - PLOT_YMIN) / (yf->strip_hi - PLOT_YMIN);
    double xstep = plot_tick_step(maxr * 1.02, panel_w / (fpt * 3.4));
    double ystep = plot_tick_step(span_y > 0.1 ? span_y : 0.1, data_h / (fpt * 2.2));

    char title[600], q[700];
    if (c->o->title)
        snprintf(title, sizeof title, "%s", c->o->title);
    else
        snprintf(title, sizeof title, "Simulated compute overhead vs. memory budget");
    plot_quote(title, q, sizeof q);
    style_lines(b, c);
    plot_frame_settings(b, &l->yf, l->fail_rows, maxr, xstep, ystep);
    char note[400];
    snprintf(note, sizeof note, "Gaps: runs that failed%s%s%s",
             l->any_seeds ? "; seeds: mean, min-max band" : "",
             l->any_floor ? "\\n" FLOOR_TITLE : "", bound_note);
    const char *xl = "Memory budget (ratio of baseline peak)";
    const char *yl = "Overhead (× baseline)";
    if (cells == 1) {
        /* one panel: fixed margins, and the legend below the axis label, outside the plot, in
         * as many columns as fit */
        /* the title centred on the page (a plot title centres on the plot area) */
        plot_buf_printf(b, "set multiplot layout 1,1\nunset title\nset label 95 %s at screen "
                           "0.5,%.4f center font ',%g'\n", q, 1 - 1.5 * fpt / H, fsz);
        plot_buf_printf(b, "set xlabel '%s'\nset ylabel '%s'\n", xl, yl);
        plot_buf_printf(b,
                        "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
                        "set tmargin at screen %.4f\nset bmargin at screen %.4f\n",
                        l->lm / W, 1 - l->rm / W, 1 - l->tm / H, l->bm / H);
        plot_buf_printf(b, "unset key\n"); /* drawn below, in a panel of its own */
    } else {
        /* several panels: axis labels and the title once for the figure, fixed margins */
        plot_buf_printf(b,
                        "set multiplot layout %zu,%zu title %s font ',%g' margins %.4f,%.4f,"
                        "%.4f,%.4f spacing %.4f,%.4f\n",
                        rows, cols, q, (fpt + 1) * l->fs, mleft / W, 1 - mright / W,
                        mbottom / H, 1 - mtop / H, hspace / W, vspace / H);
        plot_buf_printf(b,
                        "set label 96 '%s' at screen 0.5,%.4f center\n"
                        "set label 97 '%s' at screen %.4f,0.5 center rotate by 90\n"
                        "unset xlabel\nunset ylabel\n",
                        xl, 0.9 * fpt / H, yl, 1.1 * fpt / W);
    }
    for (size_t t = 0; t < c->n_traces; t++) {
        char shortname[256];
        plot_short_name(c->traces[t].name, shortname, sizeof shortname);
        /* two traces with one file name (two runs' unet.gmt): told apart by their content */
        for (size_t u = 0; u < c->n_traces; u++)
            if (u != t && strcmp(c->traces[u].name, c->traces[t].name) == 0) {
                size_t n = strlen(shortname);
                snprintf(shortname + n, sizeof shortname - n, " (%.8s)", c->traces[t].hash);
                break;
            }
        plot_quote(shortname, q, sizeof q);
        if (cells > 1)
            plot_buf_printf(b, "set title %s font ',%g' noenhanced\n", q, fsz);
        if (c->n_traces > 1)
            plot_buf_printf(b, "unset key\n");
        int any = 0;
        for (size_t p = 0; p < c->n_policies; p++)
            any |= has[t * c->n_policies + p] & HAS_LINE;
        if (c->traces[t].floor > 0) /* the memory no policy can free, shaded */
            plot_buf_printf(b, "set object 1 rect from graph 0, graph 0 to first %.6g, first %g "
                               "behind fc rgb '%s' fs solid 1.0 noborder\n",
                            c->traces[t].floor, top, FLOOR_COLOR);
        if (!any) /* nothing succeeded on this trace: an empty panel that says so */
            plot_buf_printf(b, "set label 99 'every run failed' at graph 0.5,0.5 center\n");
        size_t n_labels = above_labels(c, t, top, order, fsz, b);
        plot_buf_printf(b, "plot NaN notitle");
        if (c->traces[t].n_bound) /* behind the lines: where nothing can be */
            plot_buf_printf(b, ", \\\n     %s index %zu using 1:(0):2 with filledcurves fc rgb "
                               "'%s' fs solid 1.0 noborder notitle",
                            src[t], 3 * c->n_policies, BOUND_COLOR);
        for (size_t k = 0; k < c->n_policies; k++) {
            size_t p = order[k];
            int h = has[t * c->n_policies + p];
            plot_style st;
            line_style(c, p, &st);
            if (h & HAS_BAND) /* clipped at the top of the range, as the lines are */
                plot_buf_printf(b, ", \\\n     %s index %zu using 1:2:($3 > %g ? %g : $3) with "
                                   "filledcurves fc rgb '%s' notitle",
                                src[t], 3 * p + 1, top, top, st.color);
        }
        for (size_t k = 0; k < c->n_policies; k++) {
            size_t p = order[k];
            int h = has[t * c->n_policies + p];
            char pt[200];
            plot_style st;
            line_style(c, p, &st);
            policy_title(c, p, pt, sizeof pt);
            if (h & HAS_LINE)
                plot_buf_printf(b, ", \\\n     %s index %zu using 1:($2 <= %g ? $2 : %g) with "
                                   "linespoints ls %zu title %s",
                                src[t], 3 * p, top, top, p + 1, pt);
            if ((h & HAS_LINE) && above_range(c, t, p, top)) /* its value: above_labels */
                plot_buf_printf(b, ", \\\n     %s index %zu using 1:($2 > %g ? %g : NaN) with "
                                   "points pt %d ps 0.8 lc rgb '%s' notitle",
                                src[t], 3 * p, top, top, PLOT_POINT_ABOVE, st.color);
            if (l->frow[p] == SIZE_MAX)
                continue;
            double y = yf->strip_lo + yf->row_h * ((double)l->frow[p] + 0.8);
            if (h & HAS_OOM)
                plot_buf_printf(b, ", \\\n     %s index %zu using 1:($2 == 1 ? %g : NaN) with "
                                   "points pt %d ps 0.6 lc rgb '%s' notitle",
                                src[t], 3 * p + 2, y, PLOT_POINT_OOM, st.color);
            if (h & HAS_LIMIT)
                plot_buf_printf(b, ", \\\n     %s index %zu using 1:($2 == 2 ? %g : NaN) with "
                                   "points pt %d ps 0.6 lc rgb '%s' notitle",
                                src[t], 3 * p + 2, y, PLOT_POINT_LIMIT, st.color);
        }
        plot_buf_printf(b, "\nunset label 99\nunset object 1\n");
        for (size_t i = 0; i < n_labels; i++)
            plot_buf_printf(b, "unset label %zu\n", ABOVE_LABEL_TAG + i);
    }
    if (cells == 1) {
        /* the legend: a panel of its own below the axis label, outside the plot; a vertical
         * key wraps into columns at maxrows (a horizontal one placed 'at' would not) */
        plot_buf_printf(b,
                        "set lmargin at screen 0.03\nset rmargin at screen 0.97\n"
                        "set tmargin at screen %.4f\nset bmargin at screen 0.005\n"
                        "unset title\nunset label 95\nunset xlabel\nunset ylabel\nunset grid\n"
                        "unset border\nunset tics\nunset object 2\nunset object 3\n"
                        "unset arrow 1\nunset arrow 2\nset xrange [0:1]\nset yrange [0:1]\n"
                        "set key center top vertical Left reverse samplen 2 spacing 1.0 "
                        "width -1 noopaque nobox maxrows %zu title \"%s\"\nplot ",
                        (l->bm - 4.2 * fpt) / H, l->key_rows, note);
        for (size_t k = 0; k < c->n_policies; k++) {
            char pt[200];
            policy_title(c, order[k], pt, sizeof pt);
            plot_buf_printf(b, "%sNaN with linespoints ls %zu title %s", k ? ", " : "",
                            order[k] + 1, pt);
        }
        if (l->any_oom)
            plot_buf_printf(b, ", NaN with points pt %d lc rgb '#444444' title '" LEGEND_OOM
                               "'", PLOT_POINT_OOM);
        if (l->any_limit)
            plot_buf_printf(b, ", NaN with points pt %d lc rgb '#444444' title '" LEGEND_LIMIT
                               "'", PLOT_POINT_LIMIT);
        if (yf->above)
            plot_buf_printf(b, ", NaN with points pt %d lc rgb '#444444' title '" LEGEND_ABOVE
                               "'", PLOT_POINT_ABOVE);
        plot_buf_printf(b, "\n");
    }
    /* the legend cell: the whole cell, its share of the spacing included, for the key */
    if (c->n_traces > 1) {
        double left = mleft / W, right = 1 - mright / W;
        double bottom = mbottom / H, topm = 1 - mtop / H;
        size_t lrow = c->n_traces / cols, lcol = c->n_traces % cols;
        double cw = (right - left + hspace / W) / (double)cols;
        double ch = (topm - bottom + vspace / H) / (double)rows;
        double x0 = left + (double)lcol * cw, y1 = topm - (double)lrow * ch + 1.5 * fpt / H;
        double y0 = y1 - ch;
        /* a cell narrower than the legend (a multi-panel chart at column width): smaller
         * text, never text past the page */
        size_t maxlen = 23; /* "grey: below constants" and the marks' titles */
        for (size_t p = 0; p < c->n_policies; p++)
            if (title_len(c, p) > maxlen)
                maxlen = title_len(c, p);
        double need = ((double)maxlen + 6.0) * 0.62 * fpt, have = (cw * W - hspace) * 0.98;
        double key_scale = need > have ? have / need : 1.0;
        plot_buf_printf(b,
                        "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
                        "set tmargin at screen %.4f\nset bmargin at screen %.4f\n",
                        x0, x0 + cw - hspace / W > x0 ? x0 + cw - hspace / W : x0 + cw,
                        y1 > 1 ? 1 : y1, y0 < 0 ? 0 : y0);
        plot_buf_printf(b,
                        "unset title\nunset xlabel\nunset ylabel\nunset grid\nunset border\n"
                        "unset tics\nunset object 2\nunset object 3\nunset arrow 1\n"
                        "unset arrow 2\nset xrange [0:1]\nset yrange [0:1]\n"
                        "unset label 96\nunset label 97\n"
                        "set key center center vertical Left reverse samplen 2.5 spacing 0.95 "
                        "noopaque nobox maxcols 1 maxrows 30 font ',%g' title \"Gaps: runs "
                        "that failed%s%s%s\"\n"
                        "plot ",
                        fsz * key_scale, l->any_seeds ? "\\nseeds: mean, min-max band" : "",
                        !l->any_floor                            ? ""
                        : cw * W < 36 * 0.56 * fpt ? "\\n" FLOOR_TITLE_2
                                                   : "\\n" FLOOR_TITLE,
                        bound_note);
        for (size_t k = 0; k < c->n_policies; k++) {
            char pt[200];
            policy_title(c, order[k], pt, sizeof pt);
            plot_buf_printf(b, "%sNaN with linespoints ls %zu title %s", k ? ", " : "",
                            order[k] + 1, pt);
        }
        if (any_fail)
            plot_buf_printf(b, ", NaN with points pt %d lc rgb '#444444' title '" LEGEND_OOM
                               "', NaN with points pt %d lc rgb '#444444' title '" LEGEND_LIMIT
                               "'",
                            PLOT_POINT_OOM, PLOT_POINT_LIMIT);
        if (yf->above)
            plot_buf_printf(b, ", NaN with points pt %d lc rgb '#444444' title '" LEGEND_ABOVE
                               "'",
                            PLOT_POINT_ABOVE);
        plot_buf_printf(b, "\n");
    }
    plot_buf_printf(b, "unset multiplot\n");
    free(order);
    return b->oom ? -1 : 0;
}

/* The complete script a user can keep and rerun: terminal, output, the data as datablocks,
 * then the chart. */
static int kept_script(ov_ctx *c, plot_buf *texts, const int *has, const ov_layout *l,
                       plot_buf *out)
{
    plot_format fmt = PLOT_PNG; /* set by plot_format_for_path; the compiler cannot tell */
    gms_error ignored;
    if (plot_format_for_path(c->o->out, &fmt, &ignored))
        return -1;
    char term[256], q[4200];
    plot_terminal(fmt, &l->page, term, sizeof term);
    plot_quote(c->o->out, q, sizeof q);
    plot_buf_printf(out, "# gpumemsim plot overhead: edit and rerun with 'gnuplot %s'\n",
                    c->o->script);
    plot_buf_printf(out, "%sset output %s\n", term, q);
    char **src = calloc(c->n_traces, sizeof *src);
    if (!src)
        return -1;
    int rc = 0;
    for (size_t t = 0; t < c->n_traces && !rc; t++) {
        if (!(src[t] = malloc(32))) {
            rc = -1;
            break;
        }
        snprintf(src[t], 32, "$trace%zu", t + 1);
        plot_buf_printf(out, "%s << EOD\n%sEOD\n", src[t], texts[t].s ? texts[t].s : "");
    }
    if (!rc)
        rc = build_script(c, src, has, l, out);
    plot_buf_printf(out, "unset output\n");
    for (size_t t = 0; t < c->n_traces; t++)
        free(src[t]);
    free(src);
    return rc || out->oom ? -1 : 0;
}

int plot_overhead(store *s, const plot_overhead_opts *o, size_t *n_traces, gms_error *err)
{
    plot_format fmt = PLOT_PNG; /* set by plot_format_for_path; the compiler cannot tell */
    char gp[4096];
    int rc = plot_format_for_path(o->out, &fmt, err);
    if (!rc)
        rc = plot_find_gnuplot(gp, sizeof gp, err);
    if (rc)
        return rc;
    ov_ctx c = {.o = o, .err = err};
    store_filter f = o->filter;
    f.trace_name = o->trace;
    f.policies = o->policies;
    f.n_policies = o->n_policies;
    rc = store_check_filter(s, &f, err);
    if (!rc)
        rc = store_query_runs(s, &f, collect, &c, err);
    if (!rc && !c.too_many && !c.mixed && !c.oom)
        rc = find_bounds(s, &c, err);
    if (c.too_many)
        rc = gms_error_set(err, GMS_EINVAL,
                           "the store holds more than %d traces, too many panels for one chart; "
                           "pick some with --trace (a name or a glob such as 'unet*')",
                           MAX_PANELS);
    else if (c.mixed)
        rc = GMS_EINVAL;
    else if (rc == 1 && c.oom)
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    if (!rc && c.oom)
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    if (!rc && c.n_pts == 0)
        rc = gms_error_set(err, GMS_EINVAL,
                           "no runs to plot%s%s; check the filters against "
                           "'gpumemsim db runs'",
                           o->trace ? " for trace " : "", o->trace ? o->trace : "");
    char **files = NULL;
    int *has = NULL;
    plot_buf *texts = NULL;
    if (!rc) {
        files = calloc(c.n_traces, sizeof *files);
        texts = calloc(c.n_traces, sizeof *texts);
        has = calloc(c.n_traces * c.n_policies, sizeof *has);
        c.seeds = calloc(c.n_policies, sizeof *c.seeds);
        if (!files || !texts || !has || !c.seeds)
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
    double ymax = 1.0;
    if (!rc && write_data(&c, texts, has, &ymax))
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    for (size_t t = 0; !rc && t < c.n_traces; t++) {
        char *path = NULL;
        rc = plot_temp_file(texts[t].s ? texts[t].s : "", texts[t].len, &path, err);
        if (!rc) {
            size_t n = strlen(path) * 2 + 3;
            files[t] = malloc(n);
            if (files[t])
                plot_quote(path, files[t], n);
            else
                rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
            /* the quoted name is all the script needs; keep the path to unlink */
            if (files[t]) {
                size_t qn = strlen(files[t]) + 1;
                char *both = realloc(files[t], qn + strlen(path) + 1);
                if (both) {
                    files[t] = both;
                    strcpy(both + qn, path);
                } else {
                    unlink(path);
                    rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
                }
            } else {
                unlink(path);
            }
            free(path);
        }
    }
    ov_layout l = {0};
    if (!rc && layout(&c, has, ymax, &l))
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    plot_buf script = {0}, keep = {0};
    int wrote_script = 0;
    if (!rc && build_script(&c, files, has, &l, &script))
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    if (!rc && o->script) {
        if (kept_script(&c, texts, has, &l, &keep))
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        else
            wrote_script = (rc = plot_write_file(o->script, keep.s, keep.len, err)) == 0;
    }
    if (!rc)
        rc = plot_render_page(script.s, &l.page, o->out, err);
    if (rc && wrote_script)
        unlink(o->script); /* no script for a chart that was not drawn */
    if (!rc && n_traces)
        *n_traces = c.n_traces;
    plot_buf_free(&script);
    plot_buf_free(&keep);
    for (size_t t = 0; files && t < c.n_traces; t++)
        if (files[t]) {
            size_t n = strlen(files[t]) + 1;
            unlink(files[t] + n);
            free(files[t]);
        }
    for (size_t t = 0; texts && t < c.n_traces; t++)
        plot_buf_free(&texts[t]);
    free(texts);
    free(files);
    free(has);
    free(l.frow);
    free_ctx(&c);
    return rc;
}
