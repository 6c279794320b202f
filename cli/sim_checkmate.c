/*
 * sim_checkmate: sim's --policy checkmate and checkmate-approx (sim_checkmate.h).
 */
#include "sim_checkmate.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkmate_events.h"
#include "checkmate_peak.h"
#include "cli.h"
#include "opt_extract.h"
#include "opt_replay.h"
#include "opt_size.h"
#include "opt_solve.h"
#include "optimal_improve.h"
#include "optimal_seeds.h"
#include "peak_report.h"
#include "perfetto.h"
#include "sim.h"
#include "store.h"
#include "sweep_checkmate.h"

static const char *const CMD = "sim";

static int is_ours(const char *name)
{
    return strcmp(name, "checkmate") == 0 || strcmp(name, "checkmate-approx") == 0;
}

int sim_checkmate_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc && is_ours(argv[i + 1]))
            return 1;
        if (strncmp(argv[i], "--policy=", 9) == 0 && is_ours(argv[i] + 9))
            return 1;
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim sim TRACE --policy checkmate|checkmate-approx --budget B\n"
            "                     [--iteration N] [--coarsen auto|outputs|layers|none]\n"
            "                     [--time-limit S] [--no-improve] [--seed-policies L]\n"
            "                     [--db FILE] [--perfetto FILE] [--json]\n"
            "\n"
            "The optimal schedule as a policy (docs/optimal.md): one iteration of TRACE as a\n"
            "dataflow graph (as 'gpumemsim graph'), Checkmate's MILP solved by CBC (checkmate)\n"
            "or the authors' LP rounding (checkmate-approx), as 'gpumemsim optimal' does, and\n"
            "the schedule carried out step by step (compute and free) by the replay engine.\n"
            "Reports status (ok; oom when no schedule fits: infeasible, none found in the time\n"
            "limit, or a schedule that does not fit when replayed), overhead (replayed compute /\n"
            "the graph's compute without recomputation) and the replayed peak with where it\n"
            "is, as for every run (peak_at: its op, phase and graph node, the resident bytes\n"
            "by category, each node's bytes those of the trace storages it stands for;\n"
            "docs/memory.md). Exit 0 for ok and oom, 1 when the trace cannot be read or\n"
            "solved, 2 for bad options.\n"
            "\n"
            "  --budget B        a plain number is a ratio of the trace's baseline peak memory\n"
            "                    (as for every sim policy, so runs compare at one budget);\n"
            "                    bytes need a unit (800MB). Required.\n"
            "  --iteration N     which iteration of the trace (from 0; default 0)\n"
            "  --coarsen MODE    auto (default: outputs when the budget holds its peak or its\n"
            "                    program fits 8 GB and its LP a quarter of the time limit, 600 s\n"
            "                    without one; else layers; says which and why), outputs (one\n"
            "                    node per output storage, freed as the replay frees: the\n"
            "                    op-level yardstick), layers (one node per layer's forward and\n"
            "                    backward) or none (one node per op, as Checkmate's authors)\n"
            "  --time-limit S    seconds for the solve (60, 60s, 2m; default none); at the limit\n"
            "                    the best schedule found is replayed, with its gap (a hard\n"
            "                    stop: a solver that overruns is killed, docs/optimal.md);\n"
            "                    checkmate first improves its seed by the window search (small\n"
            "                    programs over windows of the schedule), as 'optimal' does,\n"
            "                    unless CBC proves a small program whole in a tenth of the\n"
            "                    limit first, and says where the answer came from\n"
            "  --no-improve      with --time-limit, no window search (seed, LP and CBC only)\n"
            "  --seed-policies L eviction policies run at the same budget (default\n"
            "                    dtr,dtr-eq,msps,lru; 'none'), as in 'optimal': on an op-level\n"
            "                    graph (outputs, none) each run, as a schedule of the graph,\n"
            "                    seeds the MILP (and is compared with a cached answer), so the\n"
            "                    answer is never worse than the best that fits the program;\n"
            "                    on any graph an answer worse than the best run, or none where\n"
            "                    a run fits, is said in a note (worse_than_heuristic in JSON)\n"
            "  --db FILE         the solver's answer cached in this result store (created if\n"
            "                    missing; the one 'sweep' writes): a budget solved before for\n"
            "                    this trace, iteration, coarsening, time limit and search\n"
            "                    replays the stored schedule without solving (\"cached\" in\n"
            "                    the output)\n"
            "  --perfetto FILE   also write the replayed schedule as Chrome trace-event JSON\n"
            "                    (ui.perfetto.dev; docs/perfetto.md): a slice per compute and\n"
            "                    recompute, an instant per free (\"evict\" when the schedule\n"
            "                    computes the value again later), the resident bytes\n"
            "  --json            one JSON object\n"
            "\n"
            "example:\n"
            "  gpumemsim sim unet.gmt --policy checkmate --budget 0.6 --time-limit 60 --json\n");
}

/* Why a run has no peak_at: nothing was replayed. */
#define CK_NO_PEAK_AT "no schedule was replayed (none found, or the program is infeasible)"

typedef struct ck_run {
    const char *trace, *policy, *reason;
    char *reason_buf; /* 256 bytes */
    uint64_t budget, baseline_memory, graph_peak;
    double ratio;
    uint32_t iteration, nodes, edges;
    int coarsen, ok, cached;
    const char *search;  /* "windows" or "none" (sweep_checkmate_search) */
    const char *answer_from; /* opt_answer_from, or a cached answer's as stored (NULL) */
    const char *auto_why; /* --coarsen auto: what it picked and why; else NULL */
    opt_answer a;
    opt_replay r;
    int replayed;
    optimal_seeds seeds; /* the heuristics' runs at the budget (exact solves) */
    sim_peak peak;       /* where the replay peaked (replayed runs; names live with the trace) */
    const char *peak_node; /* the graph node computed last before it */
    char worse[400];     /* optimal_seeds_worse's note, or "" */
    double compute, wall_s;
} ck_run;

static void print_text(const ck_run *k)
{
    char b1[32], b2[32];
    printf("trace            %s (iteration %u, %s: %u nodes, %u edges)\n", k->trace,
           k->iteration, k->coarsen == OPT_COARSEN_LAYERS ? "coarsened by layers"
                         : k->coarsen == OPT_COARSEN_OUTPUTS ? "op level, one node per output"
                                                              : "op level", k->nodes, k->edges);
    if (k->auto_why)
        printf("coarsen          %s\n", k->auto_why + strlen("coarsen auto: "));
    printf("policy           %s\n", k->policy);
    printf("budget           %llu B (%s, %.3f x baseline memory)\n",
           (unsigned long long)k->budget, cli_format_bytes(k->budget, b1, sizeof b1),
           k->baseline_memory ? (double)k->budget / (double)k->baseline_memory : 0.0);
    printf("status           %s%s%s%s\n", k->ok ? "ok" : "oom", k->ok ? "" : " (",
           k->ok ? "" : k->reason, k->ok ? "" : ")");
    printf("solver           %s%s, objective ", opt_status_name(k->a.status),
           k->cached ? " (cached in the store)" : "");
    if (k->a.schedule)
        printf(k->a.gap >= 0 ? "%.9g ms, gap %.4g%%" : "%.9g ms, gap unknown", k->a.objective,
               100 * k->a.gap);
    else
        printf("none");
    if (k->a.lower_bound >= 0)
        printf(", %s bound %.9g ms", k->a.bound_boundary ? "boundary" : "LP", k->a.lower_bound);
    if (k->a.no_solver)
        printf(", no solver needed (the budget holds the graph's unconstrained peak)");
    printf(", %.3f s%s\n", k->a.seconds,
           k->a.killed_at_limit ? " (the time limit stopped the solver: the seed is the answer)" : "");
    if (k->replayed) {
        if (k->ok)
            printf("overhead         %.6f\n", k->compute > 0 ? k->r.compute / k->compute : 1);
        else
            printf("overhead         - (run failed)\n");
        printf("replayed         %u computes (%u recomputations), %u frees, %.9g ms compute\n",
               k->r.computes, k->r.recomputes, k->r.frees, k->r.compute);
        printf("peak memory      %llu B (%s)\n", (unsigned long long)k->r.peak,
               cli_format_bytes(k->r.peak, b1, sizeof b1));
        char note[300];
        snprintf(note, sizeof note, ", graph node %.200s", k->peak_node ? k->peak_node : "-");
        peak_report_text(&k->peak, 17, note);
    } else {
        printf("overhead         - (no schedule)\n");
    }
    if (k->seeds.n) {
        printf("heuristics       ");
        for (uint32_t i = 0; i < k->seeds.n; i++) {
            const optimal_seed_run *h = &k->seeds.run[i];
            if (strcmp(h->status, "ok"))
                printf("%s%s %s", i ? ", " : "", h->policy, h->status);
            else
                printf("%s%s %.4f", i ? ", " : "", h->policy, h->overhead);
        }
        printf("\n");
    }
    if (k->a.seeded && k->a.seed_from)
        printf("seed from        %s\n", k->a.seed_from);
    /* with the window search on, a small program goes to CBC first (opt_first.h) */
    const char *windows = k->a.first_proved
                              ? "CBC on the whole program first, which proved the answer: "
                                "no window search"
                          : k->a.first_tried
                              ? "CBC on the whole program first, then the window search, the "
                                "LP and CBC"
                              : "the window search first, then the LP and CBC";
    printf("search           %s\n", !strcmp(k->search, "windows") ? windows
                                    : strcmp(k->policy, "checkmate") ? "none (the LP's rounding)"
                                                                     : "none (seed, LP and CBC)");
    if (k->a.improve_ran || k->a.first_tried)
        optimal_improve_print(&k->a, 17, 0);
    else if (k->a.schedule)
        printf("answer from      %s\n", k->answer_from ? k->answer_from
                                                     : "not known (cached before it was kept)");
    if (k->worse[0])
        printf("note             %s\n", k->worse);
    printf("baseline         %.9g ms compute, graph peak %s, trace peak %s\n", k->compute,
           cli_format_bytes(k->graph_peak, b1, sizeof b1),
           cli_format_bytes(k->baseline_memory, b2, sizeof b2));
    printf("wall time        %.6f s\n", k->wall_s);
}

static int print_json(const ck_run *k)
{
    json_t *o = json_object();
    if (!o)
        return -1;
    json_object_set_new(o, "trace", json_string(k->trace));
    json_object_set_new(o, "policy", json_string(k->policy));
    json_object_set_new(o, "semantics", json_string("checkmate"));
    json_object_set_new(o, "budget", json_integer((json_int_t)k->budget));
    json_object_set_new(o, "budget_ratio", k->ratio > 0 ? json_real(k->ratio) : json_null());
    json_object_set_new(o, "iteration", json_integer(k->iteration));
    json_object_set_new(o, "coarsen", json_string(opt_coarsen_name((opt_coarsen)k->coarsen)));
    json_object_set_new(o, "coarsen_auto", k->auto_why ? json_string(k->auto_why) : json_null());
    json_object_set_new(o, "nodes", json_integer(k->nodes));
    json_object_set_new(o, "edges", json_integer(k->edges));
    json_object_set_new(o, "status", json_string(k->ok ? "ok" : "oom"));
    json_object_set_new(o, "reason", k->ok ? json_null() : json_string(k->reason));
    json_object_set_new(o, "overhead", k->ok && k->compute > 0
                                           ? json_real(k->r.compute / k->compute)
                                           : k->ok ? json_real(1) : json_null());
    json_object_set_new(o, "solver_status", json_string(opt_status_name(k->a.status)));
    json_object_set_new(o, "objective", k->a.schedule ? json_real(k->a.objective) : json_null());
    json_object_set_new(o, "lower_bound",
                        k->a.lower_bound >= 0 ? json_real(k->a.lower_bound) : json_null());
    json_object_set_new(o, "lower_bound_from",
                        k->a.lower_bound < 0 ? json_null()
                                             : json_string(k->a.bound_boundary ? "boundary" : "lp"));
    json_object_set_new(o, "gap", k->a.schedule && k->a.gap >= 0 ? json_real(k->a.gap) : json_null());
    json_object_set_new(o, "solve_s", json_real(k->a.seconds));
    /* the store does not keep it: unknown for a cached answer */
    json_object_set_new(o, "killed_at_limit",
                        k->cached ? json_null() : json_boolean(k->a.killed_at_limit));
    json_object_set_new(o, "cached", json_boolean(k->cached));
    json_object_set_new(o, "seeded", json_boolean(k->a.seeded));
    json_object_set_new(o, "seed_from", k->a.seeded && k->a.seed_from ?
                        json_string(k->a.seed_from) : json_null());
    json_object_set_new(o, "search", json_string(k->search));
    json_object_set_new(o, "improvement", optimal_improve_json(&k->a));
    json_object_set_new(o, "solver_first", optimal_first_json(&k->a));
    json_object_set_new(o, "answer_from", k->answer_from ? json_string(k->answer_from)
                                                          : json_null());
    json_object_set_new(o, "heuristics", optimal_seeds_json(&k->seeds));
    json_object_set_new(o, "worse_than_heuristic", k->worse[0] ? json_string(k->worse)
                                                                : json_null());
    json_object_set_new(o, "no_solver", json_boolean(k->a.no_solver));
    json_object_set_new(o, "replayed_compute", k->replayed ? json_real(k->r.compute) : json_null());
    json_object_set_new(o, "peak_memory",
                        k->replayed ? json_integer((json_int_t)k->r.peak) : json_null());
    json_t *pk = k->replayed ? peak_report_json(&k->peak) : NULL;
    if (pk)
        json_object_set_new(pk, "node", k->peak_node ? json_string(k->peak_node) : json_null());
    json_object_set_new(o, "peak_at", pk ? pk : json_null());
    json_object_set_new(o, "peak_at_unavailable", pk ? json_null() : json_string(CK_NO_PEAK_AT));
    json_object_set_new(o, "computes", json_integer(k->replayed ? k->r.computes : 0));
    json_object_set_new(o, "remats", json_integer(k->replayed ? k->r.recomputes : 0));
    json_object_set_new(o, "frees", json_integer(k->replayed ? k->r.frees : 0));
    json_object_set_new(o, "baseline_compute", json_real(k->compute));
    json_object_set_new(o, "graph_peak", json_integer((json_int_t)k->graph_peak));
    json_object_set_new(o, "baseline_memory", json_integer((json_int_t)k->baseline_memory));
    json_object_set_new(o, "wall_s", json_real(k->wall_s));
    char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(o);
    if (!s)
        return -1;
    printf("%s\n", s);
    free(s);
    return 0;
}

/* The replayed schedule as a trace-event file (perfetto.h), whole or not at all. With no
 * schedule (infeasible, none found) the file holds the run's summary and no events. */
static int write_perfetto(const char *path, const ck_run *k, const opt_graph *g, gms_error *err)
{
    char title[512];
    snprintf(title, sizeof title, "%s, %s (%s, iteration %u), budget %llu B", k->trace, k->policy,
             opt_coarsen_name((opt_coarsen)k->coarsen), k->iteration,
             (unsigned long long)k->budget);
    perfetto_info info = {.title = title, .budget = k->budget};
    perfetto_writer *w;
    if (perfetto_open(path, &info, &w, err) != 0)
        return -1;
    sim_result res = {.status = SIM_OOM, .clock = 1};
    if (k->replayed)
        checkmate_events_emit(g, &k->r, perfetto_observe, w, &res);
    res.status = k->ok ? SIM_OK : SIM_OOM;
    res.overhead = k->ok && k->compute > 0 ? k->r.compute / k->compute : k->ok ? 1 : 0;
    return perfetto_close(w, &res, err) != 0 ? -1 : 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Solves and replays k's graph; fills k's outcome. 0 or an error. */
static int solve_and_replay(ck_run *k, const opt_graph *g, double limit, store *db,
                            const char *hash, int keep_steps, gms_error *err)
{
    opt_request rq = {.mode = strcmp(k->policy, "checkmate-approx") == 0 ? OPT_MODE_APPROX
                                                                          : OPT_MODE_MILP};
    store_solution_key key = {hash, k->iteration, opt_coarsen_name((opt_coarsen)k->coarsen),
                              k->budget,
                              rq.mode == OPT_MODE_APPROX ? "approx" : "exact",
                              limit > 0 ? limit : 0, k->search};
    sweep_checkmate_how how;
    if (sweep_checkmate_solve(db, g, &key, limit, &k->seeds, &k->a, &k->cached, &how,
                              err) != 0)
        return -1;
    k->answer_from = how.from;
    if (!k->a.schedule) {
        if (k->a.status == OPT_STATUS_INFEASIBLE && k->cached) {
            k->reason = "infeasible: no schedule fits (the store's cached answer)";
            return 0;
        }
        if (k->a.status == OPT_STATUS_INFEASIBLE) {
            char b1[32], b2[32];
            snprintf(k->reason_buf, 256, "infeasible: no schedule fits %s; the largest node "
                     "with its inputs alone needs %s", cli_format_bytes(k->budget, b1, sizeof b1),
                     cli_format_bytes(k->a.floor, b2, sizeof b2));
            k->reason = k->reason_buf;
            return 0;
        }
        k->reason = rq.mode != OPT_MODE_APPROX ? "no schedule found within the time limit"
                    : k->a.killed_at_limit ? "the time limit stopped the LP before any rounding"
                                           : "no rounding of the LP fits the budget";
        return 0;
    }
    if (opt_replay_run(g, k->a.schedule, keep_steps, &k->r, err) != 0)
        return -1;
    k->replayed = 1;
    if (k->r.peak > k->budget) {
        k->reason = "the schedule does not fit when replayed";
        return 0;
    }
    k->ok = 1;
    return 0;
}

/* Where k's replay peaked, by category (checkmate_peak.h): the graph's nodes mapped onto t's
 * storages by building the same graph again with its node map. */
static int follow_peak(ck_run *k, const sim_trace *t, const opt_graph *g, gms_error *err)
{
    sim_categories *cats = NULL;
    opt_graph *g2 = NULL;
    opt_node_map *m = NULL;
    checkmate_peak *pk = NULL;
    int rc = sim_categories_build(t, &cats, err);
    if (!rc)
        rc = opt_graph_from_trace_map(t, k->iteration, (opt_coarsen)k->coarsen, &g2, &m, err);
    if (!rc)
        rc = checkmate_peak_new(t, cats, g, m, &pk, err);
    if (!rc) {
        sim_result res;
        checkmate_events_emit(g, &k->r, checkmate_peak_observe, pk, &res);
        checkmate_peak_result(pk, &k->peak);
        /* the node computed last before the peak: the step that reached it */
        for (size_t s = 0; s < k->r.n_steps; s++)
            if (k->r.steps[s].resident == k->peak.memory) {
                for (size_t b = s + 1; b-- > 0;)
                    if (k->r.steps[b].kind == OPT_STEP_COMPUTE) {
                        k->peak_node = g->nodes[k->r.steps[b].node].name;
                        break;
                    }
                break;
            }
    }
    checkmate_peak_free(pk);
    opt_node_map_free(m);
    opt_graph_free(g2);
    sim_categories_free(cats);
    return rc;
}

int sim_checkmate_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"policy", required_argument, NULL, 'p'},
        {"budget", required_argument, NULL, 'b'},
        {"iteration", required_argument, NULL, 'i'},
        {"coarsen", required_argument, NULL, 'c'},
        {"time-limit", required_argument, NULL, 't'},
        {"json", no_argument, NULL, 'j'},
        {"db", required_argument, NULL, 'd'},
        {"perfetto", required_argument, NULL, 'P'},
        {"seed-policies", required_argument, NULL, 's'},
        {"no-improve", no_argument, NULL, 'I'},
        /* sim's own, refused below by name (not taken as abbreviations of --seed-policies) */
        {"seed", no_argument, NULL, 'X'},
        {"seeds", no_argument, NULL, 'X'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char why[256];
    ck_run k = {.reason_buf = why, .coarsen = OPT_COARSEN_AUTO, .policy = "checkmate",
                .seeds = {.best = -1}};
    const char *budget_s = NULL, *db_path = NULL, *perfetto = NULL;
    const char *seed_policies = OPTIMAL_SEEDS_DEFAULT;
    double limit = 0;
    int json = 0, no_improve = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': k.policy = optarg; break;
        case 'b': budget_s = optarg; break;
        case 'j': json = 1; break;
        case 'd': db_path = optarg; break;
        case 's': seed_policies = optarg; break;
        case 'I': no_improve = 1; break;
        case 'P':
            if (!*optarg || strcmp(optarg, "-") == 0) {
                cli_error(CMD, "--perfetto '%s': give a file name for the trace-event JSON",
                          optarg);
                return 2;
            }
            perfetto = optarg;
            break;
        case 't':
            if (cli_parse_seconds(optarg, &limit)) {
                cli_error(CMD, "--time-limit '%s': give seconds > 0 (60, 60s or 2m)", optarg);
                return 2;
            }
            break;
        case 'i':
            if (cli_parse_iteration(optarg, &k.iteration)) {
                cli_error(CMD, "--iteration '%s': give an iteration number from 0", optarg);
                return 2;
            }
            break;
        case 'c':
            if (cli_parse_coarsen(optarg, &k.coarsen)) {
                cli_error(CMD, "--coarsen '%s': give 'auto' (the default), 'outputs', "
                          "'layers' or 'none'", optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        case ':':
            cli_error(CMD, "%s needs a value (see gpumemsim sim --policy checkmate --help)",
                      argv[optind - 1]);
            return 2;
        default:
            cli_error(CMD, "option '%s' does not apply to --policy %s (it takes --budget, "
                           "--iteration, --coarsen, --time-limit, --no-improve, "
                           "--seed-policies, --db, "
                           "--perfetto and --json; see gpumemsim sim --policy checkmate "
                           "--help)", argv[optind - 1],
                      k.policy);
            return 2;
        }
    }
    if (!is_ours(k.policy)) {
        cli_error(CMD, "--policy given twice ('%s' after checkmate): give one", k.policy);
        return 2;
    }
    if (optind != argc - 1) {
        cli_error(CMD, "expected exactly one TRACE (a .gmt or DTR log); see --help");
        return 2;
    }
    if (!budget_s) {
        cli_error(CMD, "--policy %s needs a --budget (0.6 of the baseline peak, or 2GiB): "
                       "without one nothing is recomputed", k.policy);
        return 2;
    }
    gms_error err = {0};
    if (optimal_seeds_check(seed_policies, &err)) {
        cli_error(CMD, "%s", err.msg);
        return 2;
    }
    uint64_t bytes = 0;
    int brc = cli_parse_budget(budget_s, &k.ratio, &bytes);
    if (brc) {
        char msg[300];
        cli_error(CMD, "%s", cli_budget_error(budget_s, brc, msg, sizeof msg));
        return 2;
    }
    k.search = sweep_checkmate_search(k.policy, limit, no_improve);
    double t0 = now_s();
    k.trace = argv[optind];
    sim_trace *t;
    if (sim_trace_load(k.trace, &t, &err) != 0) {
        cli_error(CMD, "%s", err.msg);
        return 1;
    }
    k.baseline_memory = sim_trace_baseline(t)->memory;
    k.budget = k.ratio > 0 ? sim_budget_for_ratio(t, k.ratio) : bytes;
    opt_graph *g = NULL;
    char auto_why[768] = "";
    int rc;
    if (k.coarsen == OPT_COARSEN_AUTO) {
        opt_coarsen picked;
        rc = opt_graph_auto(t, k.iteration, k.budget, limit, &g, &picked, auto_why,
                            sizeof auto_why, &err);
        k.coarsen = (int)picked;
        k.auto_why = auto_why;
    } else {
        rc = opt_graph_from_trace(t, k.iteration, (opt_coarsen)k.coarsen, &g, NULL, &err);
    }
    /* the heuristics at the same bytes: seeds at op level, the yardstick of the note at any */
    if (rc == 0 && strcmp(k.policy, "checkmate") == 0 && opt_graph_peak(g) > k.budget)
        rc = optimal_seeds_run(t, k.iteration, (opt_coarsen)k.coarsen, g, k.budget,
                               seed_policies, &k.seeds, &err);
    if (rc) {
        cli_error(CMD, "%s: %s", k.trace, err.msg);
        optimal_seeds_free(&k.seeds);
        opt_graph_free(g);
        sim_trace_free(t);
        return rc == GMS_EINVAL ? 2 : 1;
    }
    k.nodes = g->n;
    k.edges = g->n_edges;
    k.graph_peak = opt_graph_peak(g);
    k.compute = opt_graph_compute(g);
    store *db = NULL;
    char hash[17] = "";
    if (db_path && (store_hash_file(k.trace, hash, &err) ||
                    store_open(db_path, STORE_CREATE, &db, &err))) {
        optimal_seeds_free(&k.seeds);
        opt_graph_free(g);
        sim_trace_free(t);
        cli_error(CMD, "%s", err.msg);
        return 1;
    }
    rc = solve_and_replay(&k, g, limit, db, hash, 1, &err);
    store_close(db);
    if (rc == 0 && k.replayed)
        rc = follow_peak(&k, t, g, &err);
    if (rc == 0)
        optimal_seeds_worse(&k.seeds, &k.a, (opt_coarsen)k.coarsen,
                            k.ok ? k.compute > 0 ? k.r.compute / k.compute : 1 : -1, k.worse,
                            sizeof k.worse);
    if (rc == 0 && perfetto)
        rc = write_perfetto(perfetto, &k, g, &err);
    if (rc) {
        cli_error(CMD, "%s: %s", k.trace, err.msg);
        opt_answer_clear(&k.a);
        opt_replay_clear(&k.r);
        optimal_seeds_free(&k.seeds);
        opt_graph_free(g);
        sim_trace_free(t);
        return 1;
    }
    k.wall_s = now_s() - t0;
    rc = 0;
    if (json) {
        if (print_json(&k) != 0) {
            cli_error(CMD, "out of memory writing JSON");
            rc = 1;
        }
    } else {
        print_text(&k);
    }
    opt_answer_clear(&k.a);
    opt_replay_clear(&k.r);
    optimal_seeds_free(&k.seeds);
    opt_graph_free(g); /* the peak's node name lives with it, its op names with the trace */
    sim_trace_free(t);
    return rc;
}
