/*
 * gpumemsim memcheck: replays a Kineto trace's [memory] events through a memory model and
 * compares the model, event by event, with the real allocator's own Total Allocated and Total
 * Reserved (docs/memory.md: "Validation against the real allocator").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kineto_mem.h"
#include "memory.h"
#include "registry.h"
#include "sim.h"
#include "snapshot_cli.h"

static const char *const CMD = "memcheck";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim memcheck KINETO_TRACE [--allocator NAME] [--alloc-conf CONF]\n"
            "                          [--json]\n"
            "       gpumemsim memcheck SNAPSHOT [--alloc-conf CONF]... [--device-memory BYTES]\n"
            "                          [--device N] [--cold] [--json]\n"
            "\n"
            "Replays the [memory] events of a Kineto trace (torch.profiler with\n"
            "profile_memory=True; plain or .gz) through a memory model, as the allocation-only\n"
            "trace that 'gpumemsim info' shows, and compares after every event the model's\n"
            "allocated bytes and reserved bytes with the real allocator's own Total Allocated\n"
            "and Total Reserved. Prints how many events agree exactly, the distribution of the\n"
            "relative error of reserved bytes, and both at the recorded peak. Exit 0 when the\n"
            "replay ran (whatever the agreement), 1 on bad input.\n"
            "\n"
            "  --allocator NAME    the model (default caching; also lifetime, ideal)\n"
            "  --alloc-conf CONF   its settings, as PYTORCH_CUDA_ALLOC_CONF\n"
            "                      (max_split_size_mb:N) when the job ran with them\n"
            "  --json              one JSON object instead of the text report\n"
            "\n"
            "A PyTorch memory snapshot (torch.cuda.memory._dump_snapshot, a pickle; plain or\n"
            "gzip) is replayed through the caching model directly (docs/memory.md):\n"
            "the exact check seeds the model with the segments and blocks the allocator held\n"
            "before the first event and compares every allocation's segment and offset,\n"
            "reserved and requested bytes, and the final segments, naming the first event\n"
            "where model and reality part with its stack; the cold start replays from the\n"
            "live blocks only and predicts the peak reserved bytes. With --alloc-conf\n"
            "(repeatable) a table compares the settings' peak reserved bytes, largest free\n"
            "block and fragmentation (cold start each).\n"
            "  --alloc-conf CONF   a setting to try (expandable_segments:True,\n"
            "                      max_split_size_mb:N, roundup_power2_divisions:N,\n"
            "                      garbage_collection_threshold:F), repeatable\n"
            "  --device-memory BYTES  the device's memory (24GiB): each replay stops at the\n"
            "                      first allocation that does not fit and names it\n"
            "  --device N          the device trace to replay (default: the one with the\n"
            "                      most events)\n"
            "  --cold              skip the exact check\n"
            "  --json              one JSON object of the same figures (docs/memory.md)\n"
            "\n"
            "example:\n"
            "  gpumemsim memcheck snap.pickle --alloc-conf expandable_segments:True \\\n"
            "      --device-memory 24GiB\n");
}

typedef struct sample {
    uint64_t memory, reserved, allocated;
} sample;

typedef struct collect_ctx {
    sample *s;
    size_t n, cap;
    int oom;
} collect_ctx;

/* Every op (an allocation) and every free, in order. */
static void observe(void *vctx, const sim_event *ev)
{
    collect_ctx *c = vctx;
    if (ev->kind != SIM_EV_COMPUTE && ev->kind != SIM_EV_EVICT_EAGER)
        return;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 4096;
        sample *p = realloc(c->s, cap * sizeof *p);
        if (!p) {
            c->oom = 1;
            return;
        }
        c->s = p;
        c->cap = cap;
    }
    c->s[c->n++] = (sample){ev->memory, ev->reserved, ev->allocated};
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(const double *v, size_t n, double q)
{
    size_t i = (size_t)floor(q * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

int cmd_memcheck(int argc, char **argv)
{
    const char *path = NULL, *allocator = "caching", *conf = NULL;
    const char *confs[8];
    int json = 0, nconf = 0, device = -1, cold = 0, snap_only = 0;
    uint64_t device_memory = UINT64_MAX;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (cli_is_help(a)) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--allocator") == 0 && v) {
            allocator = v;
            i++;
        } else if (strcmp(a, "--alloc-conf") == 0 && v) {
            if (nconf == 8) {
                cli_error(CMD, "at most 8 --alloc-conf settings at once");
                return 2;
            }
            conf = confs[nconf++] = v;
            i++;
        } else if (strcmp(a, "--device-memory") == 0 && v) {
            if (cli_parse_bytes(v, &device_memory) || device_memory == 0) {
                cli_error(CMD, "--device-memory %s: not a byte count (e.g. 24GiB, 80GB)", v);
                return 2;
            }
            snap_only = 1;
            i++;
        } else if (strcmp(a, "--device") == 0 && v) {
            char *end;
            long dv = strtol(v, &end, 10);
            if (*end || end == v || dv < 0 || dv > 4096) {
                cli_error(CMD, "--device %s: not a device number (0, 1, ...)", v);
                return 2;
            }
            device = (int)dv;
            snap_only = 1;
            i++;
        } else if (strcmp(a, "--cold") == 0) {
            cold = 1;
            snap_only = 1;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (a[0] == '-' && a[1]) {
            cli_error(CMD, "unknown option or missing value '%s' (see gpumemsim memcheck --help)",
                      a);
            return 2;
        } else if (path) {
            cli_error(CMD, "one trace at a time ('%s' and '%s')", path, a);
            return 2;
        } else {
            path = a;
        }
    }
    if (!path) {
        cli_error(CMD, "no trace given (usage: gpumemsim memcheck KINETO_TRACE or SNAPSHOT)");
        return 2;
    }
    if (snap_sniff(path)) {
        if (strcmp(allocator, "caching") != 0) {
            cli_error(CMD, "%s is a PyTorch memory snapshot: --allocator applies to Kineto "
                      "traces (a snapshot is replayed by the caching model)", path);
            return 2;
        }
        return cli_memcheck_snapshot(path, confs, nconf, device_memory, device, cold, json);
    }
    if (snap_only || nconf > 1) {
        cli_error(CMD, "--device-memory, --device, --cold and several --alloc-conf apply to "
                  "PyTorch memory snapshots; %s is not one", path);
        return 2;
    }
    sim_config cfg;
    sim_config_init(&cfg);
    sim_memory_options opt;
    char key[128];
    gms_error err = {0};
    if (sim_memory_find(allocator, &cfg.allocator)) {
        cli_error(CMD, "unknown allocator '%s'; valid allocators: %s", allocator,
                  sim_memory_names());
        return 2;
    }
    if (sim_memory_parse_conf(&cfg.allocator, conf, &opt, key, sizeof key, &err)) {
        cli_error(CMD, "--alloc-conf: %s", err.msg);
        return 2;
    }
    cfg.allocator_options = &opt;
    if (!kmem_sniff(path)) {
        cli_error(CMD, "%s: not a Kineto/Chrome trace (a JSON object with traceEvents, plain or "
                       "gzip-compressed)", path);
        return 1;
    }
    kmem_trace *k;
    if (kmem_load(path, &k, &err)) {
        cli_error(CMD, "%s", err.msg);
        return 1;
    }
    sim_trace *t;
    if (sim_trace_load(path, &t, &err)) {
        cli_error(CMD, "%s", err.msg);
        kmem_free(k);
        return 1;
    }
    collect_ctx c = {0};
    cfg.policy = pol_find("lru"); /* no budget: nothing is ever evicted */
    cfg.observer = observe;
    cfg.observer_ctx = &c;
    sim_result res;
    int rc = sim_run(t, &cfg, &res, &err);
    sim_trace_free(t);
    if (rc || c.oom || c.n < k->n) {
        cli_error(CMD, "%s: %s", path, rc ? err.msg : c.oom ? "out of memory" :
                  "the replay produced fewer events than the trace holds");
        free(c.s);
        kmem_free(k);
        return 1;
    }
    /* the trace's own events are the last k->n (the priming ops come first) */
    const sample *s = c.s + (c.n - k->n);
    double *rel = malloc(k->n * sizeof *rel);
    if (!rel) {
        cli_error(CMD, "out of memory");
        free(c.s);
        kmem_free(k);
        return 1;
    }
    size_t alloc_equal = 0, blocks_equal = 0, within2 = 0, peak_i = 0;
    double blocks_max = 0; /* the most the model's blocks exceed Total Allocated, relative */
    for (size_t i = 0; i < k->n; i++) {
        alloc_equal += s[i].memory == k->ev[i].total_allocated;
        blocks_equal += s[i].allocated == k->ev[i].total_allocated;
        if (k->ev[i].total_allocated > 0) {
            double d = ((double)s[i].allocated - (double)k->ev[i].total_allocated) /
                       (double)k->ev[i].total_allocated;
            blocks_max = fabs(d) > fabs(blocks_max) ? d : blocks_max;
        }
        double r = ((double)s[i].reserved - (double)k->ev[i].total_reserved) /
                   (double)k->ev[i].total_reserved;
        rel[i] = r;
        within2 += fabs(r) <= 0.02;
        if (k->ev[i].total_reserved > k->ev[peak_i].total_reserved ||
            (k->ev[i].total_reserved == k->ev[peak_i].total_reserved &&
             k->ev[i].total_allocated > k->ev[peak_i].total_allocated))
            peak_i = i;
    }
    double peak_rel = rel[peak_i];
    uint64_t peak_model = 0;
    for (size_t i = 0; i < k->n; i++)
        if (s[i].reserved > peak_model)
            peak_model = s[i].reserved;
    qsort(rel, k->n, sizeof *rel, by_double);
    double share = (double)within2 / (double)k->n;
    if (json) {
        printf("{\"trace\": \"%s\", \"allocator\": \"%s\", \"events\": %zu, "
               "\"allocated_equal\": %zu, \"model_blocks_equal\": %zu, "
               "\"model_blocks_max_rel_error\": %.6g, "
               "\"reserved_within_2pct\": %zu, "
               "\"reserved_within_2pct_share\": %.6f, \"reserved_rel_error\": {\"min\": %.6g, "
               "\"p5\": %.6g, \"p50\": %.6g, \"p95\": %.6g, \"max\": %.6g}, "
               "\"recorded_peak_reserved\": %llu, \"model_peak_reserved\": %llu, "
               "\"reserved_rel_error_at_recorded_peak\": %.6g}\n",
               path, key, k->n, alloc_equal, blocks_equal, blocks_max, within2, share, rel[0], pct(rel, k->n, 0.05),
               pct(rel, k->n, 0.5), pct(rel, k->n, 0.95), rel[k->n - 1],
               (unsigned long long)k->peak_reserved, (unsigned long long)peak_model, peak_rel);
    } else {
        char b1[32], b2[32];
        printf("trace                %s (%s, %zu memory events of device %d)\n", path,
               k->device_name[0] ? k->device_name : "cuda", k->n, k->device);
        printf("allocator            %s\n", key);
        printf("allocated equal      %zu of %zu events (%.2f%%)\n", alloc_equal, k->n,
               100.0 * (double)alloc_equal / (double)k->n);
        printf("model's blocks equal %zu of %zu events (%.2f%%), at most %+.4f%% off: the "
               "model's own (unsplit) blocks against Total Allocated\n",
               blocks_equal, k->n, 100.0 * (double)blocks_equal / (double)k->n,
               100 * blocks_max);
        printf("reserved within 2%%   %zu of %zu events (%.2f%%)\n", within2, k->n, 100 * share);
        printf("reserved rel. error  min %+.4f%%  p5 %+.4f%%  median %+.4f%%  p95 %+.4f%%  "
               "max %+.4f%%\n",
               100 * rel[0], 100 * pct(rel, k->n, 0.05), 100 * pct(rel, k->n, 0.5),
               100 * pct(rel, k->n, 0.95), 100 * rel[k->n - 1]);
        printf("peak reserved        recorded %s, model %s; at the recorded peak the model is "
               "off by %+.4f%%\n",
               cli_format_bytes(k->peak_reserved, b1, sizeof b1),
               cli_format_bytes(peak_model, b2, sizeof b2), 100 * peak_rel);
    }
    free(rel);
    free(c.s);
    kmem_free(k);
    return 0;
}
