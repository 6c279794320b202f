/* fake_driver: does what the CUDA driver does with CUDA_INJECTION64_PATH (dlopen the library,
 * call InitializeInjection), then exits normally. Run against the toolkit's stub libcuda, every
 * CUPTI call in the real tracer library fails: the tracer must report that and let the job
 * finish (exit status 0 here), never crash it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

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
    return 0;
}
