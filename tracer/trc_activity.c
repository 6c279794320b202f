/* trc_activity: CUPTI Activity API buffers -> raw records (see trc.h).
 *
 * Buffers are large (GMS_TRACER_BUFFER_MB, default 16 MiB) and recycled through a small free
 * list, so a busy job neither drops records for lack of buffers nor mallocs per buffer. */
#include "trc.h"

#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define POOL_MAX 16

static size_t g_buffer_size = 16u << 20;
static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *g_pool[POOL_MAX];
static int g_pool_n;
static _Atomic uint64_t g_dropped;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    uint8_t *b = NULL;
    pthread_mutex_lock(&g_pool_lock);
    if (g_pool_n > 0)
        b = g_pool[--g_pool_n];
    pthread_mutex_unlock(&g_pool_lock);
    if (!b)
        b = aligned_alloc(8, g_buffer_size);
    *buffer = b; /* NULL: CUPTI drops records and counts them */
    *size = b ? g_buffer_size : 0;
    *max_records = 0;
}

static void give_back(uint8_t *b)
{
    pthread_mutex_lock(&g_pool_lock);
    if (g_pool_n < POOL_MAX) {
        g_pool[g_pool_n++] = b;
        b = NULL;
    }
    pthread_mutex_unlock(&g_pool_lock);
    free(b);
}

/* One CUPTI record -> one raw record (kinds we do not use are skipped). */
static void convert(const CUpti_Activity *a)
{
    trc_rec r;
    memset(&r, 0, sizeof r);
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;
        r.type = TRC_REC_KERNEL;
        r.ts = k->start;
        r.end = k->end;
        r.corr = k->correlationId;
        r.stream = k->streamId;
        r.name = k->name;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
        const CUpti_ActivityMemory4 *m = (const CUpti_ActivityMemory4 *)a;
        if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION)
            r.type = TRC_REC_ALLOC;
        else if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
            r.type = TRC_REC_FREE;
        else
            return;
        r.ts = m->timestamp;
        r.addr = m->address;
        r.bytes = m->bytes;
        r.corr = m->correlationId;
        r.stream = m->streamId;
        r.flags = (uint64_t)m->memoryKind;
        r.id = m->isAsync;
        if (m->memoryPoolConfig.memoryPoolType != CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID)
            r.aux = m->memoryPoolConfig.address ? m->memoryPoolConfig.address : 1;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *c = (const CUpti_ActivityMemcpy6 *)a;
        r.type = TRC_REC_MEMCPY;
        r.ts = c->start;
        r.end = c->end;
        r.bytes = c->bytes;
        r.corr = c->correlationId;
        r.stream = c->streamId;
        r.flags = c->copyKind;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *s = (const CUpti_ActivityMemset4 *)a;
        r.type = TRC_REC_MEMSET;
        r.ts = s->start;
        r.end = s->end;
        r.bytes = s->bytes;
        r.corr = s->correlationId;
        r.stream = s->streamId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        const CUpti_ActivityMarker2 *k = (const CUpti_ActivityMarker2 *)a;
        r.type = TRC_REC_MARKER;
        r.ts = k->timestamp;
        r.id = k->id;
        r.flags = (uint64_t)k->flags;
        r.thread = k->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? k->objectId.pt.threadId : 0;
        r.name = k->name;
        r.text = k->domain;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER_DATA: {
        const CUpti_ActivityMarkerData2 *d = (const CUpti_ActivityMarkerData2 *)a;
        r.type = TRC_REC_MARKER_DATA;
        r.id = d->id;
        r.flags = (uint64_t)d->payloadKind;
        if (d->payloadKind == CUPTI_METRIC_VALUE_KIND_DOUBLE)
            memcpy(&r.value, &d->payload.metricValueDouble, sizeof r.value);
        else if (d->payloadKind == CUPTI_METRIC_VALUE_KIND_INT64)
            r.value = (uint64_t)d->payload.metricValueInt64;
        else if (d->payloadKind == CUPTI_METRIC_VALUE_KIND_UINT64)
            r.value = d->payload.metricValueUint64;
        else
            return; /* a payload we cannot interpret */
        break;
    }
    default:
        return;
    }
    trc_out_write(&r);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    CUpti_Activity *a = NULL;
    if (buffer && valid > 0)
        while (cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS)
            convert(a);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
        atomic_fetch_add(&g_dropped, (uint64_t)dropped);
    if (buffer)
        give_back(buffer);
}

static int enable(CUpti_ActivityKind kind, const char *what)
{
    CUptiResult res = cuptiActivityEnable(kind);
    if (res == CUPTI_SUCCESS)
        return 0;
    const char *s = "?";
    cuptiGetResultString(res, &s);
    trc_status("cannot enable %s activity records: %s", what, s);
    return -1;
}

int trc_activity_start(void)
{
    const char *mb = getenv("GMS_TRACER_BUFFER_MB");
    if (mb && atoi(mb) >= 1 && atoi(mb) <= 1024)
        g_buffer_size = (size_t)atoi(mb) << 20;
    /* our thread ids (gettid) and CUPTI's marker thread ids must be the same kind */
    if (cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) != CUPTI_SUCCESS)
        trc_status("cannot set CUPTI thread ids to system ids; NVTX ranges may not match "
                   "kernels");
    size_t dev_buf = 32u << 20, attr_size = sizeof dev_buf;
    cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &attr_size, &dev_buf);
    CUptiResult res = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (res != CUPTI_SUCCESS) {
        const char *s = "?";
        cuptiGetResultString(res, &s);
        trc_status("cannot register CUPTI activity buffers: %s%s", s,
                   res == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                       ? " (another profiler such as nsys or the PyTorch profiler is attached)"
                       : "");
        return -1;
    }
    int rc = 0;
    rc |= enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "kernel");
    rc |= enable(CUPTI_ACTIVITY_KIND_MEMORY2, "memory (MEMORY2)");
    enable(CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy");
    enable(CUPTI_ACTIVITY_KIND_MEMSET, "memset");
    enable(CUPTI_ACTIVITY_KIND_MARKER, "NVTX marker");
    enable(CUPTI_ACTIVITY_KIND_MARKER_DATA, "NVTX marker data");
    return rc ? -1 : 0;
}

void trc_activity_flush(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

uint64_t trc_activity_dropped(void)
{
    return atomic_load(&g_dropped);
}
