/*
 * gmt_read_bench: measures .gmt read throughput, and writes synthetic traces to measure on.
 *
 *   gmt_read_bench FILE.gmt [MIN_SECONDS]   reads FILE to the end repeatedly (at least 3
 *                                           times and MIN_SECONDS, default 2) on one core and
 *                                           prints events/s, ns/event and bytes/event
 *   gmt_read_bench --synth N OUT.gmt [SEED] writes N events shaped like the DTR logs
 *                                           (sequential new ids, arguments among recent ids,
 *                                           ~30 op names) and prints write throughput
 *
 * Used by scripts/bench/trace.sh (numbers in docs/benchmarks.md) and scripts/fuzz.sh (seeds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gmt.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: on a shared machine, events per CPU second is the one-core
 * number that other jobs disturb least. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* One pass over the file; returns the events read (or -1) and folds fields into *sink so
 * the reads cannot be optimized away. */
static long long read_once(const char *path, uint64_t *sink)
{
    gmt_reader *r;
    gms_error err;
    if (gmt_reader_open(path, &r, &err)) {
        fprintf(stderr, "gmt_read_bench: %s\n", err.msg);
        return -1;
    }
    gmt_event ev;
    int rc;
    long long n = 0;
    while ((rc = gmt_reader_next(r, &ev, &err)) > 0) {
        *sink += ev.id + ev.n_inputs + ev.n_outputs;
        n++;
    }
    if (rc < 0) {
        fprintf(stderr, "gmt_read_bench: %s\n", err.msg);
        n = -1;
    }
    gmt_reader_close(r);
    return n;
}

static int bench_read(const char *path, double min_s)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "gmt_read_bench: cannot stat %s\n", path);
        return 1;
    }
    uint64_t sink = 0;
    long long events = 0, per = 0;
    int passes = 0;
    if (read_once(path, &sink) < 0) /* warm the page cache */
        return 1;
    double t0 = now(), c0 = cpu_now(), t;
    do {
        per = read_once(path, &sink);
        if (per < 0)
            return 1;
        events += per;
        passes++;
        t = now() - t0;
    } while (passes < 3 || t < min_s);
    double c = cpu_now() - c0;
    printf("file=%s events=%lld bytes=%lld bytes_per_event=%.3f passes=%d seconds=%.3f "
           "events_per_s=%.0f cpu_events_per_s=%.0f ns_per_event=%.2f (sink %llu)\n",
           path, per, (long long)st.st_size, per ? (double)st.st_size / (double)per : 0.0,
           passes, t, (double)events / t, (double)events / c, t * 1e9 / (double)events,
           (unsigned long long)(sink & 0xff));
    return 0;
}

/* Writes n events with the DTR logs' mix: ~2% CONSTANT, 24% CALL (1-3 recent inputs, one
 * output, a quarter of them views), 1% MUTATE, 27% COPY of the newest tensor, 46% RELEASE of
 * a recent one. */
static int synth(long long n, const char *out, uint64_t seed)
{
    static const char *ops[] = {
        "conv2d", "batch_norm", "relu", "add", "mm", "view", "t", "split", "cat", "mul",
        "max_pool2d", "avg_pool2d", "linear", "softmax", "log_softmax", "nll_loss", "sum",
        "mean", "transpose", "contiguous", "expand", "select", "slice", "unsqueeze", "tanh",
        "sigmoid", "dropout", "embedding", "layer_norm", "gelu"};
    static const uint64_t sizes[] = {256, 1024, 6912, 147456, 802816, 3211264, 12845056,
                                     31457280};
    gmt_writer *w;
    gms_error err;
    if (gmt_writer_open(out, &w, &err) ||
        gmt_writer_meta(w, "producer", "gmt_read_bench --synth", &err) ||
        gmt_writer_meta(w, "model", "synthetic", &err)) {
        fprintf(stderr, "gmt_read_bench: %s\n", err.msg);
        return 1;
    }
    uint64_t s = seed ? seed : 1, next = 5265, in[3];
    gmt_output o;
    double t0 = now();
    for (long long i = 0; i < n; i++) {
        gmt_event ev;
        uint64_t r = rnd(&s) % 100;
        if (r < 2) {
            gmt_event_init(&ev, GMT_CONSTANT);
            ev.id = next++;
            ev.size = sizes[rnd(&s) % 8];
        } else if (r < 26) {
            gmt_event_init(&ev, GMT_CALL);
            ev.op = ops[rnd(&s) % 30];
            ev.dur_ns = 1000 + rnd(&s) % 500000;
            ev.n_inputs = 1 + (uint32_t)(rnd(&s) % 3);
            for (uint32_t k = 0; k < ev.n_inputs; k++)
                in[k] = next - 1 - rnd(&s) % 30;
            ev.inputs = in;
            o.id = next++;
            o.size = sizes[rnd(&s) % 8];
            o.alias_of = rnd(&s) % 4 == 0 ? 0 : -1;
            ev.n_outputs = 1;
            ev.outputs = &o;
        } else if (r < 27) {
            static uint32_t zero = 0;
            gmt_event_init(&ev, GMT_MUTATE);
            ev.op = "add_";
            ev.dur_ns = 1000 + rnd(&s) % 500000;
            in[0] = next - 1 - rnd(&s) % 30;
            in[1] = next - 1 - rnd(&s) % 30;
            ev.n_inputs = 2;
            ev.inputs = in;
            ev.n_mutated = 1;
            ev.mutated = &zero;
        } else if (r < 54) {
            gmt_event_init(&ev, GMT_COPY);
            ev.id = next;
            ev.src = next - 1;
            next++;
        } else {
            gmt_event_init(&ev, GMT_RELEASE);
            ev.id = next - 1 - rnd(&s) % 20;
        }
        if (gmt_writer_write(w, &ev, &err)) {
            fprintf(stderr, "gmt_read_bench: %s\n", err.msg);
            gmt_writer_abort(w);
            return 1;
        }
    }
    if (gmt_writer_close(w, &err)) {
        fprintf(stderr, "gmt_read_bench: %s\n", err.msg);
        return 1;
    }
    double t = now() - t0;
    struct stat st;
    stat(out, &st);
    printf("file=%s events=%lld bytes=%lld bytes_per_event=%.3f write_seconds=%.3f "
           "write_events_per_s=%.0f\n",
           out, n, (long long)st.st_size, n ? (double)st.st_size / (double)n : 0.0, t,
           (double)n / t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--synth") == 0)
        return synth(atoll(argv[2]), argv[3], argc > 4 ? strtoull(argv[4], NULL, 10) : 1);
    if (argc >= 2 && argv[1][0] != '-')
        return bench_read(argv[1], argc > 2 ? atof(argv[2]) : 2.0);
    fprintf(stderr, "usage: gmt_read_bench FILE.gmt [MIN_SECONDS]\n"
                    "       gmt_read_bench --synth N OUT.gmt [SEED]\n");
    return 2;
}
