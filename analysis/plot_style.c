/* plot: the line style of a policy, fixed by its name (see plot_internal.h). */
#include <stdint.h>
#include <string.h>

#include "plot_internal.h"

/* The policies gpumemsim ships, each with its own colour, dash pattern and point shape, so
 * that a policy looks the same in every chart whatever subset is drawn, and 13+ lines stay
 * apart in colour and in greyscale prints. Colours: Okabe-Ito and Paul Tol's muted scheme
 * (colour-blind safe), each used once. Shapes: the 13 gnuplot point types other than 2 and
 * 10 (the failure marks), each used once among sweep's "all" (the first 13 rows); the
 * address-aware policies, planners and solved schedules reuse shapes with their own colour
 * and dash (address-aware and swapping policies never share a memory model). A new built-in
 * gets a row here (test_plot.c, test_policy_styles_are_fixed_by_name, checks them). */
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
    {"random", {"#4D4D4D", "(6,6)", 6}},
    {"dtr-proto", {"#882255", "(14,4)", 8}},
    {"dtr-proto-all", {"#AA4499", "(3,2,8,2)", 12}},
    {"swap-lru", {"#332288", "(10,3,2,3)", 14}},
    {"hybrid", {"#117733", "(6,3,2,3)", 15}},
    /* hybrid's per-victim mix: every other shape of the 13 in sweep's "all" is taken (2 and
     * 10 mark failures), so a dot, with its own colour and dash */
    {"hybrid-mix", {"#A6761D", "(2,4,2,4,8,4)", 0}},
    {"capuchin", {"#CC6677", "(16,4,4,4)", 3}},
    {"autoswap", {"#44AA99", "(1,2)", 1}},
    {"coop", {"#999933", "(20,5)", 14}},
    {"dtr-frag", {"#88CCEE", "(2,2,6,2)", 15}},
    /* checkpoint planners */
    {"ckpt-all", {"#8C510A", "(8,4)", 5}},
    {"ckpt-sqrt", {"#5D3A9B", "(4,2,4,6)", 9}},
    {"mimose", {"#DDAA33", "(9,3)", 13}},
    {"mimose-static", {"#BB5566", "(3,6)", 12}},
    /* the knob replicas (docs/planners.md, "Knob replicas") */
    {"rotor", {"#1F78B4", "(12,3,3,3)", 4}},
    {"sac", {"#B15928", "(5,2,1,2)", 6}},
    {"ac-budget", {"#6A3D9A", "(7,2,2,2,2,2)", 11}},
    /* the optimum (docs/optimal.md): black and solid, the yardstick the others are read by */
    {"checkmate", {"#000000", "1", 3}},
    {"checkmate-approx", {"#999999", "(3,3)", 12}},
};

/* For other names (plugins): a colour, dash and shape picked by a hash of the name, so
 * that they too keep their look from chart to chart. */
static const char *const extra_colors[] = {"#E7298A", "#1B9E77", "#7570B3", "#66A61E",
                                           "#A6761D", "#E6AB02", "#666666", "#D95F02"};
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
