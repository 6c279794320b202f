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
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "pickle.h"
#include "snapshot.h"

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: snapshot_bench FILE [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (runs < 1 || runs > 1000)
        runs = 5;
    for (int mode = 0; mode < 2; mode++) {
        double wall[1000], cpu[1000];
        size_t mem = 0, events = 0;
        for (int r = 0; r < runs; r++) {
            double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            gms_error err;
            if (mode == 0) {
                pk_doc *d;
                if (pk_load(argv[1], &d, &err) != 0) {
                    fprintf(stderr, "snapshot_bench: %s\n", err.msg);
                    return 1;
                }
                wall[r] = clock_s(CLOCK_MONOTONIC) - t0;
                cpu[r] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
                mem = pk_memory(d);
                pk_free(d);
            } else {
                snapshot *s;
                if (snap_load(argv[1], &s, &err) != 0) {
                    fprintf(stderr, "snapshot_bench: %s\n", err.msg);
                    return 1;
                }
                wall[r] = clock_s(CLOCK_MONOTONIC) - t0;
                cpu[r] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
                mem = pk_memory(s->doc) + s->nev * sizeof *s->ev + s->nblk * sizeof *s->blk;
                events = s->nev;
                snap_free(s);
            }
        }
        qsort(wall, (size_t)runs, sizeof *wall, by_value);
        qsort(cpu, (size_t)runs, sizeof *cpu, by_value);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("%s: wall best %.3f s median %.3f s, CPU best %.3f s  memory %.1f MiB  "
               "peak RSS %.1f MiB",
               mode ? "snapshot" : "pickle", wall[0], wall[runs / 2], cpu[0],
               (double)mem / 1048576.0,
               (double)ru.ru_maxrss / 1024.0);
        if (mode)
            printf("  events %zu", events);
        printf(mode ? "\n" : "; ");
    }
    return 0;
}
