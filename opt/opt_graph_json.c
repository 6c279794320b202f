/*
 * opt_graph_json: the graph's JSON form (opt_graph_json.h), through jansson.
 */
#include "opt_graph_json.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Per node at most 2^53 bytes (exact in a double) and in all at most 2^62, so sums never
 * overflow. */
#define MAX_NODE_BYTES (UINT64_C(1) << 53)
#define MAX_TOTAL_BYTES (UINT64_C(1) << 62)
#define MAX_NODES 1000000u

static int node_error(gms_error *err, const char *what, size_t i, const char *name,
                      const char *fmt, const char *detail)
{
    char buf[512];
    snprintf(buf, sizeof buf, fmt, detail);
    return gms_error_set(err, GMS_EFORMAT, "%s: node %zu%s%s%s: %s", what, i, name ? " (\"" : "",
                         name ? name : "", name ? "\")" : "", buf);
}

static int read_bytes(json_t *v, uint64_t *out)
{
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < 0 || (uint64_t)x > MAX_NODE_BYTES)
            return -1;
        *out = (uint64_t)x;
        return 0;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (!(d >= 0) || d > (double)MAX_NODE_BYTES || d != floor(d))
            return -1;
        *out = (uint64_t)d;
        return 0;
    }
    return -1;
}

static int parse_node(opt_graph *g, size_t i, json_t *jn, const char *what, uint64_t *total,
                      gms_error *err)
{
    if (!json_is_object(jn))
        return node_error(err, what, i, NULL, "is not an object%s", "");
    json_t *jname = json_object_get(jn, "name");
    if (jname && !json_is_string(jname))
        return node_error(err, what, i, NULL, "\"name\" is not a string%s", "");
    char dflt[32];
    snprintf(dflt, sizeof dflt, "n%zu", i);
    const char *name = jname ? json_string_value(jname) : dflt;
    json_t *jc = json_object_get(jn, "cost"), *jb = json_object_get(jn, "bytes");
    if (!jc || !json_is_number(jc))
        return node_error(err, what, i, name, "\"cost\" is missing or not a number%s: give "
                          "the node's compute in milliseconds", "");
    double cost = json_number_value(jc);
    if (!isfinite(cost) || cost < 0)
        return node_error(err, what, i, name, "negative cost%s: give the node's compute in "
                          "milliseconds, >= 0", "");
    json_t *jh = json_object_get(jn, "cost_host");
    double cost_host = -1; /* absent: the node runs on the GPU only */
    if (jh && !json_is_number(jh))
        return node_error(err, what, i, name, "\"cost_host\" is not a number%s: give the "
                          "node's compute on the host in milliseconds, or leave it out", "");
    if (jh) {
        cost_host = json_number_value(jh);
        if (!isfinite(cost_host) || cost_host < 0)
            return node_error(err, what, i, name, "negative cost_host%s: give the node's "
                              "compute on the host in milliseconds, >= 0, or leave it out", "");
    }
    uint64_t bytes;
    if (!jb || read_bytes(jb, &bytes) != 0)
        return node_error(err, what, i, name,
                          "\"bytes\" is missing, negative, fractional or above 2^53%s: give "
                          "the size of the node's output as an integer >= 0", "");
    if (*total + bytes > MAX_TOTAL_BYTES)
        return node_error(err, what, i, name, "the graph's bytes add up to more than 2^62%s",
                          "");
    *total += bytes;
    json_t *ji = json_object_get(jn, "inputs");
    size_t n_in = 0;
    if (ji && !json_is_array(ji))
        return node_error(err, what, i, name, "\"inputs\" is not an array%s", "");
    if (ji)
        n_in = json_array_size(ji);
    uint32_t *in = malloc((n_in + 1) * sizeof *in);
    if (!in)
        return gms_error_set(err, GMS_ENOMEM, "out of memory reading %s", what);
    for (size_t k = 0; k < n_in; k++) {
        json_t *x = json_array_get(ji, k);
        char detail[96];
        if (!json_is_integer(x)) {
            free(in);
            return node_error(err, what, i, name, "input %s is not a node index", "");
        }
        json_int_t u = json_integer_value(x);
        snprintf(detail, sizeof detail, "%lld", (long long)u);
        if (u < 0 || (uint64_t)u >= i) {
            free(in);
            if (u == (json_int_t)i)
                return node_error(err, what, i, name,
                                  "input %s is the node itself: a cycle; inputs name earlier "
                                  "nodes (nodes are in execution order)", detail);
            return node_error(err, what, i, name,
                              u > (json_int_t)i
                                  ? "input %s names a later node: a cycle or nodes out of "
                                    "order; list nodes in execution order, each after its inputs"
                                  : "input %s is not a node index (indices start at 0)",
                              detail);
        }
        in[k] = (uint32_t)u;
    }
    int rc = opt_graph_set_node(g, (uint32_t)i, name, cost, bytes, in, (uint32_t)n_in, err);
    free(in);
    g->nodes[i].cost_host = cost_host;
    return rc;
}

/* The optional provenance keys: "baseline_peak" (bytes, the trace's peak a budget ratio is
 * of) and "trace_hash" (16 hex digits, the trace's content hash). */
static int parse_source(opt_graph *g, json_t *root, const char *what, gms_error *err)
{
    json_t *jp = json_object_get(root, "baseline_peak"), *jh = json_object_get(root, "trace_hash");
    if (jp && (read_bytes(jp, &g->baseline_peak) != 0 || g->baseline_peak == 0))
        return gms_error_set(err, GMS_EFORMAT, "%s: \"baseline_peak\" must be an integer > 0 "
                             "and at most 2^53 (the trace's peak memory in bytes), or left out",
                             what);
    if (jh) {
        const char *h = json_is_string(jh) ? json_string_value(jh) : NULL;
        size_t n = h ? strlen(h) : 0;
        int ok = n == 16;
        for (size_t i = 0; ok && i < n; i++)
            ok = (h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f');
        if (!ok)
            return gms_error_set(err, GMS_EFORMAT, "%s: \"trace_hash\" must be 16 lowercase hex "
                                 "digits (the trace's content hash), or left out", what);
        memcpy(g->trace_hash, h, 17);
    }
    return 0;
}

int opt_graph_parse(const char *text, size_t len, const char *what, opt_graph **out,
                    gms_error *err)
{
    *out = NULL;
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return gms_error_set(err, GMS_EFORMAT, "%s:%d: not JSON: %s", what, je.line, je.text);
    int rc = 0;
    opt_graph *g = NULL;
    json_t *nodes = json_is_object(root) ? json_object_get(root, "nodes") : NULL;
    json_t *jcb = json_is_object(root) ? json_object_get(root, "constant_bytes") : NULL;
    uint64_t cb = 0, total = 0;
    if (!nodes || !json_is_array(nodes)) {
        rc = gms_error_set(err, GMS_EFORMAT,
                           "%s: not a graph: expected {\"nodes\": [...], \"constant_bytes\": N}"
                           " (docs/optimal.md)", what);
        goto done;
    }
    if (jcb && read_bytes(jcb, &cb) != 0) {
        rc = gms_error_set(err, GMS_EFORMAT, "%s: \"constant_bytes\" must be an integer >= 0 "
                           "and at most 2^53", what);
        goto done;
    }
    size_t n = json_array_size(nodes);
    if (n > MAX_NODES) {
        rc = gms_error_set(err, GMS_EFORMAT, "%s: %zu nodes; at most %u are supported", what, n,
                           MAX_NODES);
        goto done;
    }
    if (!(g = opt_graph_new((uint32_t)n))) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory reading %s", what);
        goto done;
    }
    g->constant_bytes = cb;
    total = cb;
    if ((rc = parse_source(g, root, what, err)) != 0)
        goto done;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = parse_node(g, i, json_array_get(nodes, i), what, &total, err);
    if (rc == 0 && (rc = opt_graph_finish(g, err)) != 0) {
        char msg[GMS_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
        gms_error_set(err, rc, "%s: %s", what, msg);
    }
done:
    json_decref(root);
    if (rc != 0)
        opt_graph_free(g);
    else
        *out = g;
    return rc;
}

int opt_graph_read(const char *path, opt_graph **out, gms_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gms_error_set(err, GMS_EIO, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
        char *nb = realloc(buf, cap * 2);
        if (!nb)
            free(buf);
        buf = nb;
        cap *= 2;
    }
    int rd_err = ferror(f);
    fclose(f);
    if (!buf)
        return gms_error_set(err, GMS_ENOMEM, "out of memory reading %s", path);
    if (rd_err) {
        free(buf);
        return gms_error_set(err, GMS_EIO, "%s: read error", path);
    }
    int rc = opt_graph_parse(buf, len, path, out, err);
    free(buf);
    return rc;
}

/* The shortest %g text that reads back as d exactly. */
static void write_double(FILE *f, double d)
{
    char buf[40];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    fputs(buf, f);
}

/* A JSON string; bytes outside printable ASCII become '?' (op names are ASCII in practice, and
 * the output must stay valid UTF-8). */
static void write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fputc('?', f);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int opt_graph_write(const opt_graph *g, FILE *f, gms_error *err)
{
    fprintf(f, "{\"constant_bytes\": %llu,", (unsigned long long)g->constant_bytes);
    if (g->baseline_peak)
        fprintf(f, " \"baseline_peak\": %llu,", (unsigned long long)g->baseline_peak);
    if (g->trace_hash[0])
        fprintf(f, " \"trace_hash\": \"%s\",", g->trace_hash);
    fprintf(f, "\n \"nodes\": [");
    for (uint32_t i = 0; i < g->n; i++) {
        const opt_node *nd = &g->nodes[i];
        fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
        write_string(f, nd->name ? nd->name : "");
        fprintf(f, ", \"cost\": ");
        write_double(f, nd->cost);
        if (nd->cost_host >= 0) {
            fprintf(f, ", \"cost_host\": ");
            write_double(f, nd->cost_host);
        }
        fprintf(f, ", \"bytes\": %llu, \"inputs\": [", (unsigned long long)nd->bytes);
        for (uint32_t k = 0; k < nd->n_inputs; k++)
            fprintf(f, "%s%u", k ? ", " : "", nd->inputs[k]);
        fprintf(f, "]}");
    }
    fprintf(f, "\n ]}\n");
    if (ferror(f))
        return gms_error_set(err, GMS_EIO, "write error");
    return 0;
}
