/* plot: parsing a chart size "WxH[in|cm]" (see plot.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

/* Reads a positive number at *s, advancing *s; -1 when there is none. */
static double number(const char **s)
{
    char *end;
    if (!(**s >= '0' && **s <= '9') && **s != '.')
        return -1;
    double v = strtod(*s, &end);
    if (end == *s || !isfinite(v) || v <= 0)
        return -1;
    *s = end;
    return v;
}

/* The units per inch at *s ("in", "cm", "mm" or nothing = inches), advancing *s; 0 when
 * the text there is no unit. */
static double unit(const char **s)
{
    if (strncmp(*s, "in", 2) == 0) {
        *s += 2;
        return 1.0;
    }
    if (strncmp(*s, "cm", 2) == 0) {
        *s += 2;
        return 2.54;
    }
    if (strncmp(*s, "mm", 2) == 0) {
        *s += 2;
        return 25.4;
    }
    return **s == '\0' || **s == 'x' || **s == 'X' ? 1.0 : 0.0;
}

/* Named sizes: a paper's column and page width (the height then follows the content) and a
 * 16:9 slide. */
static const struct {
    const char *name;
    double w, h;
} presets[] = {
    {"column", 3.3, 0},
    {"two-column", 7.0, 0},
    {"slide", 10.0, 5.625},
};

const char *plot_size_presets(void)
{
    return "column, two-column, slide";
}

int plot_parse_size(const char *text, double *w_in, double *h_in, gms_error *err)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(text, presets[i].name) == 0) {
            *w_in = presets[i].w;
            *h_in = presets[i].h;
            return 0;
        }
    const char *s = text;
    double w = number(&s), wu = w > 0 ? unit(&s) : 0;
    int ok = w > 0 && wu > 0 && (*s == 'x' || *s == 'X');
    double h = -1, hu = 0;
    if (ok) {
        s++;
        h = number(&s);
        hu = h > 0 ? unit(&s) : 0;
        ok = h > 0 && hu > 0 && *s == '\0';
    }
    if (ok) {
        /* a unit given only after the height applies to both ("8x6cm") */
        const char *wend = strpbrk(text, "xX");
        int w_has_unit = wend && wend > text && (wend[-1] == 'n' || wend[-1] == 'm');
        if (!w_has_unit)
            wu = hu;
        w /= wu;
        h /= hu;
        ok = w >= 1.0 && h >= 1.0 && w <= 50.0 && h <= 50.0;
    }
    if (!ok)
        return gms_error_set(err, GMS_EINVAL,
                             "size '%s': expected a preset (%s) or WIDTHxHEIGHT in inches or "
                             "centimetres between 1 in and 50 in, e.g. 3.3x2.5in (one "
                             "column), 7x5in (two columns) or 17x12cm",
                             text, plot_size_presets());
    *w_in = w;
    *h_in = h;
    return 0;
}
