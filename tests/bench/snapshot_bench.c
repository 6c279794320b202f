/*
 * snapshot_bench: time and memory of reading a PyTorch memory snapshot.
 *
 *   snapshot_bench FILE [RUNS]   reads FILE (plain or gzip) RUNS times (default 5), first
 *                                with the pickle reader alone (pk_load), then as a snapshot
 *                                (snap_load: the pickle, then segments, blocks and events);
 *                                prints for each the best and median wall time, the best
 *                                CPU time (the machine may be shared), the
 *                                document's own memory (pk_memory) and the process's peak
 *                                resident memory (ru_maxrss: the whole process, including the
 *                                program itself, about 2 MiB)
 *
 * Used by scripts/bench/snapshot.sh (numbers in docs/benchmarks.md).
 */
#include <stdio.h>

#include "bench_util.h"
#include "pickle.h"
#include "snapshot.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: snapshot_bench FILE [RUNS]\n");
        return 2;
    }
    int runs = bench_runs(argc, argv, 2);
    for (int mode = 0; mode < 2; mode++) {
        double wall[BENCH_MAX_RUNS], cpu[BENCH_MAX_RUNS];
        size_t mem = 0, events = 0;
        for (int r = 0; r < runs; r++) {
            double t0 = bench_clock_s(CLOCK_MONOTONIC);
            double c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
            gms_error err;
            if (mode == 0) {
                pk_doc *d;
                if (pk_load(argv[1], &d, &err) != 0) {
                    fprintf(stderr, "snapshot_bench: %s\n", err.msg);
                    return 1;
                }
                wall[r] = bench_clock_s(CLOCK_MONOTONIC) - t0;
                cpu[r] = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
                mem = pk_memory(d);
                pk_free(d);
            } else {
                snapshot *s;
                if (snap_load(argv[1], &s, &err) != 0) {
                    fprintf(stderr, "snapshot_bench: %s\n", err.msg);
                    return 1;
                }
                wall[r] = bench_clock_s(CLOCK_MONOTONIC) - t0;
                cpu[r] = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
                mem = pk_memory(s->doc) + s->nev * sizeof *s->ev + s->nblk * sizeof *s->blk;
                events = s->nev;
                snap_free(s);
            }
        }
        bench_sort(wall, runs);
        bench_sort(cpu, runs);
        printf("%s: wall best %.3f s median %.3f s, CPU best %.3f s  memory %.1f MiB  "
               "peak RSS %.1f MiB",
               mode ? "snapshot" : "pickle", wall[0], wall[runs / 2], cpu[0],
               (double)mem / 1048576.0,
               bench_peak_rss_mib());
        if (mode)
            printf("  events %zu", events);
        printf(mode ? "\n" : "; ");
    }
    return 0;
}
