/*
 * gpumemsim graph: one iteration of a trace as the static dataflow graph the optimal planners
 * read (docs/optimal.md), written as JSON that `optimal` takes directly.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gms_tmpfile.h"
#include "gmt_outfile.h"
#include "opt_extract.h"
#include "opt_graph_json.h"
#include "opt_hostcost.h"
#include "sim.h"
#include "store.h"

static const char *const CMD = "graph";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim graph TRACE [--iteration N] [--coarsen layers|outputs]\n"
            "                       [--host-trace FILE | --host-estimate SPEC] -o GRAPH.json\n"
            "\n"
            "Writes one training iteration of TRACE (.gmt, DTR log or PyTorch ET) as a static\n"
            "dataflow graph in JSON (docs/optimal.md): nodes in execution order with their\n"
            "compute (ms), output bytes and inputs, and constant_bytes, the storage that\n"
            "outlives the iteration (parameters, optimizer state, inputs), which the optimal\n"
            "planners take off the budget. `gpumemsim optimal` reads the file; so can you, or\n"
            "write one by hand.\n"
            "\n"
            "options:\n"
            "  -o, --output FILE   the graph to write (written whole or not at all)\n"
            "  --iteration N       which iteration, from 0 (default 0; `gpumemsim info` counts\n"
            "                      them)\n"
            "  --coarsen layers    one node per layer's forward ops and one per its backward\n"
            "                      ops (layer scopes, or without scopes the segmentation of\n"
            "                      docs/layers.md), so real models fit the program; default:\n"
            "                      one node per op\n"
            "  --coarsen outputs   one node per output storage, each held until its own last\n"
            "                      reader (our extension of Checkmate's graph, docs/optimal.md\n"
            "                      \"From a trace\"): the program then frees as the replay\n"
            "                      does and its unconstrained peak is the trace's baseline\n"
            "  --host-trace FILE   the same job traced on the host: its graph (same iteration\n"
            "                      and --coarsen) must match node for node (names, bytes,\n"
            "                      inputs); each node's cost there becomes its cost_host, for\n"
            "                      optimal's two-device program (docs/optimal.md)\n"
            "  --host-estimate SPEC  cost_host estimated per op, an assumption, not a\n"
            "                      measurement: slowdown=K (K x the GPU time), roofline=GBPS\n"
            "                      (bytes read + written at GBPS GB/s; traces carry no FLOPs)\n"
            "                      or slowdown=K,roofline=GBPS (the larger)\n"
            "  -h, --help          show this help\n"
            "\n"
            "example:\n"
            "  gpumemsim graph resnet.gmt --coarsen layers -o resnet.json\n"
            "  gpumemsim optimal resnet.json --budget 0.5\n"
            "  gpumemsim graph resnet.gmt --coarsen layers --host-estimate slowdown=8 \\\n"
            "      -o resnet2.json\n"
            "  gpumemsim optimal resnet2.json --budget 0.5 --link pcie4\n");
}

int cli_parse_coarsen(const char *s, int *out)
{
    opt_coarsen c;
    if (opt_coarsen_parse(s, &c))
        return -1;
    *out = (int)c;
    return 0;
}

/* The graph of path's iteration; 0, or the exit code after saying what went wrong (label
 * names the option the path came from, or ""). */
static int load_graph(const char *label, const char *path, uint32_t iteration, int coarsen,
                      const opt_host_estimate *host, opt_graph **g, opt_extract_info *info)
{
    gms_error err = {0};
    sim_trace *t;
    opt_extract_info tmp;
    *g = NULL;
    if (sim_trace_load(path, &t, &err) != 0) {
        cli_error(CMD, "%s%s", label, err.msg);
        return 1;
    }
    int rc = opt_graph_from_trace_host(t, iteration, (opt_coarsen)coarsen, host, g,
                                       info ? info : &tmp, &err);
    sim_trace_free(t);
    /* the trace's content hash goes into the JSON, so the graph is never taken for another
     * trace's (sim --graph checks it) */
    if (rc == 0 && (rc = store_hash_file(path, (*g)->trace_hash, &err)) != 0) {
        opt_graph_free(*g);
        *g = NULL;
    }
    if (rc) {
        cli_error(CMD, "%s%s: %s", label, path, err.msg);
        return rc == GMS_EINVAL ? 2 : 1;
    }
    return 0;
}

int cmd_graph(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"iteration", required_argument, NULL, 'i'},
        {"coarsen", required_argument, NULL, 'c'},
        {"host-trace", required_argument, NULL, 'H'},
        {"host-estimate", required_argument, NULL, 'E'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL;
    uint32_t iteration = 0;
    int coarsen = OPT_COARSEN_NONE, c;
    const char *host_trace = NULL;
    opt_host_estimate est, *host_est = NULL;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'i':
            if (cli_parse_iteration(optarg, &iteration)) {
                cli_error(CMD, "--iteration '%s': give an iteration number from 0", optarg);
                return 2;
            }
            break;
        case 'c':
            if (cli_parse_coarsen(optarg, &coarsen) || coarsen == OPT_COARSEN_AUTO) {
                cli_error(CMD, "--coarsen '%s': give 'layers', 'outputs' (or 'none', the default)",
                          optarg);
                return 2;
            }
            break;
        case 'H':
            host_trace = optarg;
            break;
        case 'E': {
            gms_error perr = {0};
            if (opt_host_estimate_parse(optarg, &est, &perr)) {
                cli_error(CMD, "--host-estimate '%s': %s", optarg, perr.msg);
                return 2;
            }
            host_est = &est;
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            cli_error(CMD, "%s needs a value (see --help)", argv[optind - 1]);
            return 2;
        default:
            cli_error(CMD, "unknown option '%s' (see --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (optind != argc - 1) {
        cli_error(CMD, optind >= argc ? "give one trace (see --help)"
                                      : "give exactly one trace (see --help)");
        return 2;
    }
    if (!out) {
        cli_error(CMD, "give the graph file to write with -o GRAPH.json");
        return 2;
    }
    if (host_trace && host_est) {
        cli_error(CMD, "give --host-trace or --host-estimate, not both");
        return 2;
    }
    const char *path = argv[optind];
    gms_error err = {0};
    opt_graph *g;
    opt_extract_info info;
    int rc = load_graph("", path, iteration, coarsen, host_est, &g, &info);
    if (rc)
        return rc;
    if (host_trace) {
        opt_graph *hg;
        rc = load_graph("--host-trace ", host_trace, iteration, coarsen, NULL, &hg, NULL);
        if (rc == 0 && opt_graph_take_host(g, hg, &err) != 0) {
            cli_error(CMD, "--host-trace %s: %s", host_trace, err.msg);
            rc = 1;
        }
        opt_graph_free(hg);
        if (rc) {
            opt_graph_free(g);
            return rc;
        }
    }
    FILE *f;
    char *tmp;
    if (gmt_outfile_create(out, &f, &tmp, &err) != 0) {
        cli_error(CMD, "%s", err.msg);
        opt_graph_free(g);
        return 1;
    }
    rc = opt_graph_write(g, f, &err);
    if (fclose(f) != 0 && rc == 0)
        rc = gms_error_set(&err, GMS_EIO, "write error");
    if (rc == 0 && rename(tmp, out) != 0)
        rc = gms_error_set(&err, GMS_EIO, "cannot rename into place: %s", strerror(errno));
    if (rc) {
        remove(tmp);
        cli_error(CMD, "%s: %s", out, err.msg);
    }
    gms_tmp_done(tmp);
    free(tmp);
    if (rc == 0) {
        char cb[32];
        fprintf(stderr, "graph: %s: iteration %u of %u, %u ops -> %u nodes, %u edges%s%s%s, "
                "constant %s%s%s\n", path, iteration, info.iterations, info.ops, g->n, g->n_edges,
                coarsen == OPT_COARSEN_LAYERS ? " (layers from " : "",
                coarsen == OPT_COARSEN_LAYERS ? info.layers : "",
                coarsen == OPT_COARSEN_LAYERS ? ")" : "",
                cli_format_bytes(g->constant_bytes, cb, sizeof cb),
                host_trace ? ", cost_host from " : host_est ? ", cost_host estimated" : "",
                host_trace ? host_trace : "");
    }
    opt_graph_free(g);
    return rc ? 1 : 0;
}
