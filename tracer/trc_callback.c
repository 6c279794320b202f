/* trc_callback: the tracer's Callback API half (see trc.h).
 *
 * MEMORY2 activity records reach us late (when a buffer completes), so the question "which
 * live allocation does this kernel argument point into" is answered from a live-allocation map
 * kept here, updated on the allocation/free API callbacks themselves (driver and runtime: both
 * are tracked, inserts and removals are idempotent). At each kernel launch (driver domain:
 * cuLaunchKernel, cuLaunchKernelEx, cooperative launches) every parameter's bytes are scanned
 * for 8-byte values inside a live allocation; those values go into a LAUNCH record with the
 * launch's correlation ids. Runtime launches reach the driver callbacks; if one ever does not,
 * the runtime callback scans the arguments itself (cudaGetFuncBySymbol). */
#define _GNU_SOURCE
#include "trc.h"
#include "trc_amap.h"
#include "trc_tmap.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_PARAM_SCAN (64u << 10) /* bytes of one launch's parameters we look at */
#define MAX_PTRS 256u              /* distinct allocation pointers recorded per launch */

static pthread_mutex_t g_map_lock = PTHREAD_MUTEX_INITIALIZER;
static trc_amap g_amap;
static trc_tmap g_tmap; /* TMA descriptors seen at encode time, also under g_map_lock */
static _Atomic uint64_t g_tma_refs; /* references found through a TMA descriptor */

typedef struct param_info {
    CUfunction f;
    uint32_t n; /* parameters; UINT32_MAX = unknown */
    int via_kernel; /* the layout came from cuKernelGetParamInfo (f is a CUkernel) */
    uint32_t *offset, *size;
} param_info;

static pthread_mutex_t g_func_lock = PTHREAD_MUTEX_INITIALIZER;
static param_info *g_funcs; /* open addressing, g_cap_funcs slots (power of two) */
static size_t g_n_funcs, g_cap_funcs;

static CUpti_SubscriberHandle g_sub;
static int g_subscribed;
static _Thread_local uint32_t tls_rt_corr;   /* enclosing runtime launch's correlation id */
static _Thread_local int tls_driver_launched; /* the driver launch callback ran for it */
static _Thread_local int tls_rt_depth;        /* nested runtime launch calls (D7) */
static int g_warned_params;

uint64_t trc_thread_id(void)
{
    return (uint64_t)syscall(SYS_gettid);
}

/* ---- live allocation map (trc_amap.c), under g_map_lock ---- */

/* Adds [base, base+size) to the map; returns 1 when it was not there yet. */
static int map_insert(uint64_t base, uint64_t size)
{
    if (!base)
        return 0;
    pthread_mutex_lock(&g_map_lock);
    int added = trc_amap_insert(&g_amap, base, size, 0) == 1;
    pthread_mutex_unlock(&g_map_lock);
    return added;
}

/* Removes the allocation at base; returns 1 when it was there (*size: its size). */
static int map_remove(uint64_t base, uint64_t *size)
{
    pthread_mutex_lock(&g_map_lock);
    int removed = trc_amap_remove(&g_amap, base, size);
    pthread_mutex_unlock(&g_map_lock);
    return removed;
}

/* An allocation seen by an API callback: into the map and, once, into the file (the lifter's
 * fallback when MEMORY2 records are missing). */
static void api_alloc(uint64_t base, uint64_t size, int kind, int pool)
{
    if (!map_insert(base, size))
        return;
    trc_rec r;
    memset(&r, 0, sizeof r);
    r.type = TRC_REC_API_ALLOC;
    cuptiGetTimestamp(&r.ts);
    r.addr = base;
    r.bytes = size;
    r.flags = (uint64_t)kind;
    r.aux = pool ? 1 : 0;
    trc_out_write(&r);
}

/* A free is taken at the API call's ENTER (review D13): by its EXIT the driver may already
 * have handed the same address to another thread's allocation, whose EXIT could come first and
 * find the old block still in the map. If the free then fails, the block is put back. */
static _Thread_local uint64_t tls_freed_base, tls_freed_size;

static void api_free(uint64_t base)
{
    uint64_t size = 0;
    if (!map_remove(base, &size))
        return;
    tls_freed_base = base;
    tls_freed_size = size;
    trc_rec r;
    memset(&r, 0, sizeof r);
    r.type = TRC_REC_API_FREE;
    cuptiGetTimestamp(&r.ts);
    r.addr = base;
    r.flags = TRC_MEM_DEVICE;
    trc_out_write(&r);
}

/* The EXIT of a free whose ENTER removed base: put it back when the call failed. */
static void api_free_exit(uint64_t base, int ok)
{
    if (!base || tls_freed_base != base)
        return;
    tls_freed_base = 0;
    if (!ok)
        api_alloc(base, tls_freed_size, TRC_MEM_DEVICE, 0);
}

/* 1 when v points into a live allocation. Called with g_map_lock held. */
static int map_hit(uint64_t v)
{
    return v >= 4096 && trc_amap_hit(&g_amap, v);
}

int trc_map_contains(uint64_t v)
{
    pthread_mutex_lock(&g_map_lock);
    int hit = map_hit(v);
    pthread_mutex_unlock(&g_map_lock);
    return hit;
}

/* ---- parameter layouts, cached per function ---- */

static size_t func_slot(CUfunction f)
{
    uint64_t h = (uint64_t)(uintptr_t)f * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 20) & (g_cap_funcs - 1);
    while (g_funcs[i].f && g_funcs[i].f != f)
        i = (i + 1) & (g_cap_funcs - 1);
    return i;
}

static _Atomic uint64_t g_failed_launches; /* launches that returned an error (not written) */

/* Layout statistics for the end-of-job INFO "param_layouts" (under g_func_lock). */
static uint64_t g_layouts_func, g_layouts_kernel, g_layouts_empty, g_layouts_unknown;
static int g_debug_launches; /* GMS_TRACER_DEBUG: launches still to describe on stderr */

/* One parameter's offset and size through the API that worked for f (index i). */
static CUresult param_info_at(CUfunction f, int via_kernel, uint32_t i, size_t *o, size_t *z)
{
    return via_kernel ? cuKernelGetParamInfo((CUkernel)f, i, o, z)
                      : cuFuncGetParamInfo(f, i, o, z);
}

/* Parameter count, offsets and sizes of f. The handle a launch callback sees may be a
 * CUfunction or a CUkernel cast to one (cuLaunchKernel accepts both; CUDA 12+ runtimes load
 * through the library API), and cuFuncGetParamInfo answers CUDA_ERROR_INVALID_VALUE for any
 * argument it does not like: so index 0 is tried with cuFuncGetParamInfo, then with
 * cuKernelGetParamInfo, and the API that answered reads the rest (until INVALID_VALUE, past
 * the last parameter). When neither answers at index 0 the kernel has no parameters or an
 * unreadable handle: counted apart ("param_layouts"), never silently taken as known.
 * Returns NULL when unknown. Called with g_func_lock held. */
static const param_info *func_params(CUfunction f, CUresult *first_error)
{
    *first_error = CUDA_SUCCESS;
    if (g_n_funcs * 2 >= g_cap_funcs) {
        size_t old_cap = g_cap_funcs, cap = old_cap ? 2 * old_cap : 1024;
        param_info *old = g_funcs, *nf = calloc(cap, sizeof *nf);
        if (!nf)
            return NULL;
        g_funcs = nf;
        g_cap_funcs = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].f)
                g_funcs[func_slot(old[i].f)] = old[i];
        free(old);
    }
    size_t s = func_slot(f);
    param_info *p = &g_funcs[s];
    if (p->f)
        return p->n == UINT32_MAX ? NULL : p;
    p->f = f;
    p->n = UINT32_MAX;
    g_n_funcs++;
    size_t o = 0, z = 0;
    CUresult r = cuFuncGetParamInfo(f, 0, &o, &z);
    if (r != CUDA_SUCCESS) {
        CUresult rk = cuKernelGetParamInfo((CUkernel)f, 0, &o, &z);
        if (rk == CUDA_SUCCESS) {
            p->via_kernel = 1;
            r = CUDA_SUCCESS;
        } else if (r == CUDA_ERROR_INVALID_VALUE && rk == CUDA_ERROR_INVALID_VALUE) {
            g_layouts_empty++; /* no parameters, or a handle neither API reads */
            p->n = 0;
            return p;
        } else {
            *first_error = r;
            g_layouts_unknown++;
            return NULL;
        }
    }
    uint32_t cap = 16, n = 0;
    uint32_t *off = malloc(cap * sizeof *off), *sz = malloc(cap * sizeof *sz);
    for (;;) {
        if (n > 0)
            r = param_info_at(f, p->via_kernel, n, &o, &z);
        if (r == CUDA_ERROR_INVALID_VALUE)
            break; /* past the last parameter */
        if (r != CUDA_SUCCESS || !off || !sz || n >= 4096) {
            free(off);
            free(sz);
            *first_error = r;
            g_layouts_unknown++;
            return NULL;
        }
        if (n == cap) {
            cap *= 2;
            uint32_t *no = realloc(off, cap * sizeof *no), *ns = realloc(sz, cap * sizeof *ns);
            off = no ? no : off;
            sz = ns ? ns : sz;
            if (!no || !ns) {
                free(off);
                free(sz);
                g_layouts_unknown++;
                return NULL;
            }
        }
        off[n] = (uint32_t)o;
        sz[n] = (uint32_t)z;
        n++;
    }
    p->n = n;
    p->offset = off;
    p->size = sz;
    if (p->via_kernel)
        g_layouts_kernel++;
    else
        g_layouts_func++;
    return p;
}

void trc_callback_summary(void)
{
    char buf[160];
    pthread_mutex_lock(&g_func_lock);
    snprintf(buf, sizeof buf,
             "%llu by cuFuncGetParamInfo, %llu by cuKernelGetParamInfo, %llu without parameters "
             "(or unreadable), %llu unknown",
             (unsigned long long)g_layouts_func, (unsigned long long)g_layouts_kernel,
             (unsigned long long)g_layouts_empty, (unsigned long long)g_layouts_unknown);
    pthread_mutex_unlock(&g_func_lock);
    trc_out_info("param_layouts", buf);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)atomic_load(&g_failed_launches));
    trc_out_info("failed_launches", buf);
    pthread_mutex_lock(&g_map_lock);
    snprintf(buf, sizeof buf, "%llu descriptors encoded, %llu references found through them",
             (unsigned long long)g_tmap.inserted, (unsigned long long)atomic_load(&g_tma_refs));
    pthread_mutex_unlock(&g_map_lock);
    trc_out_info("tma_descriptors", buf);
}

/* ---- the scan ---- */

typedef struct ptr_set {
    uint64_t v[MAX_PTRS];
    uint32_t n;
} ptr_set;

/* The driver launch between its ENTER and EXIT callbacks (one per thread: launches nest only
 * runtime-over-driver). */
static _Thread_local struct {
    ptr_set ptrs;
    uint64_t ts;
    uint32_t corr, rt_corr, n_params;
    int pending;
} tls_launch;

static void add_ptr(ptr_set *out, uint64_t v)
{
    uint32_t i = 0;
    while (i < out->n && out->v[i] != v)
        i++;
    if (i == out->n && out->n < MAX_PTRS)
        out->v[out->n++] = v;
}

/* Called with g_map_lock held. */
static void scan_bytes(const uint8_t *p, size_t len, ptr_set *out)
{
    for (size_t off = 0; off + 8 <= len && out->n < MAX_PTRS; off += 8) {
        uint64_t v;
        memcpy(&v, p + off, 8);
        if (map_hit(v))
            add_ptr(out, v);
    }
    /* operands hidden in TMA descriptors (64-byte aligned, 128 bytes) */
    for (size_t off = 0; g_tmap.n && off + TRC_TMAP_BYTES <= len && out->n < MAX_PTRS;
         off += 64) {
        uint64_t v = trc_tmap_lookup(&g_tmap, p + off);
        if (v && map_hit(v)) {
            add_ptr(out, v);
            atomic_fetch_add(&g_tma_refs, 1);
        }
    }
}

/* A host-encoded TMA descriptor: remember which address it carries. */
static void note_tensor_map(const void *desc, const void *addr)
{
    if (!desc || !addr)
        return;
    pthread_mutex_lock(&g_map_lock);
    trc_tmap_insert(&g_tmap, desc, (uint64_t)(uintptr_t)addr);
    pthread_mutex_unlock(&g_map_lock);
}

/* Scans a launch's arguments (kernelParams or the packed `extra` buffer) into out. */
/* Scans a launch's arguments into out; returns the parameter count used (UINT32_MAX: the
 * layout is unknown and nothing was scanned). */
static uint32_t scan_launch(CUfunction f, void **params, void **extra, ptr_set *out)
{
    out->n = 0;
    uint32_t used = UINT32_MAX;
    if (params && f) {
        CUresult why = CUDA_SUCCESS;
        pthread_mutex_lock(&g_func_lock);
        const param_info *pi = func_params(f, &why);
        uint32_t n = pi ? pi->n : 0;
        /* copy the layout so the scan runs without the function lock */
        uint32_t sizes[512];
        if (n > 512)
            n = 512;
        for (uint32_t i = 0; i < n; i++)
            sizes[i] = pi->size[i];
        pthread_mutex_unlock(&g_func_lock);
        if (!pi && !g_warned_params) {
            g_warned_params = 1;
            trc_status("cuFuncGetParamInfo and cuKernelGetParamInfo failed for a kernel (CUDA "
                       "error %d); its arguments are not scanned", (int)why);
        }
        used = pi ? n : UINT32_MAX;
        size_t budget = MAX_PARAM_SCAN;
        pthread_mutex_lock(&g_map_lock);
        for (uint32_t i = 0; i < n && budget > 0; i++) {
            size_t len = sizes[i] < budget ? sizes[i] : budget;
            if (params[i] && len >= 8)
                scan_bytes(params[i], len, out);
            budget -= len;
        }
        pthread_mutex_unlock(&g_map_lock);
    } else if (extra) {
        const uint8_t *buf = NULL;
        size_t len = 0;
        for (int i = 0; i < 64 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
            if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                buf = extra[i + 1];
            else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
                len = *(const size_t *)extra[i + 1];
        }
        if (buf) {
            pthread_mutex_lock(&g_map_lock);
            scan_bytes(buf, len < MAX_PARAM_SCAN ? len : MAX_PARAM_SCAN, out);
            pthread_mutex_unlock(&g_map_lock);
            used = 0;
        }
    }
    return used;
}

/* GMS_TRACER_DEBUG=1: the first launches, one line each on stderr, to see on a first GPU run
 * which path launches take and whether their arguments are read. */
static void debug_launch(const char *path, uint32_t cbid, const void *f, uint32_t n_params,
                         const ptr_set *ptrs, uint32_t corr, uint32_t rt_corr)
{
    if (g_debug_launches <= 0)
        return;
    g_debug_launches--; /* racy across threads: at worst a few lines more */
    char n[16];
    if (n_params == UINT32_MAX)
        snprintf(n, sizeof n, "unknown");
    else
        snprintf(n, sizeof n, "%u", n_params);
    fprintf(stderr,
            "gpumemsim-tracer: debug: launch %s cbid=%u handle=%p params=%s pointers=%u corr=%u "
            "runtime_corr=%u\n",
            path, cbid, f, n, ptrs->n, corr, rt_corr);
}

static void write_launch(uint64_t ts, uint32_t corr, uint32_t rt_corr, const ptr_set *ptrs,
                         uint32_t n_params)
{
    trc_rec r;
    memset(&r, 0, sizeof r);
    r.type = TRC_REC_LAUNCH;
    r.ts = ts;
    r.corr = corr;
    r.corr2 = rt_corr;
    r.thread = trc_thread_id();
    r.n_ptrs = ptrs->n;
    r.ptrs = ptrs->v;
    r.aux = n_params; /* UINT32_MAX: layout unknown, arguments not scanned */
    trc_out_write(&r);
}

/* The device name and memory, once, from the first launch (an API call on a live context). */
static void note_device(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    CUdevice dev;
    char name[256], buf[64];
    size_t mem = 0;
    if (cuCtxGetDevice(&dev) != CUDA_SUCCESS)
        return;
    if (cuDeviceGetName(name, sizeof name, dev) == CUDA_SUCCESS)
        trc_out_info("device", name);
    if (cuDeviceTotalMem(&mem, dev) == CUDA_SUCCESS) {
        snprintf(buf, sizeof buf, "%zu", mem);
        trc_out_info("device_memory", buf);
    }
    int drv = 0;
    if (cuDriverGetVersion(&drv) == CUDA_SUCCESS) {
        snprintf(buf, sizeof buf, "%d.%d", drv / 1000, (drv % 1000) / 10);
        trc_out_info("cuda_driver", buf);
    }
}

static void on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    const void *a = cb->functionParams;
    int enter = cb->callbackSite == CUPTI_API_ENTER;
    int ok = !enter && cb->functionReturnValue &&
             *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
    CUfunction f = NULL;
    void **params = NULL, **extra = NULL;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *p = a;
        f = p->f, params = p->kernelParams, extra = p->extra;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = a;
        f = p->f, params = p->kernelParams, extra = p->extra;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_params *p = a;
        f = p->f, params = p->kernelParams;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
        if (ok)
            api_alloc(*((const cuMemAlloc_v2_params *)a)->dptr,
                      ((const cuMemAlloc_v2_params *)a)->bytesize, TRC_MEM_DEVICE, 0);
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged:
        if (ok)
            api_alloc(*((const cuMemAllocManaged_params *)a)->dptr,
                      ((const cuMemAllocManaged_params *)a)->bytesize, TRC_MEM_MANAGED, 0);
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2:
        if (ok) {
            const cuMemAllocPitch_v2_params *p = a;
            api_alloc(*p->dptr, (uint64_t)*p->pPitch * p->Height, TRC_MEM_DEVICE, 0);
        }
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
        if (ok)
            api_alloc(*((const cuMemAllocAsync_params *)a)->dptr,
                      ((const cuMemAllocAsync_params *)a)->bytesize, TRC_MEM_DEVICE, 1);
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
        if (ok)
            api_alloc(*((const cuMemAllocFromPoolAsync_params *)a)->dptr,
                      ((const cuMemAllocFromPoolAsync_params *)a)->bytesize, TRC_MEM_DEVICE, 1);
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
        if (enter)
            api_free(((const cuMemFree_v2_params *)a)->dptr);
        else
            api_free_exit(((const cuMemFree_v2_params *)a)->dptr, ok);
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
        if (enter)
            api_free(((const cuMemFreeAsync_params *)a)->dptr);
        else
            api_free_exit(((const cuMemFreeAsync_params *)a)->dptr, ok);
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeTiled:
        if (ok)
            note_tensor_map(((const cuTensorMapEncodeTiled_params *)a)->tensorMap,
                            ((const cuTensorMapEncodeTiled_params *)a)->globalAddress);
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeIm2col:
        if (ok)
            note_tensor_map(((const cuTensorMapEncodeIm2col_params *)a)->tensorMap,
                            ((const cuTensorMapEncodeIm2col_params *)a)->globalAddress);
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeIm2colWide:
        if (ok)
            note_tensor_map(((const cuTensorMapEncodeIm2colWide_params *)a)->tensorMap,
                            ((const cuTensorMapEncodeIm2colWide_params *)a)->globalAddress);
        return;
    case CUPTI_DRIVER_TRACE_CBID_cuTensorMapReplaceAddress:
        if (ok)
            note_tensor_map(((const cuTensorMapReplaceAddress_params *)a)->tensorMap,
                            ((const cuTensorMapReplaceAddress_params *)a)->globalAddress);
        return;
    default:
        trc_copy_driver(cbid, cb);
        return;
    }
    /* Arguments are read at ENTER (the job may reuse them once the call returns), the LAUNCH
     * is written at EXIT and only when the launch succeeded (review D10: a failed launch is
     * no work), with the ENTER time. */
    if (!enter) {
        if (tls_launch.pending && tls_launch.corr == cb->correlationId) {
            tls_launch.pending = 0;
            if (ok)
                write_launch(tls_launch.ts, tls_launch.corr, tls_launch.rt_corr,
                             &tls_launch.ptrs, tls_launch.n_params);
            else
                atomic_fetch_add(&g_failed_launches, 1);
        }
        /* seen by the driver: a runtime fallback now would record the launch twice (aux
         * says whether it was scanned, and "param_layouts" counts the unknown layouts) */
        tls_driver_launched = 1;
        return;
    }
    note_device();
    cuptiGetTimestamp(&tls_launch.ts);
    tls_launch.n_params = scan_launch(f, params, extra, &tls_launch.ptrs);
    tls_launch.corr = cb->correlationId;
    tls_launch.rt_corr = tls_rt_corr;
    tls_launch.pending = 1;
    debug_launch("driver", cbid, (const void *)f, tls_launch.n_params, &tls_launch.ptrs,
                 cb->correlationId, tls_rt_corr);
}

static int is_runtime_launch(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000;
}

/* The parameters of CUDA 13's __cudaLaunchKernel (what nvcc-generated launch stubs call); the
 * CUPTI headers have no struct for them, so this mirrors its signature in
 * crt/device_functions.h, as CUPTI's parameter structs mirror their functions. */
typedef struct launch_kernel_v13000_params {
    cudaKernel_t kernel;
    dim3 gridDim;
    dim3 blockDim;
    void **args;
    size_t sharedMem;
    cudaStream_t stream;
} launch_kernel_v13000_params;

static pthread_once_t g_get_func_once = PTHREAD_ONCE_INIT;
static cudaError_t (*get_func)(cudaFunction_t *, const void *);

/* The global libcudart's cudaGetFuncBySymbol, if any (it cannot resolve host stubs of the
 * static cudart inside cuBLAS/cuDNN/NCCL: those need the driver callback). */
static void look_up_get_func(void)
{
    *(void **)&get_func = dlsym(RTLD_DEFAULT, "cudaGetFuncBySymbol");
}

/* A runtime launch the driver callback did not see: scan its arguments here. */
static void runtime_fallback(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    static int warned;
    const void *func = NULL;
    void **args = NULL;
    CUfunction kfunc = NULL;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000) {
        const launch_kernel_v13000_params *p = cb->functionParams;
        args = p->args;
        if (!p->kernel || cuKernelGetFunction(&kfunc, (CUkernel)p->kernel) != CUDA_SUCCESS)
            kfunc = NULL;
    } else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000) {
        const cudaLaunchKernel_v7000_params *p = cb->functionParams;
        func = p->func, args = p->args;
    } else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060) {
        const cudaLaunchKernelExC_v11060_params *p = cb->functionParams;
        func = p->func, args = p->args;
    } else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000 ||
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000) {
        const cudaLaunchCooperativeKernel_v9000_params *p = cb->functionParams;
        func = p->func, args = p->args;
    }
    pthread_once(&g_get_func_once, look_up_get_func); /* no thread sees it half-set */
    cudaFunction_t f = (cudaFunction_t)kfunc;
    if (!f && (!func || !get_func || get_func(&f, func) != cudaSuccess))
        f = NULL;
    if (!f && !warned) {
        warned = 1;
        trc_status("a runtime kernel launch reached no driver launch callback and its function "
                   "could not be resolved; such kernels get no argument references");
    }
    if (!cb->functionReturnValue || *(const cudaError_t *)cb->functionReturnValue != cudaSuccess) {
        atomic_fetch_add(&g_failed_launches, 1); /* no work was launched (D10) */
        return;
    }
    ptr_set ptrs;
    uint64_t ts = 0;
    cuptiGetTimestamp(&ts);
    uint32_t n_params = scan_launch((CUfunction)f, args, NULL, &ptrs);
    debug_launch("runtime", cbid, (const void *)f, n_params, &ptrs, cb->correlationId,
                 cb->correlationId);
    write_launch(ts, cb->correlationId, cb->correlationId, &ptrs, n_params);
}

static void on_runtime(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    int enter = cb->callbackSite == CUPTI_API_ENTER;
    if (is_runtime_launch(cbid)) {
        /* runtime launches can nest (__cudaLaunchKernel -> cudaLaunchKernel): one kernel, so
         * the fallback runs once, at the outermost EXIT (review D7) */
        if (enter) {
            if (tls_rt_depth++ == 0)
                tls_driver_launched = 0;
            tls_rt_corr = cb->correlationId;
        } else {
            if (tls_rt_depth > 0)
                tls_rt_depth--;
            if (tls_rt_depth == 0) {
                if (!tls_driver_launched)
                    runtime_fallback(cbid, cb);
                tls_driver_launched = 1;
                tls_rt_corr = 0;
            }
        }
        return;
    }
    if (trc_copy_runtime(cbid, cb))
        return;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020) {
        uint64_t base = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020
                            ? (uint64_t)(uintptr_t)((const cudaFree_v3020_params *)cb->functionParams)->devPtr
                            : (uint64_t)(uintptr_t)((const cudaFreeAsync_v11020_params *)cb->functionParams)->devPtr;
        if (enter)
            api_free(base);
        else
            api_free_exit(base, cb->functionReturnValue &&
                                    *(const cudaError_t *)cb->functionReturnValue == cudaSuccess);
        return;
    }
    if (enter || !cb->functionReturnValue ||
        *(const cudaError_t *)cb->functionReturnValue != cudaSuccess)
        return;
    const void *a = cb->functionParams;
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020:
        api_alloc((uint64_t)(uintptr_t) * ((const cudaMalloc_v3020_params *)a)->devPtr,
                  ((const cudaMalloc_v3020_params *)a)->size, TRC_MEM_DEVICE, 0);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020:
        api_alloc((uint64_t)(uintptr_t) * ((const cudaMallocAsync_v11020_params *)a)->devPtr,
                  ((const cudaMallocAsync_v11020_params *)a)->size, TRC_MEM_DEVICE, 1);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020:
        api_alloc((uint64_t)(uintptr_t) * ((const cudaMallocFromPoolAsync_v11020_params *)a)->ptr,
                  ((const cudaMallocFromPoolAsync_v11020_params *)a)->size, TRC_MEM_DEVICE, 1);
        break;
    default:
        break;
    }
}

static void CUPTIAPI on_api(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                            const void *data)
{
    (void)userdata;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
        on_driver(cbid, data);
    else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
        on_runtime(cbid, data);
}

int trc_callback_start(void)
{
    const char *dbg = getenv("GMS_TRACER_DEBUG");
    g_debug_launches = dbg && *dbg && strcmp(dbg, "0") != 0 ? 20 : 0;
    CUptiResult res = cuptiSubscribe(&g_sub, on_api, NULL);
    if (res != CUPTI_SUCCESS) {
        const char *s = "?";
        cuptiGetResultString(res, &s);
        trc_status("cannot subscribe to CUPTI callbacks: %s%s", s,
                   res == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                       ? " (another profiler such as nsys or the PyTorch profiler is attached; "
                         "kernel arguments are not scanned, so the trace has no tensor "
                         "references)"
                       : "");
        return -1;
    }
    g_subscribed = 1;
    static const CUpti_CallbackId driver[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
        CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
        CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
        CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeTiled,
        CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeIm2col,
        CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeIm2colWide,
        CUPTI_DRIVER_TRACE_CBID_cuTensorMapReplaceAddress,
    };
    static const CUpti_CallbackId runtime[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
        CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
        CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020,
        CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020,
        CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020,
        CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020,
        CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020,
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof driver / sizeof driver[0]; i++)
        failed |= cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API, driver[i]) !=
                  CUPTI_SUCCESS;
    for (size_t i = 0; i < sizeof runtime / sizeof runtime[0]; i++)
        failed |= cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API, runtime[i]) !=
                  CUPTI_SUCCESS;
    for (size_t i = 0; i < trc_copy_driver_count; i++)
        failed |= cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API,
                                      trc_copy_driver_ids[i]) != CUPTI_SUCCESS;
    for (size_t i = 0; i < trc_copy_runtime_count; i++)
        failed |= cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                                      trc_copy_runtime_ids[i]) != CUPTI_SUCCESS;
    if (failed)
        trc_status("some CUPTI launch/allocation callbacks could not be enabled; references "
                   "may be missing");
    return 0;
}

void trc_callback_stop(void)
{
    if (g_subscribed)
        cuptiUnsubscribe(g_sub);
    g_subscribed = 0;
}
