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

/* Point types of the failure marks (never used by a policy's line). */
#define PLOT_POINT_OOM 2
#define PLOT_POINT_LIMIT 10

#endif
