/* fake_driver: does what the CUDA driver does with CUDA_INJECTION64_PATH (dlopen the library,
 * call InitializeInjection), then exits normally. Run against the toolkit's stub libcuda, every
 * CUPTI call in the real tracer library fails: the tracer must report that and let the job
 * finish (exit status 0 here), never crash it. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_export_table_asked;

/* What an NVTX loader hands over: CUPTI asks it for NVTX's export tables. None here. */
static const void *get_export_table(const void *uuid)
{
    (void)uuid;
    g_export_table_asked++;
    return NULL;
}

int main(void)
{
    const char *lib = getenv("CUDA_INJECTION64_PATH");
    if (!lib) {
        fprintf(stderr, "fake_driver: CUDA_INJECTION64_PATH is not set\n");
        return 90;
    }
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "fake_driver: dlopen: %s\n", dlerror());
        return 91;
    }
    int (*init)(void) = (int (*)(void))dlsym(h, "InitializeInjection");
    if (!init) {
        fprintf(stderr, "fake_driver: no InitializeInjection in %s\n", lib);
        return 92;
    }
    printf("InitializeInjection returned %d\n", init());
    /* then what an NVTX loader does with NVTX_INJECTION64_PATH */
    const char *nvtx = getenv("NVTX_INJECTION64_PATH");
    printf("NVTX_INJECTION64_PATH=%s\n", nvtx ? nvtx : "");
    if (nvtx && *nvtx) {
        void *hn = dlopen(nvtx, RTLD_NOW | RTLD_LOCAL);
        int (*nvtx_init)(const void *(*)(const void *)) = NULL;
        if (hn)
            *(void **)&nvtx_init = dlsym(hn, "InitializeInjectionNvtx2");
        if (nvtx_init) {
            int r = nvtx_init(get_export_table);
            printf("InitializeInjectionNvtx2 returned %d, export table asked %d times\n", r,
                   g_export_table_asked);
        } else {
            printf("no InitializeInjectionNvtx2 in %s\n", nvtx);
        }
    }
    fflush(stdout);
    /* FAKE_DRIVER_END: "exit N" or "signal N", how the job ends */
    const char *end = getenv("FAKE_DRIVER_END");
    if (end && strncmp(end, "exit ", 5) == 0)
        exit(atoi(end + 5));
    if (end && strncmp(end, "signal ", 7) == 0)
        raise(atoi(end + 7));
    return 0;
}
