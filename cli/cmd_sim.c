/*
 * gpumemsim sim: replay one trace under one memory budget with one eviction policy and print
 * what it cost (status, overhead, evictions, rematerializations, peak memory), as text or one
 * JSON object, and with --perfetto FILE the run as a trace-event file (analysis/perfetto.h).
 * Also the home of two benchmark modes: --reference-table (every row of the
 * simrd reference table in one process, see sim_reftable.h) and --chain (a synthetic
 * training-like chain of N layers built in memory).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "cli.h"
#include "iter_log.h"
#include "memory.h"
#include "memviz.h"
#include "peak_report.h"
#include "perfetto.h"
#include "planners.h"
#include "plugin.h"
#include "policy.h"
#include "registry.h"
#include "sim.h"
#include "sweep_checkmate.h"
#include "sim_checkmate.h"
#include "sim_extra.h"
#include "sim_reftable.h"
#include "sim_store.h"
#include "sim_yardstick.h"
#include "swap_opts.h"

static const char *const CMD = "sim";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim sim TRACE [--policy NAME] [--budget B] [options]\n"
            "       gpumemsim sim --list-policies\n"

            "\n"
            "Replays TRACE (.gmt, DTR JSON log, Kineto memory trace or PyTorch Execution\n"
            "Trace, plain or gzip; '-' reads standard input) under a memory budget with\n"
            "Dynamic Tensor Rematerialization: when an op's outputs do not fit, the policy\n"
            "picks storages to evict; evicted tensors are recomputed when needed again.\n"
            "Prints the status (ok, oom = nothing left to evict, remat-limit = recomputation\n"
            "passed the limit), the overhead (simulated time / baseline compute), evictions\n"
            "by the policy and eager evictions (last reference released), rematerializations,\n"
            "peak memory and where it was (the op, its phase, the resident bytes there by\n"
            "category, the largest op; docs/memory.md), the baseline (no budget) and the\n"
            "simulator's own wall time. Exit status 0 whenever the simulation ran, whatever\n"
            "its status.\n"
            "\n"
            "options:\n"
            "  --policy NAME       eviction policy (default dtr; see --list-policies), or the\n"
            "                      path of a policy plugin .so (docs/plugins.md), or a\n"
            "                      checkpoint planner (ckpt-all, ckpt-sqrt, ...): it picks\n"
            "                      layers to checkpoint before each iteration and never\n"
            "                      evicts (docs/planners.md); text and JSON then report\n"
            "                      each iteration; or checkmate / checkmate-approx: the\n"
            "                      optimal schedule of one iteration, solved and replayed\n"
            "                      (see gpumemsim sim --policy checkmate --help)\n"
            "  --policy-args K=V[,K=V...]\n"
            "                      a planner's parameters (stored canonically with the run;\n"
            "                      each planner's in docs/planners.md). ac-budget's\n"
            "                      solver=ilp is an exact branch and bound over the knapsack,\n"
            "                      not a MILP solver: it returns the optimum torch's\n"
            "                      ilp_knapsack (scipy's MILP) does\n"
            "  --budget B          a plain number is a ratio of the baseline peak memory (0.4,\n"
            "                      1.5, 40%%); bytes need a unit (3.2GiB, 800MB, 123456789B);\n"
            "                      default: no budget\n"
            "  --seed N            seed of the random policy (Python's random.seed(N); 0)\n"
            "  --remat-limit L     stop once recomputation exceeds (L-1) x baseline compute\n"
            "                      (default 2, as in the DTR paper; 0 = no limit)\n"
            "  --sample K          approximate but fast victim choice for traces with millions\n"
            "                      of ops: score K random evictable storages instead of all\n"
            "                      of them ('sqrt' = the square root of their number); dtr\n"
            "                      then prices the evicted neighbourhood with equivalence\n"
            "                      classes. Not the DTR prototype's own sampling (about\n"
            "                      2 sqrt(n) candidates at random strides, small tensors\n"
            "                      skipped), which picks better victims; default 0 = all,\n"
            "                      exactly as simrd\n"
            "  --allocator NAME    memory model: ideal (default: memory = the sum of resident\n"
            "                      bytes, as simrd), caching (PyTorch's CUDA caching allocator:\n"
            "                      the budget caps reserved bytes, fragmentation costs\n"
            "                      evictions) or lifetime (a pool planned from the tensors'\n"
            "                      lifetimes, SmartPool); see docs/memory.md\n"
            "  --alloc-conf CONF   allocator settings as in PYTORCH_CUDA_ALLOC_CONF:\n"
            "                      max_split_size_mb:N (caching), first_fit:True (lifetime)\n"
            "  --op-overhead D     runtime-cost model (docs/fidelity.md): a fixed cost paid by\n"
            "                      every op run, first runs and rematerializations (20us,\n"
            "                      1.5ms; a unit is required). 'gpumemsim calibrate' finds\n"
            "                      it from one measured slowdown. Default 0: the ideal replay\n"
            "  --search-cost D     cost per candidate scored in an eviction search (default 0)\n"
            "  --evict-cost D      cost per eviction chosen by the policy (default 0)\n"
            "  --link L            for swapping policies (swap-lru, ...; docs/swap.md): the\n"
            "                      device<->host link, a preset (pcie3, pcie4, pcie5,\n"
            "                      nvlink-c2c; default pcie4) or GBPS[,LATENCY_US] (16,10 =\n"
            "                      16 GB/s per direction and 10 us per copy)\n"
            "  --host-memory B     host memory that can hold swapped tensors (64GiB; default\n"
            "                      unlimited); when it is full victims are dropped instead\n"
            "  --seeds N           run seeds SEED .. SEED+N-1 (random policies, sampled victim\n"
            "                      choice) and report the distribution: the median run (its\n"
            "                      figures are the ones shown), min, max, how many runs ran\n"
            "                      out of memory or hit the remat limit, and the mean only\n"
            "                      when every seed finished (default 1)\n"
            "  --budget-band X     also run at the budget x (1 - X) and x (1 + X) (2%%, 0.02)\n"
            "                      and report the overhead at each: a prediction whose overhead\n"
            "                      moves by more than 2%% within the band sits on a cliff and\n"
            "                      says so\n"
            "  --semantics simrd   replay semantics (simrd, the DTR paper's simulator, is the\n"
            "                      default and only mode)\n"
            "  --json              print one JSON object (status, overhead, evictions,\n"
            "                      eager_evictions, remats, remat_compute, peak_memory,\n"
            "                      baseline_memory, baseline_compute, clock, wall_s, policy,\n"
            "                      budget, budget_ratio, seed, sample, trace, allocator,\n"
            "                      peak_reserved, peak_allocated, largest_free, frag_allocs,\n"
            "                      frag_ratio, cost_model, ops_executed, candidates,\n"
            "                      op_overhead_ns, search_ns, evict_ns, peak_at (where the\n"
            "                      run peaked: op, phase, resident bytes by category, the\n"
            "                      largest op, the run's seed; docs/memory.md); with\n"
            "                      --seeds: these are the median run's, and seeds holds\n"
            "                      the distribution;\n"
            "                      with a swapping policy: swap (link, bytes swapped out and\n"
            "                      in, stall_ns, copy-engine busy time and utilization);\n"
            "                      with --budget-band: budget_band (each edge with its\n"
            "                      peak_at); with a planner:\n"
            "                      policy_args, planner (summary) and iterations, one\n"
            "                      object per training iteration, docs/planners.md)\n"
            "  --kineto FILE       a PyTorch Execution Trace's op costs measured from the\n"
            "                      run's Kineto trace FILE (docs/import-pytorch.md), and\n"
            "                      with its memory events the real lifetimes\n"
            "  --kineto-force      join FILE even when the two files disagree on the job\n"
            "                      (process id, GPU, profiler steps)\n"
            "  --db FILE           store the run in the result store FILE (created if\n"
            "                      missing) under the key a sweep gives it, so that 'db runs'\n"
            "                      and 'db gaps' show it (simulated once more for the store;\n"
            "                      a run already stored is kept), and print beside it the\n"
            "                      yardstick (docs/optimal.md): every Checkmate answer FILE\n"
            "                      holds for this trace at this budget (from 'sim --policy\n"
            "                      checkmate --db FILE' or a sweep with checkmate), with the\n"
            "                      run's gap to the optimum and to the LP bound (JSON:\n"
            "                      yardstick)\n"
            "  --perfetto FILE     also write the run as Chrome trace-event JSON, for\n"
            "                      ui.perfetto.dev or chrome://tracing: op and\n"
            "                      rematerialization slices, evictions, resident memory and\n"
            "                      budget counters (docs/perfetto.md)\n"
            "  --memory-snapshot FILE  also write the run as a PyTorch memory snapshot (a\n"
            "                      pickle) for pytorch.org/memory_viz: every storage's\n"
            "                      allocation and free in order, frames naming the op and its\n"
            "                      phase (compute, remat, evict, free); docs/memory.md\n"
            CLI_PLUGIN_TIMEOUT_HELP("  ", "                      ")
            "  --list-policies     list every name --policy takes, one per line: eviction\n"
            "                      policies, checkpoint planners (\"planner:\") and solved\n"
            "                      schedules (\"solved:\", the optimum, not a heuristic)\n"
            "  -h, --help          show this help (developer options, for benchmarks and the\n"
            "                      reference table: docs/developer.md)\n"
            "\n"
            "examples:\n"
            "  gpumemsim sim unet.gmt --policy dtr --budget 0.4\n"
            "  gpumemsim sim resnet32.log --policy random --seed 3 --budget 2.5GiB --json\n"
            "  gpumemsim sim unet.gmt --budget 0.4 --perfetto unet-run.json\n"
            "  gpumemsim sim gpt.gmt --policy ckpt-sqrt --budget 0.8 --json\n");
}

enum {
    OPT_POLICY = 256,
    OPT_BUDGET,
    OPT_SEED,
    OPT_REMAT,
    OPT_SEMANTICS,
    OPT_JSON,
    OPT_LIST,
    OPT_REFTABLE,
    OPT_TRACES,
    OPT_ROWS,
    OPT_REPEAT,
    OPT_QUIET,
    OPT_CHAIN,
    OPT_SAMPLE,
    OPT_ALLOCATOR,
    OPT_ALLOC_CONF,
    OPT_OP_OVERHEAD,
    OPT_SEARCH_COST,
    OPT_EVICT_COST,
    OPT_SEEDS,
    OPT_BAND,
    OPT_PERFETTO,
    OPT_MEMORY_SNAPSHOT,
    OPT_KINETO,
    OPT_KINETO_FORCE,
    OPT_POLICY_ARGS,
    OPT_LINK,
    OPT_HOST_MEMORY,
    OPT_DB,
    OPT_PLUGIN_TIMEOUT,
};


static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* One JSON object; numbers are written by hand so that doubles are shortest round-trip and
 * integers are exact, the trace path is escaped by jansson. */
static int print_json(const char *trace, const char *pname, const sim_config *cfg,
                      double ratio, const sim_baseline *bl, const sim_result *r,
                      const char *allocator, const sim_extra *x, const sim_yardstick *ys,
                      const sim_peak *peak)
{
    json_t *js = json_string(trace);
    char *tq = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
    json_decref(js);
    if (!tq)
        return -1;
    char d1[32], d2[32], d3[32], d4[32], sample[32];
    if (cfg->sample == SIM_SAMPLE_SQRT)
        snprintf(sample, sizeof sample, "\"sqrt\"");
    else
        snprintf(sample, sizeof sample, "%u", cfg->sample);
    char budget[32], rt[32];
    if (cfg->budget == UINT64_MAX)
        snprintf(budget, sizeof budget, "null");
    else
        snprintf(budget, sizeof budget, "%llu", (unsigned long long)cfg->budget);
    if (ratio > 0)
        cli_shortest_double(ratio, rt, sizeof rt);
    else
        snprintf(rt, sizeof rt, "null");
    printf("{\"trace\": %s, \"policy\": \"%s\", \"semantics\": \"simrd\", \"budget\": %s, "
           "\"budget_ratio\": %s, \"seed\": %llu, \"sample\": %s, \"remat_limit\": %s, \"status\": \"%s\", "
           "\"overhead\": %s, \"evictions\": %llu, \"eager_evictions\": %llu, \"remats\": %llu, "
           "\"remat_compute\": %llu, \"peak_memory\": %llu, \"baseline_memory\": %llu, "
           "\"baseline_compute\": %llu, \"clock\": %llu, \"wall_s\": %s, \"allocator\": \"%s\", "
           "\"peak_reserved\": %llu, \"peak_allocated\": %llu, \"largest_free\": %llu, "
           "\"frag_allocs\": %llu, \"frag_ratio\": %s, "
           "\"cost_model\": {\"op_overhead\": %llu, \"search_cost\": %llu, \"evict_cost\": %llu}, "
           "\"ops_executed\": %llu, \"candidates\": %llu, \"op_overhead_ns\": %llu, "
           "\"search_ns\": %llu, \"evict_ns\": %llu",
           tq, pname, budget, rt, (unsigned long long)cfg->seed, sample,
           cli_shortest_double(cfg->remat_limit, d1, sizeof d1), sim_status_name(r->status),
           r->status == SIM_OK ? cli_shortest_double(r->overhead, d2, sizeof d2) : "null",
           (unsigned long long)r->evictions, (unsigned long long)r->eager_evictions,
           (unsigned long long)r->remats, (unsigned long long)r->remat_compute,
           (unsigned long long)r->peak_memory, (unsigned long long)bl->memory,
           (unsigned long long)bl->compute, (unsigned long long)r->clock,
           cli_shortest_double(r->wall_s, d3, sizeof d3), allocator,
           (unsigned long long)r->peak_reserved, (unsigned long long)r->peak_allocated,
           (unsigned long long)r->largest_free, (unsigned long long)r->frag_allocs,
           cli_shortest_double(r->frag_ratio, d4, sizeof d4),
           (unsigned long long)cfg->op_overhead_ns, (unsigned long long)cfg->search_cost_ns,
           (unsigned long long)cfg->evict_cost_ns, (unsigned long long)r->ops_executed,
           (unsigned long long)r->candidates, (unsigned long long)r->op_overhead_ns,
           (unsigned long long)r->search_ns, (unsigned long long)r->evict_ns);
    sim_extra_print_json(x);
    if (cfg->planner) {
        json_t *pa = json_string(cfg->planner_params ? cfg->planner_params : "");
        char *paq = pa ? json_dumps(pa, JSON_ENCODE_ANY) : NULL;
        json_decref(pa);
        printf(", \"policy_args\": %s", paq ? paq : "\"\"");
        free(paq);
        iter_log_print_json(cfg->iteration_ctx, r);
    }
    swap_opts_print_json(cfg, r);
    sim_yardstick_print_json(ys, trace, r->status == SIM_OK, r->overhead);
    /* the run the peak is of: with --seeds the median seed's (never the first seed's) */
    char *pkq = peak ? peak_report_run_json(peak, x->seeds > 1 ? x->center.median_seed
                                                               : cfg->seed, x->seeds)
                     : NULL;
    printf(", \"peak_at\": %s", pkq ? pkq : "null");
    free(pkq);
    printf("}\n");
    free(tq);
    return 0;
}

static void print_text(const char *trace, const char *pname, const sim_config *cfg,
                       double ratio, const sim_baseline *bl, const sim_result *r,
                       const char *allocator, const sim_extra *x, const sim_yardstick *ys,
                       const sim_peak *peak)
{
    char b1[64], b2[64];
    printf("trace            %s\n", trace);
    if (cfg->planner && cfg->planner_params && *cfg->planner_params)
        printf("policy           %s (%s)\n", pname, cfg->planner_params);
    else
        printf("policy           %s\n", pname);
    if (cfg->budget == UINT64_MAX)
        printf("budget           none\n");
    else if (ratio > 0)
        printf("budget           %llu B (%s, %g x baseline memory)\n",
               (unsigned long long)cfg->budget, cli_format_bytes(cfg->budget, b1, sizeof b1),
               ratio);
    else
        printf("budget           %llu B (%s, %.3f x baseline memory)\n",
               (unsigned long long)cfg->budget, cli_format_bytes(cfg->budget, b1, sizeof b1),
               bl->memory ? (double)cfg->budget / (double)bl->memory : 0.0);
    if (cfg->sample == SIM_SAMPLE_SQRT)
        printf("victim choice    best of sqrt(pool) random storages (approximate)\n");
    else if (cfg->sample)
        printf("victim choice    best of %u random storages (approximate)\n", cfg->sample);
    if (x->seeds > 1)
        printf("median run       seed %llu of %u (its figures below; the spread under "
               "'seeds')\n", (unsigned long long)x->center.median_seed, x->seeds);
    printf("status           %s\n", sim_status_name(r->status));
    if (r->status == SIM_OK)
        printf("overhead         %.6f (%s)\n", r->overhead,
               cli_shortest_double(r->overhead, b1, sizeof b1));
    else
        printf("overhead         - (run stopped: %s)\n",
               r->status == SIM_OOM ? "nothing left to evict"
                                    : "recomputation passed the remat limit");
    printf("evictions        %llu by the policy, %llu eager (last reference released%s)\n",
           (unsigned long long)r->evictions, (unsigned long long)r->eager_evictions,
           cfg->planner ? ", or freed at a checkpointed layer's end" : "");
    printf("rematerialized   %llu ops, %llu ns of compute\n", (unsigned long long)r->remats,
           (unsigned long long)r->remat_compute);
    printf("peak memory      %llu B (%s)\n", (unsigned long long)r->peak_memory,
           cli_format_bytes(r->peak_memory, b1, sizeof b1));
    if (peak && x->seeds > 1) {
        char note[96];
        snprintf(note, sizeof note, " [the median run: seed %llu of %u]",
                 (unsigned long long)x->center.median_seed, x->seeds);
        peak_report_text(peak, 17, note);
    } else if (peak) {
        peak_report_text(peak, 17, "");
    }
    if (cfg->allocator) {
        printf("allocator        %s\n", allocator);
        printf("peak reserved    %llu B (%s)\n", (unsigned long long)r->peak_reserved,
               cli_format_bytes(r->peak_reserved, b1, sizeof b1));
        printf("peak allocated   %llu B (%s)\n", (unsigned long long)r->peak_allocated,
               cli_format_bytes(r->peak_allocated, b1, sizeof b1));
        printf("largest free     %llu B (%s) when reserved memory peaked\n",
               (unsigned long long)r->largest_free,
               cli_format_bytes(r->largest_free, b1, sizeof b1));
        printf("fragmentation    %llu allocations had to evict; %.4f of the budget was free "
               "at them on average (Coop's metric)\n",
               (unsigned long long)r->frag_allocs, r->frag_ratio);
    }
    printf("baseline         %llu B (%s) peak, %llu ns compute\n",
           (unsigned long long)bl->memory, cli_format_bytes(bl->memory, b2, sizeof b2),
           (unsigned long long)bl->compute);
    if (cfg->op_overhead_ns || cfg->search_cost_ns || cfg->evict_cost_ns)
        printf("runtime costs    %llu ns op overhead (%llu ops x %llu ns), %llu ns searching "
               "(%llu candidates x %llu ns), %llu ns evicting (%llu x %llu ns)\n",
               (unsigned long long)r->op_overhead_ns, (unsigned long long)r->ops_executed,
               (unsigned long long)cfg->op_overhead_ns, (unsigned long long)r->search_ns,
               (unsigned long long)r->candidates, (unsigned long long)cfg->search_cost_ns,
               (unsigned long long)r->evict_ns, (unsigned long long)r->evictions,
               (unsigned long long)cfg->evict_cost_ns);
    swap_opts_print_text(cfg, r);
    printf("simulated time   %llu ns\n", (unsigned long long)r->clock);
    printf("wall time        %.6f s\n", r->wall_s);
    sim_extra_print_text(x);
    if (cfg->planner)
        iter_log_print_text(cfg->iteration_ctx, r);
    sim_yardstick_print_text(ys, trace, r->status == SIM_OK, r->overhead);
}

/* Opens the trace-event writer of --perfetto, its process named after the run. */
static int open_perfetto(const char *path, const char *trace, const sim_config *cfg,
                         const char *allocator, perfetto_writer **out, gms_error *err)
{
    const char *base = strrchr(trace, '/');
    char title[512], b[64];
    if (cfg->budget == UINT64_MAX)
        snprintf(b, sizeof b, "no budget");
    else
        snprintf(b, sizeof b, "budget %llu B", (unsigned long long)cfg->budget);
    snprintf(title, sizeof title, "gpumemsim sim %s: %s, %s, %s", base ? base + 1 : trace,
             cfg->planner ? cfg->planner->name : pol_name(cfg->policy), b, allocator);
    perfetto_info info = {.title = title, .budget = cfg->budget,
                          .memory_model = cfg->allocator != NULL,
                          .swap = pol_swaps(cfg->policy) != 0};
    return perfetto_open(path, &info, out, err);
}

int cmd_sim(int argc, char **argv)
{
    if (sim_checkmate_wanted(argc, argv))
        return sim_checkmate_main(argc, argv); /* the optimum replayed: sim_checkmate.h */
    static const struct option longopts[] = {
        {"policy", required_argument, NULL, OPT_POLICY},
        {"budget", required_argument, NULL, OPT_BUDGET},
        {"seed", required_argument, NULL, OPT_SEED},
        {"remat-limit", required_argument, NULL, OPT_REMAT},
        {"semantics", required_argument, NULL, OPT_SEMANTICS},
        {"json", no_argument, NULL, OPT_JSON},
        {"list-policies", no_argument, NULL, OPT_LIST},
        {"reference-table", required_argument, NULL, OPT_REFTABLE},
        {"traces", required_argument, NULL, OPT_TRACES},
        {"rows", no_argument, NULL, OPT_ROWS},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"chain", required_argument, NULL, OPT_CHAIN},
        {"sample", required_argument, NULL, OPT_SAMPLE},
        {"allocator", required_argument, NULL, OPT_ALLOCATOR},
        {"alloc-conf", required_argument, NULL, OPT_ALLOC_CONF},
        {"op-overhead", required_argument, NULL, OPT_OP_OVERHEAD},
        {"search-cost", required_argument, NULL, OPT_SEARCH_COST},
        {"evict-cost", required_argument, NULL, OPT_EVICT_COST},
        {"seeds", required_argument, NULL, OPT_SEEDS},
        {"budget-band", required_argument, NULL, OPT_BAND},
        {"perfetto", required_argument, NULL, OPT_PERFETTO},
        {"memory-snapshot", required_argument, NULL, OPT_MEMORY_SNAPSHOT},
        {"kineto", required_argument, NULL, OPT_KINETO},
        {"kineto-force", no_argument, NULL, OPT_KINETO_FORCE},
        {"policy-args", required_argument, NULL, OPT_POLICY_ARGS},
        {"link", required_argument, NULL, OPT_LINK},
        {"host-memory", required_argument, NULL, OPT_HOST_MEMORY},
        {"db", required_argument, NULL, OPT_DB},
        {"plugin-timeout", required_argument, NULL, OPT_PLUGIN_TIMEOUT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *policy = "dtr", *budget_s = NULL, *allocator = "ideal", *alloc_conf = NULL;
    const char *perfetto = NULL, *kineto = NULL, *policy_args = NULL, *db = NULL;
    const char *memsnap = NULL;
    int kineto_force = 0;
    const char *run_opt = NULL; /* the last single-run option given, for --reference-table */
    sim_config cfg;
    sim_config_init(&cfg);
    int json = 0;
    sim_reftable_opts ro = {.repeat = 1};
    sim_extra extra = {.seeds = 1};
    swap_opts swo = {0};
    uint64_t chain = 0, u;
    optind = 1;
    opterr = 0;
    int c;
    unsigned char seen[OPT_DB + 1] = {0};
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        /* a value option given twice is refused, never silently overridden */
        if (c >= OPT_POLICY && c <= OPT_DB && c != OPT_JSON && c != OPT_LIST && c != OPT_ROWS &&
            c != OPT_QUIET && seen[c]++) {
            const char *name = "";
            for (const struct option *o = longopts; o->name; o++)
                if (o->val == c)
                    name = o->name;
            cli_error(CMD, "--%s given twice ('%s' after an earlier value): give it once",
                      name, optarg ? optarg : "");
            return 2;
        }
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case OPT_POLICY:
            policy = optarg;
            run_opt = "--policy";
            break;
        case OPT_BUDGET:
            budget_s = optarg;
            run_opt = "--budget";
            break;
        case OPT_SEED:
            if (parse_u64(optarg, &cfg.seed)) {
                cli_error(CMD, "--seed '%s' is not a non-negative integer", optarg);
                return 2;
            }
            break;
        case OPT_REMAT: {
            char *end;
            errno = 0;
            double L = strtod(optarg, &end);
            if (errno || *end || !isfinite(L) || (L != 0 && L < 1)) {
                cli_error(CMD,
                          "--remat-limit '%s' must be a number >= 1 (total compute as a multiple "
                          "of the baseline; 2 = the DTR paper's) or 0 for no limit", optarg);
                return 2;
            }
            cfg.remat_limit = L;
            run_opt = "--remat-limit";
            break;
        }
        case OPT_SEMANTICS:
            if (strcmp(optarg, "simrd") != 0) {
                cli_error(CMD, "--semantics '%s' is unknown; the only mode is simrd", optarg);
                return 2;
            }
            break;
        case OPT_JSON:
            json = 1;
            run_opt = "--json";
            break;
        case OPT_LIST:
            pol_catalog_print(stdout);
            return 0;
        case OPT_REFTABLE:
            ro.csv = optarg;
            break;
        case OPT_TRACES:
            ro.traces_dir = optarg;
            break;
        case OPT_ROWS:
            ro.rows = 1;
            break;
        case OPT_QUIET:
            ro.quiet = 1;
            break;
        case OPT_REPEAT:
            if (parse_u64(optarg, &u) || u < 1 || u > 100000) {
                cli_error(CMD, "--repeat '%s' must be an integer >= 1", optarg);
                return 2;
            }
            ro.repeat = (int)u;
            break;
        case OPT_SAMPLE:
            if (cli_parse_sample(optarg, &cfg.sample)) {
                cli_error(CMD, "--sample '%s' must be a count of storages (0 = all) or 'sqrt'",
                          optarg);
                return 2;
            }
            break;
        case OPT_ALLOCATOR:
            allocator = optarg;
            run_opt = "--allocator";
            break;
        case OPT_ALLOC_CONF:
            alloc_conf = optarg;
            run_opt = "--alloc-conf";
            break;
        case OPT_OP_OVERHEAD:
        case OPT_SEARCH_COST:
        case OPT_EVICT_COST: {
            uint64_t *dst = c == OPT_OP_OVERHEAD   ? &cfg.op_overhead_ns
                            : c == OPT_SEARCH_COST ? &cfg.search_cost_ns
                                                   : &cfg.evict_cost_ns;
            /* the name from the code: argv[optind - 1] is the value in "--op-overhead 5" */
            const char *name = c == OPT_OP_OVERHEAD   ? "--op-overhead"
                               : c == OPT_SEARCH_COST ? "--search-cost"
                                                      : "--evict-cost";
            if (cli_parse_duration(optarg, dst)) {
                cli_error(CMD, "%s '%s': %s", name, optarg, CLI_DURATION_RANGE);
                return 2;
            }
            run_opt = name;
            break;
        }
        case OPT_PLUGIN_TIMEOUT:
            if (cli_plugin_timeout(CMD, optarg))
                return 2;
            break;
        case OPT_SEEDS:
            if (parse_u64(optarg, &u) || u < 1 || u > 10000) {
                cli_error(CMD, "--seeds '%s' must be an integer from 1 to 10000", optarg);
                return 2;
            }
            extra.seeds = (unsigned)u;
            run_opt = "--seeds";
            break;
        case OPT_BAND:
            if (cli_parse_band(optarg, &extra.band)) {
                cli_error(CMD, "--budget-band '%s' must be a fraction of the budget between 0 "
                               "and 1 (2%%, 0.02)", optarg);
                return 2;
            }
            run_opt = "--budget-band";
            break;
        case OPT_KINETO:
            kineto = optarg;
            break;
        case OPT_KINETO_FORCE:
            kineto_force = 1;
            break;
        case OPT_POLICY_ARGS:
            policy_args = optarg;
            run_opt = "--policy-args";
            break;
        case OPT_LINK:
            swo.link = optarg;
            run_opt = "--link";
            break;
        case OPT_HOST_MEMORY:
            swo.host = optarg;
            run_opt = "--host-memory";
            break;
        case OPT_DB:
            db = optarg;
            run_opt = "--db";
            break;
        case OPT_PERFETTO:
            if (!*optarg || strcmp(optarg, "-") == 0) {
                cli_error(CMD, "--perfetto '%s': give a file name for the trace-event JSON "
                               "(standard output carries the report)", optarg);
                return 2;
            }
            perfetto = optarg;
            run_opt = "--perfetto";
            break;
        case OPT_MEMORY_SNAPSHOT:
            if (!*optarg || strcmp(optarg, "-") == 0) {
                cli_error(CMD, "--memory-snapshot '%s': give a file name for the snapshot "
                               "(standard output carries the report)", optarg);
                return 2;
            }
            memsnap = optarg;
            run_opt = "--memory-snapshot";
            break;
        case OPT_CHAIN:
            if (parse_u64(optarg, &chain) || chain < 1 || chain > 100000000) {
                cli_error(CMD, "--chain '%s' must be a layer count between 1 and 1e8", optarg);
                return 2;
            }
            break;
        case ':':
            cli_error(CMD, "option %s needs a value (see gpumemsim sim --help)", argv[optind - 1]);
            return 2;
        default:
            cli_error(CMD, "unknown option '%s' (see gpumemsim sim --help)", argv[optind - 1]);
            return 2;
        }
    }
    if ((perfetto || memsnap) && (extra.seeds > 1 || extra.band > 0)) {
        cli_error(CMD, "%s writes one run; drop %s (or run sim once per seed or budget)",
                  perfetto ? "--perfetto" : "--memory-snapshot",
                  extra.seeds > 1 ? "--seeds" : "--budget-band");
        return 2;
    }
    if (ro.csv) {
        /* the table names each row's policy, budget and seed; silently ignoring a
         * conflicting option would mislead */
        if (run_opt || chain || cfg.seed || cfg.sample) {
            cli_error(CMD, "--reference-table replays each row's own policy, budget and seed; "
                           "drop %s", run_opt ? run_opt : chain ? "--chain" :
                                      cfg.seed ? "--seed" : "--sample");
            return 2;
        }
        if (optind != argc) {
            cli_error(CMD, "--reference-table takes no TRACE argument ('%s')", argv[optind]);
            return 2;
        }
        return sim_reftable_run(CMD, &ro);
    }
    if (chain ? optind != argc : optind + 1 != argc) {
        cli_error(CMD, chain ? "--chain takes no TRACE argument"
                             : "expected exactly one TRACE (a .gmt or DTR log); see --help");
        return 2;
    }
    cfg.planner = planner_find(policy);
    char params[1024];
    if (cfg.planner && cfg.sample) {
        cli_error(CMD, "--sample picks eviction victims; planner '%s' never evicts (it "
                       "checkpoints layers): drop --sample", policy);
        return 2;
    }
    if (cfg.planner) {
        gms_error perr = {0};
        char *canon;
        if (planner_params_canon(policy_args, &canon, &perr)) {
            cli_error(CMD, "%s", perr.msg);
            return 2;
        }
        int fits = strlen(canon) < sizeof params;
        snprintf(params, sizeof params, "%s", canon);
        free(canon);
        if (!fits) {
            cli_error(CMD, "--policy-args is longer than %zu bytes", sizeof params - 1);
            return 2;
        }
        cfg.planner_params = params;
    } else if (policy_args) {
        cli_error(CMD, "--policy-args sets a checkpoint planner's parameters; policy '%s' "
                       "takes none (planners: see --list-policies)", policy);
        return 2;
    }
    cfg.policy = cfg.planner ? NULL : pol_find(policy);
    if (!cfg.planner && !cfg.policy && pol_is_path(policy)) {
        gms_error perr = {0};
        if (pol_resolve(policy, &cfg.policy, &perr) != 0) {
            cli_error(CMD, "%s", perr.msg);
            return 2;
        }
    }
    if (!cfg.policy && !cfg.planner) {
        gms_error perr = {0};
        pol_refuse(policy, POL_KIND_ANY, &perr);
        cli_error(CMD, "%s", perr.msg);
        return 2;
    }
    if (swap_opts_apply(CMD, &swo, &cfg))
        return 2;
    if (pol_swaps(cfg.policy) && strcmp(allocator, "ideal") != 0) {
        cli_error(CMD, "policy %s swaps to host memory, which only the ideal memory model "
                       "supports: drop --allocator", pol_name(cfg.policy));
        return 2;
    }
    sim_memory_options mopt;
    char alloc_key[128];
    gms_error aerr = {0};
    if (sim_memory_find(allocator, &cfg.allocator) != 0) {
        cli_error(CMD, "unknown allocator '%s'; valid allocators: %s", allocator,
                  sim_memory_names());
        return 2;
    }
    if (sim_memory_parse_conf(&cfg.allocator, alloc_conf, &mopt, alloc_key, sizeof alloc_key,
                              &aerr)) {
        cli_error(CMD, "--alloc-conf: %s", aerr.msg);
        return 2;
    }
    cfg.allocator_options = &mopt;
    if (cfg.policy && cfg.policy->needs & SIM_NEEDS_ADDRESSES && !cfg.allocator) {
        cli_error(CMD, "policy %s chooses victims by their addresses, which the ideal memory "
                       "model does not have; add --allocator caching (or lifetime)",
                  pol_name(cfg.policy));
        return 2;
    }
    double ratio = 0;
    uint64_t bytes = 0;
    int brc;
    if (budget_s && (brc = cli_parse_budget(budget_s, &ratio, &bytes)) != 0) {
        char msg[300];
        cli_error(CMD, "%s", cli_budget_error(budget_s, brc, msg, sizeof msg));
        return 2;
    }

    const char *trace = chain ? "(synthetic chain)" : argv[optind];
    sim_trace *t;
    gms_error err = {0};
    if (db && !budget_s) {
        cli_error(CMD, "--db sets the run beside the optimum at its budget: give --budget");
        return 2;
    }
    if (db && (chain || strcmp(trace, "-") == 0)) {
        cli_error(CMD, "--db stores the run and looks the optimum up by the trace file's "
                       "content; %s has no file", chain ? "a --chain" : "standard input");
        return 2;
    }
    const char *why = db ? sim_store_refusal(&cfg, kineto) : NULL;
    if (why) {
        cli_error(CMD, "--db cannot store this run: %s", why);
        return 2;
    }
    if (kineto_force && !kineto) {
        cli_error(CMD, "--kineto-force forces the join of a --kineto trace: give --kineto FILE");
        return 2;
    }
    if (chain && kineto) {
        cli_error(CMD, "--kineto measures the costs of a PyTorch Execution Trace; a --chain has "
                       "no trace to join with");
        return 2;
    }
    int rc = chain ? sim_trace_chain(chain, &t, &err)
                   : sim_trace_load_kineto(trace, kineto, kineto_force, &t, &err);
    if (rc) {
        cli_error(CMD, "%s", err.msg);
        return 1;
    }
    const sim_baseline *bl = sim_trace_baseline(t);
    if (swap_opts_check(CMD, &swo, &cfg, t)) {
        sim_trace_free(t);
        return 2;
    }
    if (budget_s)
        cfg.budget = ratio > 0 ? sim_budget_for_ratio(t, ratio) : bytes;
    if (cfg.budget < bl->bottleneck) {
        char b1[64], b2[64];
        fprintf(stderr,
                "gpumemsim sim: note: the budget (%s) is below the largest op's footprint "
                "(%s: its inputs and outputs at once), so no policy can run this trace: "
                "expect status oom\n",
                cli_format_bytes(cfg.budget, b1, sizeof b1),
                cli_format_bytes(bl->bottleneck, b2, sizeof b2));
    }
    if (extra.band > 0 && cfg.budget == UINT64_MAX) {
        cli_error(CMD, "--budget-band needs a --budget to vary");
        sim_trace_free(t);
        return 2;
    }
    perfetto_writer *pw = NULL;
    if (perfetto && open_perfetto(perfetto, trace, &cfg, alloc_key, &pw, &err) != 0) {
        cli_error(CMD, "--perfetto: %s", err.msg);
        sim_trace_free(t);
        return 1;
    }
    if (pw) {
        cfg.observer = perfetto_observe;
        cfg.observer_ctx = pw;
    }
    memviz_writer *mv = NULL;
    if (memsnap) {
        if (memviz_open(memsnap, sim_trace_storages(t), cfg.allocator, &mv, &err) != 0) {
            cli_error(CMD, "--memory-snapshot: %s", err.msg);
            perfetto_abort(pw);
            sim_trace_free(t);
            return 1;
        }
        if (pw)
            memviz_chain(mv, perfetto_observe, pw);
        cfg.observer = memviz_observe;
        cfg.observer_ctx = mv;
        cfg.storage_events = 1;
    }
    /* where the run peaks: with --seeds the median seed's run, a plugin's run too (its peak
     * followed in its child process: analysis/peak_run.h) */
    sim_categories *cats = NULL;
    if (sim_categories_build(t, &cats, &err) != 0) {
        cli_error(CMD, "%s", err.msg);
        memviz_abort(mv);
        perfetto_abort(pw);
        sim_trace_free(t);
        return 1;
    }
    extra.cats = cats;
    iter_log ilog = {0};
    if (cfg.planner) {
        cfg.iteration_observer = iter_log_observe;
        cfg.iteration_ctx = &ilog;
    }
    if (sim_extra_run(t, &cfg, &extra, &err) != 0) {
        cli_error(CMD, "%s: %s", trace, err.msg);
        iter_log_free(&ilog);
        memviz_abort(mv);
        perfetto_abort(pw);
        sim_extra_free(&extra);
        sim_categories_free(cats);
        sim_trace_free(t);
        return 1;
    }
    /* with --seeds, the median run stands for the runs (never the first seed's) */
    sim_result res = extra.center.median_run;
    const sim_peak *peakp = &extra.peak;
    const char *pname = cfg.planner ? cfg.planner->name : pol_name(cfg.policy);
    if (ilog.failed) {
        cli_error(CMD, "out of memory keeping the per-iteration reports");
        memviz_abort(mv);
        perfetto_abort(pw);
        iter_log_free(&ilog);
        sim_extra_free(&extra);
        sim_categories_free(cats);
        sim_trace_free(t);
        return 1;
    }
    if (pw && perfetto_close(pw, &res, &err) != 0) {
        cli_error(CMD, "--perfetto: %s", err.msg);
        memviz_abort(mv);
        iter_log_free(&ilog);
        sim_extra_free(&extra);
        sim_categories_free(cats);
        sim_trace_free(t);
        return 1;
    }
    if (mv && memviz_close(mv, alloc_key, &err) != 0) {
        cli_error(CMD, "--memory-snapshot: %s", err.msg);
        iter_log_free(&ilog);
        sim_extra_free(&extra);
        sim_categories_free(cats);
        sim_trace_free(t);
        return 1;
    }
    sim_yardstick ys, *ysp = NULL;
    if (db) {
        /* stored as a sweep stores it, so db runs / db gaps show it and sweeps skip it */
        sim_store_req q = {db, trace, pname, ratio, bytes, extra.seeds, allocator, alloc_conf};
        int added = 0;
        if (cfg.policy)
            q.policy_id = pol_id(cfg.policy);
        if (sim_store_run(&q, &cfg, &added, &err) != 0) {
            cli_error(CMD, "--db: %s", err.msg);
            iter_log_free(&ilog);
            sim_extra_free(&extra);
            sim_categories_free(cats);
            sim_trace_free(t);
            return 1;
        }
        fprintf(stderr, "gpumemsim sim: %s %s\n", added ? "run stored in" : "run already in",
                db);
        if (sim_yardstick_load(db, trace, t, cfg.budget, &ys, &err) != 0) {
            cli_error(CMD, "--db: %s", err.msg);
            iter_log_free(&ilog);
            sim_extra_free(&extra);
            sim_categories_free(cats);
            sim_trace_free(t);
            return 1;
        }
        ysp = &ys;
    }
    if (json) {
        if (print_json(trace, pname, &cfg, ratio, bl, &res, alloc_key, &extra, ysp, peakp) != 0) {
            cli_error(CMD, "out of memory writing JSON");
            if (ysp)
                sim_yardstick_free(ysp);
            iter_log_free(&ilog);
            sim_extra_free(&extra);
            sim_categories_free(cats);
            sim_trace_free(t);
            return 1;
        }
    } else {
        print_text(trace, pname, &cfg, ratio, bl, &res, alloc_key, &extra, ysp, peakp);
    }
    if (ysp)
        sim_yardstick_free(ysp);
    iter_log_free(&ilog);
    sim_extra_free(&extra);
    sim_categories_free(cats);
    sim_trace_free(t);
    return 0;
}
