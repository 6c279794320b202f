/*
 * gms_gpu_mlp_train: a tiny two-layer MLP trained with cuBLAS, in plain C (no nvcc), as a
 * known workload for the CUPTI tracer. Every allocation size, op and iteration is known, so
 * tests/gpu/run.sh can check the recorded trace exactly.
 *
 * Setup (before the first iteration; these become CONSTANTs):
 *   W1 D*H, W2 H*C, X B*D, Y B*C floats (cudaMalloc) and a cuBLAS workspace (WORKSPACE bytes).
 * One warm-up iteration first, outside any iteration range (so cuBLAS's lazy initialisation
 * happens there; the lifter leaves it out as setup). Then each iteration, inside an NVTX range
 * "gpumemsim:iteration" with payload B (the batch size):
 *   fc1           H1 = X W1              (cudaMallocAsync B*H)
 *   fc2           Out = H1 W2            (cudaMallocAsync B*C)
 *   loss_grad     dOut = Out - Y         (cudaMallocAsync B*C)
 *   fc2_backward  dW2 = H1^T dOut, dH1 = dOut W2^T   (H*C and B*H)
 *   fc1_backward  dW1 = X^T dH1          (D*H)
 *   sgd           W1 -= lr dW1, W2 -= lr dW2   (in place: no new memory)
 *   then cudaFreeAsync of H1 Out dOut dW2 dH1 dW1 (six RELEASEs).
 * Matrices are column-major as cuBLAS expects; the numbers are meaningless but finite.
 *
 * usage: gms_gpu_mlp_train [ITERATIONS [BATCH]]   (defaults 3 and 64)
 * Prints "size NAME BYTES" for each buffer so the checks can use the same numbers. With
 * GMS_STEP_TIMES=1 it also prints "step_ms N MS" for each iteration: wall time from a
 * synchronised start to a synchronised end (scripts/bench/tracer-overhead.sh reads it).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

#define D 512
#define H 1024
#define C 10
#define WORKSPACE (4u << 20)

#define CUDA(call)                                                                           \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "mlp_train: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,         \
                    cudaGetErrorString(e_));                                                 \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

#define BLAS(call)                                                                           \
    do {                                                                                     \
        cublasStatus_t s_ = (call);                                                          \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                   \
            fprintf(stderr, "mlp_train: %s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__,  \
                    #call, (int)s_);                                                         \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static float *alloc_async(const char *name, size_t n, cudaStream_t s)
{
    void *p = NULL;
    CUDA(cudaMallocAsync(&p, n * sizeof(float), s));
    (void)name;
    return p;
}

static float *alloc_filled(const char *name, size_t n, float scale)
{
    float *host = malloc(n * sizeof *host);
    if (!host) {
        fprintf(stderr, "mlp_train: out of host memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        host[i] = scale * (float)((i * 2654435761u) % 1000) / 1000.0f - scale / 2;
    void *dev = NULL;
    CUDA(cudaMalloc(&dev, n * sizeof(float)));
    CUDA(cudaMemcpy(dev, host, n * sizeof(float), cudaMemcpyHostToDevice));
    free(host);
    printf("size %s %zu\n", name, n * sizeof(float));
    return dev;
}

static void range_push(const char *name)
{
    nvtxRangePushA(name);
}

/* The iteration mark the lifter turns into ANNOTATE "iteration" with value = batch size. */
static void iteration_push(int64_t batch)
{
    nvtxEventAttributes_t a = {0};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "gpumemsim:iteration";
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = batch;
    nvtxRangePushEx(&a);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 3;
    int B = argc > 2 ? atoi(argv[2]) : 64;
    if (iters < 1 || iters > 1000 || B < 1 || B > 65536) {
        fprintf(stderr, "usage: gms_gpu_mlp_train [ITERATIONS 1..1000 [BATCH 1..65536]]\n");
        return 2;
    }
    const float one = 1.0f, zero = 0.0f, minus_one = -1.0f, minus_lr = -0.01f;
    cudaStream_t s = 0;
    cublasHandle_t h;
    BLAS(cublasCreate(&h));
    BLAS(cublasSetStream(h, s));
    void *workspace = NULL;
    CUDA(cudaMalloc(&workspace, WORKSPACE));
    BLAS(cublasSetWorkspace(h, workspace, WORKSPACE));
    printf("size workspace %u\n", WORKSPACE);

    float *W1 = alloc_filled("W1", (size_t)D * H, 0.1f);
    float *W2 = alloc_filled("W2", (size_t)H * C, 0.1f);
    float *X = alloc_filled("X", (size_t)B * D, 1.0f);
    float *Y = alloc_filled("Y", (size_t)B * C, 1.0f);
    printf("size H1 %zu\nsize Out %zu\nsize dW2 %zu\nsize dW1 %zu\n", (size_t)B * H * 4,
           (size_t)B * C * 4, (size_t)H * C * 4, (size_t)D * H * 4);

    const char *st_env = getenv("GMS_STEP_TIMES");
    int step_times = st_env && *st_env && st_env[0] != '0';
    double t0 = 0;
    for (int it = -1; it < iters; it++) {
        if (step_times) {
            CUDA(cudaStreamSynchronize(s));
            t0 = now_ms();
        }
        if (it >= 0)
            iteration_push(B);
        else
            range_push("warmup");

        range_push("fc1"); /* H1[B,H] = X[B,D] W1[D,H]  (column-major: H1^T = W1^T X^T) */
        float *H1 = alloc_async("H1", (size_t)B * H, s);
        BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, H, B, D, &one, W1, H, X, D, &zero, H1, H));
        nvtxRangePop();

        range_push("fc2"); /* Out[B,C] = H1[B,H] W2[H,C] */
        float *Out = alloc_async("Out", (size_t)B * C, s);
        BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, C, B, H, &one, W2, C, H1, H, &zero, Out, C));
        nvtxRangePop();

        range_push("loss_grad"); /* dOut = Out - Y */
        float *dOut = alloc_async("dOut", (size_t)B * C, s);
        BLAS(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, C, B, &one, Out, C, &minus_one, Y, C, dOut,
                         C));
        nvtxRangePop();

        range_push("fc2_backward"); /* dW2[H,C] = H1^T dOut; dH1[B,H] = dOut W2^T */
        float *dW2 = alloc_async("dW2", (size_t)H * C, s);
        BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, C, H, B, &one, dOut, C, H1, H, &zero, dW2, C));
        float *dH1 = alloc_async("dH1", (size_t)B * H, s);
        BLAS(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, H, B, C, &one, W2, C, dOut, C, &zero, dH1, H));
        nvtxRangePop();

        range_push("fc1_backward"); /* dW1[D,H] = X^T dH1 */
        float *dW1 = alloc_async("dW1", (size_t)D * H, s);
        BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, H, D, B, &one, dH1, H, X, D, &zero, dW1, H));
        nvtxRangePop();

        range_push("sgd");
        BLAS(cublasSaxpy(h, D * H, &minus_lr, dW1, 1, W1, 1));
        BLAS(cublasSaxpy(h, H * C, &minus_lr, dW2, 1, W2, 1));
        nvtxRangePop();

        CUDA(cudaFreeAsync(H1, s));
        CUDA(cudaFreeAsync(Out, s));
        CUDA(cudaFreeAsync(dOut, s));
        CUDA(cudaFreeAsync(dW2, s));
        CUDA(cudaFreeAsync(dH1, s));
        CUDA(cudaFreeAsync(dW1, s));
        nvtxRangePop(); /* iteration (or warm-up) */
        if (step_times && it >= 0) {
            CUDA(cudaStreamSynchronize(s));
            printf("step_ms %d %.4f\n", it, now_ms() - t0);
        }
    }
    CUDA(cudaStreamSynchronize(s));
    float w = 0;
    CUDA(cudaMemcpy(&w, W2, sizeof w, cudaMemcpyDeviceToHost));
    printf("trained %d iterations, batch %d, W2[0] = %g\n", iters, B, (double)w);
    BLAS(cublasDestroy(h));
    CUDA(cudaFree(workspace));
    CUDA(cudaFree(W1));
    CUDA(cudaFree(W2));
    CUDA(cudaFree(X));
    CUDA(cudaFree(Y));
    return 0;
}
