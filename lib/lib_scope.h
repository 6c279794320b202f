/*
 * lib_scope: makes libgpumemsim.so's symbols visible to the policy plugins it loads.
 *
 * A plugin resolves sim_view_* from the global symbol scope. In the CLI that is the
 * executable; a program linked against libgpumemsim.so has the library there too; but a
 * binding loaded with RTLD_LOCAL (a Python extension module) does not, and its plugins would
 * fail to load with "undefined symbol: sim_view_size". Compiled into the shared library only
 * (GMS_SHARED_LIBRARY); plugin.c calls it before its first dlopen.
 */
#ifndef GMS_LIB_SCOPE_H
#define GMS_LIB_SCOPE_H

/* Re-opens this library with RTLD_GLOBAL (once; best effort, as a failure only shows later
 * as the loader's own "undefined symbol" message). */
void gms_lib_export_to_plugins(void);

#endif
