/*
 * et_import_bench: time and memory of importing a PyTorch Execution Trace.
 *
 *   et_import_bench FILE [RUNS]   opens FILE through gmt_source and reads every event, RUNS
 *                                 times (default 5); prints the best and median wall time, the
 *                                 CPU time per run, the events, and the process's peak
 *                                 resident memory (ru_maxrss: the whole process, so it includes
 *                                 the program itself, about 2 MiB)
 *
 * Used by scripts/bench/et-import.sh (numbers in docs/benchmarks.md).
 */
#include <stdio.h>

#include "bench_util.h"
#include "gmt.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: et_import_bench FILE [RUNS]\n");
        return 2;
    }
    int runs = bench_runs(argc, argv, 2);
    double wall[BENCH_MAX_RUNS], cpu = 0;
    unsigned long long events = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = bench_clock_s(CLOCK_MONOTONIC);
        double c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
        gmt_source *s;
        gms_error err;
        if (gmt_source_open(argv[1], &s, &err) != 0) {
            fprintf(stderr, "et_import_bench: %s\n", err.msg);
            return 1;
        }
        gmt_event ev;
        int rc;
        events = 0;
        while ((rc = gmt_source_next(s, &ev, &err)) == 1)
            events++;
        gmt_source_close(s);
        if (rc < 0) {
            fprintf(stderr, "et_import_bench: %s\n", err.msg);
            return 1;
        }
        wall[r] = bench_clock_s(CLOCK_MONOTONIC) - t0;
        cpu += bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    }
    bench_sort(wall, runs);
    printf("events %llu runs %d best %.3f s median %.3f s cpu/run %.3f s peak_rss %.1f MiB\n",
           events, runs, wall[0], wall[runs / 2], cpu / runs, bench_peak_rss_mib());
    return 0;
}
