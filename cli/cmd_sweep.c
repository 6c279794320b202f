/* gpumemsim sweep: traces x policies x budgets x seeds, in parallel, into a result store. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis_util.h"
#include "catalog.h"
#include "cli.h"
#include "opt_extract.h"
#include "optimal_seeds.h"
#include "planners.h"
#include "plugin.h"
#include "progress.h"
#include "link.h"
#include "registry.h"
#include "sweep.h"
#include "sweep_checkmate.h"

#define DEFAULT_BUDGETS "0.1:1.0:0.05"
#define DEFAULT_DB "results.db"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim sweep TRACE... [--policies LIST] [--budgets SPEC] [--seeds N]\n"
            "                       [--db FILE] [-j N] [--shard K/N] [--remat-limit L]\n"
            "                       [--allocators LIST] [--alloc-conf CONF] [--sample K]\n"
            "                       [--op-overhead D] [--search-cost D] [--evict-cost D]\n"
            "                       [--policy-args K=V,...] [--link L] [--host-memory B]\n"
            "                       [--iteration N] [--coarsen auto|outputs|layers|none]\n"
            "                       [--time-limit S] [--no-improve] [--seed-policies L]\n"
            "                       [--plugin-timeout S] [--quiet]\n\n"
            "Simulates every trace with every policy at every budget (and every seed of the\n"
            "randomized policies) and records each run in a SQLite result store. Runs already\n"
            "in the store are skipped, so an interrupted sweep simply continues when run again.\n\n"
            "  TRACE            .gmt traces, DTR JSON logs or PyTorch Execution Traces\n"
            "  --policies LIST  comma-separated names from the list below (--policy is the\n"
            "                   same option, as in db and plot); default 'all': every\n"
            "                   eviction policy (the address-aware ones only with\n"
            "                   --allocators caching or lifetime); checkpoint planners and\n"
            "                   solved schedules run only when named ('all,ckpt-all,checkmate').\n"
            "                   A name with a '/' is a policy plugin .so (docs/plugins.md),\n"
            "                   recorded as NAME@HASH of the file\n"
            "  --policy-args K=V,...  the planners' parameters, stored canonically first in\n"
            "                   their runs' params; their iterations go to the store too\n"
            "  --budgets SPEC   budget ratios of each trace's baseline memory:\n"
            "                   START:STOP:STEP inclusive, or a list such as 0.2,0.5;\n"
            "                   each in (0, %g] (default " DEFAULT_BUDGETS "); a list\n"
            "                   may name byte sizes too, as sim's --budget (0.5GiB,800MB,\n"
            "                   0.6), stored with the ratio bytes / baseline memory\n"
            "  --seeds N        runs (seeds 0..N-1) of each randomized policy (default 1)\n"
            "  --db FILE        the result store, created if missing (default " DEFAULT_DB ")\n"
            "  -j N             worker threads (default: the number of cores)\n"
            "  --shard K/N      run only shard K of N (split a sweep over machines; merge the\n"
            "                   stores with 'gpumemsim db merge')\n"
            "  --remat-limit L  stop a run once rematerialization costs more than (L-1) x the\n"
            "                   baseline compute (default 2; 0 = no limit, as in sim)\n"
            "  --allocators LIST  memory models, comma-separated, each a sweep dimension\n"
            "                   stored with its runs: ideal (default), caching, lifetime\n"
            "                   (docs/memory.md); address-aware policies (coop, dtr-frag)\n"
            "                   run with the models that have addresses only\n"
            "  --alloc-conf CONF  settings of the non-ideal models, as PYTORCH_CUDA_ALLOC_CONF\n"
            "                   (max_split_size_mb:N for caching, first_fit:True for lifetime)\n"
            "  --sample K       approximate victim choice as in 'sim --sample' (K random\n"
            "                   candidates, or sqrt): every policy then runs once per seed, and\n"
            "                   the runs are stored with params sample=K\n"
            "  --op-overhead D, --search-cost D, --evict-cost D  the runtime-cost model of\n"
            "                   'sim' (docs/fidelity.md) for every run, stored in the runs'\n"
            "                   params (op_overhead=20000ns, ...) and cost columns\n"
            "  --link L, --host-memory B  the link and host memory of the swapping policies\n"
            "                   (swap-lru, ...) as in 'sim' (docs/swap.md), stored in their\n"
            "                   runs' params (link=31.5GBps/10000ns,host=N); swapping runs\n"
            "                   use the ideal memory model only\n"
            "  --iteration N, --coarsen auto|outputs|layers|none, --time-limit S\n"
            "                   the optimal schedule's runs\n"
            "                   (--policies checkmate,checkmate-approx; as in 'sim --policy\n"
            "                   checkmate', docs/optimal.md): which iteration (default 0), its\n"
            "                   graph (default auto: outputs where it fits, else layers, keyed as\n"
            "                   what it picked) and the solve's limit in seconds (default\n"
            "                   none), stored in their params; each solver answer is cached in\n"
            "                   the store (table solutions), so a budget solved before (the same\n"
            "                   bytes, from any ratio) replays without solving again; with a\n"
            "                   limit checkmate's solves first improve their seed by the window\n"
            "                   search, as 'optimal' does (params search=windows)\n"
            "  --no-improve     with --time-limit, no window search (seed, LP and CBC only)\n"
            "  --seed-policies L  the eviction policies run at each budget of checkmate's\n"
            "                   runs (default dtr,dtr-eq,msps,lru; 'none'): on an op-level\n"
            "                   graph their runs seed the solve, so its answer is never worse\n"
            "                   than the best that fits the program (as in 'optimal')\n"

            "  --plugin-timeout S  seconds one run of a plugin policy may take; then it is\n"
            "                   killed and fails, and the sweep goes on (default 600; 0 = none)\n"
            "  --quiet          no progress output\n\n"
            "policies (as 'gpumemsim sim --list-policies'):\n",
            SWEEP_MAX_RATIO);
    pol_catalog_print(f);
}

static void on_progress(void *bar, const sweep_progress *p)
{
    /* oom and remat-limit are results a sweep is run to find, not failures of the sweep */
    char note[96] = "";
    if (p->done)
        snprintf(note, sizeof note, "%zu ok, %zu oom, %zu remat-limit", p->ok, p->oom,
                 p->remat_limit);
    progress_update(bar, p->done, p->total, p->elapsed_s, note);
}

/* Value options given twice are refused (as sim does), not silently overridden: 1 and a
 * message when `a` repeats one seen before (aliases count as one). */
static int repeated(const char *cmd, const char *a, const char **seen, size_t *n_seen)
{
    static const char *const opts[][2] = {
        {"--policies", "--policies"}, {"--policy", "--policies"},
        {"--allocators", "--allocators"}, {"--allocator", "--allocators"},
        {"--budgets", "--budgets"}, {"--seeds", "--seeds"}, {"--db", "--db"},
        {"-j", "-j"}, {"--jobs", "-j"}, {"--shard", "--shard"},
        {"--remat-limit", "--remat-limit"}, {"--alloc-conf", "--alloc-conf"},
        {"--sample", "--sample"}, {"--op-overhead", "--op-overhead"},
        {"--search-cost", "--search-cost"}, {"--evict-cost", "--evict-cost"},
        {"--policy-args", "--policy-args"}, {"--link", "--link"},
        {"--host-memory", "--host-memory"}, {"--iteration", "--iteration"},
        {"--coarsen", "--coarsen"}, {"--time-limit", "--time-limit"},
        {"--seed-policies", "--seed-policies"},
    };
    const char *canon = NULL;
    for (size_t i = 0; i < sizeof opts / sizeof opts[0] && !canon; i++)
        if (strcmp(a, opts[i][0]) == 0)
            canon = opts[i][1];
    if (!canon)
        return 0;
    for (size_t i = 0; i < *n_seen; i++)
        if (strcmp(seen[i], canon) == 0) {
            cli_error(cmd, "%s given twice: give it once%s", canon,
                      strcmp(canon, "--policies") == 0 || strcmp(canon, "--budgets") == 0 ||
                              strcmp(canon, "--allocators") == 0
                          ? ", with every value in one comma-separated list"
                          : "");
            return 1;
        }
    seen[(*n_seen)++] = canon;
    return 0;
}

/* 1 when name is among the first n of v. */
static int cli_list_has(char *const *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], name) == 0)
            return 1;
    return 0;
}

/* Parses a positive integer option value; 0 or -1. */
static int parse_uint(const char *s, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || *end || errno || v < 1 || v > 100000 || s[0] == '-')
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* --budgets: a range of ratios START:STOP:STEP (sweep_parse_ratios), or a list whose items
 * are ratios or byte sizes as sim's --budget takes them (0.5, 40%, 2GiB, 800MB), mixed. A
 * list with a byte size fills *bytes (0 for the ratio items), else *bytes stays NULL. */
static int parse_budgets(const char *text, double **ratios, uint64_t **bytes, size_t *n,
                         gms_error *err)
{
    *bytes = NULL;
    int sized = 0;
    for (const char *p = text; *p; p++)
        sized |= (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z' && *p != 'e') ||
                 *p == '%';
    if (strchr(text, ':') || !sized)
        return sweep_parse_ratios(text, ratios, n, err);
    char **items = NULL;
    size_t k = 0;
    if (cli_list_split(text, &items, n))
        return gms_error_set(err, GMS_EINVAL, "'%s': expected budgets separated by commas "
                                              "(0.5,2GiB) or a range START:STOP:STEP", text);
    *ratios = calloc(*n, sizeof **ratios);
    *bytes = calloc(*n, sizeof **bytes);
    int rc = !*ratios || !*bytes ? gms_error_set(err, GMS_ENOMEM, "out of memory") : 0;
    for (size_t i = 0; !rc && i < *n; i++) {
        double r = 0;
        uint64_t b = 0;
        int brc = cli_parse_budget(items[i], &r, &b);
        if (brc) {
            rc = gms_error_set(err, GMS_EINVAL,
                               "budget '%s' in '%s': expected a ratio of baseline memory (0.5, "
                               "40%%; at most %g) or bytes with a unit (2GiB, 800MB, 123456789B)",
                               items[i], text, CLI_MAX_BUDGET_RATIO);
            break;
        }
        int dup = 0; /* a repeated budget is the same experiment */
        for (size_t j = 0; j < k; j++)
            dup |= (*bytes)[j] == b && (*ratios)[j] == (b ? 0 : r);
        if (!dup) {
            (*ratios)[k] = b ? 0 : r;
            (*bytes)[k++] = b;
        }
    }
    cli_list_free(items);
    if (rc) {
        free(*ratios);
        free(*bytes);
        *ratios = NULL;
        *bytes = NULL;
        *n = 0;
        return rc;
    }
    *n = k;
    return 0;
}

/* The policy list with each "all" replaced by the catalog's "all" (pol_in_all) and repeats
 * dropped; no list at all means "all". 0, or -1 out of memory (the list is then freed). */
static int expand_all(char ***list, size_t *n, int addresses)
{
    char **in = *list;
    size_t n_in = in ? *n : 1, cap = n_in + pol_catalog_count() + 1, k = 0;
    char **v = calloc(cap, sizeof *v);
    for (size_t i = 0; v && i < n_in; i++) {
        const char *name = in ? in[i] : "all";
        pol_entry e;
        for (size_t c = 0; strcmp(name, "all") == 0 && pol_catalog_at(c, &e) == 0; c++)
            if (pol_in_all(&e, addresses) && !cli_list_has(v, k, e.name) &&
                !(v[k++] = strdup(e.name)))
                goto oom;
        if (strcmp(name, "all") != 0 && !cli_list_has(v, k, name) && !(v[k++] = strdup(name)))
            goto oom;
    }
    if (!v)
        goto oom;
    cli_list_free(in);
    *list = v;
    *n = k;
    return 0;
oom:
    cli_list_free(v);
    cli_list_free(in);
    *list = NULL;
    *n = 0;
    return -1;
}

int cmd_sweep(int argc, char **argv)
{
    const char *cmd = "sweep";
    const char *budgets = DEFAULT_BUDGETS, *db = DEFAULT_DB;
    char **policies = NULL, **allocators = NULL, *policy_args = NULL;
    size_t n_policies = 0, n_allocators = 0;
    const char **traces = calloc((size_t)argc, sizeof *traces);
    double *ratios = NULL;
    uint64_t *budget_bytes = NULL;
    size_t n_traces = 0, n_ratios = 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    sweep_spec sp = {.seeds = 1, .remat_limit = 2.0, .shard_k = 1, .shard_n = 1,
                     .jobs = ncpu > 0 ? (unsigned)ncpu : 1};
    int quiet = 0, rc = 2, ck_opts = 0;
    const char *link_opt = NULL; /* --link or --host-memory, refused without a swapping policy */
    gms_error err;
    if (!traces) {
        cli_error(cmd, "out of memory");
        return 1;
    }
    const char *seen[32];
    size_t n_seen = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && repeated(cmd, a, seen, &n_seen))
            goto out;
        if (cli_is_help(a)) {
            usage(stdout);
            rc = 0;
            goto out;
        } else if ((strcmp(a, "--policies") == 0 || strcmp(a, "--policy") == 0) && v) {
            cli_list_free(policies);
            if (cli_list_split(v, &policies, &n_policies)) {
                cli_error(cmd, "--policies '%s': expected names separated by commas", v);
                goto out;
            }
            i++;
        } else if ((strcmp(a, "--allocators") == 0 || strcmp(a, "--allocator") == 0) && v) {
            cli_list_free(allocators);
            if (cli_list_split(v, &allocators, &n_allocators)) {
                cli_error(cmd, "%s '%s': expected names separated by commas", a, v);
                goto out;
            }
            i++;
        } else if (strcmp(a, "--policy-args") == 0 && v) {
            free(policy_args);
            policy_args = NULL;
            if (planner_params_canon(v, &policy_args, &err)) {
                cli_error(cmd, "%s", err.msg);
                goto out;
            }
            if (strlen(policy_args) > 120) {
                cli_error(cmd, "--policy-args: at most 120 characters in canonical form");
                goto out;
            }
            i++;
        } else if (strcmp(a, "--sample") == 0 && v) {
            if (cli_parse_sample(v, &sp.sample)) {
                cli_error(cmd, "--sample '%s' must be a count of storages (0 = all) or 'sqrt'", v);
                goto out;
            }
            i++;
        } else if ((strcmp(a, "--op-overhead") == 0 || strcmp(a, "--search-cost") == 0 ||
                    strcmp(a, "--evict-cost") == 0) && v) {
            uint64_t *dst = a[2] == 'o' ? &sp.op_overhead_ns
                            : a[2] == 's' ? &sp.search_cost_ns : &sp.evict_cost_ns;
            if (cli_parse_duration(v, dst)) {
                cli_error(cmd, "%s '%s': %s", a, v, CLI_DURATION_RANGE);
                goto out;
            }
            i++;
        } else if (strcmp(a, "--plugin-timeout") == 0 && v) {
            if (cli_plugin_timeout(cmd, v))
                goto out;
            i++;
        } else if (strcmp(a, "--link") == 0 && v) {
            link_opt = a;
            sim_link l;
            gms_error lerr = {0};
            if (sim_link_parse(v, &l, &lerr)) {
                cli_error(cmd, "--link: %s", lerr.msg);
                goto out;
            }
            sp.link_gbps = l.gbps;
            sp.link_latency_ns = l.latency_ns;
            i++;
        } else if (strcmp(a, "--host-memory") == 0 && v) {
            link_opt = a;
            if (cli_parse_bytes(v, &sp.host_memory) || sp.host_memory == 0) {
                cli_error(cmd, "--host-memory '%s' must be a positive byte count below 16EiB "
                               "(64GiB, 500MB)", v);
                goto out;
            }
            i++;
        } else if (strcmp(a, "--alloc-conf") == 0 && v) {
            sp.alloc_conf = v;
            i++;
        } else if (strcmp(a, "--budgets") == 0 && v) {
            budgets = v;
            i++;
        } else if (strcmp(a, "--seeds") == 0 && v) {
            if (parse_uint(v, &sp.seeds)) {
                cli_error(cmd, "--seeds '%s': expected a whole number >= 1", v);
                goto out;
            }
            i++;
        } else if (strcmp(a, "--db") == 0 && v) {
            db = v;
            i++;
        } else if ((strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) && v) {
            if (parse_uint(v, &sp.jobs)) {
                cli_error(cmd, "-j '%s': expected a number of threads >= 1", v);
                goto out;
            }
            i++;
        } else if (strncmp(a, "-j", 2) == 0 && a[2] >= '0' && a[2] <= '9') {
            if (parse_uint(a + 2, &sp.jobs)) {
                cli_error(cmd, "'%s': expected a number of threads >= 1", a);
                goto out;
            }
        } else if (strcmp(a, "--shard") == 0 && v) {
            if (sweep_parse_shard(v, &sp.shard_k, &sp.shard_n, &err)) {
                cli_error(cmd, "%s", err.msg);
                goto out;
            }
            i++;
        } else if (strcmp(a, "--iteration") == 0 && v) {
            if (cli_parse_iteration(v, &sp.ck_iteration)) {
                cli_error(cmd, "--iteration '%s': give an iteration number from 0", v);
                goto out;
            }
            ck_opts = 1;
            i++;
        } else if (strcmp(a, "--coarsen") == 0 && v) {
            int c;
            if (cli_parse_coarsen(v, &c)) {
                cli_error(cmd, "--coarsen '%s': give 'auto' (the default), 'outputs', "
                          "'layers' or 'none'", v);
                goto out;
            }
            sp.ck_coarsen = opt_coarsen_name((opt_coarsen)c);
            ck_opts = 1;
            i++;
        } else if (strcmp(a, "--seed-policies") == 0 && v) {
            if (optimal_seeds_check(v, &err)) {
                cli_error(cmd, "%s", err.msg);
                goto out;
            }
            sp.ck_seed_policies = v;
            ck_opts = 1;
            i++;
        } else if (strcmp(a, "--no-improve") == 0) {
            sp.ck_no_improve = 1;
            ck_opts = 1;
        } else if (strcmp(a, "--time-limit") == 0 && v) {
            if (cli_parse_seconds(v, &sp.ck_time_limit)) {
                cli_error(cmd, "--time-limit '%s': give seconds > 0 (60, 60s or 2m)", v);
                goto out;
            }
            ck_opts = 1;
            i++;
        } else if (strcmp(a, "--remat-limit") == 0 && v) {
            if (cli_parse_remat_limit(v, &sp.remat_limit)) {
                cli_error(cmd, "--remat-limit '%s': expected a number >= 1 (2 = up to 1x the "
                               "baseline compute spent on rematerialization) or 0 for no limit",
                          v);
                goto out;
            }
            i++;
        } else if (strcmp(a, "--timelines") == 0) {
            cli_error(cmd, "--timelines is gone: the stored timelines fed no chart or export; "
                           "draw a run's memory over time with 'gpumemsim plot timeline TRACE "
                           "--policy P --budget B -o CHART', which replays it exactly");
            goto out;
        } else if (strcmp(a, "--kineto") == 0) {
            /* a store keys runs by the trace file's content: an ET swept with and without its
             * Kineto timings would share one key; a converted .gmt has its own */
            cli_error(cmd, "--kineto is not a sweep option: convert the Execution Trace with its "
                           "timings first ('gpumemsim convert ET.json.gz --kineto K.json.gz -o "
                           "ET.gmt') and sweep the .gmt, whose run keys then say which costs "
                           "were used");
            goto out;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            cli_error(cmd, "unknown option or missing value: '%s' (see gpumemsim sweep --help)",
                      a);
            goto out;
        } else {
            traces[n_traces++] = a;
        }
    }
    if (n_traces == 0) {
        cli_error(cmd, "no traces given (usage: gpumemsim sweep TRACE... [options])");
        goto out;
    }
    {
        int addresses = 0;
        for (size_t i = 0; i < n_allocators; i++)
            addresses |= strcmp(allocators[i], "ideal") != 0;
        if (expand_all(&policies, &n_policies, addresses)) {
            cli_error(cmd, "out of memory");
            rc = 1;
            goto out;
        }
    }
    for (size_t i = 0; i < n_policies; i++) {
        /* a plugin path: load and check it now, and sweep it under its run-key id
         * (NAME@HASH of the .so), so that a rebuilt plugin never reuses old results */
        if (pol_find(policies[i]) || planner_find(policies[i]) || !pol_is_path(policies[i]))
            continue;
        const struct sim_policy *pp = NULL;
        gms_error perr = {0};
        if (pol_resolve(policies[i], &pp, &perr) != 0) {
            cli_error(cmd, "--policies: %s", perr.msg);
            goto out;
        }
        char *id = strdup(pol_id(pp));
        if (!id) {
            cli_error(cmd, "out of memory");
            goto out;
        }
        free(policies[i]);
        policies[i] = id;
    }
    int any_planner = 0, any_ck = 0;
    for (size_t i = 0; i < n_policies; i++) {
        any_planner |= planner_find(policies[i]) != NULL;
        any_ck |= sweep_checkmate_is(policies[i]);
        if (!pol_find(policies[i]) && !planner_find(policies[i]) &&
            !sweep_checkmate_is(policies[i])) {
            gms_error perr = {0};
            pol_refuse(policies[i], POL_KIND_ANY, &perr);
            cli_error(cmd, "%s", perr.msg);
            goto out;
        }
    }
    int any_swap = 0;
    for (size_t i = 0; i < n_policies; i++)
        any_swap |= pol_swaps(pol_find(policies[i]));
    if (link_opt && !any_swap) {
        char sw[256] = "";
        for (size_t i = 0, u = 0; i < pol_count() && u < sizeof sw; i++)
            if (pol_swaps(pol_at(i)))
                u += (size_t)snprintf(sw + u, sizeof sw - u, "%s%s", u ? ", " : "",
                                      pol_name(pol_at(i)));
        cli_error(cmd, "%s sets the host link and memory of swapping policies (%s), and "
                       "--policies names none: add one or drop %s", link_opt, sw, link_opt);
        goto out;
    }
    if (ck_opts && !any_ck) {
        cli_error(cmd, "--iteration, --coarsen, --time-limit, --no-improve and --seed-policies "
                       "set the "
                       "optimal schedule's "
                       "runs, and --policies names neither checkmate nor checkmate-approx");
        goto out;
    }
    if (policy_args && *policy_args && !any_planner) {
        cli_error(cmd, "--policy-args sets checkpoint planners' parameters, and --policies "
                       "names none (planners: %s%s)", planner_count() ? planner_at(0)->name : "",
                  planner_count() > 1 ? ", ..." : "");
        goto out;
    }
    if (parse_budgets(budgets, &ratios, &budget_bytes, &n_ratios, &err)) {
        cli_error(cmd, "--budgets: %s", err.msg);
        goto out;
    }
    for (size_t i = 0; i < n_traces; i++)
        if (strcmp(traces[i], "-") == 0) {
            cli_error(cmd, "a sweep cannot read a trace from standard input ('-'): it hashes "
                           "and replays each trace several times; save it to a file first");
            goto out;
        } else if (access(traces[i], R_OK) != 0) {
            cli_error(cmd, "%s: cannot read the trace: %s", traces[i], strerror(errno));
            rc = 1;
            goto out;
        }

    progress bar;
    progress_init(&bar, stderr, "sweep", quiet);
    sp.traces = traces;
    sp.n_traces = n_traces;
    sp.policies = (const char *const *)policies;
    sp.n_policies = n_policies;
    sp.ratios = ratios;
    sp.n_ratios = n_ratios;
    sp.budget_bytes = budget_bytes;
    sp.allocators = (const char *const *)allocators;
    sp.n_allocators = n_allocators;
    sp.policy_args = policy_args;
    sp.progress = on_progress;
    sp.progress_ctx = &bar;
    sweep_progress sum;
    rc = sweep_run(&sp, db, &sum, &err);
    progress_end(&bar);
    if (rc) {
        cli_error(cmd, "%s", err.msg);
        rc = 1;
        goto out;
    }
    if (!quiet) {
        char dur[32];
        fprintf(stderr,
                "sweep: %zu runs in %s (%zu ok, %zu oom, %zu remat-limit); %zu already in %s "
                "were skipped\n",
                sum.done, progress_format_duration(sum.elapsed_s, dur, sizeof dur), sum.ok,
                sum.oom, sum.remat_limit, sum.skipped, db);
        if (sum.solved + sum.cached)
            fprintf(stderr, "sweep: checkmate: %zu schedules solved, %zu from the store's "
                            "solution cache\n", sum.solved, sum.cached);
    }
    rc = 0;
out:
    cli_list_free(policies);
    cli_list_free(allocators);
    free(policy_args);
    free(ratios);
    free(budget_bytes);
    free(traces);
    return rc;
}
