/* fake_job: stands in for a CUDA job under the tracer, so `gpumemsim record` can be tested end
 * to end without a GPU. It writes what libgpumemsim-tracer.so would have written into
 * $GMS_TRACE_DIR/gms-<pid>.raw (same encoder), then behaves as asked:
 *   fake_job ok CODE     a two-iteration training step, clean end, exit CODE
 *   fake_job crash       half of a record, then SIGKILL (a job that died mid-write)
 *   fake_job fork        also forks a child process that records its own small trace
 *   fake_job env         prints the tracer environment and records nothing (no CUDA init) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lift_raw.h"

static FILE *g_out;

static void put(trc_rec r)
{
    uint8_t buf[8192];
    size_t n = trc_raw_encode(&r, buf, sizeof buf);
    if (n == 0 || fwrite(buf, 1, n, g_out) != n)
        exit(90);
}

static void open_raw(void)
{
    const char *dir = getenv("GMS_TRACE_DIR");
    if (!dir || !getenv("CUDA_INJECTION64_PATH"))
        exit(91); /* record did not set up the environment */
    char path[4096];
    snprintf(path, sizeof path, "%s/gms-%d.raw", dir, (int)getpid());
    g_out = fopen(path, "wb");
    if (!g_out)
        exit(92);
    uint8_t h[TRC_RAW_HEADER_SIZE];
    trc_raw_header(h, (uint32_t)getpid());
    fwrite(h, 1, sizeof h, g_out);
    put((trc_rec){.type = TRC_REC_INFO, .name = "device", .text = "Fake GPU"});
}

static uint64_t g_ts = 100, g_corr = 1;

static void kernel(const char *name, uint64_t dur, const uint64_t *ptrs, uint32_t n)
{
    put((trc_rec){.type = TRC_REC_LAUNCH, .ts = g_ts++, .corr = g_corr, .thread = 1,
                  .ptrs = ptrs, .n_ptrs = n});
    put((trc_rec){.type = TRC_REC_KERNEL, .ts = 900000 + g_corr * 100,
                  .end = 900000 + g_corr * 100 + dur, .corr = g_corr, .name = name});
    g_corr++;
}

static void alloc(uint64_t addr, uint64_t bytes)
{
    put((trc_rec){.type = TRC_REC_ALLOC, .ts = g_ts++, .addr = addr, .bytes = bytes,
                  .flags = TRC_MEM_DEVICE});
}

static void release(uint64_t addr)
{
    put((trc_rec){.type = TRC_REC_FREE, .ts = g_ts++, .addr = addr, .flags = TRC_MEM_DEVICE});
}

static void range(uint64_t id, const char *name, int start, int64_t payload)
{
    put((trc_rec){.type = TRC_REC_MARKER, .ts = g_ts++, .id = id, .thread = 1,
                  .flags = start ? TRC_MARK_START : TRC_MARK_END, .name = start ? name : NULL});
    if (start && payload >= 0)
        put((trc_rec){.type = TRC_REC_MARKER_DATA, .id = id, .flags = TRC_PAYLOAD_INT64,
                      .value = (uint64_t)payload});
}

/* weights W (4 KiB) and input X (1 KiB) before any kernel; per iteration: fc makes H (2 KiB),
 * loss reads H, update writes W in place; H freed at the end of the iteration */
static void training(void)
{
    const uint64_t W = 0x10000, X = 0x20000, H = 0x30000;
    alloc(W, 4096);
    alloc(X, 1024);
    for (int it = 0; it < 2; it++) {
        range(10 + 10 * (uint64_t)it, "gpumemsim:iteration", 1, 32);
        range(11 + 10 * (uint64_t)it, "fc", 1, -1);
        alloc(H, 2048);
        const uint64_t fc[] = {W, X, H + 64};
        kernel("gemm", 1000, fc, 3);
        kernel("bias", 200, fc, 3);
        range(11 + 10 * (uint64_t)it, NULL, 0, -1);
        const uint64_t loss[] = {H};
        kernel("loss", 300, loss, 1);
        const uint64_t upd[] = {W};
        kernel("sgd", 50, upd, 1);
        release(H);
        range(10 + 10 * (uint64_t)it, NULL, 0, -1);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    if (strcmp(mode, "env") == 0) {
        printf("CUDA_INJECTION64_PATH=%s\n", getenv("CUDA_INJECTION64_PATH"));
        printf("PYTORCH_CUDA_ALLOC_CONF=%s\n", getenv("PYTORCH_CUDA_ALLOC_CONF"));
        return 0;
    }
    if (strcmp(mode, "fork") == 0) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            open_raw();
            alloc(0x90000, 512);
            const uint64_t p[] = {0x90000};
            kernel("child_kernel", 10, p, 1);
            put((trc_rec){.type = TRC_REC_INFO, .name = "end", .text = "exit"});
            fclose(g_out);
            _exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
    }
    open_raw();
    training();
    if (strcmp(mode, "crash") == 0) {
        uint8_t buf[512];
        trc_rec r = {.type = TRC_REC_KERNEL, .name = "never_finished"};
        size_t n = trc_raw_encode(&r, buf, sizeof buf);
        fwrite(buf, 1, n / 2, g_out);
        fflush(g_out);
        raise(SIGKILL);
    }
    put((trc_rec){.type = TRC_REC_INFO, .name = "dropped_records", .text = "0"});
    put((trc_rec){.type = TRC_REC_INFO, .name = "end", .text = "exit"});
    fclose(g_out);
    return argc > 2 ? atoi(argv[2]) : 0;
}
