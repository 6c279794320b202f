/* gpumemsim plot: overhead-vs-budget charts from a store, memory timelines of one run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis_util.h"
#include "cli.h"
#include "opt_extract.h"
#include "link.h"
#include "filter_opts.h"
#include "planners.h"
#include "plot.h"
#include "progress.h"
#include "sim.h"
#include "store.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim plot overhead DB [--trace NAME] [--policies LIST] [FILTER...]\n"
            "                      [--title T] [--size WxH] [--font-size PT] [--columns N]\n"
            "                      [--script FILE] -o CHART\n"
            "       gpumemsim plot timeline TRACE --policy P --budget B [--seed N]\n"
            "                      [--remat-limit L] [--sample K] [--allocator M [--alloc-conf C]]\n"
            "                      [--link L] [--host-memory B] [--by-category]\n"
            "                      [--memory-snapshot FILE] -o CHART\n"
            "            (P: a policy name or a policy plugin .so, see docs/plugins.md)\n"
            "       gpumemsim plot timeline TRACE --policy checkmate --budget B\n"
            "                      [--coarsen layers|outputs|none] [--iteration N]\n"
            "                      [--time-limit S] -o CHART\n"
            "            (the solved schedule of one iteration, replayed: docs/optimal.md)\n"
            "       gpumemsim plot iterations DB|TRACE [--trace NAME] [--policies LIST]\n"
            "                      [--budget B] [--policy-args K=V,...] [--title T] -o CHART\n\n"
            "  overhead  overhead (simulated time / baseline compute) against the budget ratio,\n"
            "            one line per policy and one panel per trace of the store DB; a\n"
            "            policy keeps its colour, dash and marker in every chart; a run\n"
            "            above the y range is marked at its top with its value; failed runs\n"
            "            leave gaps and a mark in the 'failed' band above the data (x out of\n"
            "            memory, triangle over the remat limit); randomized policies show the\n"
            "            mean of their seeds and a min-max band; runs that differ in more\n"
            "            than the seed (remat limit, semantics, parameters) are never\n"
            "            averaged: filter for one\n"
            "  timeline  simulate TRACE once and draw resident memory over simulated time with\n"
            "            the budget, the policy's evictions and the rematerializations; with\n"
            "            --allocator (caching, lifetime: docs/memory.md) the model's allocated\n"
            "            and reserved bytes; for a swapping policy (swap-lru, ...) where copies\n"
            "            to and from host memory were queued, over --link and --host-memory\n"
            "            as in sim (docs/swap.md); --by-category stacks the resident bytes by\n"
            "            category (pre-existing, gradients, optimizer state, saved activations,\n"
            "            temporaries, unknown; docs/memory.md), as PyTorch's memory views do;\n"
            "            --memory-snapshot FILE also writes the run as a PyTorch memory\n"
            "            snapshot for pytorch.org/memory_viz, as sim does (docs/memory.md)\n"
            "  iterations  per training iteration: the input size, the peak memory against the\n"
            "            budget and the overhead, one line per policy. From a store DB, the\n"
            "            iterations of checkpoint-planner runs (sweep stores them); from a\n"
            "            TRACE, runs --policies (planners and eviction policies) at --budget\n"
            "            (docs/planners.md)\n\n"
            "  -o CHART        output file; the extension picks the format: .png .svg .pdf\n"
            "  --trace NAME    only this trace (its name, a glob like 'unet*', its hash or the\n"
            "                  hash's first 6+ digits, which tells same-named traces apart)\n"
            "  --policies LIST only these policies, in this legend order (comma-separated)\n"
            "%s"
            "  --size WxH      printed size, in inches (default) or cm: 3.3x2.5in, 17x12cm,\n"
            "                  or a preset: column (3.3 in wide), two-column (7 in wide;\n"
            "                  their heights fit the content) or slide (10x5.625in);\n"
            "                  default column for one trace, two-column for several; PNG\n"
            "                  is drawn at 150 dpi\n"
            "  --font-size PT  text size in points at the printed size (default 8)\n"
            "  --columns N     panels per row (default: by the number of traces)\n"
            "  --script FILE   also write the gnuplot script, data included, to edit and rerun\n"
            "  --budget B      a plain number is a ratio of baseline memory (0.5, 1.2, 50%%);\n"
            "                  bytes need a unit (6GiB, 800MB)\n"
            "  --seed N        seed of a randomized policy (default 0)\n"
            "  --sample K      approximate victim choice (K candidates or sqrt), as in sim\n\n"
            "Charts are drawn by gnuplot (set GMS_GNUPLOT to use a particular one).\n",
            cli_filter_help);
}

static int plot_overhead_cmd(int argc, char **argv)
{
    const char *cmd = "plot overhead", *db = NULL, *out = NULL, *trace = NULL, *title = NULL;
    char **pols = NULL;
    size_t n_pols = 0;
    int rc = 2;
    plot_overhead_opts o = {0};
    gms_error err;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int fo = cli_filter_option(cmd, argc, argv, &i, &o.filter);
        char *end;
        if (fo == 2)
            goto out;
        if (fo == 1) {
            continue;
        } else if (strcmp(a, "--size") == 0 && v) {
            if (plot_parse_size(argv[++i], &o.width_in, &o.height_in, &err)) {
                cli_error(cmd, "--size: %s", err.msg);
                goto out;
            }
        } else if (strcmp(a, "--font-size") == 0 && v) {
            o.font_pt = strtod(argv[++i], &end);
            if (end == v || *end || !(o.font_pt >= 4 && o.font_pt <= 40)) {
                cli_error(cmd, "--font-size '%s': expected points between 4 and 40 (8 reads "
                               "well in print)", v);
                goto out;
            }
        } else if (strcmp(a, "--columns") == 0 && v) {
            long n = strtol(argv[++i], &end, 10);
            if (end == v || *end || n < 1 || n > 16) {
                cli_error(cmd, "--columns '%s': expected a whole number of panels per row, 1 "
                               "to 16", v);
                goto out;
            }
            o.columns = (int)n;
        } else if (strcmp(a, "--script") == 0 && v) {
            o.script = argv[++i];
        } else if (strcmp(a, "-o") == 0 && v) {
            out = argv[++i];
        } else if (strcmp(a, "--trace") == 0 && v) {
            trace = argv[++i];
        } else if (strcmp(a, "--title") == 0 && v) {
            title = argv[++i];
        } else if ((strcmp(a, "--policies") == 0 || strcmp(a, "--policy") == 0) && v) {
            cli_list_free(pols);
            if (cli_list_split(argv[++i], &pols, &n_pols)) {
                cli_error(cmd, "--policies '%s': expected names separated by commas", v);
                goto out;
            }
        } else if (a[0] == '-' && a[1]) {
            cli_error(cmd, "unknown option or missing value: '%s' (see gpumemsim plot --help)",
                      a);
            goto out;
        } else if (!db) {
            db = a;
        } else {
            cli_error(cmd, "one store only (got '%s' and '%s')", db, a);
            goto out;
        }
    }
    if (!db || !out) {
        cli_error(cmd, "usage: gpumemsim plot overhead DB -o CHART.png|svg|pdf");
        goto out;
    }
    plot_format fmt;
    if (plot_format_for_path(out, &fmt, &err)) {
        cli_error(cmd, "%s", err.msg);
        goto out;
    }
    store *s;
    rc = 1;
    if (store_open(db, STORE_READONLY, &s, &err)) {
        cli_error(cmd, "%s", err.msg);
        goto out;
    }
    o.trace = trace;
    o.policies = (const char *const *)pols;
    o.n_policies = n_pols;
    o.out = out;
    o.title = title;
    size_t panels = 0;
    if (plot_overhead(s, &o, &panels, &err)) {
        cli_error(cmd, "%s", err.msg);
    } else {
        fprintf(stderr, "wrote %s (%zu trace%s)%s%s\n", out, panels, panels == 1 ? "" : "s",
                o.script ? " and " : "", o.script ? o.script : "");
        rc = 0;
    }
    store_close(s);
out:
    cli_list_free(pols);
    return rc;
}

/* The replay of a long trace takes a while before the chart appears: a progress line. */
typedef struct timeline_progress {
    progress bar;
    double t0;
} timeline_progress;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_timeline_progress(void *ctx, uint64_t done, uint64_t total)
{
    timeline_progress *tp = ctx;
    progress_update(&tp->bar, (size_t)done, (size_t)total, now_s() - tp->t0, "replaying");
}

static int plot_timeline_cmd(int argc, char **argv)
{
    const char *cmd = "plot timeline";
    plot_timeline_opts o = {.remat_limit = -1};
    const char *budget = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (strcmp(a, "-o") == 0 && v) {
            o.out = argv[++i];
        } else if (strcmp(a, "--policy") == 0 && v) {
            o.policy = argv[++i];
        } else if (strcmp(a, "--allocator") == 0 && v) {
            o.allocator = argv[++i];
        } else if (strcmp(a, "--alloc-conf") == 0 && v) {
            o.alloc_conf = argv[++i];
        } else if (strcmp(a, "--link") == 0 && v) {
            sim_link l;
            gms_error lerr = {0};
            if (sim_link_parse(argv[++i], &l, &lerr)) {
                cli_error(cmd, "--link: %s", lerr.msg);
                return 2;
            }
            o.link_gbps = l.gbps;
            o.link_latency_ns = l.latency_ns;
        } else if (strcmp(a, "--host-memory") == 0 && v) {
            if (cli_parse_bytes(argv[++i], &o.host_memory) || o.host_memory == 0) {
                cli_error(cmd, "--host-memory '%s' must be a positive byte count below 16EiB "
                               "(64GiB)", v);
                return 2;
            }
        } else if (strcmp(a, "--sample") == 0 && v) {
            if (cli_parse_sample(argv[++i], &o.sample)) {
                cli_error(cmd, "--sample '%s' must be a count of storages (0 = all) or 'sqrt'",
                          v);
                return 2;
            }
        } else if (strcmp(a, "--by-category") == 0) {
            o.by_category = 1;
        } else if (strcmp(a, "--memory-snapshot") == 0 && v) {
            if (!*v || strcmp(v, "-") == 0) {
                cli_error(cmd, "--memory-snapshot '%s': give a file name for the snapshot", v);
                return 2;
            }
            o.memory_snapshot = argv[++i];
        } else if (strcmp(a, "--budget") == 0 && v) {
            budget = argv[++i];
        } else if (strcmp(a, "--coarsen") == 0 && v) {
            int c;
            if (cli_parse_coarsen(argv[++i], &c)) {
                cli_error(cmd, "--coarsen '%s': give 'auto' (the default), 'outputs', "
                          "'layers' or 'none'", v);
                return 2;
            }
            o.ck_coarsen = opt_coarsen_name((opt_coarsen)c);
        } else if (strcmp(a, "--iteration") == 0 && v) {
            if (cli_parse_iteration(argv[++i], &o.ck_iteration)) {
                cli_error(cmd, "--iteration '%s': give an iteration number from 0", v);
                return 2;
            }
        } else if (strcmp(a, "--time-limit") == 0 && v) {
            if (cli_parse_seconds(argv[++i], &o.ck_time_limit)) {
                cli_error(cmd, "--time-limit '%s': give seconds > 0 (60, 60s or 2m)", v);
                return 2;
            }
        } else if (strcmp(a, "--seed") == 0 && v) {
            errno = 0;
            o.seed = strtoull(v, &end, 10);
            if (end == v || *end || errno || v[0] == '-') {
                cli_error(cmd, "--seed '%s': expected a whole number", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--remat-limit") == 0 && v) {
            if (cli_parse_remat_limit(v, &o.remat_limit)) {
                cli_error(cmd, "--remat-limit '%s': expected a number >= 1, or 0 for no limit", v);
                return 2;
            }
            i++;
        } else if (a[0] == '-' && a[1]) {
            cli_error(cmd, "unknown option or missing value: '%s' (see gpumemsim plot --help)",
                      a);
            return 2;
        } else if (!o.trace_path) {
            o.trace_path = a;
        } else {
            cli_error(cmd, "one trace only (got '%s' and '%s')", o.trace_path, a);
            return 2;
        }
    }
    if (!o.trace_path || !o.policy || !budget || !o.out) {
        cli_error(cmd, "usage: gpumemsim plot timeline TRACE --policy P --budget B -o CHART");
        return 2;
    }
    int brc = cli_parse_budget(budget, &o.ratio, &o.budget);
    if (brc != 0) {
        char msg[300];
        cli_error(cmd, "%s", cli_budget_error(budget, brc, msg, sizeof msg));
        return 2;
    }
    gms_error err;
    plot_timeline_summary sum;
    timeline_progress tp = {.t0 = now_s()};
    progress_init(&tp.bar, stderr, "plot timeline", 0);
    tp.bar.unit = "ops";
    o.progress = on_timeline_progress;
    o.progress_ctx = &tp;
    int failed = plot_timeline(&o, &sum, &err);
    progress_end(&tp.bar);
    if (failed) {
        cli_error(cmd, "%s", err.msg);
        return 1;
    }
    fprintf(stderr, "wrote %s (%s run: %llu evictions, %llu rematerializations)\n", o.out,
            sim_status_name((sim_status)sum.status),
            (unsigned long long)sum.evictions, (unsigned long long)sum.remats);
    return 0;
}

static int plot_iterations_cmd(int argc, char **argv)
{
    const char *cmd = "plot iterations", *budget = NULL;
    plot_iterations_opts o = {0};
    char **policies = NULL, *args = NULL;
    size_t n_policies = 0;
    int rc = 2;
    gms_error err = {0};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-o") == 0 && v) {
            o.out = argv[++i];
        } else if (strcmp(a, "--trace") == 0 && v) {
            o.trace = argv[++i];
        } else if (strcmp(a, "--title") == 0 && v) {
            o.title = argv[++i];
        } else if (strcmp(a, "--budget") == 0 && v) {
            budget = argv[++i];
        } else if ((strcmp(a, "--policies") == 0 || strcmp(a, "--policy") == 0) && v) {
            cli_list_free(policies);
            if (cli_list_split(argv[++i], &policies, &n_policies)) {
                cli_error(cmd, "--policies '%s': expected names separated by commas", v);
                goto out;
            }
        } else if (strcmp(a, "--policy-args") == 0 && v) {
            free(args);
            args = NULL;
            if (planner_params_canon(argv[++i], &args, &err)) {
                cli_error(cmd, "%s", err.msg);
                goto out;
            }
        } else if (a[0] == '-' && a[1]) {
            cli_error(cmd, "unknown option or missing value: '%s' (see gpumemsim plot --help)",
                      a);
            goto out;
        } else if (!o.source) {
            o.source = a;
        } else {
            cli_error(cmd, "one store or trace only (got '%s' and '%s')", o.source, a);
            goto out;
        }
    }
    if (!o.source || !o.out) {
        cli_error(cmd, "usage: gpumemsim plot iterations DB|TRACE [--policies LIST] "
                       "[--budget B] -o CHART");
        goto out;
    }
    if (budget) {
        int brc = cli_parse_budget(budget, &o.ratio, &o.budget);
        if (brc != 0) {
            char msg[300];
            cli_error(cmd, "%s", cli_budget_error(budget, brc, msg, sizeof msg));
            goto out;
        }
    }
    o.policies = (const char *const *)policies;
    o.n_policies = n_policies;
    o.policy_args = args;
    size_t lines = 0;
    if (plot_iterations(&o, &lines, &err)) {
        cli_error(cmd, "%s", err.msg);
        rc = 1;
        goto out;
    }
    fprintf(stderr, "wrote %s (%zu policies)\n", o.out, lines);
    rc = 0;
out:
    cli_list_free(policies);
    free(args);
    return rc;
}

int cmd_plot(int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (int i = 2; i < argc; i++)
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
    if (strcmp(argv[1], "overhead") == 0)
        return plot_overhead_cmd(argc, argv);
    if (strcmp(argv[1], "timeline") == 0)
        return plot_timeline_cmd(argc, argv);
    if (strcmp(argv[1], "iterations") == 0)
        return plot_iterations_cmd(argc, argv);
    cli_error("plot", "unknown chart '%s' (overhead, timeline or iterations)", argv[1]);
    return 2;
}
