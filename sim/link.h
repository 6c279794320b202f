/*
 * link: the model of the device <-> host link that swap copies cross (docs/swap.md). A copy
 * of B bytes takes latency + B / bandwidth on its engine; both directions have the same
 * figures and run independently (PCIe and NVLink-C2C are full duplex).
 */
#ifndef SIM_LINK_H
#define SIM_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

typedef struct sim_link {
    double gbps;         /* GB/s per direction (1 GB = 1e9 bytes), > 0 */
    uint64_t latency_ns; /* fixed cost of each copy */
} sim_link;

/* The default link when a swapping run names none: pcie4. */
void sim_link_default(sim_link *out);

/* Parses "NAME" (a preset: pcie3, pcie4, pcie5, nvlink-c2c) or "GBPS[,LATENCY_US]"
 * (16, 12.5,10). Errors say what is wrong and list the presets. */
int sim_link_parse(const char *spec, sim_link *out, gms_error *err);

/* "pcie3, pcie4, pcie5, nvlink-c2c" */
const char *sim_link_preset_names(void);

/* The time in ns one copy of `bytes` takes on an idle engine: latency + ceil(bytes / gbps). */
uint64_t sim_link_copy_ns(const sim_link *l, uint64_t bytes);

/* Canonical text for run keys and reports: "link=32GBps/10000ns" (shortest round-trip
 * bandwidth). Returns what snprintf returns. */
int sim_link_format(const sim_link *l, char *buf, size_t len);

#endif
