/*
 * A tiny program against the installed libgpumemsim.so, built by install_library.sh with
 * `pkg-config --cflags --libs gpumemsim` only: loads TRACE, runs it with POLICY (a built-in
 * name or a plugin path) at budget RATIO and prints the result as one line the test compares
 * with `gpumemsim sim --json`.
 */
#include <gpumemsim.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: run_trace TRACE POLICY RATIO\n");
        return 2;
    }
    gms_error err = {0};
    sim_trace *t;
    const struct sim_policy *p;
    if (pol_resolve(argv[2], &p, &err) || sim_trace_load(argv[1], &t, &err)) {
        fprintf(stderr, "run_trace: %s\n", err.msg);
        return 1;
    }
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = p;
    cfg.budget = sim_budget_for_ratio(t, atof(argv[3]));
    sim_result r;
    if (sim_run(t, &cfg, &r, &err)) {
        fprintf(stderr, "run_trace: %s\n", err.msg);
        sim_trace_free(t);
        return 1;
    }
    printf("%s %s %.17g %llu %llu %llu %llu\n", pol_id(p), sim_status_name(r.status), r.overhead,
           (unsigned long long)r.evictions, (unsigned long long)r.remats,
           (unsigned long long)r.peak_memory, (unsigned long long)sim_trace_baseline(t)->memory);
    sim_trace_free(t);
    return 0;
}
