/* plot_frame: the vertical frame of an overhead panel and the legend's columns (see
 * plot_internal.h). Pure arithmetic, so the layout rules are stated once. */
#include <math.h>
#include <stddef.h>

#include "plot_internal.h"

void plot_yframe_for(double ymax, double remat_limit, size_t fail_rows, plot_yframe *f)
{
    double limit = remat_limit > 1 ? remat_limit : 2.0;
    /* every successful run inside the range, up to a cap: beyond it one outlier would flatten
     * the lines everyone reads, so those runs get an "above the range" mark with their value */
    double cap = limit + 1.0 > 3.0 ? limit + 1.0 : 3.0;
    double top = 1.0 + ceil((ymax - 1.0) * 1.08 * 10.0) / 10.0;
    if (top < 1.1)
        top = 1.1;
    f->above = top > cap && ymax > cap;
    if (top > cap)
        top = cap;
    f->top = top;
    double span = top - PLOT_YMIN;
    /* failures: a shaded band of their own above a gap (the axis break), one row per policy
     * that failed anywhere, so that its marks never read as data near the top tick */
    f->gap = fail_rows ? span * 0.07 : 0;
    double row = fail_rows ? 0.3 / (double)fail_rows : 0.04; /* the band: at most ~1/4 */
    f->row_h = span * (row < 0.04 ? row : 0.04);
    f->strip_lo = top + f->gap;
    f->strip_hi = fail_rows ? f->strip_lo + f->row_h * ((double)fail_rows + 0.6) : top;
}

size_t plot_key_columns(size_t n, size_t maxlen, double width_pt, double font_pt)
{
    /* an entry as gnuplot sizes it: the sample (samplen 2, width -1), gaps and the title, about
     * 0.62 em per character (its estimate for Sans, wider than the glyphs) */
    double entry = ((double)maxlen + 8.0) * 0.62 * font_pt;
    size_t cols = entry > 0 ? (size_t)(width_pt / entry) : 1;
    if (cols < 1)
        cols = 1;
    if (cols > n && n > 0)
        cols = n;
    return cols;
}

/* A tick step for a budget axis of `span` that leaves room for `labels` labels. */
double plot_tick_step(double span, double labels)
{
    static const double steps[] = {0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (span / steps[i] + 1 <= labels)
            return steps[i];
    return 10;
}

/* The frame every panel shares: y range and ticks, the failure strip (a shaded band labelled
 * "failed" above a break in the axis), grid and tick style. */
void plot_frame_settings(plot_buf *b, const plot_yframe *f, size_t fail_rows, double maxr,
                         double xstep, double ystep)
{
    plot_buf_printf(b,
                    "set grid xtics ytics lc rgb '#d9d9d9' lw 0.5 dt 1\n"
                    "set border 3 lc rgb '#444444'\nset tics nomirror out scale 0.5\n"
                    "set xrange [0:%g]\nset yrange [%g:%g]\n"
                    "set xtics %g format '%%g'\nset ytics 1,%g,%g format '%%g'\n"
                    "set style fill transparent solid 0.18 noborder\n",
                    maxr * 1.02, PLOT_YMIN, f->strip_hi, xstep, ystep, f->top + 1e-9);
    if (!fail_rows)
        return;
    plot_buf_printf(b,
                    "set ytics add ('failed' %g)\n"
                    "set object 2 rect from graph 0, first %g to graph 1, first %g behind "
                    "fc rgb '#efefef' fs solid 1.0 noborder\n"
                    /* the axis break: the gap between the data and the band */
                    "set object 3 rect from graph -0.03, first %g to graph 0.004, first %g "
                    "front fc rgb '#ffffff' fs solid 1.0 noborder\n"
                    "set arrow 1 from graph -0.02, first %g to graph 0.02, first %g nohead "
                    "front lc rgb '#444444' lw 0.8\n"
                    "set arrow 2 from graph -0.02, first %g to graph 0.02, first %g nohead "
                    "front lc rgb '#444444' lw 0.8\n",
                    (f->strip_lo + f->strip_hi) / 2, f->strip_lo, f->strip_hi,
                    f->top + f->gap * 0.3, f->strip_lo - f->gap * 0.3,
                    f->top + f->gap * 0.15, f->top + f->gap * 0.45,
                    f->strip_lo - f->gap * 0.45, f->strip_lo - f->gap * 0.15);
}
