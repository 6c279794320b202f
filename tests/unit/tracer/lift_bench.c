/* lift_bench: how fast the lifter turns raw tracer records into a .gmt trace (the work
 * `gpumemsim record` does after a job ends). Not a test: scripts/bench/tracer.sh runs it.
 *
 *   lift_bench OPS OUT.gmt
 *
 * Synthesizes the raw file of a training-like job with OPS ops in iterations of 1000: each op
 * is an NVTX range with a fresh output allocation, a workspace, three kernels (launch + kernel
 * records, reading two earlier outputs), the workspace freed and an old output released, then
 * times reading the raw file, lifting it into a counting sink, and lifting it into OUT.gmt.
 * GMS_LIFT_BENCH_LIVE=N adds N allocations that stay live throughout (above the per-op ones,
 * so every per-op allocation lands below them in address order), as in a large model with
 * many parameters and optimizer states, and makes every launch also pass a pointer into the
 * workspace freed by the op before (a stale reference, which the lifter looks up). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lift.h"
#include "lift_raw.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int count_meta(void *ctx, const char *k, const char *v, gms_error *e)
{
    (void)ctx, (void)k, (void)v, (void)e;
    return 0;
}

static int count_event(void *ctx, const gmt_event *ev, gms_error *e)
{
    (void)ev, (void)e;
    ++*(uint64_t *)ctx;
    return 0;
}

static FILE *g_f;
static uint64_t g_records;

static void put(trc_rec r)
{
    static uint8_t buf[1 << 16];
    size_t n = trc_raw_encode(&r, buf, sizeof buf);
    if (n == 0 || fwrite(buf, 1, n, g_f) != n) {
        fprintf(stderr, "lift_bench: write failed\n");
        exit(1);
    }
    g_records++;
}

int main(int argc, char **argv)
{
    if (argc != 3 || atol(argv[1]) < 1) {
        fprintf(stderr, "usage: lift_bench OPS OUT.gmt\n");
        return 2;
    }
    uint64_t ops = (uint64_t)atol(argv[1]);
    char raw_path[4096];
    snprintf(raw_path, sizeof raw_path, "%s.raw", argv[2]);
    g_f = fopen(raw_path, "wb");
    if (!g_f)
        return 1;
    uint8_t h[TRC_RAW_HEADER_SIZE];
    trc_raw_header(h, 1);
    fwrite(h, 1, sizeof h, g_f);
    const uint64_t base = 0x7f0000000000ull, slot = 1 << 20;
    uint64_t ts = 1, corr = 1, marker = 1;
    put((trc_rec){.type = TRC_REC_ALLOC, .ts = ts++, .addr = base, .bytes = 64 << 20,
                  .flags = TRC_MEM_DEVICE}); /* the weights */
    const char *live_env = getenv("GMS_LIFT_BENCH_LIVE");
    uint64_t n_live = live_env ? (uint64_t)atol(live_env) : 0;
    for (uint64_t i = 0; i < n_live; i++)
        put((trc_rec){.type = TRC_REC_ALLOC, .ts = ts++, .addr = base + 1024 * slot + i * 4096,
                      .bytes = 4096, .flags = TRC_MEM_DEVICE});
    uint64_t stale = base + 700 * slot; /* a workspace freed at once: references go stale */
    if (n_live) {
        put((trc_rec){.type = TRC_REC_ALLOC, .ts = ts++, .addr = stale, .bytes = 4096,
                      .flags = TRC_MEM_DEVICE});
        put((trc_rec){.type = TRC_REC_FREE, .ts = ts++, .addr = stale, .flags = TRC_MEM_DEVICE});
    }
    for (uint64_t op = 0; op < ops; op++) {
        if (op % 1000 == 0)
            put((trc_rec){.type = TRC_REC_MARKER, .ts = ts++, .id = marker++, .thread = 1,
                          .flags = TRC_MARK_START, .name = "gpumemsim:iteration=64"});
        uint64_t id = marker++;
        uint64_t out = base + (1 + op % 512) * slot, ws = base + 600 * slot;
        put((trc_rec){.type = TRC_REC_MARKER, .ts = ts++, .id = id, .thread = 1,
                      .flags = TRC_MARK_START, .name = "aten::addmm, seq = 7"});
        put((trc_rec){.type = TRC_REC_ALLOC, .ts = ts++, .addr = out, .bytes = slot,
                      .flags = TRC_MEM_DEVICE, .aux = 1});
        put((trc_rec){.type = TRC_REC_ALLOC, .ts = ts++, .addr = ws, .bytes = 4096,
                      .flags = TRC_MEM_DEVICE, .aux = 1});
        for (int k = 0; k < 3; k++) {
            uint64_t in1 = base + (1 + (op + 511) % 512) * slot + 128;
            uint64_t ptrs[5] = {base + 64 * k, in1, ws, out, stale + 8};
            put((trc_rec){.type = TRC_REC_LAUNCH, .ts = ts++, .corr = corr, .thread = 1,
                          .ptrs = ptrs, .n_ptrs = op > 0 ? (n_live ? 5 : 4) : 3});
            put((trc_rec){.type = TRC_REC_KERNEL, .ts = 1000000000 + corr * 10,
                          .end = 1000000000 + corr * 10 + 7, .corr = corr,
                          .name = "void gemm_kernel<float>(Params)"});
            corr++;
        }
        put((trc_rec){.type = TRC_REC_FREE, .ts = ts++, .addr = ws, .flags = TRC_MEM_DEVICE});
        put((trc_rec){.type = TRC_REC_MARKER, .ts = ts++, .id = id, .thread = 1,
                      .flags = TRC_MARK_END});
        if (op >= 1) /* the previous op's input is dead after this op */
            put((trc_rec){.type = TRC_REC_FREE, .ts = ts++,
                          .addr = base + (1 + (op + 511) % 512) * slot, .flags = TRC_MEM_DEVICE});
    }
    put((trc_rec){.type = TRC_REC_INFO, .name = "end", .text = "exit"});
    fclose(g_f);

    gms_error err = {0};
    double t0 = now();
    trc_raw *raw = NULL;
    if (trc_raw_open(raw_path, &raw, &err) != 0) {
        fprintf(stderr, "lift_bench: %s\n", err.msg);
        return 1;
    }
    double t1 = now();
    uint64_t events = 0;
    trc_sink sink = {.ctx = &events, .meta = count_meta, .event = count_event};
    trc_lift_stats st;
    if (trc_lift_records(trc_raw_at(raw, 0), trc_raw_count(raw), &sink, &st, &err) != 0) {
        fprintf(stderr, "lift_bench: %s\n", err.msg);
        return 1;
    }
    double t2 = now();
    trc_raw_close(raw);
    double t3 = now();
    if (trc_lift_to_gmt(raw_path, argv[2], &st, NULL, 0, &err) != 0) {
        fprintf(stderr, "lift_bench: %s\n", err.msg);
        return 1;
    }
    double t4 = now();
    remove(raw_path);
    printf("records %llu, events %llu, ops %llu, kernels %llu\n", (unsigned long long)g_records,
           (unsigned long long)events, (unsigned long long)st.ops, (unsigned long long)st.kernels);
    printf("read raw: %.3f s; lift (in memory): %.3f s = %.0f records/s; raw -> .gmt file: %.3f s "
           "= %.0f records/s\n",
           t1 - t0, t2 - t1, (double)g_records / (t2 - t1), t4 - t3,
           (double)g_records / (t4 - t3));
    return 0;
}
