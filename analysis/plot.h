/*
 * plot: charts of sweep results and of single runs, drawn by gnuplot.
 *
 * gnuplot runs as a child process (fork + exec, found on PATH or at $GMS_GNUPLOT) on a
 * script and data files written to temporary files (mkstemp, removed afterwards). Its output
 * goes to a temporary file beside the target and is renamed into place only when gnuplot
 * succeeded, so a chart is either complete or absent. The format follows the file extension:
 * .png (pngcairo), .svg (svg), .pdf (pdfcairo). When gnuplot fails, its own error output is
 * part of the message.
 */
#ifndef PLOT_H
#define PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"
#include "store.h"

typedef enum plot_format { PLOT_PNG = 0, PLOT_SVG = 1, PLOT_PDF = 2 } plot_format;

/* The format for an output path by its extension; GMS_EINVAL for anything else. */
int plot_format_for_path(const char *path, plot_format *fmt, gms_error *err);

/* Absolute path of the gnuplot to run ($GMS_GNUPLOT, else the first on PATH) into buf;
 * GMS_EEXTERNAL with install advice when there is none. */
int plot_find_gnuplot(char *buf, size_t len, gms_error *err);

/* Runs gnuplot on `body` (plot commands without terminal/output) rendering to out_path at
 * width x height pixels (PDF: 1/100 inch per pixel). */
int plot_render(const char *body, int width, int height, const char *out_path, gms_error *err);

/* The printed size of a chart and its text size in points. PDF pages are that size; PNG and
 * SVG images are drawn at PLOT_DPI pixels per inch with text scaled to match, so a PNG placed
 * at its printed size shows text of font_pt points. */
typedef struct plot_page {
    double width_in, height_in;
    double font_pt;
} plot_page;
#define PLOT_DPI 150

/* What a font size in points is multiplied by in a script for fmt. gnuplot's cairo
 * terminals draw a font of size S at S/72 * 96 units (pixels for PNG, points for PDF), so
 * PNG sizes are scaled by PLOT_DPI/96 and pdfcairo runs at fontscale 0.75 (its default 0.5
 * made 8 pt text 5.3 pt); text then measures font_pt points at the printed size. */
double plot_text_scale(plot_format fmt);

/* The gnuplot `set terminal` line for fmt at page size into buf. */
void plot_terminal(plot_format fmt, const plot_page *pg, char *buf, size_t len);

/* Like plot_render, at a printed size and font size. */
int plot_render_page(const char *body, const plot_page *pg, const char *out_path,
                     gms_error *err);

/* Parses a chart size "WxH" with an optional unit after either number: in (the default),
 * cm or mm ("3.3x2.5in", "17x12cm", "3.3inx6cm"); 1 to 50 inches each. (plot_size.c) */
int plot_parse_size(const char *text, double *w_in, double *h_in, gms_error *err);
/* The named sizes plot_parse_size takes ("column, two-column, slide"); a preset may leave
 * the height 0: the chart then sizes it to its content. */
const char *plot_size_presets(void);

/* Writes text to path through a temporary file beside it, renamed into place. */
int plot_write_file(const char *path, const char *text, size_t len, gms_error *err);

/* Writes text to a fresh temporary file (mkstemp under $TMPDIR or /tmp); *path is malloc'ed,
 * the caller unlinks and frees it. */
int plot_temp_file(const char *text, size_t len, char **path, gms_error *err);

/* A trace name shortened for chart titles ("unet-6-8000000000.0-2020-...-default" ->
 * "unet-6"). */
void plot_short_name(const char *name, char *out, size_t len);

/* Appends s to a gnuplot single-quoted string literal in buf (quotes doubled). */
void plot_quote(const char *s, char *buf, size_t len);

typedef struct plot_overhead_opts {
    const char *trace;             /* only this trace (name, glob or hash); NULL = all */
    const char *const *policies;   /* only these, in this order; NULL = all stored */
    size_t n_policies;
    const char *out;               /* .png, .svg or .pdf */
    const char *title;             /* NULL = a default title */
    store_filter filter;           /* the rest of the run key (remat limit, semantics,
                                    * params); its trace/policy fields are ignored */
    double width_in, height_in;    /* 0 = a size for the panel count (see plot_overhead) */
    double font_pt;                /* 0 = 8 pt */
    int columns;                   /* panels per row; 0 = chosen by the panel count */
    const char *script;            /* when set, the complete gnuplot script (data included)
                                    * is also written there, to edit and rerun */
} plot_overhead_opts;

/* Overhead vs budget ratio: one panel per trace, one line per policy, each policy in its
 * own fixed style. Failed runs (oom, remat-limit) break the line and leave a mark of their
 * kind along the top of the panel; a randomized policy shows the mean of its seeds where
 * every seed succeeded, with a band from the smallest to the largest seed. Runs that differ
 * in more than the seed (remat limit, semantics, parameters) are never averaged: the
 * filter must pick one, else GMS_EINVAL says which differ and how to pick. The default size
 * is one column (3.3 in wide) for one panel and two columns (7 in) for several, with 8 pt
 * text. *n_traces (may be NULL) gets the number of panels drawn. */
int plot_overhead(store *s, const plot_overhead_opts *o, size_t *n_traces, gms_error *err);

typedef struct plot_timeline_opts {
    const char *trace_path;
    const char *policy;
    double ratio;        /* > 0: budget = ratio of baseline memory */
    uint64_t budget;     /* used when ratio is 0 */
    uint64_t seed;
    double remat_limit;  /* 0 = no limit; negative = the simulator's default (2) */
    const char *out;
    uint32_t sample;        /* sim_config.sample (0 = exact) */
    /* optional: called now and then with the trace's ops replayed so far and their total */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    const char *allocator;  /* memory model (sim/memory.h name); NULL = ideal */
    const char *alloc_conf; /* its settings, PYTORCH_CUDA_ALLOC_CONF syntax */
    /* swapping policies (docs/swap.md): sim_config's link (0 = default) and host memory
     * (0 = unlimited); their copies are drawn as swap-out and swap-in markers */
    double link_gbps;
    uint64_t link_latency_ns;
    uint64_t host_memory;
    /* policy checkmate or checkmate-approx (sweep_checkmate.h): the graph's coarsening
     * ("auto" when NULL: opt_graph_auto; "outputs", "layers", "none"), the iteration
     * solved and replayed, the solve's time limit (seconds, 0 = none); the timeline is that
     * iteration's replayed schedule */
    const char *ck_coarsen;
    uint32_t ck_iteration;
    double ck_time_limit;
    /* stack the resident bytes by category (sim/sim_peak.h: pre-existing, gradients,
     * optimizer state, saved activations, temporaries, unknown) under the memory line */
    int by_category;
    /* also write the run as a PyTorch memory snapshot here (memviz.h; NULL = none): written
     * before the chart, removed if the chart fails */
    const char *memory_snapshot;
} plot_timeline_opts;

typedef struct plot_timeline_summary {
    int status;          /* sim_status */
    double overhead;
    uint64_t budget;
    uint64_t evictions, remats;
    size_t samples;      /* events observed */
} plot_timeline_summary;

/* Simulates one run with an observer and draws memory over simulated time, the budget, and
 * where the policy evicted and the simulator rematerialized (and, for swapping policies,
 * where copies to and from host memory were queued; with by_category, the resident bytes
 * stacked by category). */
int plot_timeline(const plot_timeline_opts *o, plot_timeline_summary *sum, gms_error *err);

typedef struct plot_iterations_opts {
    const char *source;          /* a result store (sniffed) or a trace */
    const char *trace;           /* store: only this trace (name, glob or hash) */
    const char *const *policies; /* trace: the policies to run (required); store: only these */
    size_t n_policies;
    double ratio;                /* > 0: the budget as a ratio of baseline memory */
    uint64_t budget;             /* bytes, when ratio is 0 (trace: one of them is required;
                                  * store: 0 and 0 = every stored budget) */
    const char *policy_args;     /* the planners' canonical parameters (trace: passed to
                                  * them; store: only runs with these params); NULL = none */
    const char *title;           /* NULL = a default */
    const char *out;
} plot_iterations_opts;

/* Per-iteration charts (plot_iterations.c): the input size, the peak memory against the
 * budget (failed iterations marked x) and the overhead (simulated time / the iteration's
 * compute), one line per policy. From a store: the stored iterations of planner runs. From a
 * trace: runs each policy at the budget; planners report their iterations, eviction policies
 * are cut into iterations by their events (peak = the most resident bytes after an event;
 * overhead = the iteration's time over its time without a budget). *n_lines (may be NULL)
 * gets the number of policies drawn. */
int plot_iterations(const plot_iterations_opts *o, size_t *n_lines, gms_error *err);

#endif
