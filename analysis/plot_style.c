/* plot: the line style of a policy, fixed by its name (see plot_internal.h). */
#include <stdint.h>
#include <string.h>

#include "plot_internal.h"

/* The policies gpumemsim ships, each with its own colour (Okabe-Ito, colour-blind safe),
 * dash pattern and point shape, so that a policy looks the same in every chart whatever
 * subset is drawn, and the lines stay apart in greyscale prints. Failure marks use point
 * types 2 (oom) and 10 (remat limit), which no line uses. */
static const struct {
    const char *name;
    plot_style style;
} fixed[] = {
    {"dtr", {"#0072B2", "1", 7}},
    {"dtr-eq", {"#56B4E9", "(10,5)", 5}},
    {"dtr-local", {"#009E73", "(4,3)", 9}},
    {"msps", {"#D55E00", "(12,4,2,4)", 13}},
    {"lru", {"#CC79A7", "(2,3)", 11}},
    {"size", {"#E69F00", "(8,3,2,3,2,3)", 4}},
    {"random", {"#000000", "(6,6)", 6}},
    /* the optimum (docs/optimal.md): black and solid, the yardstick the others are read by */
    {"checkmate", {"#000000", "1", 3}},
    {"checkmate-approx", {"#666666", "(3,3)", 12}},
};

/* For other names (plugins): a colour, dash and shape picked by a hash of the name, so
 * that they too keep their look from chart to chart. */
static const char *const extra_colors[] = {"#882255", "#44AA99", "#117733", "#332288",
                                           "#AA4499", "#999933", "#661100", "#888888"};
static const char *const extra_dashes[] = {"(3,2,8,2)", "(1,2)", "(14,4)", "(5,2,1,2)", "1"};
static const int extra_points[] = {8, 12, 14, 1, 3};

void plot_style_for(const char *policy, plot_style *out)
{
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(fixed[i].name, policy) == 0) {
            *out = fixed[i].style;
            return;
        }
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)policy; *p; p++)
        h = (h ^ *p) * 16777619u;
    out->color = extra_colors[h % 8];
    out->dash = extra_dashes[(h / 8) % 5];
    out->point = extra_points[(h / 40) % 5];
}
