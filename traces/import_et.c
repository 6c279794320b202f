/*
 * import_et: reads a PyTorch Execution Trace and keeps the outermost operator call of each
 * thread (import_et.h). The JSON walk only; the .gmt rules are in import_et_ops.c.
 *
 * Format (torch/csrc/profiler/standalone/execution_trace_observer.cpp): {"schema", "pid",
 * "time", "start_ts", "nodes": [...], "finish_ts"}. Each node is a record-function call; a
 * node's id is taken when the call starts (so ids order calls across threads) and the node is
 * written when it ends (children before parents). Nesting: "parent" (1.0.x) or "ctrl_deps"
 * (1.1.x-chakra). The process root ("[pytorch|profiler|execution_trace|process]", its own
 * parent) holds one "...|thread]" root per thread; under those, record-function wrappers
 * (ProfilerStep#N, "## forward ##", autograd engine functions, Optimizer.step#...) hold the
 * operator calls, which hold their nested implementation calls.
 */
#include "import_et.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "kineto_mem.h"

/* A node as the walk needs it, whichever schema family wrote it. */
typedef struct node {
    int64_t id, parent, rf_id, tid;
    const char *name, *schema;
    json_t *in_vals, *in_types, *in_shapes, *out_vals, *out_types, *out_shapes;
    int is_op, has_child, cuda;
} node;

typedef struct walk {
    const char *path;
    et_trace *t;
    node *nodes;
    size_t n;
    size_t *by_id; /* node indices sorted by id */
    size_t cap_args, cap_tensors, cap_ops;
} walk;

int et_sniff(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    gzFile g = gzopen(path, "rb");
    if (!g)
        return 0;
    char head[4097];
    int n = gzread(g, head, sizeof head - 1);
    gzclose(g);
    if (n <= 0)
        return 0;
    head[n] = '\0';
    const char *p = head;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    if (*p != '{' || strstr(p, "\"traceEvents\""))
        return 0;
    /* the observer writes "schema" first; a DTR log line or a Kineto trace never has it */
    return strstr(p, "\"schema\"") != NULL ||
           (strstr(p, "\"nodes\"") != NULL && strstr(p, "\"start_ts\"") != NULL);
}

static const char *str_or(json_t *v, const char *dflt)
{
    return json_is_string(v) ? json_string_value(v) : dflt;
}

static int64_t int_or(json_t *v, int64_t dflt)
{
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

/* 1.1.x-chakra keeps rf_id, tid, op_schema... in "attrs": [{"name", "type", "value"}]. */
static json_t *attr(json_t *attrs, const char *key)
{
    size_t i;
    json_t *a;
    json_array_foreach(attrs, i, a)
    {
        const char *k = str_or(json_object_get(a, "name"), NULL);
        if (k && strcmp(k, key) == 0)
            return json_object_get(a, "value");
    }
    return NULL;
}

/* Reads one node of either family; returns 0, or -1 when it lacks an integer id or a name. */
static int read_node(json_t *j, node *nd)
{
    memset(nd, 0, sizeof *nd);
    json_t *id = json_object_get(j, "id");
    nd->name = str_or(json_object_get(j, "name"), NULL);
    if (!json_is_integer(id) || !nd->name)
        return -1;
    nd->id = (int64_t)json_integer_value(id);
    json_t *attrs = json_object_get(j, "attrs");
    if (json_is_array(attrs)) { /* 1.1.x-chakra */
        nd->parent = int_or(json_object_get(j, "ctrl_deps"), -1);
        nd->rf_id = int_or(attr(attrs, "rf_id"), -1);
        nd->tid = int_or(attr(attrs, "tid"), 0);
        nd->schema = str_or(attr(attrs, "op_schema"), "");
        json_t *in = json_object_get(j, "inputs"), *out = json_object_get(j, "outputs");
        nd->in_vals = json_object_get(in, "values");
        nd->in_types = json_object_get(in, "types");
        nd->in_shapes = json_object_get(in, "shapes");
        nd->out_vals = json_object_get(out, "values");
        nd->out_types = json_object_get(out, "types");
        nd->out_shapes = json_object_get(out, "shapes");
    } else { /* 1.0.x */
        nd->parent = int_or(json_object_get(j, "parent"), -1);
        nd->rf_id = int_or(json_object_get(j, "rf_id"), -1);
        nd->tid = int_or(json_object_get(j, "tid"), 0);
        nd->schema = str_or(json_object_get(j, "op_schema"), "");
        nd->in_vals = json_object_get(j, "inputs");
        nd->in_types = json_object_get(j, "input_types");
        nd->in_shapes = json_object_get(j, "input_shapes");
        nd->out_vals = json_object_get(j, "outputs");
        nd->out_types = json_object_get(j, "output_types");
        nd->out_shapes = json_object_get(j, "output_shapes");
    }
    return 0;
}

/* A tensor value: [tensor_id, storage_id, offset, numel, itemsize, device]. */
static int read_tensor(json_t *v, et_tensor *t)
{
    if (!json_is_array(v) || json_array_size(v) < 6)
        return -1;
    json_int_t f[5];
    for (size_t i = 0; i < 5; i++) {
        json_t *x = json_array_get(v, i);
        if (!json_is_integer(x) || json_integer_value(x) < 0)
            return -1;
        f[i] = json_integer_value(x);
    }
    const char *dev = str_or(json_array_get(v, 5), "");
    t->tensor_id = (uint64_t)f[0];
    t->storage_id = (uint64_t)f[1];
    t->offset = (uint64_t)f[2];
    t->numel = (uint64_t)f[3];
    t->itemsize = (uint64_t)f[4];
    t->cuda = strncmp(dev, "cuda", 4) == 0;
    return 0;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int push_tensor(walk *w, const et_tensor *x)
{
    et_trace *t = w->t;
    if (grow((void **)&t->tensors, &w->cap_tensors, t->n_tensors + 1, sizeof *t->tensors))
        return -1;
    t->tensors[t->n_tensors++] = *x;
    return 0;
}

/* Appends the arguments of one side (values + types) to t->args; *first, *n say where. */
static int read_args(walk *w, json_t *vals, json_t *types, uint32_t *first, uint32_t *n)
{
    et_trace *t = w->t;
    size_t na = json_array_size(vals);
    if (na > UINT32_MAX || t->n_args + na > UINT32_MAX)
        return -1;
    *first = (uint32_t)t->n_args;
    *n = (uint32_t)na;
    if (grow((void **)&t->args, &w->cap_args, t->n_args + na, sizeof *t->args))
        return -1;
    for (size_t i = 0; i < na; i++) {
        const char *ty = str_or(json_array_get(types, i), "");
        json_t *v = json_array_get(vals, i);
        et_arg *a = &t->args[t->n_args++];
        a->first = (uint32_t)t->n_tensors;
        a->n = 0;
        a->is_tensor = 0;
        et_tensor x;
        if (strncmp(ty, "Tensor", 6) == 0) {
            a->is_tensor = 1;
            if (read_tensor(v, &x) == 0) {
                if (push_tensor(w, &x))
                    return -1;
                a->n = 1;
            }
        } else if (strncmp(ty, "GenericList[Tensor", 18) == 0 && json_is_array(v)) {
            a->is_tensor = 1;
            size_t k;
            json_t *e;
            json_array_foreach(v, k, e)
            {
                if (read_tensor(e, &x) != 0)
                    continue;
                if (push_tensor(w, &x))
                    return -1;
                a->n++;
            }
        }
        if (t->n_tensors > UINT32_MAX)
            return -1;
    }
    return 0;
}

/* qsort has no context argument in C11; a load runs on one thread, so a static is fine. */
static _Thread_local const node *sort_nodes;
static int cmp_id_static(const void *a, const void *b)
{
    int64_t x = sort_nodes[*(const size_t *)a].id, y = sort_nodes[*(const size_t *)b].id;
    return x < y ? -1 : x > y;
}

/* Index of the node with that id, or SIZE_MAX. */
static size_t find(const walk *w, int64_t id)
{
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t m = w->nodes[w->by_id[mid]].id;
        if (m == id)
            return w->by_id[mid];
        if (m < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Does a side hold a CUDA tensor? (a leaf without schema counts as an op only then) */
static int side_has_cuda(json_t *vals, json_t *types)
{
    size_t i;
    json_t *v;
    json_array_foreach(vals, i, v)
    {
        const char *ty = str_or(json_array_get(types, i), "");
        et_tensor x;
        if (starts(ty, "Tensor") && read_tensor(v, &x) == 0 && x.cuda)
            return 1;
    }
    return 0;
}

/* An operator: a call with an op schema, or (Triton kernels of a compiled graph) a leaf call
 * with no schema that reads or writes a CUDA tensor and is not a label ("## x ##") or a root. */
static void classify(walk *w)
{
    for (size_t i = 0; i < w->n; i++) {
        node *nd = &w->nodes[i];
        if (nd->parent != nd->id) {
            size_t p = find(w, nd->parent);
            if (p != SIZE_MAX)
                w->nodes[p].has_child = 1;
        }
    }
    for (size_t i = 0; i < w->n; i++) {
        node *nd = &w->nodes[i];
        if (nd->schema[0])
            nd->is_op = 1;
        else if (!nd->has_child && !starts(nd->name, "##") && !starts(nd->name, "[pytorch|"))
            nd->is_op = side_has_cuda(nd->in_vals, nd->in_types) ||
                        side_has_cuda(nd->out_vals, nd->out_types);
    }
}

enum { UNDER_OP = 1, UNDER_AUTOGRAD = 2, UNDER_OPTIMIZER = 4 };

/* What encloses node i: an operator (then it is nested), an autograd engine function
 * (backward), an optimizer step. Bounded by the node count, so a cycle cannot loop. */
static int ancestry(const walk *w, size_t i)
{
    int f = 0;
    const node *nd = &w->nodes[i];
    for (size_t steps = 0; steps < w->n && nd->parent != nd->id; steps++) {
        size_t p = find(w, nd->parent);
        if (p == SIZE_MAX)
            break;
        nd = &w->nodes[p];
        if (nd->is_op)
            f |= UNDER_OP;
        if (starts(nd->name, "autograd::engine::evaluate_function:"))
            f |= UNDER_AUTOGRAD;
        if (starts(nd->name, "Optimizer.step"))
            f |= UNDER_OPTIMIZER;
    }
    return f;
}

/* Iteration markers, in order of preference: the profiler's steps, the forward label, the
 * optimizer step (an iteration then ends where an optimizer step ends). */
static const char *const markers[] = {"ProfilerStep#", "## forward ##", "Optimizer.step"};

static int keep_ops(walk *w, int *under_opt)
{
    et_trace *t = w->t;
    size_t n_markers[3] = {0};
    for (size_t k = 0; k < w->n; k++) {
        const node *nd = &w->nodes[w->by_id[k]];
        for (int m = 0; m < 3; m++)
            if (starts(nd->name, markers[m]))
                n_markers[m]++;
        if (!nd->is_op && nd->parent != nd->id && !starts(nd->name, "[pytorch|"))
            t->wrappers++;
    }
    int fam = n_markers[0] ? 0 : n_markers[1] ? 1 : 2;
    t->iteration_marker = n_markers[fam] ? markers[fam] : "";
    int pending = 0;
    for (size_t k = 0; k < w->n; k++) {
        size_t i = w->by_id[k];
        const node *nd = &w->nodes[i];
        if (fam < 2 && starts(nd->name, markers[fam]))
            pending = 1;
        if (!nd->is_op)
            continue;
        int f = ancestry(w, i);
        if (f & UNDER_OP) {
            t->nested_ops++;
            continue;
        }
        if (grow((void **)&t->ops, &w->cap_ops, t->n_ops + 1, sizeof *t->ops))
            return -1;
        et_op *op = &t->ops[t->n_ops];
        memset(op, 0, sizeof *op);
        op->id = nd->id;
        op->rf_id = nd->rf_id;
        op->tid = nd->tid;
        op->name = nd->name;
        op->schema = nd->schema;
        op->in_shapes = nd->in_shapes;
        op->out_shapes = nd->out_shapes;
        op->backward = (f & UNDER_AUTOGRAD) != 0;
        if (fam < 2) {
            op->iter_start = pending;
            pending = 0;
        } else { /* optimizer family: the first op, and the first op after a step ends */
            int opt = (f & UNDER_OPTIMIZER) != 0;
            op->iter_start = t->n_ops == 0 || (*under_opt && !opt);
            *under_opt = opt;
        }
        if (read_args(w, nd->in_vals, nd->in_types, &op->in_first, &op->n_in) ||
            read_args(w, nd->out_vals, nd->out_types, &op->out_first, &op->n_out))
            return -1;
        t->iterations += (size_t)op->iter_start;
        t->n_ops++;
    }
    if (fam == 2 && !n_markers[2] && t->n_ops) /* no marker at all: the trace is one step */
        t->iterations = 1;
    return 0;
}

/* The schema string's major version must be 1: "1.0.1", "1.1.0-chakra.0.0.4". */
static int check_schema(json_t *doc, const char *path, et_trace *t, gms_error *err)
{
    const char *s = str_or(json_object_get(doc, "schema"), NULL);
    if (!s)
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: not a PyTorch Execution Trace: no \"schema\" string at the top "
                             "(record one with torch.profiler.ExecutionTraceObserver)",
                             path);
    snprintf(t->schema, sizeof t->schema, "%s", s);
    if (strncmp(s, "1.", 2) != 0)
        return gms_error_set(err, GMS_EVERSION,
                             "%s: Execution Trace schema \"%s\" is not supported (this build "
                             "reads schema 1.x: 1.0.x and 1.1.x-chakra); record the trace with a "
                             "PyTorch that writes 1.x or convert it with Chakra's tools",
                             path, t->schema);
    t->chakra = strstr(s, "chakra") != NULL;
    if (!json_is_array(json_object_get(doc, "nodes")))
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: not a PyTorch Execution Trace: no \"nodes\" array", path);
    return 0;
}

static int walk_doc(walk *w, gms_error *err)
{
    et_trace *t = w->t;
    json_t *arr = json_object_get(t->doc, "nodes");
    size_t n = json_array_size(arr);
    w->nodes = malloc((n ? n : 1) * sizeof *w->nodes);
    w->by_id = malloc((n ? n : 1) * sizeof *w->by_id);
    if (!w->nodes || !w->by_id)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
    for (size_t i = 0; i < n; i++) {
        if (read_node(json_array_get(arr, i), &w->nodes[w->n]) != 0)
            return gms_error_set(err, GMS_EFORMAT,
                                 "%s: node %zu has no integer \"id\" or no \"name\"; the file is "
                                 "not a complete Execution Trace",
                                 w->path, i);
        w->by_id[w->n] = w->n;
        w->n++;
    }
    t->nodes = n;
    sort_nodes = w->nodes;
    qsort(w->by_id, w->n, sizeof *w->by_id, cmp_id_static);
    for (size_t k = 1; k < w->n; k++)
        if (w->nodes[w->by_id[k]].id == w->nodes[w->by_id[k - 1]].id)
            return gms_error_set(err, GMS_EFORMAT, "%s: two nodes have the id %lld", w->path,
                                 (long long)w->nodes[w->by_id[k]].id);
    classify(w);
    int under_opt = 0;
    if (keep_ops(w, &under_opt))
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory (or over 2^32 arguments)",
                             w->path);
    if (t->n_ops == 0)
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: the Execution Trace holds no operator calls (%zu nodes); "
                             "record it around at least one training step",
                             w->path, t->nodes);
    return 0;
}

int et_load_buffer(const char *buf, size_t len, const char *name, et_trace **out,
                   gms_error *err)
{
    *out = NULL;
    et_trace *t = calloc(1, sizeof *t);
    if (!t)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", name);
    json_error_t jerr;
    t->doc = json_loadb(buf, len, JSON_ALLOW_NUL, &jerr);
    if (!t->doc) {
        free(t);
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: not valid JSON at line %d column %d (%s); is the file "
                             "complete?",
                             name, jerr.line, jerr.column, jerr.text);
    }
    int rc = json_is_object(t->doc)
                 ? check_schema(t->doc, name, t, err)
                 : gms_error_set(err, GMS_EFORMAT,
                                 "%s: not a PyTorch Execution Trace: the JSON is not an object",
                                 name);
    walk w = {.path = name, .t = t};
    if (!rc)
        rc = walk_doc(&w, err);
    free(w.nodes);
    free(w.by_id);
    if (rc) {
        et_trace_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

int et_load(const char *path, et_trace **out, gms_error *err)
{
    *out = NULL;
    char *buf;
    size_t len;
    int rc = kmem_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = et_load_buffer(buf, len, path, out, err);
    free(buf);
    return rc;
}

void et_trace_free(et_trace *t)
{
    if (!t)
        return;
    json_decref(t->doc);
    free(t->ops);
    free(t->args);
    free(t->tensors);
    free(t);
}
