/* trc_copy: memcpy and memset API callbacks -> COPY records (see trc.h).
 *
 * CUPTI's memcpy/memset activity records carry no addresses, yet copies decide what a buffer
 * is: one filled from the host is an input (a constant), one filled by a device-to-device copy
 * or a memset is produced on the GPU. So the API calls are recorded here with their addresses
 * (only when one of them is a live device allocation). Runtime calls reach the driver callbacks
 * too; a thread-local flag keeps one record per copy (the runtime's, whose correlation id the
 * activity record carries). */
#include "trc.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <string.h>

static _Thread_local int tls_in_runtime_copy;

static void record(const CUpti_CallbackData *cb, uint64_t dst, uint64_t src, uint64_t bytes,
                   int is_memset)
{
    if (!trc_map_contains(dst) && (is_memset || !trc_map_contains(src)))
        return; /* host to host, or memory we do not track */
    trc_rec r;
    memset(&r, 0, sizeof r);
    r.type = TRC_REC_COPY;
    cuptiGetTimestamp(&r.ts);
    r.corr = cb->correlationId;
    r.thread = trc_thread_id();
    r.addr = dst;
    r.aux = is_memset ? 0 : src;
    r.bytes = bytes;
    r.flags = is_memset ? TRC_COPY_MEMSET : 0;
    trc_out_write(&r);
}

#define P(type) ((const type##_params *)cb->functionParams)

int trc_copy_driver(uint32_t cbid, const void *data)
{
    const CUpti_CallbackData *cb = data;
    if (cb->callbackSite != CUPTI_API_ENTER || tls_in_runtime_copy)
        return 0;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
        record(cb, P(cuMemcpyHtoD_v2)->dstDevice, 0, P(cuMemcpyHtoD_v2)->ByteCount, 0);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
        record(cb, P(cuMemcpyHtoDAsync_v2)->dstDevice, 0, P(cuMemcpyHtoDAsync_v2)->ByteCount, 0);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds:
        record(cb, P(cuMemcpyDtoD_v2)->dstDevice, P(cuMemcpyDtoD_v2)->srcDevice,
               P(cuMemcpyDtoD_v2)->ByteCount, 0);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz:
        record(cb, P(cuMemcpyDtoDAsync_v2)->dstDevice, P(cuMemcpyDtoDAsync_v2)->srcDevice,
               P(cuMemcpyDtoDAsync_v2)->ByteCount, 0);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds:
        record(cb, P(cuMemcpy)->dst, P(cuMemcpy)->src, P(cuMemcpy)->ByteCount, 0);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
        record(cb, P(cuMemcpyAsync)->dst, P(cuMemcpyAsync)->src, P(cuMemcpyAsync)->ByteCount, 0);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds:
        record(cb, P(cuMemsetD8_v2)->dstDevice, 0, P(cuMemsetD8_v2)->N, 1);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds:
        record(cb, P(cuMemsetD16_v2)->dstDevice, 0, 2 * (uint64_t)P(cuMemsetD16_v2)->N, 1);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds:
        record(cb, P(cuMemsetD32_v2)->dstDevice, 0, 4 * (uint64_t)P(cuMemsetD32_v2)->N, 1);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
        record(cb, P(cuMemsetD8Async)->dstDevice, 0, P(cuMemsetD8Async)->N, 1);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz:
        record(cb, P(cuMemsetD16Async)->dstDevice, 0, 2 * (uint64_t)P(cuMemsetD16Async)->N, 1);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz:
        record(cb, P(cuMemsetD32Async)->dstDevice, 0, 4 * (uint64_t)P(cuMemsetD32Async)->N, 1);
        return 1;
    default:
        return 0;
    }
}

int trc_copy_runtime(uint32_t cbid, const void *data)
{
    const CUpti_CallbackData *cb = data;
    uint64_t dst = 0, src = 0, bytes = 0;
    int is_memset = 0;
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000:
        dst = (uintptr_t)P(cudaMemcpy_v3020)->dst;
        src = (uintptr_t)P(cudaMemcpy_v3020)->src;
        bytes = P(cudaMemcpy_v3020)->count;
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
        dst = (uintptr_t)P(cudaMemcpyAsync_v3020)->dst;
        src = (uintptr_t)P(cudaMemcpyAsync_v3020)->src;
        bytes = P(cudaMemcpyAsync_v3020)->count;
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000:
        dst = (uintptr_t)P(cudaMemset_v3020)->devPtr;
        bytes = P(cudaMemset_v3020)->count;
        is_memset = 1;
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000:
        dst = (uintptr_t)P(cudaMemsetAsync_v3020)->devPtr;
        bytes = P(cudaMemsetAsync_v3020)->count;
        is_memset = 1;
        break;
    default:
        return 0;
    }
    if (cb->callbackSite == CUPTI_API_ENTER) {
        tls_in_runtime_copy = 1;
        record(cb, dst, src, bytes, is_memset);
    } else {
        tls_in_runtime_copy = 0;
    }
    return 1;
}

/* The copy callbacks to enable; the ids are in trc_copy_driver/runtime above. */
const uint32_t trc_copy_driver_ids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,         CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2,         CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy,                CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,           CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2,           CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2,          CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2,          CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,         CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async,        CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,        CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz,
};
const size_t trc_copy_driver_count = sizeof trc_copy_driver_ids / sizeof trc_copy_driver_ids[0];

const uint32_t trc_copy_runtime_ids[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,       CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,  CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,       CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,  CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
};
const size_t trc_copy_runtime_count = sizeof trc_copy_runtime_ids / sizeof trc_copy_runtime_ids[0];
