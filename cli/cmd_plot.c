/* gpumemsim plot: overhead-vs-budget charts from a store, memory timelines of one run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_util.h"
#include "cli.h"
#include "plot.h"
#include "sim.h"
#include "store.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim plot overhead DB [--trace NAME] [--policies LIST] [--title T]\n"
            "                      -o CHART\n"
            "       gpumemsim plot timeline TRACE --policy P --budget B [--seed N]\n"
            "            (P: a policy name or a policy plugin .so, see docs/plugins.md)\n"
            "                      [--remat-limit L] -o CHART\n\n"
            "  overhead  overhead (simulated time / baseline compute) against the budget ratio,\n"
            "            one line per policy and one panel per trace of the store DB; failed\n"
            "            runs (out of memory, over the remat limit) leave gaps; randomized\n"
            "            policies show the mean over their seeds\n"
            "  timeline  simulate TRACE once and draw resident memory over simulated time with\n"
            "            the budget, the policy's evictions and the rematerializations\n\n"
            "  -o CHART        output file; the extension picks the format: .png .svg .pdf\n"
            "  --trace NAME    only this trace (its name, a glob like 'unet*', or its hash)\n"
            "  --policies LIST only these policies, in this legend order (comma-separated)\n"
            "  --budget B      a ratio of baseline memory (0.5, 50%%) or bytes (6GiB)\n"
            "  --seed N        seed of a randomized policy (default 0)\n\n"
            "Charts are drawn by gnuplot (set GMS_GNUPLOT to use a particular one).\n");
}

static int plot_overhead_cmd(int argc, char **argv)
{
    const char *cmd = "plot overhead", *db = NULL, *out = NULL, *trace = NULL, *title = NULL;
    char **pols = NULL;
    size_t n_pols = 0;
    int rc = 2;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-o") == 0 && v) {
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
    gms_error err;
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
    plot_overhead_opts o = {trace, (const char *const *)pols, n_pols, out, title};
    size_t panels = 0;
    if (plot_overhead(s, &o, &panels, &err)) {
        cli_error(cmd, "%s", err.msg);
    } else {
        fprintf(stderr, "wrote %s (%zu trace%s)\n", out, panels, panels == 1 ? "" : "s");
        rc = 0;
    }
    store_close(s);
out:
    cli_list_free(pols);
    return rc;
}

static int plot_timeline_cmd(int argc, char **argv)
{
    const char *cmd = "plot timeline";
    plot_timeline_opts o = {0};
    const char *budget = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (strcmp(a, "-o") == 0 && v) {
            o.out = argv[++i];
        } else if (strcmp(a, "--policy") == 0 && v) {
            o.policy = argv[++i];
        } else if (strcmp(a, "--budget") == 0 && v) {
            budget = argv[++i];
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
                cli_error(cmd, "--remat-limit '%s': expected a number >= 1", v);
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
    if (cli_parse_budget(budget, &o.ratio, &o.budget) != 0) {
        cli_error(cmd, "--budget '%s': expected a ratio (0.5, 50%%) or a size (6GiB)", budget);
        return 2;
    }
    gms_error err;
    plot_timeline_summary sum;
    if (plot_timeline(&o, &sum, &err)) {
        cli_error(cmd, "%s", err.msg);
        return 1;
    }
    fprintf(stderr, "wrote %s (%s run: %llu evictions, %llu rematerializations)\n", o.out,
            sim_status_name((sim_status)sum.status),
            (unsigned long long)sum.evictions, (unsigned long long)sum.remats);
    return 0;
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
    cli_error("plot", "unknown chart '%s' (overhead or timeline)", argv[1]);
    return 2;
}
