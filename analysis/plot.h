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
} plot_overhead_opts;

/* Overhead vs budget ratio: one panel per trace, one line per policy. Failed runs (oom,
 * remat-limit) break the line; a randomized policy shows the mean of its seeds where every
 * seed succeeded. *n_traces (may be NULL) gets the number of panels drawn. */
int plot_overhead(store *s, const plot_overhead_opts *o, size_t *n_traces, gms_error *err);

typedef struct plot_timeline_opts {
    const char *trace_path;
    const char *policy;
    double ratio;        /* > 0: budget = ratio of baseline memory */
    uint64_t budget;     /* used when ratio is 0 */
    uint64_t seed;
    double remat_limit;  /* 0 = the simulator's default */
    const char *out;
} plot_timeline_opts;

typedef struct plot_timeline_summary {
    int status;          /* sim_status */
    double overhead;
    uint64_t budget;
    uint64_t evictions, remats;
    size_t samples;      /* events observed */
} plot_timeline_summary;

/* Simulates one run with an observer and draws memory over simulated time, the budget, and
 * where the policy evicted and the simulator rematerialized. */
int plot_timeline(const plot_timeline_opts *o, plot_timeline_summary *sum, gms_error *err);

#endif
