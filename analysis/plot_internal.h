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

/* Line styles shared by the charts: a colour-blind-safe palette (Okabe-Ito) with distinct
 * dash types and point shapes, so lines stay apart in greyscale prints too. */
#define PLOT_N_STYLES 8
extern const char *const plot_colors[PLOT_N_STYLES];
extern const int plot_dashes[PLOT_N_STYLES];
extern const int plot_points[PLOT_N_STYLES];

#endif
