/*
 * gpumemsim.h: the API of libgpumemsim.so (docs/plugins.md, "The library"), for programs and
 * bindings that load traces and run simulations. Link with
 * `pkg-config --cflags --libs gpumemsim`.
 *
 *   sim.h        load a trace, run it under a budget with a policy, read the result
 *   policy.h     the eviction-policy interface and the sim_view_* functions a policy reads
 *   memory.h     choose a memory model by name (sim_memory_find, sim_memory_parse_conf;
 *                the library exports only those and sim_memory_names/_options_init)
 *   registry.h   the built-in policies by name
 *   catalog.h    every name --policy takes (policies, planners, solved schedules) and the
 *                unknown-policy message
 *   plugin.h     a policy by name or plugin path (pol_resolve) and its run-key identity
 *   gms_error.h  the error carrier every function fills in
 *
 * Not exported: sim_trace_builder_* (they take gmt.h's events, which are not installed) and
 * everything the headers above do not declare.
 */
#ifndef GPUMEMSIM_H
#define GPUMEMSIM_H

#include "catalog.h"
#include "gms_error.h"
#include "link.h"
#include "memory.h"
#include "planners.h"
#include "plugin.h"
#include "policy.h"
#include "registry.h"
#include "sim.h"
#include "sim_peak.h"
#include "sim_plan_report.h"

#endif
