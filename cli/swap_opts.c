/* swap_opts: --link and --host-memory (see swap_opts.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "link.h"
#include "planner.h"
#include "policy.h"
#include "swap_opts.h"

static int swaps(const sim_config *cfg)
{
    return cfg->policy && (cfg->policy->needs & SIM_NEEDS_SWAP);
}

static void cfg_link(const sim_config *cfg, sim_link *l)
{
    if (cfg->link_gbps > 0)
        *l = (sim_link){cfg->link_gbps, cfg->link_latency_ns};
    else
        sim_link_default(l);
}

int swap_opts_parse(const char *cmd, const swap_opts *o, sim_link *link, uint64_t *host)
{
    if (o->link) {
        gms_error err = {0};
        if (sim_link_parse(o->link, link, &err)) {
            cli_error(cmd, "--link: %s", err.msg);
            return 2;
        }
    }
    if (o->host) {
        if (cli_parse_bytes(o->host, host) || *host == 0) {
            cli_error(cmd, "--host-memory '%s' must be a positive byte count below 16EiB "
                           "(64GiB, 500MB)",
                      o->host);
            return 2;
        }
    }
    return 0;
}

int swap_opts_apply(const char *cmd, const swap_opts *o, sim_config *cfg)
{
    sim_link l;
    uint64_t host;
    if (swap_opts_parse(cmd, o, &l, &host))
        return 2;
    if (o->link) {
        cfg->link_gbps = l.gbps;
        cfg->link_latency_ns = l.latency_ns;
    }
    if (o->host)
        cfg->host_memory = host;
    return 0;
}

int swap_opts_check(const char *cmd, const swap_opts *o, const sim_config *cfg,
                    const sim_trace *t)
{
    if (!swaps(cfg)) {
        if (o->link || o->host) {
            cli_error(cmd, "%s: policy %s never swaps to host memory; use a swapping policy "
                           "(swap-lru, hybrid; see --list-policies) or drop the option",
                      o->link ? "--link" : "--host-memory",
                      cfg->planner ? cfg->planner->name : cfg->policy->name);
            return 2;
        }
        return 0;
    }
    uint64_t smallest = sim_trace_smallest_storage(t);
    if (cfg->host_memory != UINT64_MAX && cfg->host_memory < smallest) {
        char b1[64], b2[64];
        cli_error(cmd, "--host-memory %s is smaller than the smallest tensor the trace could "
                       "swap (%s): nothing would ever fit; give at least that much",
                  cli_format_bytes(cfg->host_memory, b1, sizeof b1),
                  cli_format_bytes(smallest, b2, sizeof b2));
        return 2;
    }
    return 0;
}

void swap_opts_params(const sim_config *cfg, char *buf, size_t len)
{
    buf[0] = 0;
    if (!swaps(cfg) || len == 0)
        return;
    sim_link l;
    cfg_link(cfg, &l);
    int n = sim_link_format(&l, buf, len);
    if (cfg->host_memory != UINT64_MAX && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ",host=%llu", (unsigned long long)cfg->host_memory);
}

static double util(uint64_t busy, uint64_t clock)
{
    double u = clock ? (double)busy / (double)clock : 0;
    return u > 1 ? 1 : u;
}

void swap_opts_print_json(const sim_config *cfg, const sim_result *r)
{
    if (!swaps(cfg))
        return;
    sim_link l;
    cfg_link(cfg, &l);
    char g[32], h[32], u1[32], u2[32];
    if (cfg->host_memory == UINT64_MAX)
        snprintf(h, sizeof h, "null");
    else
        snprintf(h, sizeof h, "%llu", (unsigned long long)cfg->host_memory);
    printf(", \"swap\": {\"link_gbps\": %s, \"link_latency_ns\": %llu, \"host_memory\": %s, "
           "\"swaps_out\": %llu, \"swaps_in\": %llu, \"swap_out_bytes\": %llu, "
           "\"swap_in_bytes\": %llu, \"prefetches\": %llu, \"fallbacks\": %llu, "
           "\"stall_ns\": %llu, \"d2h_busy_ns\": %llu, \"h2d_busy_ns\": %llu, "
           "\"d2h_utilization\": %s, \"h2d_utilization\": %s, \"host_peak\": %llu}",
           cli_shortest_double(l.gbps, g, sizeof g), (unsigned long long)l.latency_ns, h,
           (unsigned long long)r->swaps_out, (unsigned long long)r->swaps_in,
           (unsigned long long)r->swap_out_bytes, (unsigned long long)r->swap_in_bytes,
           (unsigned long long)r->prefetches, (unsigned long long)r->swap_fallbacks,
           (unsigned long long)r->stall_ns, (unsigned long long)r->d2h_busy_ns,
           (unsigned long long)r->h2d_busy_ns,
           cli_shortest_double(util(r->d2h_busy_ns, r->clock), u1, sizeof u1),
           cli_shortest_double(util(r->h2d_busy_ns, r->clock), u2, sizeof u2),
           (unsigned long long)r->host_peak);
}

void swap_opts_print_text(const sim_config *cfg, const sim_result *r)
{
    if (!swaps(cfg))
        return;
    sim_link l;
    cfg_link(cfg, &l);
    char b1[64], b2[64], b3[64];
    printf("link             %g GB/s per direction, %llu ns per copy; host memory %s\n", l.gbps,
           (unsigned long long)l.latency_ns,
           cfg->host_memory == UINT64_MAX ? "unlimited"
                                          : cli_format_bytes(cfg->host_memory, b1, sizeof b1));
    printf("swapped          %llu out (%s), %llu in (%s), %llu prefetched, %llu dropped for "
           "want of host memory\n",
           (unsigned long long)r->swaps_out, cli_format_bytes(r->swap_out_bytes, b2, sizeof b2),
           (unsigned long long)r->swaps_in, cli_format_bytes(r->swap_in_bytes, b3, sizeof b3),
           (unsigned long long)r->prefetches, (unsigned long long)r->swap_fallbacks);
    printf("stall            %llu ns (compute waiting for copies)\n",
           (unsigned long long)r->stall_ns);
    printf("copy engines     device-to-host busy %.1f%%, host-to-device busy %.1f%%; host peak "
           "%s\n",
           100 * util(r->d2h_busy_ns, r->clock), 100 * util(r->h2d_busy_ns, r->clock),
           cli_format_bytes(r->host_peak, b1, sizeof b1));
}
