/*
 * gpumemsim optimal: the optimal rematerialization schedule of a graph under a budget
 * (Checkmate's MILP, solved by CBC), its LP relaxation's bound, or the authors' LP rounding
 * (docs/optimal.md).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt_extract.h"
#include "opt_graph_json.h"
#include "opt_size.h"
#include "opt_solve.h"
#include "optimal_improve.h"
#include "optimal_seeds.h"
#include "optimal_xengine.h"
#include "sim.h"
#include "store.h"
#include "swap_opts.h"

static const char *const CMD = "optimal";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim optimal GRAPH|TRACE --budget B [--time-limit S] [--relax|--approx]\n"
            "                         [--write-model F.lp] [--json] [--iteration N]\n"
            "                         [--coarsen auto|outputs|layers|none] [--log]\n"
            "                         [--formulation checkmate|moccasin [--copies C|max]]\n"
            "                         [--bound lp|boundary]\n"
            "                         [--host-memory B] [--link L]\n"
            "\n"
            "Finds the schedule of least total compute that fits the budget: which node to\n"
            "compute, recompute and keep at each stage, by Checkmate's MILP (Jain et al., MLSys\n"
            "2020) as the authors build it (stage t computes node t), solved by CBC and seeded\n"
            "with a heuristic schedule, so a feasible answer exists from the first second.\n"
            "Reports status (optimal; feasible, with its gap to the bound, when the time limit\n"
            "ends the search; infeasible, exit 1, with what the smallest budget needs), the\n"
            "objective (total compute in ms), the LP relaxation's lower bound, the solve time\n"
            "and the schedule (docs/optimal.md).\n"
            "\n"
            "GRAPH is a graph JSON (`gpumemsim graph`, or by hand); a TRACE is turned into one\n"
            "first (--iteration; --coarsen auto, the default, picks outputs when the budget\n"
            "holds its peak or its program fits 8 GB and its LP a quarter of the time limit,\n"
            "600 s without one, else layers, and says why; or outputs, layers, none as in\n"
            "`gpumemsim graph`).\n"
            "\n"
            "A program is sized before it is built; one over 8 GB (GMS_OPT_MEMORY_CAP=BYTES\n"
            "sets the cap) is never built: the MILP answers with its best seed (on a trace at\n"
            "op level, the best heuristic's run) and the boundary bound, and says so; --relax\n"
            "and --approx are refused.\n"
            "\n"
            "options:\n"
            "  --budget B        a ratio of the trace's baseline peak, as sim's --budget (0.5,\n"
            "                    50%%; a graph JSON carries it as baseline_peak; one without\n"
            "                    it: of the graph's unconstrained peak, and optimal says so),\n"
            "                    or bytes with a unit (800MB, 2GiB); includes constant_bytes\n"
            "  --time-limit S    stop the search after S seconds (default: none) and report the\n"
            "                    best schedule found with its gap; a hard stop: a solver that\n"
            "                    overruns is killed after S s + 1 s + 5%% (docs/optimal.md)\n"
            "  --relax           the LP relaxation's bound alone\n"
            "  --approx          the authors' deterministic rounding of the LP (LP at 0.9 x\n"
            "                    budget, checkpoints rounded at 0.1 .. 0.9, the cheapest that\n"
            "                    fits), for graphs too large for the MILP\n"
            "  --write-model F   write the program solved in LP format to F\n"
            "  --json            print one JSON object (keys in docs/optimal.md)\n"
            "  --log             show CBC's log on stderr\n"
            "  --no-seed         do not seed the MILP (to measure what the seed does)\n"
            "  --trace T         with a GRAPH JSON: the trace it was made from (its trace_hash\n"
            "                    must be T's; refused otherwise), for the heuristics' runs\n"
            "  --seed-policies L on a trace: run these eviction policies at the same budget\n"
            "                    (default dtr,dtr-eq,msps,lru; none: no runs); at op level\n"
            "                    (outputs, none) each run, as a schedule of the graph, seeds\n"
            "                    the MILP, so the answer is never worse than the best that\n"
            "                    fits the program's memory; on a coarser graph an answer worse\n"
            "                    than the best run is said so\n"
            "  --no-improve      with --time-limit, do not improve the seed by the window\n"
            "                    search first (windows of stages re-solved as small MILPs\n"
            "                    around the best seed; on by default; a small program\n"
            "                    goes to CBC whole first, for a tenth of the limit, and a\n"
            "                    proof there skips the windows; docs/optimal.md)\n"
            "  --round           with --time-limit, also round the search's LP solutions into\n"
            "                    schedules (opt-in: no gain measured, and CBC 2.10.8 crashed\n"
            "                    on one program with it; docs/optimal.md); refused without\n"
            "                    --time-limit or with --relax, --approx, --bound\n"
            "  --tighten         our extension of the authors' program: one inequality per\n"
            "                    hazard instead of their aggregated FREE_E bound, FREE_E\n"
            "                    continuous; same optimum, tighter LP bound (docs/optimal.md)\n"
            "  --formulation F   checkmate (default: the authors' program) or moccasin\n"
            "                    (MOCCASIN's, Bartan et al. 2023, as a MILP: the tightened\n"
            "                    program with each node computed at most C times)\n"
            "  --copies C        MOCCASIN's C (default 2, as its authors; max: no limit, the\n"
            "                    same optimum as checkmate); below max the optimum may be higher\n"
            "  --bound B         with no MILP: lp (= --relax) or boundary, a cheaper valid\n"
            "                    lower bound (one column per edge, one row per node) for graphs\n"
            "                    too large for the LP (docs/optimal.md, \"The boundary bound\")\n"
            "\n"
            "two devices (after XEngine, Schuler et al., TACO 2022; docs/optimal.md):\n"
            "  when a node of the graph has a \"cost_host\" (ms), or --host-memory or --link is\n"
            "  given, each node may run on the GPU or on the host, a value used on the other\n"
            "  device is copied over the link, and the objective is the total time: compute on\n"
            "  both devices plus the copies, one after another. --budget is the GPU's.\n"
            "  --host-memory B    the host's memory for activations (64GiB; default unlimited)\n"
            "  --link L           the link: pcie3, pcie4 (default), pcie5, nvlink-c2c, or\n"
            "                     GBPS[,LATENCY_US] (docs/swap.md)\n"
            "  -h, --help        show this help\n"
            "\n"
            "examples:\n"
            "  gpumemsim optimal g.json --budget 0.6\n"
            "  gpumemsim optimal resnet.gmt --budget 300MB --time-limit 60 --json\n"
            "  gpumemsim optimal g-host.json --budget 0.5 --host-memory 16GiB --link pcie4\n");
}

/* A graph JSON starts with '{' and names "nodes" early; a DTR log's lines are objects too, so
 * the key decides. */
static int looks_like_graph(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char buf[4097];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    size_t i = 0;
    while (i < n && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
        i++;
    return i < n && buf[i] == '{' && (strstr(buf, "\"nodes\"") || strstr(buf, "\"constant_bytes\""));
}

static json_t *schedule_json(const opt_graph *g, const opt_schedule *s)
{
    json_t *arr = json_array();
    uint32_t n = g->n;
    for (uint32_t t = 0; t < n; t++) {
        json_t *comp = json_array(), *keep = json_array();
        for (uint32_t i = 0; i <= t; i++) {
            if (s->R[(size_t)t * n + i])
                json_array_append_new(comp, json_integer(i));
            if (t + 1 < n && s->S[(size_t)(t + 1) * n + i])
                json_array_append_new(keep, json_integer(i));
        }
        json_array_append_new(arr, json_pack("{s:i, s:o, s:o}", "stage", (json_int_t)t,
                                             "compute", comp, "keep", keep));
    }
    return arr;
}

static void infeasible_sentence(const opt_graph *g, uint64_t budget, const opt_answer *a,
                                char *buf, size_t len)
{
    char b1[32], b2[32], b3[32];
    cli_format_bytes(budget, b1, sizeof b1);
    cli_format_bytes(a->floor, b2, sizeof b2);
    const char *name = g->n ? g->nodes[a->floor_node].name : "";
    if (budget < a->floor)
        snprintf(buf, len,
                 "no schedule fits %s: node %u (\"%s\") needs %s at once with its inputs and "
                 "the constant bytes; give a budget of at least that",
                 b1, a->floor_node, name, b2);
    else if (a->heuristic_fit != UINT64_MAX)
        snprintf(buf, len,
                 "no schedule fits %s: the smallest feasible budget lies between %s (node %u "
                 "\"%s\" with its inputs and the constant bytes) and %s (where the greedy "
                 "heuristic fits)",
                 b1, b2, a->floor_node, name, cli_format_bytes(a->heuristic_fit, b3, sizeof b3));
    else
        snprintf(buf, len, "no schedule fits %s; the smallest feasible budget is above %s", b1,
                 b2);
}

static uint32_t recomputations(const opt_graph *g, const opt_schedule *s)
{
    uint32_t n = g->n, c = 0;
    for (uint32_t t = 0; t < n; t++)
        for (uint32_t i = 0; i < t; i++)
            c += s->R[(size_t)t * n + i];
    return c;
}

static void print_text(const char *path, const opt_graph *g, uint64_t budget, uint64_t peak0,
                       uint64_t ref, opt_mode mode, const opt_answer *a)
{
    char b1[32], b2[32], b3[32];
    printf("graph:       %s: %u nodes, %u edges, compute %.6g ms, constant %s, unconstrained "
           "peak %s\n", path, g->n, g->n_edges, a->compute,
           cli_format_bytes(g->constant_bytes, b1, sizeof b1), cli_format_bytes(peak0, b2, sizeof b2));
    printf("budget:      %s (%.4g of %s)\n", cli_format_bytes(budget, b3, sizeof b3),
           ref ? (double)budget / (double)ref : 0,
           g->baseline_peak ? "the trace's baseline peak, as sim's --budget"
                            : "the graph's unconstrained peak: the graph names no baseline peak");
    const char *what = mode == OPT_MODE_RELAX ? "LP relaxation" : mode == OPT_MODE_APPROX ?
                       "LP rounding (approx)" : mode == OPT_MODE_BOUND ? "boundary bound" : "MILP";
    if (a->no_solver)
        printf("status:      %s (no solver needed: the budget holds the graph's unconstrained "
               "peak, so nothing is recomputed)\n", opt_status_name(a->status));
    else if (a->too_big_bytes > 0)
        printf("status:      %s (program too big: %.1f GB, over the %.3g GB a solve may use; "
               "answered with the %s and the boundary bound, %s)\n",
               opt_status_name(a->status), a->too_big_bytes / 1e9, opt_size_memory_cap() / 1e9,
               a->seed_from ? "best seed" : "seed, none fitting,",
               !a->improve_ran ? "no solver run"
               : a->improve_improved ? "the seed improved by the window search's small programs"
                                     : "the window search's small programs improved nothing");
    else
        printf("status:      %s (%s, %s)\n", opt_status_name(a->status), what, opt_solver_name());
    if (mode == OPT_MODE_RELAX || mode == OPT_MODE_BOUND) {
        printf("lower_bound: %.9g ms (overhead %.6g)\n", a->objective,
               a->compute > 0 ? a->objective / a->compute : 1);
    } else if (a->schedule) {
        printf("objective:   %.9g ms (overhead %.6g)\n", a->objective,
               a->compute > 0 ? a->objective / a->compute : 1);
        if (a->lower_bound >= 0)
            printf("lower_bound: %.9g ms (%s)\n", a->lower_bound,
                   a->bound_boundary ? (a->too_big_bytes > 0 ? "the boundary bound"
                                        : a->lp_bound >= 0 ? "the boundary bound, above the LP's"
                                        : "the boundary bound: the time limit stopped the LP")
                   : "LP relaxation");
        if (a->gap >= 0)
            printf("gap:         %.4g%%\n", 100 * a->gap);
        else
            printf("gap:         unknown (the time limit stopped the LP before a bound)\n");
        printf("schedule:    peak %s, %u recomputations", cli_format_bytes(a->peak, b1, sizeof b1),
               recomputations(g, a->schedule));
        if (mode == OPT_MODE_APPROX)
            printf(", rounded at %.1f", a->threshold);
        printf("\n");
        uint32_t n = g->n, shown = 0;
        for (uint32_t t = 0; t < n && shown < 20; t++) {
            int any = 0;
            for (uint32_t i = 0; i < t; i++)
                if (a->schedule->R[(size_t)t * n + i]) {
                    if (!any)
                        printf("  stage %u (%s) recomputes:", t, g->nodes[t].name);
                    printf(" %u", i);
                    any = 1;
                }
            if (any)
                printf("\n"), shown++;
        }
        if (shown == 20)
            printf("  ... (--json lists every stage)\n");
    }
    if (a->seeded)
        printf("seed:        a heuristic schedule of %.9g ms%s\n", a->seed_objective,
               a->skipped_search && !a->killed_at_limit ? " (no search: the time left was shorter than the LP took, "
                                   "and CBC's root LP ignores the time limit)" : "");
    if (a->rounded)
        printf("incumbent:   the search's LP solutions rounded (%ld of them), cheaper than the "
               "seed and than any schedule CBC reported\n", a->round_calls);
    if (a->killed_at_limit)
        printf("search:      stopped by the time limit (the solver ran past it and its process "
               "was killed; what CBC found itself died with it, so %s)\n",
               !a->schedule ? "no schedule is known" : a->rounded ? "the answer is the best "
               "rounding of its LP solutions" : "the answer is the seed");
    printf("solve time:  %.3f s\n", a->seconds);
}

/* Issue 28, item 7: a graph JSON with the trace it came from (--trace): its trace_hash must be
 * the trace's content hash, or the two are refused in one line; then the heuristics run on
 * the trace (seeds when their runs map onto the graph: op level). */
static int graph_trace_seeds(const char *gpath, const opt_graph *g, const char *tpath,
                             uint32_t iteration, int coarsen, opt_mode mode, uint64_t bytes,
                             double ratio, const char *policies, optimal_seeds *seeds,
                             gms_error *err)
{
    char hash[17];
    int rc = store_hash_file(tpath, hash, err);
    if (rc)
        return rc;
    if (!g->trace_hash[0])
        return gms_error_set(err, GMS_EINVAL, "%s names no trace_hash (a graph by hand or "
                             "from an older gpumemsim graph), so it cannot be checked against "
                             "%s; make it again: gpumemsim graph %s -o GRAPH.json", gpath, tpath,
                             tpath);
    if (strcmp(hash, g->trace_hash))
        return gms_error_set(err, GMS_EINVAL, "%s was made from another trace (trace_hash %s) "
                             "than %s (%s); give the trace it came from, or make the graph "
                             "again: gpumemsim graph %s -o GRAPH.json", gpath, g->trace_hash,
                             tpath, hash, tpath);
    if (mode != OPT_MODE_MILP)
        return 0;
    sim_trace *t;
    if ((rc = sim_trace_load(tpath, &t, err)) != 0)
        return rc;
    uint64_t budget = bytes ? bytes : sim_budget_for_ratio(t, ratio);
    /* the runs map onto an op-level graph (they are validated against g either way) */
    opt_coarsen c = coarsen == OPT_COARSEN_LAYERS || coarsen == OPT_COARSEN_NONE
                        ? (opt_coarsen)coarsen : OPT_COARSEN_OUTPUTS;
    if (opt_graph_peak(g) > budget)
        rc = optimal_seeds_run(t, iteration, c, g, budget, policies, seeds, err);
    sim_trace_free(t);
    return rc;
}

static void print_seeds(const optimal_seeds *sd, const opt_answer *a)
{
    if (sd->n == 0)
        return;
    printf("heuristics:  ");
    for (uint32_t k = 0; k < sd->n; k++) {
        const optimal_seed_run *r = &sd->run[k];
        if (strcmp(r->status, "ok"))
            printf("%s%s %s", k ? ", " : "", r->policy, r->status);
        else
            printf("%s%s %.4f", k ? ", " : "", r->policy, r->overhead);
        if (r->schedule)
            printf(r->fits ? " (as a schedule %.4f)" : " (as a schedule %.4f, over the "
                   "program's memory)", r->program_overhead);
    }
    printf("\n");
    if (a->seeded && a->seed_from)
        printf("seed from:   %s\n", a->seed_from);
}

int cmd_optimal(int argc, char **argv)
{
    static const struct option opts[] = {
        {"budget", required_argument, NULL, 'b'},
        {"time-limit", required_argument, NULL, 't'},
        {"relax", no_argument, NULL, 'r'},
        {"approx", no_argument, NULL, 'a'},
        {"write-model", required_argument, NULL, 'w'},
        {"json", no_argument, NULL, 'j'},
        {"iteration", required_argument, NULL, 'i'},
        {"coarsen", required_argument, NULL, 'c'},
        {"log", no_argument, NULL, 'l'},
        {"no-seed", no_argument, NULL, 'n'},
        {"round", no_argument, NULL, 'N'},
        {"no-improve", no_argument, NULL, 'I'},
        {"seed-policies", required_argument, NULL, 'P'},
        {"trace", required_argument, NULL, 'R'},
        {"tighten", no_argument, NULL, 'T'},
        {"formulation", required_argument, NULL, 'F'},
        {"copies", required_argument, NULL, 'C'},
        {"bound", required_argument, NULL, 'B'},
        {"host-memory", required_argument, NULL, 'H'},
        {"link", required_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *budget_s = NULL, *model = NULL;
    double limit = 0;
    int round_lp = 0, no_improve = 0;
    const char *seed_policies = OPTIMAL_SEEDS_DEFAULT, *trace_path = NULL;
    optimal_seeds seeds = {.best = -1};
    int json = 0, log = 0, no_seed = 0, tighten = 0, coarsen = OPT_COARSEN_AUTO, c;
    opt_mode mode = OPT_MODE_MILP;
    int relax = 0, appr = 0, moccasin = 0, boundary = 0, copies_given = 0;
    uint32_t copies = 0;
    uint32_t iteration = 0;
    swap_opts xo = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'b': budget_s = optarg; break;
        case 't':
            if (cli_parse_seconds(optarg, &limit)) {
                cli_error(CMD, "--time-limit '%s': give seconds > 0 (60, 60s or 2m)", optarg);
                return 2;
            }
            break;
        case 'r': relax = 1; break;
        case 'a': appr = 1; break;
        case 'w': model = optarg; break;
        case 'j': json = 1; break;
        case 'l': log = 1; break;
        case 'n': no_seed = 1; break;
        case 'N': round_lp = 1; break;
        case 'I': no_improve = 1; break;
        case 'P': seed_policies = optarg; break;
        case 'R': trace_path = optarg; break;
        case 'T': tighten = 1; break;
        case 'F':
            if (strcmp(optarg, "checkmate") && strcmp(optarg, "moccasin")) {
                cli_error(CMD, "--formulation '%s': give 'checkmate' (the default) or "
                          "'moccasin'", optarg);
                return 2;
            }
            moccasin = !strcmp(optarg, "moccasin");
            break;
        case 'C': {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (!strcmp(optarg, "max"))
                copies = UINT32_MAX;
            else if (*optarg < '0' || *optarg > '9' || *end || v < 1 || v > 1000000) {
                cli_error(CMD, "--copies '%s': give how many times a node may be computed, "
                          "1 or more (2 as MOCCASIN's authors), or 'max'", optarg);
                return 2;
            } else {
                copies = (uint32_t)v;
            }
            copies_given = 1;
            break;
        }
        case 'B':
            if (strcmp(optarg, "lp") && strcmp(optarg, "boundary")) {
                cli_error(CMD, "--bound '%s': give 'lp' (the LP relaxation, as --relax) or "
                          "'boundary'", optarg);
                return 2;
            }
            relax = 1;
            boundary = !strcmp(optarg, "boundary");
            break;
        case 'H': xo.host = optarg; break;
        case 'L': xo.link = optarg; break;
        case 'i':
            if (cli_parse_iteration(optarg, &iteration)) {
                cli_error(CMD, "--iteration '%s': give an iteration number from 0", optarg);
                return 2;
            }
            break;
        case 'c':
            if (cli_parse_coarsen(optarg, &coarsen)) {
                cli_error(CMD, "--coarsen '%s': give 'auto' (the default), 'outputs', 'layers' "
                          "or 'none'", optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        case ':':
            cli_error(CMD, "%s needs a value (see --help)", argv[optind - 1]);
            return 2;
        default:
            cli_error(CMD, "unknown option '%s' (see --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (optind != argc - 1) {
        cli_error(CMD, "give exactly one graph or trace (see --help)");
        return 2;
    }
    if (relax && appr) {
        cli_error(CMD, "--relax and --approx exclude each other: --relax gives the bound alone");
        return 2;
    }
    if (copies_given && !moccasin) {
        cli_error(CMD, "--copies is MOCCASIN's C: give it with --formulation moccasin");
        return 2;
    }
    if (moccasin && tighten) {
        cli_error(CMD, "--tighten is a variant of checkmate's program; moccasin's is "
                  "built tightened already");
        return 2;
    }
    if (boundary && (moccasin || tighten || model)) {
        cli_error(CMD, "--bound boundary is its own LP: it takes no --formulation, --tighten "
                  "or --write-model");
        return 2;
    }
    mode = boundary ? OPT_MODE_BOUND : relax ? OPT_MODE_RELAX : appr ? OPT_MODE_APPROX
                                                                       : OPT_MODE_MILP;
    /* the hook sits in a time-limited MILP search only: elsewhere it would do nothing */
    if (round_lp && (mode != OPT_MODE_MILP || !(limit > 0))) {
        cli_error(CMD, "--round rounds the LP solutions of a time-limited MILP search: %s",
                  mode != OPT_MODE_MILP ? "drop --relax, --approx or --bound, which solve no "
                                          "MILP"
                                        : "give --time-limit too (60, 60s or 2m)");
        return 2;
    }
    if (!budget_s) {
        cli_error(CMD, "give a budget: --budget 0.5 (of the unconstrained peak) or --budget 2GiB");
        return 2;
    }
    double ratio = 0;
    uint64_t bytes = 0;
    int brc = cli_parse_budget(budget_s, &ratio, &bytes);
    if (brc) {
        char msg[300];
        cli_error(CMD, "%s", cli_budget_error(budget_s, brc, msg, sizeof msg));
        return 2;
    }

    optimal_xe_opts xe = {.host_memory = UINT64_MAX};
    sim_link_default(&xe.link);
    if (swap_opts_parse(CMD, &xo, &xe.link, &xe.host_memory))
        return 2;

    const char *path = argv[optind];
    gms_error err = {0};
    opt_graph *g = NULL;
    char auto_why[768] = "";
    if (trace_path && !looks_like_graph(path)) {
        cli_error(CMD, "--trace names the trace of a graph JSON; %s is a trace already: "
                  "drop --trace", path);
        return 2;
    }
    if (looks_like_graph(path)) {
        if (opt_graph_read(path, &g, &err) != 0) {
            cli_error(CMD, "%s", err.msg);
            return 1;
        }
        if (trace_path) {
            int rc = graph_trace_seeds(path, g, trace_path, iteration, coarsen, mode, bytes,
                                       ratio, seed_policies, &seeds, &err);
            if (rc) {
                cli_error(CMD, "%s", err.msg);
                opt_graph_free(g);
                return rc == GMS_EINVAL ? 2 : 1;
            }
        }
    } else {
        sim_trace *t;
        if (sim_trace_load(path, &t, &err) != 0) {
            cli_error(CMD, "%s (neither a graph JSON nor a trace)", err.msg);
            return 1;
        }
        int rc;
        if (coarsen == OPT_COARSEN_AUTO) {
            /* the budget first: auto answers at once when it holds the outputs graph's peak */
            opt_coarsen picked;
            uint64_t b = bytes ? bytes : sim_budget_for_ratio(t, ratio);
            rc = opt_graph_auto(t, iteration, b, limit, &g, &picked, auto_why, sizeof auto_why,
                                &err);
            coarsen = (int)picked;
            if (rc == 0 && !json)
                fprintf(stderr, "optimal: %s\n", auto_why);
        } else {
            rc = opt_graph_from_trace(t, iteration, (opt_coarsen)coarsen, &g, NULL, &err);
        }
        /* the heuristics' runs at the same bytes: seeds at op level, a yardstick at any */
        if (rc == 0 && mode == OPT_MODE_MILP && !xo.host && !xo.link &&
            opt_graph_peak(g) > (bytes ? bytes : sim_budget_for_ratio(t, ratio)))
            rc = optimal_seeds_run(t, iteration, (opt_coarsen)coarsen, g,
                                   bytes ? bytes : sim_budget_for_ratio(t, ratio),
                                   seed_policies, &seeds, &err);
        sim_trace_free(t);
        if (rc) {
            cli_error(CMD, "%s: %s", path, err.msg);
            opt_graph_free(g);
            return rc == GMS_EINVAL ? 2 : 1;
        }
    }
    uint64_t peak0 = opt_graph_peak(g), ref = opt_graph_ratio_reference(g);
    const char *ratio_of = NULL;
    uint64_t budget = bytes ? bytes : opt_graph_budget_for_ratio(g, ratio, &ratio_of);
    if (!bytes && !g->baseline_peak && !json)
        fprintf(stderr, "optimal: note: %s names no baseline_peak (a graph by hand or from an "
                "older `gpumemsim graph`): --budget %s is of the graph's unconstrained peak, "
                "not of a trace's; give bytes (--budget 2GiB) to compare with sim\n", path,
                budget_s);
    if (xo.host || xo.link || optimal_xe_any_host_cost(g)) {
        const char *no = appr ? "--approx" : tighten ? "--tighten"
                       : moccasin ? "--formulation moccasin" : boundary ? "--bound boundary"
                       : NULL;
        if (no) {
            cli_error(CMD, "%s is for the single-device program; the two-device program "
                      "(a cost_host in the graph, --host-memory or --link) has no %s", no, no);
            optimal_seeds_free(&seeds);
            opt_graph_free(g);
            return 2;
        }
        xe.path = path, xe.budget = budget, xe.peak0 = peak0, xe.ref = ref, xe.relax = relax;
        xe.json = json, xe.log = log, xe.no_seed = no_seed, xe.time_limit = limit;
        xe.write_model = model;
        int xrc = optimal_xe_run(CMD, g, &xe);
        optimal_seeds_free(&seeds);
        opt_graph_free(g);
        return xrc;
    }
    opt_request rq = {.budget = budget, .mode = mode, .time_limit = limit,
                      .write_model = model, .log = log, .no_seed = no_seed,
                      .round = round_lp, .tighten = tighten, .improve = !no_improve,
                      .seeds = seeds.seeds, .seed_names = seeds.names,
                      .n_seeds = seeds.n_seeds,
                      .formulation = moccasin ? OPT_FORM_MOCCASIN : OPT_FORM_CHECKMATE,
                      .copies = copies};
    opt_answer a;
    if (opt_solve(g, &rq, &a, &err) != 0) {
        cli_error(CMD, "%s: %s", path, err.msg);
        optimal_seeds_free(&seeds);
        opt_graph_free(g);
        return 1;
    }
    char worse[400] = "";
    optimal_seeds_worse(&seeds, &a, (opt_coarsen)coarsen,
                        a.schedule ? a.compute > 0 ? a.objective / a.compute : 1 : -1, worse,
                        sizeof worse);
    char sentence[512] = "";
    if (a.status == OPT_STATUS_INFEASIBLE)
        infeasible_sentence(g, budget, &a, sentence, sizeof sentence);
    else if (a.status == OPT_STATUS_UNKNOWN)
        snprintf(sentence, sizeof sentence, "%s",
                 mode != OPT_MODE_APPROX ? "no schedule found within the time limit; give more time"
                 : a.killed_at_limit ? "the time limit stopped the LP before any rounding; give "
                                       "more time"
                                     : "no rounding of the LP fits the budget; try the MILP "
                                       "(without --approx)");
    if (json) {
        json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:f, s:I, s:I, s:f, s:f}", "graph", path,
                              "status", opt_status_name(a.status), "mode",
                              mode == OPT_MODE_RELAX || mode == OPT_MODE_BOUND ? "relax"
                              : mode == OPT_MODE_APPROX ? "approx" : "milp",
                              "budget", (json_int_t)budget,
                              "budget_ratio", ref ? (double)budget / (double)ref : 0.0,
                              "unconstrained_peak", (json_int_t)peak0,
                              "constant_bytes", (json_int_t)g->constant_bytes,
                              "compute", a.compute, "solve_seconds", a.seconds);
        json_object_set_new(o, "nodes", json_integer(g->n));
        json_object_set_new(o, "coarsen_auto", auto_why[0] ? json_string(auto_why) : json_null());
        json_object_set_new(o, "edges", json_integer(g->n_edges));
        /* what budget_ratio is of: the trace's baseline peak, or the graph's own peak when
         * the graph does not name one */
        json_object_set_new(o, "budget_of", json_string(g->baseline_peak ? "baseline_peak"
                                                                          : "graph_peak"));
        json_object_set_new(o, "baseline_peak", g->baseline_peak ?
                            json_integer((json_int_t)g->baseline_peak) : json_null());
        json_object_set_new(o, "solver", json_string(a.no_solver || (a.too_big_bytes > 0 &&
                                                     !a.improve_ran) ? "none"
                                                     : opt_solver_name()));
        json_object_set_new(o, "no_solver", json_boolean(a.no_solver));
        const char *program = mode == OPT_MODE_BOUND ? "boundary" : moccasin ? "moccasin"
                              : tighten ? "tightened" : "checkmate";
        json_object_set_new(o, "program", json_string(program));
        if (moccasin)
            json_object_set_new(o, "copies", copies == UINT32_MAX ? json_string("max") :
                                json_integer(copies ? copies : 2));
        if (mode == OPT_MODE_RELAX || mode == OPT_MODE_BOUND)
            json_object_set_new(o, "objective", a.status == OPT_STATUS_OPTIMAL ? json_real(a.objective) : json_null());
        else
            json_object_set_new(o, "objective", a.schedule ? json_real(a.objective) : json_null());
        json_object_set_new(o, "lower_bound", a.lower_bound >= 0 ? json_real(a.lower_bound) : json_null());
        json_object_set_new(o, "lp_seconds", json_real(a.lp_seconds));
        json_object_set_new(o, "lp_bound", a.lp_bound >= 0 ? json_real(a.lp_bound) : json_null());
        /* issue 28, item 4: which bound lower_bound is, and a MILP too big to build */
        json_object_set_new(o, "lower_bound_from", a.lower_bound < 0 ? json_null() :
                            json_string(a.bound_boundary || mode == OPT_MODE_BOUND ? "boundary"
                                                                                  : "lp"));
        json_object_set_new(o, "program_too_big_bytes", a.too_big_bytes > 0 ?
                            json_real(a.too_big_bytes) : json_null());
        if (mode == OPT_MODE_MILP) {
            json_object_set_new(o, "solver_bound", a.solver_bound >= 0 ? json_real(a.solver_bound) : json_null());
            json_object_set_new(o, "seeded", json_boolean(a.seeded));
            json_object_set_new(o, "seed_objective", a.seeded ? json_real(a.seed_objective) : json_null());
            json_object_set_new(o, "bb_nodes", json_integer(a.nodes));
            json_object_set_new(o, "search_skipped", json_boolean(a.skipped_search));
            json_object_set_new(o, "killed_at_limit", json_boolean(a.killed_at_limit));
            json_object_set_new(o, "rounds", json_integer(a.rounds));
            json_object_set_new(o, "improved_rounds", json_integer(a.improved_rounds));
            /* the answer is the search's LP rounded (it beat the seed and CBC's own) */
            json_object_set_new(o, "rounded", json_boolean(a.rounded));
            json_object_set_new(o, "round_calls", json_integer(a.round_calls));
        }
        if (mode == OPT_MODE_APPROX)
            json_object_set_new(o, "threshold", a.schedule ? json_real(a.threshold) : json_null());
        if (a.schedule) {
            json_object_set_new(o, "gap", a.gap >= 0 ? json_real(a.gap) : json_null());
            json_object_set_new(o, "overhead", json_real(a.compute > 0 ? a.objective / a.compute : 1));
            json_object_set_new(o, "peak", json_integer((json_int_t)a.peak));
            json_object_set_new(o, "recomputations", json_integer(recomputations(g, a.schedule)));
            json_object_set_new(o, "schedule", schedule_json(g, a.schedule));
        }
        if (sentence[0])
            json_object_set_new(o, "message", json_string(sentence));
        if (mode == OPT_MODE_MILP) {
            json_object_set_new(o, "seed_from", a.seeded && a.seed_from ?
                                json_string(a.seed_from) : json_null());
            /* issue 28, item 3: the window search, and where the answer came from */
            json_object_set_new(o, "improvement", optimal_improve_json(&a));
            json_object_set_new(o, "solver_first", optimal_first_json(&a));
            json_object_set_new(o, "answer_from", opt_answer_from(&a) ?
                                json_string(opt_answer_from(&a)) : json_null());
            json_object_set_new(o, "heuristics", optimal_seeds_json(&seeds));
            json_object_set_new(o, "worse_than_heuristic", worse[0] ? json_string(worse)
                                                                    : json_null());
        }
        if (a.status == OPT_STATUS_INFEASIBLE) {
            json_object_set_new(o, "min_budget_at_least", json_integer((json_int_t)a.floor));
            json_object_set_new(o, "min_budget_at_most", a.heuristic_fit != UINT64_MAX ?
                                json_integer((json_int_t)a.heuristic_fit) : json_null());
        }
        char *text = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        if (text)
            puts(text);
        free(text);
        json_decref(o);
    } else {
        print_text(path, g, budget, peak0, ref, mode, &a);
        print_seeds(&seeds, &a);
        if (mode == OPT_MODE_MILP)
            optimal_improve_print(&a, 13, 1);
        if (worse[0])
            printf("note:        %s\n", worse);
    }
    if (sentence[0])
        cli_error(CMD, "%s: %s", opt_status_name(a.status), sentence);
    int rc = a.status == OPT_STATUS_OPTIMAL || a.status == OPT_STATUS_FEASIBLE ? 0 : 1;
    opt_answer_clear(&a);
    optimal_seeds_free(&seeds);
    opt_graph_free(g);
    return rc;
}
