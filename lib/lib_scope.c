/* lib_scope: see lib_scope.h. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>

#include "lib_scope.h"

void gms_lib_export_to_plugins(void)
{
    static int done; /* plugin.c calls this under its lock */
    if (done)
        return;
    done = 1;
    Dl_info info;
    if (dladdr((void *)&gms_lib_export_to_plugins, &info) && info.dli_fname)
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL); /* kept open */
}
