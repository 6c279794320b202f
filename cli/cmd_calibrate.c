/*
 * gpumemsim calibrate: the per-op overhead with which the simulation reproduces one measured
 * slowdown (analysis/calibrate.h does the solving). A user who measured a job once, at one
 * budget, gets the overhead to pass to 'sim --op-overhead' to predict the other budgets.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "cli.h"
#include "plugin.h"
#include "policy.h"
#include "registry.h"
#include "sim.h"

static const char *const CMD = "calibrate";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim calibrate TRACE --budget B --measured SLOWDOWN [options]\n"
            "\n"
            "Finds the per-op overhead (a fixed cost every op pays on the real runtime: dispatch,\n"
            "bookkeeping) with which replaying TRACE under budget B reproduces SLOWDOWN, the\n"
            "slowdown you measured there (time per iteration under the budget / time without\n"
            "it). Pass the result to 'gpumemsim sim --op-overhead' to predict other budgets\n"
            "(docs/fidelity.md). The overhead is linear in the op overhead only while the\n"
            "schedule stays the same; since the clock moves staleness and so the victims, the\n"
            "solver brackets the answer and narrows it by interpolation and bisection, each\n"
            "step a full simulation.\n"
            "\n"
            "options:\n"
            "  --budget B          the budget of the measurement (as in sim: 0.4, 40%%, 4GB)\n"
            "  --measured X        the measured slowdown, 1 to 1000 (1.16, or 16%% for 1.16)\n"
            "  --policy NAME       eviction policy (default dtr; see 'sim --list-policies')\n"
            "  --sample K          victim choice as in 'sim --sample'\n"
            "  --seed N            first seed (default 0)\n"
            "  --seeds N           average the slowdown over seeds SEED .. SEED+N-1 (random\n"
            "                      policies, sampled choice; every seed must finish, or\n"
            "                      nothing is averaged; default 1)\n"
            "  --search-cost D     a known cost per candidate scored (kept fixed; default 0)\n"
            "  --evict-cost D      a known cost per eviction (kept fixed; default 0)\n"
            "  --remat-limit L     as in sim (default 2; 0 = none)\n"
            "  --tolerance T       stop when the slowdown is within T (default 1e-5)\n"
            CLI_PLUGIN_TIMEOUT_HELP("  ", "                      ")
            "  --json              print one JSON object (op_overhead_ns, slowdown, measured,\n"
            "                      error, ideal, simulations, converged, below_ideal, ...)\n"
            "  -h, --help          show this help\n"
            "\n"
            "example:\n"
            "  gpumemsim calibrate densenet.log --budget 10GB --measured 1.159\n"
            "  gpumemsim sim densenet.log --budget 6GB --op-overhead 22us\n");
}

enum {
    OPT_BUDGET = 256,
    OPT_MEASURED,
    OPT_POLICY,
    OPT_SAMPLE,
    OPT_SEED,
    OPT_SEEDS,
    OPT_SEARCH,
    OPT_EVICT,
    OPT_REMAT,
    OPT_TOL,
    OPT_JSON,
    OPT_PLUGIN_TIMEOUT,
};

static int parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* "1.16" or "16%" (a slowdown of 16%, i.e. 1.16). */
static int parse_slowdown(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v))
        return -1;
    if (strcmp(end, "%") == 0)
        v = 1 + v / 100;
    else if (*end)
        return -1;
    if (!(v >= 1 && v <= CAL_MAX_SLOWDOWN))
        return -1;
    *out = v;
    return 0;
}

static int parse_count(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

static void print_json(const char *trace, const char *policy, const sim_config *cfg,
                       unsigned seeds, double measured, const cal_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "trace", json_string(trace));
    json_object_set_new(o, "policy", json_string(policy));
    json_object_set_new(o, "budget", json_integer((json_int_t)cfg->budget));
    json_object_set_new(o, "measured", json_real(measured));
    json_object_set_new(o, "op_overhead_ns", json_integer((json_int_t)r->op_overhead_ns));
    json_object_set_new(o, "slowdown", json_real(r->at.mean));
    json_object_set_new(o, "error", json_real(r->error));
    json_object_set_new(o, "ideal", json_real(r->ideal));
    json_object_set_new(o, "seeds", json_integer(seeds));
    json_object_set_new(o, "seed", json_integer((json_int_t)cfg->seed));
    json_object_set_new(o, "slowdown_median", json_real(r->at.median));
    json_object_set_new(o, "slowdown_min", json_real(r->at.min));
    json_object_set_new(o, "slowdown_max", json_real(r->at.max));
    json_object_set_new(o, "slowdown_sd", json_real(r->at.sd));
    json_object_set_new(o, "search_cost", json_integer((json_int_t)cfg->search_cost_ns));
    json_object_set_new(o, "evict_cost", json_integer((json_int_t)cfg->evict_cost_ns));
    json_object_set_new(o, "ops_executed", json_real(r->at.ops_executed));
    json_object_set_new(o, "remat_compute", json_real(r->at.remat_compute));
    json_object_set_new(o, "simulations", json_integer(r->simulations));
    json_object_set_new(o, "converged", json_boolean(r->converged));
    json_object_set_new(o, "below_ideal", json_boolean(r->below_ideal));
    char *txt = json_dumps(o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (txt)
        printf("%s\n", txt);
    free(txt);
    json_decref(o);
}

int cmd_calibrate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"budget", required_argument, NULL, OPT_BUDGET},
        {"measured", required_argument, NULL, OPT_MEASURED},
        {"policy", required_argument, NULL, OPT_POLICY},
        {"sample", required_argument, NULL, OPT_SAMPLE},
        {"seed", required_argument, NULL, OPT_SEED},
        {"seeds", required_argument, NULL, OPT_SEEDS},
        {"search-cost", required_argument, NULL, OPT_SEARCH},
        {"evict-cost", required_argument, NULL, OPT_EVICT},
        {"remat-limit", required_argument, NULL, OPT_REMAT},
        {"tolerance", required_argument, NULL, OPT_TOL},
        {"json", no_argument, NULL, OPT_JSON},
        {"plugin-timeout", required_argument, NULL, OPT_PLUGIN_TIMEOUT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *policy = "dtr", *budget_s = NULL;
    double measured = 0, tol = 1e-5;
    uint64_t seeds = 1;
    int json = 0;
    sim_config cfg;
    sim_config_init(&cfg);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case OPT_BUDGET:
            budget_s = optarg;
            break;
        case OPT_MEASURED:
            if (parse_slowdown(optarg, &measured)) {
                cli_error(CMD, "--measured '%s': expected a slowdown from 1 to %g (time under the "
                               "budget / time without it: 1.16, or 16%%)", optarg,
                          CAL_MAX_SLOWDOWN);
                return 2;
            }
            break;
        case OPT_POLICY:
            policy = optarg;
            break;
        case OPT_SAMPLE:
            if (cli_parse_sample(optarg, &cfg.sample)) {
                cli_error(CMD, "--sample '%s' must be a count of storages (0 = all) or 'sqrt'",
                          optarg);
                return 2;
            }
            break;
        case OPT_SEED:
            if (parse_count(optarg, UINT64_MAX, &cfg.seed)) {
                cli_error(CMD, "--seed '%s' is not a non-negative integer", optarg);
                return 2;
            }
            break;
        case OPT_SEEDS:
            if (parse_count(optarg, 10000, &seeds) || seeds < 1) {
                cli_error(CMD, "--seeds '%s' must be an integer from 1 to 10000", optarg);
                return 2;
            }
            break;
        case OPT_SEARCH:
        case OPT_EVICT:
            if (cli_parse_duration(optarg, c == OPT_SEARCH ? &cfg.search_cost_ns
                                                            : &cfg.evict_cost_ns)) {
                cli_error(CMD, "%s '%s': %s", c == OPT_SEARCH ? "--search-cost" : "--evict-cost",
                          optarg, CLI_DURATION_RANGE);
                return 2;
            }
            break;
        case OPT_PLUGIN_TIMEOUT:
            if (cli_plugin_timeout(CMD, optarg))
                return 2;
            break;
        case OPT_REMAT: {
            double L;
            if (parse_number(optarg, &L) || (L != 0 && L < 1)) {
                cli_error(CMD, "--remat-limit '%s' must be a number >= 1, or 0 for no limit",
                          optarg);
                return 2;
            }
            cfg.remat_limit = L;
            break;
        }
        case OPT_TOL:
            if (parse_number(optarg, &tol) || !(tol > 0)) {
                cli_error(CMD, "--tolerance '%s' must be a number > 0", optarg);
                return 2;
            }
            break;
        case OPT_JSON:
            json = 1;
            break;
        case ':':
            cli_error(CMD, "option %s needs a value (see gpumemsim calibrate --help)",
                      argv[optind - 1]);
            return 2;
        default:
            cli_error(CMD, "unknown option '%s' (see gpumemsim calibrate --help)",
                      argv[optind - 1]);
            return 2;
        }
    }
    if (optind + 1 != argc) {
        cli_error(CMD, "expected exactly one TRACE (a .gmt or DTR log); see --help");
        return 2;
    }
    if (!budget_s || measured == 0) {
        cli_error(CMD, "%s is required: the budget and the slowdown you measured there",
                  !budget_s ? "--budget" : "--measured");
        return 2;
    }
    gms_error perr = {0};
    if (pol_resolve(policy, &cfg.policy, &perr) != 0) { /* a built-in name or a plugin .so */
        cli_error(CMD, "%s", perr.msg);
        return 2;
    }
    if (cfg.policy->needs & SIM_NEEDS_ADDRESSES) {
        cli_error(CMD, "policy %s needs a memory model with addresses, which calibrate does "
                       "not offer yet", pol_name(cfg.policy));
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
    const char *trace = argv[optind];
    sim_trace *t;
    gms_error err = {0};
    if (sim_trace_load(trace, &t, &err)) {
        cli_error(CMD, "%s", err.msg);
        return 1;
    }
    cfg.budget = ratio > 0 ? sim_budget_for_ratio(t, ratio) : bytes;
    sim_runner *r;
    cal_result res;
    if (sim_runner_new(t, &r, &err) ||
        cal_solve_op_overhead(r, t, &cfg, (unsigned)seeds, measured, tol, &res, &err)) {
        cli_error(CMD, "%s: %s", trace, err.msg);
        sim_runner_free(r);
        sim_trace_free(t);
        return 1;
    }
    sim_runner_free(r);
    sim_trace_free(t);
    if (json) {
        print_json(trace, pol_name(cfg.policy), &cfg, (unsigned)seeds, measured, &res);
        return 0;
    }
    printf("op overhead      %llu ns (%.3f us per op)\n", (unsigned long long)res.op_overhead_ns,
           (double)res.op_overhead_ns / 1e3);
    printf("slowdown         %.6f simulated with it, %.6f measured (error %+.2e)\n",
           res.at.mean, measured, res.error);
    if (seeds > 1)
        printf("seeds            %llu, all finished: median %.6f, min %.6f, max %.6f, "
               "sd %.6f\n", (unsigned long long)seeds, res.at.median, res.at.min, res.at.max,
               res.at.sd);
    printf("ideal replay     %.6f (no op overhead)\n", res.ideal);
    printf("ops run          %.0f (first runs and rematerializations), %.0f ns recomputing\n",
           res.at.ops_executed, res.at.remat_compute);
    printf("solver           %u simulations, %s\n", res.simulations,
           res.converged ? "converged" : "did not converge (the closest is shown)");
    if (res.below_ideal)
        printf("note             the measured slowdown is below the ideal replay's: no overhead "
               ">= 0 reproduces it (is the budget right? is the measurement noisy?)\n");
    printf("predict with     gpumemsim sim %s --policy %s --op-overhead %lluns --budget ...\n",
           trace, pol_name(cfg.policy), (unsigned long long)res.op_overhead_ns);
    return 0;
}
