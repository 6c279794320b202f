/* link: presets and the copy-time formula (see link.h; sources in docs/swap.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"

/* Bandwidth: the x16 link's data rate per direction after line coding (PCI-SIG: 8, 16, 32
 * GT/s with 128b/130b), NVIDIA's 900 GB/s bidirectional for NVLink-C2C. Latency: AutoSwap's
 * measured fixed cost of a pinned host-to-device copy (9.7 us, rounded) for PCIe; NVLink-C2C's
 * is our assumption (docs/swap.md). */
static const struct {
    const char *name;
    sim_link link;
} presets[] = {
    {"pcie3", {15.75, 10000}},
    {"pcie4", {31.5, 10000}},
    {"pcie5", {63.0, 10000}},
    {"nvlink-c2c", {450.0, 2000}},
};
#define N_PRESETS (sizeof presets / sizeof presets[0])

void sim_link_default(sim_link *out)
{
    *out = presets[1].link;
}

const char *sim_link_preset_names(void)
{
    return "pcie3, pcie4, pcie5, nvlink-c2c";
}

int sim_link_parse(const char *spec, sim_link *out, gms_error *err)
{
    if (!spec || !*spec)
        return gms_error_set(err, GMS_EINVAL, "empty link: give a preset (%s) or GBPS[,LATENCY_US]",
                             sim_link_preset_names());
    for (size_t i = 0; i < N_PRESETS; i++)
        if (strcmp(spec, presets[i].name) == 0) {
            *out = presets[i].link;
            return 0;
        }
    char *end;
    errno = 0;
    double g = strtod(spec, &end);
    if (end == spec || (*end && *end != ',') || errno)
        return gms_error_set(err, GMS_EINVAL,
                             "unknown link '%s': give a preset (%s) or a bandwidth in GB/s with "
                             "an optional latency in us (16 or 16,10)",
                             spec, sim_link_preset_names());
    if (!isfinite(g) || g <= 0 || g > 1e6)
        return gms_error_set(err, GMS_EINVAL,
                             "link '%s': the bandwidth must be a positive number of GB/s (up to "
                             "1e6)", spec);
    if (g < 1e-6)
        return gms_error_set(err, GMS_EINVAL,
                             "link '%s': a bandwidth below 1e-6 GB/s (1 kB/s) is no link", spec);
    double lat_us = 0;
    if (*end == ',') {
        const char *l = end + 1;
        errno = 0;
        lat_us = strtod(l, &end);
        if (end == l || *end || errno || !isfinite(lat_us) || lat_us < 0 || lat_us > 1e9)
            return gms_error_set(err, GMS_EINVAL,
                                 "link '%s': the latency after the comma must be a number of "
                                 "microseconds >= 0 (16,10 = 16 GB/s with 10 us per copy)", spec);
    }
    out->gbps = g;
    out->latency_ns = (uint64_t)llround(lat_us * 1000.0);
    return 0;
}

uint64_t sim_link_copy_ns(const sim_link *l, uint64_t bytes)
{
    /* bytes / (GB/s) is ns; ceil so that no copy is free; saturated (a copy of centuries) so
     * that an absurdly slow link cannot overflow the clock */
    const double cap = 1e18;
    double t = ceil((double)bytes / l->gbps);
    uint64_t lat = l->latency_ns < (uint64_t)cap ? l->latency_ns : (uint64_t)cap;
    return lat + (uint64_t)(t < cap ? t : cap);
}

int sim_link_format(const sim_link *l, char *buf, size_t len)
{
    char g[32];
    for (int p = 1; p <= 17; p++) { /* shortest round-trip */
        snprintf(g, sizeof g, "%.*g", p, l->gbps);
        if (strtod(g, NULL) == l->gbps)
            break;
    }
    return snprintf(buf, len, "link=%sGBps/%lluns", g, (unsigned long long)l->latency_ns);
}
