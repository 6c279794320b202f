/* Private to analysis/plot*.c: a growable text buffer for scripts and data files. */
#ifndef PLOT_INTERNAL_H
#define PLOT_INTERNAL_H

#include <stddef.h>

typedef struct plot_buf {
    char *s;
    size_t len, cap;
    int oom; /* an allocation failed; the text is incomplete */
} plot_buf;

/* Appends printf-style text; on allocation failure sets b->oom and keeps what it had. */
void plot_buf_printf(plot_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void plot_buf_free(plot_buf *b);

/* How a policy's line looks: a colour-blind-safe colour, a gnuplot dash type ("1" solid or
 * a "(dash,gap,...)" pattern) and a point type, fixed by the policy's name so that it is the
 * same in every chart whatever subset is drawn (plot_style.c). */
typedef struct plot_style {
    const char *color;
    const char *dash;
    int point;
} plot_style;
void plot_style_for(const char *policy, plot_style *out);
/* Several lines of one policy (one per parameter set, plot_lines.c): the k-th line of a
 * policy keeps its colour and, for k > 0, takes another dash and point; plot_line_nth is k
 * for line p of policies[0..]; plot_line_params writes the words of params[p] that not every
 * line of its policy has ("budget=0.3"), "" when it is its policy's only line. */
void plot_style_nth(const char *policy, size_t k, plot_style *out);
size_t plot_line_nth(const char *const *policies, size_t p);
void plot_line_params(const char *const *policies, const char *const *params, size_t n,
                      size_t p, char *buf, size_t len);
/* A run's parameters less its seed ("seed=3" -> "", "seed=3,k=2" -> "k=2"): a line's key. */
void plot_params_less_seed(const char *params, char *out, size_t len);
/* What one line's runs on one trace share beside policy and parameters: remat limit,
 * semantics, allocator. trace = SIZE_MAX before the first row. plot_variant_check: 0 when
 * row r (of that line, on trace `trace`) shares it, else GMS_EINVAL with err saying which
 * runs differ and how to pick one. */
struct store_row;
struct gms_error;
typedef struct plot_variant {
    size_t trace;
    char key[256], desc[300];
} plot_variant;
int plot_variant_check(plot_variant *v, size_t trace, const char *params,
                       const struct store_row *r, struct gms_error *err);

/* Point types of the failure marks (never used by a policy's line). */
#define PLOT_POINT_OOM 2
#define PLOT_POINT_LIMIT 10
/* A successful run above an overhead chart's range (filled triangle up), with its value. */
#define PLOT_POINT_ABOVE 9

/* The bottom of an overhead panel's y range (just under "no overhead"). */
#define PLOT_YMIN 0.98
/* An overhead panel's vertical frame (plot_frame.c): the data range [PLOT_YMIN, top], and
 * above it, past a gap that breaks the axis, the failure strip [strip_lo, strip_hi] with
 * fail_rows rows of row_h. above: some successful run lies over top (marked, with its
 * value). */
typedef struct plot_yframe {
    double top, gap, strip_lo, strip_hi, row_h;
    int above;
} plot_yframe;
void plot_yframe_for(double ymax, double remat_limit, size_t fail_rows, plot_yframe *f);
/* The frame every overhead panel shares: y range and ticks, the failure band ("failed",
 * shaded, above an axis break), grid and tick style. */
void plot_frame_settings(plot_buf *b, const plot_yframe *f, size_t fail_rows, double maxr,
                         double xstep, double ystep);
/* A tick step for an axis of `span` that leaves room for `labels` labels. */
double plot_tick_step(double span, double labels);
/* Legend columns for n entries whose longest title has maxlen characters, in width_pt. */
size_t plot_key_columns(size_t n, size_t maxlen, double width_pt, double font_pt);

#endif
