/*
 * plugin_bench: what a policy plugin costs (scripts/bench/plugins.sh, docs/plugins.md
 * "Speed"). For TRACE at budget RATIO, runs each POLICY (a built-in name or a plugin path)
 * REPS times on one runner and prints the best wall time in this process, and for plugins
 * also the best time of the same run in a child process (pol_run_isolated: what sweep and sim
 * do for plugins), whose difference is the fork's cost.
 *
 * usage: plugin_bench TRACE RATIO REPS POLICY...
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "plugin.h"
#include "plugin_isolate.h"
#include "policy.h"
#include "sim.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef int (*run_fn)(sim_runner *, const sim_config *, sim_result *, gms_error *);

/* The best of reps runs, in seconds; negative on an error (printed). */
static double best_of(run_fn fn, sim_runner *r, const sim_config *cfg, int reps,
                      sim_result *res)
{
    double best = 1e30;
    for (int k = 0; k < reps; k++) {
        gms_error err = {0};
        double t0 = now();
        if (fn(r, cfg, res, &err)) {
            fprintf(stderr, "plugin_bench: %s\n", err.msg);
            return -1;
        }
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: plugin_bench TRACE RATIO REPS POLICY...\n");
        return 2;
    }
    gms_error err = {0};
    sim_trace *t;
    sim_runner *r;
    if (sim_trace_load(argv[1], &t, &err) || sim_runner_new(t, &r, &err)) {
        fprintf(stderr, "plugin_bench: %s\n", err.msg);
        return 1;
    }
    int reps = atoi(argv[3]);
    for (int i = 4; i < argc; i++) {
        sim_config cfg;
        sim_config_init(&cfg);
        if (pol_resolve(argv[i], &cfg.policy, &err)) {
            fprintf(stderr, "plugin_bench: %s\n", err.msg);
            return 1;
        }
        cfg.budget = sim_budget_for_ratio(t, atof(argv[2]));
        sim_result res;
        double in = best_of(sim_runner_run, r, &cfg, reps, &res);
        if (in < 0)
            return 1;
        printf("%-24s %-12s evictions %6llu  in process %8.3f ms", pol_id(cfg.policy),
               sim_status_name(res.status), (unsigned long long)res.evictions, in * 1e3);
        if (pol_plugin_path(cfg.policy)) {
            double iso = best_of(pol_run_isolated, r, &cfg, reps, &res);
            if (iso < 0)
                return 1;
            printf("  in a child %8.3f ms (fork +%.3f ms)", iso * 1e3, (iso - in) * 1e3);
        }
        printf("\n");
    }
    sim_runner_free(r);
    sim_trace_free(t);
    return 0;
}
