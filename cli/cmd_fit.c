/*
 * gpumemsim fit: for each policy, the smallest memory budget at which it runs a trace within
 * an overhead limit (analysis/fit.h does the search; docs/fit.md). Policies are searched in
 * parallel with -j, one simulation runner per thread.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis_util.h"
#include "catalog.h"
#include "cli.h"
#include "fit.h"
#include "fit_checkmate.h"
#include "memory.h"
#include "opt_extract.h"
#include "optimal_seeds.h"
#include "plugin.h"
#include "plugin_isolate.h"
#include "policy.h"
#include "progress.h"
#include "registry.h"
#include "sim.h"
#include "swap_opts.h"
#include "sweep_checkmate.h"

static const char *const CMD = "fit";

#define FIT_TOLERANCE_PER_MILLE 5 /* bisection to 0.5% of the baseline peak */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim fit TRACE [--max-overhead X] [--policies LIST] [--json]\n"
            "                     [--allocator M [--alloc-conf C]] [--remat-limit L]\n"
            "                     [--seed N] [--sample K] [--grid N] [--up-to R] [-j N]\n"
            "                     [--link L] [--host-memory B] [--plugin-timeout S]\n"
            "                     [--quiet] [--db FILE] [--coarsen auto|outputs|layers|none]\n"
            "                     [--iteration N] [--time-limit S] [--no-improve]\n"
            "                     [--seed-policies L]\n"
            "\n"
            "Finds, for each policy, the smallest memory budget at which TRACE runs with\n"
            "status ok and an overhead (simulated time / baseline compute) of at most X.\n"
            "Budgets are probed on a grid from the floor to the baseline peak memory, then\n"
            "bisected between the highest failing grid point and the one above it, down to\n"
            "0.5%% of the baseline peak. The floor is the least any run needs: the largest\n"
            "op's inputs and outputs at once, or all constants if they weigh more.\n"
            "\n"
            "Overhead is not monotone in the budget for every policy. The answer is the\n"
            "smallest passing budget above which every grid point passes too; a passing grid\n"
            "point below a failing one is reported as non-monotone (the note column, JSON\n"
            "non_monotone and lowest_passing_bytes), never taken as the answer.\n"
            "\n"
            "options:\n"
            "  --max-overhead X  the overhead limit, a number > 1 (default 1.2: at most 20%%\n"
            "                    slower than with unlimited memory)\n"
            "  --policies LIST   comma-separated policy names or plugin .so paths (default:\n"
            "                    every built-in policy that runs on the memory model); also\n"
            "                    checkmate, checkmate-approx (solved, below)\n"
            "  --allocator M     memory model, as in sim: ideal (default), caching, lifetime\n"
            "  --alloc-conf C    its settings (PYTORCH_CUDA_ALLOC_CONF syntax)\n"
            "  --remat-limit L   stop a run once recomputation exceeds (L-1) x baseline\n"
            "                    compute (default: X, which stops runs that cannot pass any\n"
            "                    more and changes no answer; 0 = no limit)\n"
            "  --seed N          seed of the random policy (default 0)\n"
            "  --sample K        approximate victim choice (K candidates or sqrt), as in sim\n"
            "  --grid N          grid points from the floor to the baseline peak (default 20)\n"
            "  --up-to R         search up to R x the baseline peak instead of 1 (a memory\n"
            "                    model may need more than the baseline peak; at most 10)\n"
            "  --link L          the swapping policies' device<->host link, as in sim: a\n"
            "                    preset (pcie3, pcie4, pcie5, nvlink-c2c; default pcie4) or\n"
            "                    GBPS[,LATENCY_US]; the table names the link used\n"
            "  --host-memory B   their host memory (64GiB; default unlimited)\n"
            "  -j N              policies searched at once (default 1)\n"
            "  --json            one JSON object: the trace's figures and, per policy,\n"
            "                    policy, found, budget_bytes, budget_ratio, overhead, at_floor,\n"
            "                    failed_below_bytes, failed_below_status, non_monotone,\n"
            "                    lowest_passing_bytes, runs (see docs/fit.md); link and\n"
            "                    host_memory when a swapping policy is searched; best;\n"
            "                    error for a plugin policy that failed\n"
            CLI_PLUGIN_TIMEOUT_HELP("\n                    ", "                    ")
            "  --quiet           no progress line on standard error\n"
            "\n"
            "the solved policies (--policies checkmate,checkmate-approx; docs/optimal.md):\n"
            "  each probe solves one iteration's graph at that budget and replays the\n"
            "  schedule, one solve at a time on the main thread (CBC is single-threaded)\n"
            "  --db FILE         cache every solve in this result store (created if missing):\n"
            "                    a budget solved before is replayed without solving\n"
            "  --coarsen MODE    auto (default), outputs, layers or none, as in sim\n"
            "  --iteration N     which iteration (default 0)\n"
            "  --time-limit S    seconds per solve (default none); each solve first improves\n"
            "                    its seed by the window search, as 'optimal' does\n"
            "  --no-improve      with --time-limit, no window search (seed, LP and CBC only)\n"
            "  --seed-policies L eviction policies run at each probe's budget (default\n"
            "                    dtr,dtr-eq,msps,lru; 'none'): on an op-level graph their runs\n"
            "                    seed the solve, so it is never worse than the best that fits\n"
            "                    the program; on any graph a probe's answer worse than the\n"
            "                    best run, or none where a run fits, is said in a note line\n"
            "                    (the failing budget below the answer's first, else the\n"
            "                    answer's; worse_than_heuristic and its _bytes, _ratio in\n"
            "                    JSON, null when none)\n"
            "  -h, --help        show this help\n"
            "\n"
            "examples:\n"
            "  gpumemsim fit unet.gmt --max-overhead 1.2\n"
            "  gpumemsim fit resnet32.log --policies dtr,msps --max-overhead 1.5 --json\n");
}

/* One policy's search and its outcome. A plugin that fails (crash, NaN, time limit) fails
 * its own job only: failed and err say why, beside the other policies' answers. */
typedef struct fit_job {
    const sim_policy *policy;
    const char *ck;       /* a solved policy (fit_checkmate.h) instead of policy; else NULL */
    unsigned solved, cached; /* ck: probes solved and taken from the store */
    unsigned searched;       /* ck: probes whose solve ran the window search */
    unsigned by_windows;     /* ck: probes answered by the window search */
    const char *search;      /* ck: "windows" or "none" (sweep_checkmate_search) */
    fit_checkmate_note note; /* ck: a probe worse than a heuristic's run, if any */
    fit_answer ans;
    int failed;
    gms_error err;
} fit_job;

static const char *job_name(const fit_job *j)
{
    return j->ck ? j->ck : pol_name(j->policy);
}

/* What the workers share. */
typedef struct fit_ctx {
    const sim_trace *trace;
    sim_config base;
    double max_overhead, up_to;
    fit_search_opts so;
    fit_job *jobs;
    size_t n_jobs, next;
    unsigned runs_done, runs_total;
    int failed;
    gms_error err;
    progress bar;
    double t0;
    pthread_mutex_t lock;
} fit_ctx;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_probe(void *vctx, unsigned runs)
{
    (void)runs;
    fit_ctx *c = vctx;
    pthread_mutex_lock(&c->lock);
    c->runs_done++;
    double t = now_s() - c->t0;
    if (t >= 1.0) /* a fit that takes a second or less says nothing */
        progress_update(&c->bar, c->runs_done, c->runs_total, t, "simulating");
    pthread_mutex_unlock(&c->lock);
}

static void *worker(void *vctx)
{
    fit_ctx *c = vctx;
    sim_runner *r = NULL;
    gms_error err = {0};
    pol_fork_gate_enter(); /* allocating while other threads may fork (plugin_isolate.h) */
    int rc = sim_runner_new(c->trace, &r, &err);
    pol_fork_gate_leave();
    for (;;) {
        pthread_mutex_lock(&c->lock);
        size_t i = c->next < c->n_jobs && !c->failed && !rc ? c->next++ : SIZE_MAX;
        pthread_mutex_unlock(&c->lock);
        if (i == SIZE_MAX)
            break;
        if (c->jobs[i].ck)
            continue; /* solved on the main thread, one at a time (fit_checkmate) */
        sim_config cfg = c->base;
        cfg.policy = c->jobs[i].policy;
        rc = fit_policy(r, &cfg, c->max_overhead, &c->so, &c->jobs[i].ans, &err);
        if (rc && pol_plugin_path(cfg.policy)) {
            /* the plugin's own failure: keep it with its job and go on, on a fresh runner */
            c->jobs[i].failed = 1;
            c->jobs[i].err = err;
            pol_fork_gate_enter();
            sim_runner_free(r);
            r = NULL;
            rc = sim_runner_new(c->trace, &r, &err);
            pol_fork_gate_leave();
        }
    }
    if (rc) {
        pthread_mutex_lock(&c->lock);
        if (!c->failed) {
            c->failed = 1;
            c->err = err;
        }
        pthread_mutex_unlock(&c->lock);
    }
    pol_fork_gate_enter();
    sim_runner_free(r);
    pol_fork_gate_leave();
    return NULL;
}

static double ratio_of(uint64_t b, const sim_baseline *bl)
{
    return bl->memory ? (double)b / (double)bl->memory : 0.0;
}

/* Why a probe failed. With the default remat limit (= the overhead limit) a remat-limit stop
 * means the overhead would have passed the limit: say that. */
static const char *status_text(const fit_probe *p, const fit_ctx *c, char *buf, size_t len)
{
    if (p->status == SIM_OK)
        snprintf(buf, len, "overhead %.4f > %g", p->overhead, c->max_overhead);
    else if (p->status == SIM_REMAT_LIMIT && c->base.remat_limit == c->max_overhead)
        snprintf(buf, len, "overhead > %g, stopped early", c->max_overhead);
    else
        snprintf(buf, len, "%s", sim_status_name((sim_status)p->status));
    return buf;
}

static int any_swaps(const fit_ctx *c)
{
    for (size_t i = 0; i < c->n_jobs; i++)
        if (pol_swaps(c->jobs[i].policy))
            return 1;
    return 0;
}

/* The link the swapping policies used, "31.5GBps/10000ns" as in run keys (sim_link_format
 * without its "link="); *l gets it. */
static const char *link_text(const fit_ctx *c, sim_link *l, char *buf, size_t len)
{
    *l = (sim_link){c->base.link_gbps, c->base.link_latency_ns};
    if (!(l->gbps > 0))
        sim_link_default(l);
    char k[64];
    if (sim_link_format(l, k, sizeof k) < 0)
        snprintf(k, sizeof k, "link=?");
    snprintf(buf, len, "%s", strncmp(k, "link=", 5) == 0 ? k + 5 : k);
    return buf;
}

/* The job that passes at the smallest budget (the first in list order on a tie), or -1. */
static long best_job(const fit_ctx *c)
{
    long best = -1;
    for (size_t i = 0; i < c->n_jobs; i++)
        if (c->jobs[i].ans.found && !c->jobs[i].failed &&
            (best < 0 || c->jobs[i].ans.budget < c->jobs[best].ans.budget))
            best = (long)i;
    return best;
}

static void print_table(const char *trace, const fit_ctx *c, const sim_baseline *bl,
                        uint64_t floor, const char *alloc_key)
{
    char b1[64], b2[64];
    printf("trace         %s\n", trace);
    printf("baseline      %llu B (%s) peak, %llu ns compute\n", (unsigned long long)bl->memory,
           cli_format_bytes(bl->memory, b1, sizeof b1), (unsigned long long)bl->compute);
    printf("floor         %llu B (%s, %.3f x baseline): %s; no budget below it can run\n",
           (unsigned long long)floor, cli_format_bytes(floor, b2, sizeof b2),
           ratio_of(floor, bl),
           bl->bottleneck >= bl->constants ? "the largest op's inputs and outputs at once"
                                           : "the constants, pinned once computed");
    printf("search        status ok and overhead <= %g; %u budgets from the floor to %g x "
           "baseline, bisected to %llu B (0.5%%)\n",
           c->max_overhead, c->so.floor >= c->so.top ? 1 : c->so.grid, c->up_to,
           (unsigned long long)c->so.tolerance);
    if (c->base.allocator)
        printf("allocator     %s (the budget caps reserved bytes)\n", alloc_key);
    if (any_swaps(c)) {
        char lk[64], hm[64] = "unlimited";
        sim_link l;
        link_text(c, &l, lk, sizeof lk);
        if (c->base.host_memory != UINT64_MAX)
            cli_format_bytes(c->base.host_memory, hm, sizeof hm);
        printf("link          %g GB/s per direction, %g us per copy (%s) for the swapping "
               "policies; host memory %s\n", l.gbps, (double)l.latency_ns / 1000, lk, hm);
    }
    int w = 12; /* the policy column fits the longest name (plugins: NAME@HASH) */
    for (size_t i = 0; i < c->n_jobs; i++) {
        int len = (int)strlen(job_name(&c->jobs[i]));
        w = len > w ? len : w;
    }
    printf("\n%-*s %15s %7s %9s %5s  %s\n", w, "policy", "budget (B)", "ratio", "overhead",
           "runs", "note");
    for (size_t i = 0; i < c->n_jobs; i++) {
        const fit_answer *a = &c->jobs[i].ans;
        const char *name = job_name(&c->jobs[i]);
        char note[256] = "", st[96];
        if (c->jobs[i].failed) {
            printf("%-*s %15s %7s %9s %5u  failed: %s\n", w, name, "-", "-", "-", a->runs,
                   c->jobs[i].err.msg);
            continue;
        }
        if (!a->found) {
            printf("%-*s %15s %7s %9s %5u  ", w, name, "-", "-", "-", a->runs);
            printf("no budget up to %g x baseline passes", c->up_to);
        } else {
            printf("%-*s %15llu %7.3f %9.4f %5u  ", w, name, (unsigned long long)a->budget,
                   ratio_of(a->budget, bl), a->at.overhead, a->runs);
            if (a->at_floor)
                snprintf(note, sizeof note, "passes at the floor");
            else
                snprintf(note, sizeof note, "%.3f fails (%s)", ratio_of(a->failed_below, bl),
                         status_text(&a->below, c, st, sizeof st));
            printf("%s", note);
        }
        if (a->non_monotone)
            printf("; non-monotone: %.3f x baseline passed too, below a failing budget",
                   ratio_of(a->lowest_pass, bl));
        if (c->jobs[i].ck)
            printf("; %u solved, %u from the store, search %s (run in %u solves, %u answered "
                   "by it)", c->jobs[i].solved, c->jobs[i].cached, c->jobs[i].search,
                   c->jobs[i].searched, c->jobs[i].by_windows);
        printf("\n");
        if (c->jobs[i].ck && c->jobs[i].note.text[0])
            printf("%-*s at %.3f x baseline: %s\n", w, "  note",
                   ratio_of(c->jobs[i].note.budget, bl), c->jobs[i].note.text);
    }
    long b = best_job(c);
    char b3[64];
    if (b < 0)
        printf("\nbest          none: no policy passes overhead <= %g up to %g x baseline\n",
               c->max_overhead, c->up_to);
    else
        printf("\nbest          %s: %.3f x baseline (%s) within overhead %g\n",
               job_name(&c->jobs[b]), ratio_of(c->jobs[b].ans.budget, bl),
               cli_format_bytes(c->jobs[b].ans.budget, b3, sizeof b3), c->max_overhead);
}

static json_t *bytes_or_null(int have, uint64_t b)
{
    return have ? json_integer((json_int_t)b) : json_null();
}

static json_t *ratio_or_null(int have, uint64_t b, const sim_baseline *bl)
{
    return have ? json_real(ratio_of(b, bl)) : json_null();
}

static int print_json(const char *trace, const fit_ctx *c, const sim_baseline *bl,
                      uint64_t floor, const char *alloc_key)
{
    json_t *res = json_array();
    json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:o, s:f, s:f, s:s, s:i, s:f, s:I}", "trace",
                          trace,
                          "baseline_memory", (json_int_t)bl->memory, "baseline_compute",
                          (json_int_t)bl->compute, "floor_bytes", (json_int_t)floor,
                          "floor_ratio", json_real(ratio_of(floor, bl)), "max_overhead",
                          c->max_overhead, "remat_limit", c->base.remat_limit, "allocator",
                          alloc_key, "grid", (int)c->so.grid, "up_to", c->up_to,
                          "tolerance_bytes",
                          (json_int_t)c->so.tolerance);
    if (!res || !o) {
        json_decref(res);
        json_decref(o);
        return -1;
    }
    for (size_t i = 0; i < c->n_jobs; i++) {
        const fit_answer *a = &c->jobs[i].ans;
        int below = a->found && !a->at_floor;
        json_t *r = json_pack(
            "{s:s, s:b, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:i}", "policy",
            c->jobs[i].ck ? c->jobs[i].ck : pol_id(c->jobs[i].policy), "found", a->found, "budget_bytes",
            bytes_or_null(a->found, a->budget), "budget_ratio",
            ratio_or_null(a->found, a->budget, bl), "overhead",
            a->found ? json_real(a->at.overhead) : json_null(), "at_floor", a->at_floor,
            "failed_below_bytes", bytes_or_null(below, a->failed_below), "failed_below_ratio",
            ratio_or_null(below, a->failed_below, bl), "failed_below_status",
            below ? json_string(sim_status_name((sim_status)a->below.status)) : json_null(),
            "failed_below_overhead",
            below && a->below.status == SIM_OK ? json_real(a->below.overhead) : json_null(),
            "non_monotone", a->non_monotone, "lowest_passing_bytes",
            bytes_or_null(a->lowest_pass != 0, a->lowest_pass), "lowest_passing_ratio",
            ratio_or_null(a->lowest_pass != 0, a->lowest_pass, bl), "runs", (int)a->runs);
        if (r && c->jobs[i].ck) {
            json_object_set_new(r, "solved", json_integer(c->jobs[i].solved));
            json_object_set_new(r, "cached", json_integer(c->jobs[i].cached));
            json_object_set_new(r, "search", json_string(c->jobs[i].search));
            json_object_set_new(r, "window_searches", json_integer(c->jobs[i].searched));
            json_object_set_new(r, "answered_by_window_search",
                                json_integer(c->jobs[i].by_windows));
            const fit_checkmate_note *n = &c->jobs[i].note;
            json_object_set_new(r, "worse_than_heuristic",
                                n->text[0] ? json_string(n->text) : json_null());
            json_object_set_new(r, "worse_than_heuristic_bytes",
                                bytes_or_null(n->text[0] != 0, n->budget));
            json_object_set_new(r, "worse_than_heuristic_ratio",
                                ratio_or_null(n->text[0] != 0, n->budget, bl));
        }
        if (r && c->jobs[i].failed)
            json_object_set_new(r, "error", json_string(c->jobs[i].err.msg));
        if (!r || json_array_append_new(res, r)) {
            json_decref(res);
            json_decref(o);
            return -1;
        }
    }
    json_object_set_new(o, "results", res);
    if (any_swaps(c)) {
        char lk[64];
        sim_link l;
        json_object_set_new(o, "link", json_string(link_text(c, &l, lk, sizeof lk)));
        json_object_set_new(o, "host_memory", c->base.host_memory == UINT64_MAX
                                                  ? json_null()
                                                  : json_integer((json_int_t)c->base.host_memory));
    }
    long b = best_job(c);
    json_object_set_new(o, "best", b < 0 ? json_null() : json_string(c->jobs[b].ck ? c->jobs[b].ck
                                                                  : pol_id(c->jobs[b].policy)));
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(o);
    if (!s)
        return -1;
    printf("%s\n", s);
    free(s);
    return 0;
}

/* The policies to search: the list given, else every built-in one the model can run (address-
 * aware ones need a model with addresses, evict-after ones the ideal model). */
static int resolve_policies(const char *list, const sim_config *base, fit_job **jobs,
                            size_t *n)
{
    *jobs = NULL;
    *n = 0;
    char **names = NULL;
    size_t n_names = 0;
    if (list && cli_list_split(list, &names, &n_names)) {
        cli_error(CMD, "--policies '%s': expected names separated by commas", list);
        return 2;
    }
    size_t cap = list ? n_names : pol_count();
    fit_job *j = calloc(cap ? cap : 1, sizeof *j);
    if (!j) {
        cli_list_free(names);
        cli_error(CMD, "out of memory");
        return 1;
    }
    for (size_t i = 0; i < cap; i++) {
        const sim_policy *p = list ? NULL : pol_at(i);
        gms_error err = {0};
        if (list && (j[*n].ck = fit_checkmate_policy(names[i])) != NULL) {
            if (base->allocator) {
                cli_error(CMD, "policy %s replays a solved schedule on the ideal memory "
                          "model only: drop --allocator", j[*n].ck);
                cli_list_free(names);
                free(j);
                return 2;
            }
            (*n)++;
            continue;
        }
        if (list && !pol_find(names[i]) && !pol_is_path(names[i]))
            pol_refuse(names[i], POL_KIND_EVICT | POL_KIND_SOLVED, &err);
        if (list && (err.msg[0] || pol_resolve(names[i], &p, &err))) {
            cli_error(CMD, "%s", err.msg);
            cli_list_free(names);
            free(j);
            return 2;
        }
        if (pol_needs_addresses(p) && !base->allocator) {
            if (!list)
                continue; /* the default list keeps what the ideal model can run */
            cli_error(CMD, "policy %s chooses victims by their addresses, which the ideal "
                           "memory model does not have; add --allocator caching (or lifetime)",
                      pol_name(p));
            cli_list_free(names);
            free(j);
            return 2;
        }
        if ((p->needs & (SIM_NEEDS_EVICT_AFTER | SIM_NEEDS_SWAP)) && base->allocator) {
            if (!list)
                continue; /* evicting after each op, swapping: the ideal model only */
            cli_error(CMD, "policy %s %s, which only the ideal memory model supports: drop "
                           "--allocator", pol_name(p),
                      p->needs & SIM_NEEDS_SWAP ? "swaps to host memory"
                                                : "evicts after each op as the DTR prototype does");
            cli_list_free(names);
            free(j);
            return 2;
        }
        j[(*n)++].policy = p;
    }
    cli_list_free(names);
    *jobs = j;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-')
        return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = (unsigned)v;
    return 0;
}

int cmd_fit(int argc, char **argv)
{
    const char *trace = NULL, *policies = NULL, *allocator = "ideal", *alloc_conf = NULL;
    double max_overhead = 1.2, remat = -1, up_to = 1.0;
    unsigned grid = 20, jobs_n = 1;
    int json = 0, quiet = 0, ck_opts = 0;
    fit_checkmate_opts cko = {0};
    sim_config base;
    sim_config_init(&base);
    swap_opts swo = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (cli_is_help(a)) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--no-improve") == 0) {
            cko.no_improve = 1;
            ck_opts = 1;
        } else if (a[0] == '-' && a[1] && !v) {
            cli_error(CMD, "option %s needs a value, or is unknown (see gpumemsim fit --help)",
                      a);
            return 2;
        } else if (strcmp(a, "--max-overhead") == 0) {
            i++;
            if (parse_double(v, &max_overhead) || !(max_overhead > 1.0)) {
                cli_error(CMD, "--max-overhead '%s': expected a number > 1 (1.2 = at most "
                               "20%% slower than with unlimited memory)", v);
                return 2;
            }
        } else if (strcmp(a, "--policies") == 0 || strcmp(a, "--policy") == 0) {
            policies = argv[++i];
        } else if (strcmp(a, "--allocator") == 0) {
            allocator = argv[++i];
        } else if (strcmp(a, "--alloc-conf") == 0) {
            alloc_conf = argv[++i];
        } else if (strcmp(a, "--remat-limit") == 0) {
            i++;
            if (cli_parse_remat_limit(v, &remat)) {
                cli_error(CMD, "--remat-limit '%s': expected a number >= 1, or 0 for no limit",
                          v);
                return 2;
            }
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            errno = 0;
            base.seed = strtoull(v, &end, 10);
            i++;
            if (end == v || *end || errno || v[0] == '-') {
                cli_error(CMD, "--seed '%s': expected a whole number", v);
                return 2;
            }
        } else if (strcmp(a, "--sample") == 0) {
            i++;
            if (cli_parse_sample(v, &base.sample)) {
                cli_error(CMD, "--sample '%s' must be a count of storages (0 = all) or 'sqrt'",
                          v);
                return 2;
            }
        } else if (strcmp(a, "--grid") == 0) {
            i++;
            if (parse_uint(v, 2, 1000, &grid)) {
                cli_error(CMD, "--grid '%s': expected a whole number of budgets, 2 to 1000", v);
                return 2;
            }
        } else if (strcmp(a, "--up-to") == 0) {
            i++;
            if (parse_double(v, &up_to) || !(up_to > 0 && up_to <= CLI_MAX_BUDGET_RATIO)) {
                cli_error(CMD, "--up-to '%s': expected a ratio of the baseline peak memory, "
                               "above 0 and at most %g", v, CLI_MAX_BUDGET_RATIO);
                return 2;
            }
        } else if (strcmp(a, "--seed-policies") == 0) {
            gms_error e = {0};
            if (optimal_seeds_check(argv[++i], &e)) {
                cli_error(CMD, "%s", e.msg);
                return 2;
            }
            cko.seed_policies = argv[i];
            ck_opts = 1;
        } else if (strcmp(a, "--db") == 0) {
            cko.db = argv[++i];
            ck_opts = 1;
        } else if (strcmp(a, "--coarsen") == 0) {
            int cz;
            if (cli_parse_coarsen(argv[++i], &cz)) {
                cli_error(CMD, "--coarsen '%s': give 'auto' (the default), 'outputs', "
                          "'layers' or 'none'", v);
                return 2;
            }
            cko.coarsen = opt_coarsen_name((opt_coarsen)cz);
            ck_opts = 1;
        } else if (strcmp(a, "--iteration") == 0) {
            if (cli_parse_iteration(argv[++i], &cko.iteration)) {
                cli_error(CMD, "--iteration '%s': give an iteration number from 0", v);
                return 2;
            }
            ck_opts = 1;
        } else if (strcmp(a, "--time-limit") == 0) {
            if (cli_parse_seconds(argv[++i], &cko.time_limit)) {
                cli_error(CMD, "--time-limit '%s': give seconds > 0 (60, 60s or 2m)", v);
                return 2;
            }
            ck_opts = 1;
        } else if (strcmp(a, "--link") == 0) {
            swo.link = argv[++i];
        } else if (strcmp(a, "--host-memory") == 0) {
            swo.host = argv[++i];
        } else if (strcmp(a, "--plugin-timeout") == 0) {
            if (cli_plugin_timeout(CMD, argv[++i]))
                return 2;
        } else if (strcmp(a, "-j") == 0) {
            i++;
            if (parse_uint(v, 1, 1024, &jobs_n)) {
                cli_error(CMD, "-j '%s': expected a number of threads, 1 to 1024", v);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            cli_error(CMD, "unknown option '%s' (see gpumemsim fit --help)", a);
            return 2;
        } else if (!trace) {
            trace = a;
        } else {
            cli_error(CMD, "one trace only (got '%s' and '%s')", trace, a);
            return 2;
        }
    }
    if (!trace) {
        cli_error(CMD, "expected a TRACE (a .gmt, DTR log or Kineto trace); see --help");
        return 2;
    }
    /* a run whose recomputation alone passes X cannot end within X: stop it there */
    base.remat_limit = remat >= 0 ? remat : max_overhead;
    sim_memory_options mopt;
    char alloc_key[128];
    gms_error err = {0};
    if (sim_memory_find(allocator, &base.allocator) != 0) {
        cli_error(CMD, "unknown allocator '%s'; valid allocators: %s", allocator,
                  sim_memory_names());
        return 2;
    }
    if (sim_memory_parse_conf(&base.allocator, alloc_conf, &mopt, alloc_key, sizeof alloc_key,
                              &err)) {
        cli_error(CMD, "--alloc-conf: %s", err.msg);
        return 2;
    }
    base.allocator_options = &mopt;
    if (swap_opts_apply(CMD, &swo, &base))
        return 2;
    fit_ctx c = {.base = base, .max_overhead = max_overhead};
    int rc = resolve_policies(policies, &base, &c.jobs, &c.n_jobs);
    if (rc)
        return rc;
    int any_ck = 0;
    for (size_t i = 0; i < c.n_jobs; i++)
        any_ck |= c.jobs[i].ck != NULL;
    if (ck_opts && !any_ck) {
        cli_error(CMD, "--db, --coarsen, --iteration, --time-limit, --no-improve and "
                  "--seed-policies are for "
                  "the solved policies: add checkmate (or checkmate-approx) to --policies");
        free(c.jobs);
        return 2;
    }
    if ((swo.link || swo.host) && !any_swaps(&c)) {
        cli_error(CMD, "%s: no policy searched swaps to host memory; add a swapping policy "
                       "(swap-lru, hybrid, capuchin, autoswap) or drop the option",
                  swo.link ? "--link" : "--host-memory");
        free(c.jobs);
        return 2;
    }
    sim_trace *t;
    if (sim_trace_load(trace, &t, &err)) {
        cli_error(CMD, "%s", err.msg);
        free(c.jobs);
        return 1;
    }
    const sim_baseline *bl = sim_trace_baseline(t);
    uint64_t floor = fit_floor(bl);
    c.trace = t;
    c.up_to = up_to;
    c.so = (fit_search_opts){.floor = floor, .top = sim_budget_for_ratio(t, up_to), .grid = grid,
                             .tolerance = bl->memory * FIT_TOLERANCE_PER_MILLE / 1000,
                             .on_probe = on_probe, .on_probe_ctx = &c};
    if (c.so.tolerance < 1)
        c.so.tolerance = 1;
    c.runs_total = (unsigned)c.n_jobs * fit_search_max_runs(&c.so);
    pthread_mutex_init(&c.lock, NULL);
    progress_init(&c.bar, stderr, "fit", quiet);
    c.t0 = now_s();
    for (size_t i = 0; i < c.n_jobs && !c.failed; i++) {
        if (!c.jobs[i].ck)
            continue;
        c.jobs[i].search = sweep_checkmate_search(c.jobs[i].ck, cko.time_limit, cko.no_improve);
        if (fit_checkmate(t, trace, c.jobs[i].ck, &cko, max_overhead, &c.so, &c.jobs[i].ans,
                          &c.jobs[i].solved, &c.jobs[i].cached, &c.jobs[i].searched,
                          &c.jobs[i].by_windows,
                          &c.jobs[i].note, &c.err) != 0)
            c.failed = 1;
    }
    size_t nt = jobs_n < c.n_jobs ? jobs_n : c.n_jobs;
    pthread_t *th = calloc(nt ? nt : 1, sizeof *th);
    size_t started = 0;
    if (th)
        for (; started < nt; started++)
            if (pthread_create(&th[started], NULL, worker, &c) != 0)
                break;
    if (started == 0 && c.n_jobs) /* no thread at all: work here */
        worker(&c);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    progress_end(&c.bar);
    pthread_mutex_destroy(&c.lock);
    rc = 0;
    size_t plugin_failed = 0;
    for (size_t i = 0; i < c.n_jobs; i++)
        plugin_failed += c.jobs[i].failed != 0;
    if (c.failed) {
        cli_error(CMD, "%s: %s", trace, c.err.msg);
        rc = 1;
    } else if (json) {
        if (print_json(trace, &c, bl, floor, alloc_key)) {
            cli_error(CMD, "out of memory writing JSON");
            rc = 1;
        }
    } else {
        print_table(trace, &c, bl, floor, alloc_key);
    }
    for (size_t i = 0; i < c.n_jobs && !c.failed; i++)
        if (c.jobs[i].failed) /* the answers above stand; the exit status says one is missing */
            cli_error(CMD, "%s: %s", trace, c.jobs[i].err.msg);
    if (plugin_failed && !rc)
        rc = 1;
    free(c.jobs);
    sim_trace_free(t);
    return rc;
}
