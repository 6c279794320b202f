/* fake_job: stands in for a CUDA job under the tracer, so `gpumemsim record` can be tested end
 * to end without a GPU. It writes what libgpumemsim-tracer.so would have written into
 * $GMS_TRACE_DIR/gms-<pid>.raw (same encoder), then behaves as asked:
 *   fake_job ok CODE     a two-iteration training step, clean end, exit CODE
 *   fake_job crash       half of a record, then SIGKILL (a job that died mid-write)
 *   fake_job fork        also forks a child process that records its own small trace
 *   fake_job env         prints the tracer environment and records nothing (no CUDA init)
 *   fake_job mlp         what tests/gpu/mlp_train.c records (3 iterations, batch 64)
 * FAKE_JOB_CUBLAS_RANGE=1 adds a cuBLAS-domain NVTX range inside the "fc" op. */
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

/* Both views, as the tracer writes them: the callback's record at the call and CUPTI's
 * MEMORY2 record (timed slightly later here, as an asynchronous record may be). */
static void alloc(uint64_t addr, uint64_t bytes)
{
    put((trc_rec){.type = TRC_REC_API_ALLOC, .ts = g_ts, .addr = addr, .bytes = bytes,
                  .flags = TRC_MEM_DEVICE});
    put((trc_rec){.type = TRC_REC_ALLOC, .ts = g_ts + 1, .addr = addr, .bytes = bytes,
                  .flags = TRC_MEM_DEVICE});
    g_ts++;
}

static void release(uint64_t addr)
{
    put((trc_rec){.type = TRC_REC_API_FREE, .ts = g_ts, .addr = addr, .flags = TRC_MEM_DEVICE});
    put((trc_rec){.type = TRC_REC_FREE, .ts = g_ts + 1, .addr = addr, .flags = TRC_MEM_DEVICE});
    g_ts++;
}

static void range(uint64_t id, const char *name, int start, int64_t payload)
{
    if (getenv("FAKE_JOB_NO_NVTX")) /* FAKE_JOB_NO_NVTX=1: as if NVTX never reached CUPTI */
        return;
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
        /* FAKE_JOB_CUBLAS_RANGE=1: cuBLAS's own NVTX range (its domain) around the gemm */
        int lib = getenv("FAKE_JOB_CUBLAS_RANGE") != NULL;
        if (lib)
            put((trc_rec){.type = TRC_REC_MARKER, .ts = g_ts++, .id = 90 + (uint64_t)it,
                          .thread = 1, .flags = TRC_MARK_START, .name = "cublasSgemm_v2",
                          .text = "cuBLAS"});
        kernel("gemm", 1000, fc, 3);
        if (lib)
            put((trc_rec){.type = TRC_REC_MARKER, .ts = g_ts++, .id = 90 + (uint64_t)it,
                          .thread = 1, .flags = TRC_MARK_END});
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

/* What the tracer records for tests/gpu/mlp_train.c (3 iterations, batch 64): lets
 * tests/gpu/check_trace.py be checked without a GPU. Addresses are made up; sizes are real. */
static void mlp(void)
{
    enum { D = 512, H = 1024, C = 10, B = 64 };
    uint64_t next = 0x7f0000000000;
    uint64_t ws = next, W1 = ws + (4u << 20), W2 = W1 + D * H * 4, X = W2 + H * C * 4,
             Y = X + B * D * 4;
    alloc(ws, 4u << 20);
    alloc(W1, D * H * 4);
    alloc(W2, H * C * 4);
    alloc(X, B * D * 4);
    alloc(Y, B * C * 4);
    const uint64_t init[] = {W1};
    kernel("memcpy_like_setup", 5, init, 1); /* before the first iteration: setup */
    uint64_t pool = 0x7e0000000000;
    for (uint64_t it = 0; it < 3; it++) {
        uint64_t id = 100 * (it + 1);
        range(id, "gpumemsim:iteration", 1, B);
        uint64_t H1 = pool, Out = H1 + B * H * 4, dOut = Out + B * C * 4, dW2 = dOut + B * C * 4,
                 dH1 = dW2 + H * C * 4, dW1 = dH1 + B * H * 4;
        range(id + 1, "fc1", 1, -1);
        alloc(H1, B * H * 4);
        kernel("sgemm", 900, (const uint64_t[]){W1, X, H1, ws}, 4);
        range(id + 1, NULL, 0, -1);
        range(id + 2, "fc2", 1, -1);
        alloc(Out, B * C * 4);
        kernel("sgemm", 300, (const uint64_t[]){W2, H1, Out}, 3);
        range(id + 2, NULL, 0, -1);
        range(id + 3, "loss_grad", 1, -1);
        alloc(dOut, B * C * 4);
        kernel("geam", 20, (const uint64_t[]){Out, Y, dOut}, 3);
        range(id + 3, NULL, 0, -1);
        range(id + 4, "fc2_backward", 1, -1);
        alloc(dW2, H * C * 4);
        kernel("sgemm", 200, (const uint64_t[]){dOut, H1, dW2}, 3);
        alloc(dH1, B * H * 4);
        kernel("sgemm", 250, (const uint64_t[]){W2, dOut, dH1}, 3);
        range(id + 4, NULL, 0, -1);
        range(id + 5, "fc1_backward", 1, -1);
        alloc(dW1, D * H * 4);
        kernel("sgemm_splitk", 700, (const uint64_t[]){dH1, X, dW1, ws}, 4);
        kernel("splitk_reduce", 50, (const uint64_t[]){ws, dW1}, 2);
        range(id + 5, NULL, 0, -1);
        range(id + 6, "sgd", 1, -1);
        kernel("axpy", 40, (const uint64_t[]){dW1, W1}, 2);
        kernel("axpy", 10, (const uint64_t[]){dW2, W2}, 2);
        range(id + 6, NULL, 0, -1);
        const uint64_t frees[] = {H1, Out, dOut, dW2, dH1, dW1};
        for (int i = 0; i < 6; i++)
            release(frees[i]);
        range(id, NULL, 0, -1);
    }
    const uint64_t all[] = {ws, W1, W2, X, Y};
    for (int i = 0; i < 5; i++)
        release(all[i]);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    if (strcmp(mode, "env") == 0) {
        printf("CUDA_INJECTION64_PATH=%s\n", getenv("CUDA_INJECTION64_PATH"));
        printf("PYTORCH_CUDA_ALLOC_CONF=%s\n", getenv("PYTORCH_CUDA_ALLOC_CONF"));
        return 0;
    }
    if (strcmp(mode, "idle-fork") == 0) {
        /* two processes that initialise CUDA (each writes a raw file) but do nothing on it */
        fflush(NULL);
        pid_t pid = fork();
        open_raw();
        put((trc_rec){.type = TRC_REC_INFO, .name = "end", .text = "exit"});
        fclose(g_out);
        if (pid == 0)
            _exit(0);
        int st;
        waitpid(pid, &st, 0);
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
    if (strcmp(mode, "mlp") == 0)
        mlp();
    else
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
