/*
 * opt_hostcost: cost_host from a host trace's graph or from a stated estimate (opt_hostcost.h).
 */
#include "opt_hostcost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HINT "give slowdown=K, roofline=GBPS or both (slowdown=4,roofline=50)"

/* One "KEY=NUMBER" item of len bytes at s. */
static int parse_item(const char *s, size_t len, opt_host_estimate *out, gms_error *err)
{
    const char *eq = memchr(s, '=', len);
    if (!eq) {
        if (out->gbps > 0 && out->slowdown == 0)
            return gms_error_set(err, GMS_EINVAL,
                                 "'%.*s': roofline takes the host's memory bandwidth alone "
                                 "(GB/s): traces record no FLOPs per op, so there is no "
                                 "compute roof; add slowdown=K to cover compute-bound ops",
                                 (int)len, s);
        return gms_error_set(err, GMS_EINVAL, "'%.*s' is not KEY=VALUE: " HINT, (int)len, s);
    }
    size_t klen = (size_t)(eq - s);
    double *slot;
    double lo, hi;
    if (klen == 8 && memcmp(s, "slowdown", 8) == 0)
        slot = &out->slowdown, lo = 0, hi = 1e6;
    else if (klen == 8 && memcmp(s, "roofline", 8) == 0)
        slot = &out->gbps, lo = 1e-6, hi = 1e6;
    else
        return gms_error_set(err, GMS_EINVAL, "unknown estimate '%.*s': " HINT, (int)klen, s);
    if (*slot != 0)
        return gms_error_set(err, GMS_EINVAL, "%.*s given twice", (int)klen, s);
    char num[64];
    size_t vlen = len - klen - 1;
    char *end;
    if (vlen == 0 || vlen >= sizeof num)
        return gms_error_set(err, GMS_EINVAL, "%.*s: give a number after '='", (int)klen, s);
    memcpy(num, eq + 1, vlen);
    num[vlen] = '\0';
    double v = strtod(num, &end);
    int roof = slot == &out->gbps;
    if (end == num || *end != '\0' || !isfinite(v) || v > hi || (roof ? v < lo : v <= lo))
        return gms_error_set(err, GMS_EINVAL, "%.*s '%s': give a number %s %g and at most %g%s",
                             (int)klen, s, num, roof ? "of at least" : "above", lo, hi,
                             roof ? " (GB/s, the host's memory bandwidth)"
                                  : " (times the GPU duration)");
    *slot = v;
    return 0;
}

int opt_host_estimate_parse(const char *spec, opt_host_estimate *out, gms_error *err)
{
    opt_host_estimate e = {0, 0};
    if (!spec || !*spec)
        return gms_error_set(err, GMS_EINVAL, "empty estimate: " HINT);
    const char *s = spec;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len == 0)
            return gms_error_set(err, GMS_EINVAL, "empty item in '%s': " HINT, spec);
        int rc = parse_item(s, len, &e, err);
        if (rc)
            return rc;
        if (!comma)
            break;
        s = comma + 1;
    }
    *out = e;
    return 0;
}

double opt_host_estimate_op(const opt_host_estimate *e, uint64_t cost_ns, uint64_t touched)
{
    double slow = e->slowdown > 0 ? e->slowdown * (double)cost_ns / 1e6 : 0;
    double roof = e->gbps > 0 ? (double)touched / (e->gbps * 1e9) * 1e3 : 0;
    return slow > roof ? slow : roof;
}

static int differs(gms_error *err, uint32_t i, const opt_node *a, const char *what)
{
    return gms_error_set(err, GMS_EFORMAT,
                         "the host trace's graph differs at node %u (\"%s\"): %s; the host "
                         "trace must be the same job (model, batch, iteration, --coarsen) "
                         "traced on the host", i, a->name ? a->name : "", what);
}

int opt_graph_take_host(opt_graph *g, const opt_graph *host, gms_error *err)
{
    char what[256];
    uint32_t n = g->n < host->n ? g->n : host->n;
    for (uint32_t i = 0; i < n; i++) {
        const opt_node *a = &g->nodes[i], *b = &host->nodes[i];
        const char *an = a->name ? a->name : "", *bn = b->name ? b->name : "";
        if (strcmp(an, bn) != 0) {
            snprintf(what, sizeof what, "named \"%.80s\" in the host trace", bn);
            return differs(err, i, a, what);
        }
        if (a->bytes != b->bytes) {
            snprintf(what, sizeof what, "%llu bytes here, %llu in the host trace",
                     (unsigned long long)a->bytes, (unsigned long long)b->bytes);
            return differs(err, i, a, what);
        }
        if (a->n_inputs != b->n_inputs ||
            (a->n_inputs && memcmp(a->inputs, b->inputs, a->n_inputs * sizeof *a->inputs))) {
            snprintf(what, sizeof what, "its inputs differ (%u here, %u in the host trace)",
                     a->n_inputs, b->n_inputs);
            return differs(err, i, a, what);
        }
    }
    if (g->n != host->n)
        return gms_error_set(err, GMS_EFORMAT,
                             "the host trace's graph has %u nodes, the trace's %u (the first "
                             "%u match); the host trace must be the same job traced on the "
                             "host", host->n, g->n, n);
    for (uint32_t i = 0; i < n; i++)
        g->nodes[i].cost_host = host->nodes[i].cost;
    return 0;
}
