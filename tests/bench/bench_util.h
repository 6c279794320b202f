/* Shared by the reader benchmarks (et_import_bench, snapshot_bench): clocks, the RUNS
 * argument, sorting the samples, the process's peak resident memory. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define BENCH_MAX_RUNS 1000

/* Seconds on clock c (CLOCK_MONOTONIC: wall; CLOCK_PROCESS_CPUTIME_ID: CPU). */
static inline double bench_clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* argv[i] as a number of runs, 1..BENCH_MAX_RUNS; missing or out of range: 5. */
static inline int bench_runs(int argc, char **argv, int i)
{
    int runs = argc > i ? atoi(argv[i]) : 5;
    return runs < 1 || runs > BENCH_MAX_RUNS ? 5 : runs;
}

static inline int bench_by_value_(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts n samples ascending: v[0] is the best, v[n / 2] the median. */
static inline void bench_sort(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_by_value_);
}

/* The process's peak resident memory in MiB (ru_maxrss: the program itself included). */
static inline double bench_peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

#endif
