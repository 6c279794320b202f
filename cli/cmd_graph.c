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
#include "sim.h"

static const char *const CMD = "graph";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim graph TRACE [--iteration N] [--coarsen layers|outputs]\n"
            "                       -o GRAPH.json\n"
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
            "  -h, --help          show this help\n"
            "\n"
            "example:\n"
            "  gpumemsim graph resnet.gmt --coarsen layers -o resnet.json\n"
            "  gpumemsim optimal resnet.json --budget 0.5\n");
}

int cli_parse_coarsen(const char *s, int *out)
{
    if (strcmp(s, "layers") == 0)
        *out = OPT_COARSEN_LAYERS;
    else if (strcmp(s, "none") == 0 || strcmp(s, "ops") == 0)
        *out = OPT_COARSEN_NONE;
    else if (strcmp(s, "outputs") == 0)
        *out = OPT_COARSEN_OUTPUTS;
    else
        return -1;
    return 0;
}

int cmd_graph(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"iteration", required_argument, NULL, 'i'},
        {"coarsen", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL;
    uint32_t iteration = 0;
    int coarsen = OPT_COARSEN_NONE, c;
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
            if (cli_parse_coarsen(optarg, &coarsen)) {
                cli_error(CMD, "--coarsen '%s': give 'layers', 'outputs' (or 'none', the default)",
                          optarg);
                return 2;
            }
            break;
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
    const char *path = argv[optind];
    gms_error err = {0};
    sim_trace *t;
    if (sim_trace_load(path, &t, &err) != 0) {
        cli_error(CMD, "%s", err.msg);
        return 1;
    }
    opt_graph *g;
    opt_extract_info info;
    int rc = opt_graph_from_trace(t, iteration, (opt_coarsen)coarsen, &g, &info, &err);
    sim_trace_free(t);
    if (rc) {
        cli_error(CMD, "%s: %s", path, err.msg);
        return rc == GMS_EINVAL ? 2 : 1;
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
                "constant %s\n", path, iteration, info.iterations, info.ops, g->n, g->n_edges,
                coarsen == OPT_COARSEN_LAYERS ? " (layers from " : "",
                coarsen == OPT_COARSEN_LAYERS ? info.layers : "",
                coarsen == OPT_COARSEN_LAYERS ? ")" : "",
                cli_format_bytes(g->constant_bytes, cb, sizeof cb));
    }
    opt_graph_free(g);
    return rc ? 1 : 0;
}
