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

#include "addr_map.h"
#include "import_et_scan.h"
#include "kineto_mem.h"

/* A node as the walk needs it, whichever schema family wrote it: its JSON is parsed and freed
 * one node at a time, so only these compact records stay. */
typedef struct node {
    int64_t id, parent, rf_id, tid;
    const char *name, *schema; /* interned in et_trace.strs */
    uint32_t in_first, n_in, out_first, n_out; /* into et_trace.args */
    int is_op, has_child;
} node;

typedef struct walk {
    const char *path;
    et_trace *t;
    node *nodes;
    size_t n, cap_nodes;
    size_t *by_id; /* node indices sorted by id */
    size_t cap_args, cap_tensors, cap_ops, cap_strs;
    addr_map interned; /* text hash -> index into t->strs */
} walk;

int et_sniff(const char *path)
{
    char head[4097];
    const char *p = kmem_read_head(path, head, sizeof head);
    if (!p || *p != '{' || strstr(p, "\"traceEvents\""))
        return 0;
    /* the observer writes "schema" first; a DTR log line or a Kineto trace never has it */
    return strstr(p, "\"schema\"") != NULL ||
           (strstr(p, "\"nodes\"") != NULL && strstr(p, "\"start_ts\"") != NULL);
}

static int grow(void **p, size_t *cap, size_t need, size_t size);

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

static int read_args(walk *w, json_t *vals, json_t *types, json_t *shapes, uint32_t *first,
                     uint32_t *n);
static const char *intern(walk *w, const char *text);

/* Reads one node of either family into nd (strings interned, arguments appended to the
 * trace's pools). Returns 0, 1 when it lacks an integer id or a name, -1 out of memory. */
static int read_node(walk *w, json_t *j, node *nd)
{
    memset(nd, 0, sizeof *nd);
    json_t *id = json_object_get(j, "id");
    const char *name = str_or(json_object_get(j, "name"), NULL);
    if (!json_is_integer(id) || !name)
        return 1;
    nd->id = (int64_t)json_integer_value(id);
    json_t *iv, *it, *is, *ov, *ot, *os;
    const char *schema;
    json_t *attrs = json_object_get(j, "attrs");
    if (json_is_array(attrs)) { /* 1.1.x-chakra */
        nd->parent = int_or(json_object_get(j, "ctrl_deps"), -1);
        nd->rf_id = int_or(attr(attrs, "rf_id"), -1);
        nd->tid = int_or(attr(attrs, "tid"), 0);
        schema = str_or(attr(attrs, "op_schema"), "");
        json_t *in = json_object_get(j, "inputs"), *out = json_object_get(j, "outputs");
        iv = json_object_get(in, "values");
        it = json_object_get(in, "types");
        is = json_object_get(in, "shapes");
        ov = json_object_get(out, "values");
        ot = json_object_get(out, "types");
        os = json_object_get(out, "shapes");
    } else { /* 1.0.x */
        nd->parent = int_or(json_object_get(j, "parent"), -1);
        nd->rf_id = int_or(json_object_get(j, "rf_id"), -1);
        nd->tid = int_or(json_object_get(j, "tid"), 0);
        schema = str_or(json_object_get(j, "op_schema"), "");
        iv = json_object_get(j, "inputs");
        it = json_object_get(j, "input_types");
        is = json_object_get(j, "input_shapes");
        ov = json_object_get(j, "outputs");
        ot = json_object_get(j, "output_types");
        os = json_object_get(j, "output_shapes");
    }
    nd->name = intern(w, name);
    nd->schema = intern(w, schema);
    if (!nd->name || !nd->schema || read_args(w, iv, it, is, &nd->in_first, &nd->n_in) ||
        read_args(w, ov, ot, os, &nd->out_first, &nd->n_out))
        return -1;
    return 0;
}

/* Each distinct name or schema is stored once (an ET repeats them thousands of times). */
static const char *intern(walk *w, const char *text)
{
    et_trace *t = w->t;
    uint64_t h = UINT64_C(1469598103934665603);
    for (const char *c = text; *c; c++)
        h = (h ^ (unsigned char)*c) * UINT64_C(1099511628211);
    uint64_t i;
    if (addr_map_get(&w->interned, h, &i) && strcmp(t->strs[i], text) == 0)
        return t->strs[i];
    if (grow((void **)&t->strs, &w->cap_strs, t->n_strs + 1, sizeof *t->strs))
        return NULL;
    char *copy = strdup(text);
    if (!copy)
        return NULL;
    t->strs[t->n_strs] = copy;
    if (t->n_strs < UINT32_MAX && addr_map_put(&w->interned, h, t->n_strs)) {
        free(copy);
        return NULL;
    }
    t->n_strs++;
    return copy;
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
    t->device = t->cuda && dev[4] == ':' && dev[5] >= '0' && dev[5] <= '9' && strlen(dev) < 10
                    ? atoi(dev + 5)
                    : -1;
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

/* First and last dimension of a shape [d0, ..., dn] (0 when absent). */
static void dims(json_t *shape, et_arg *a)
{
    size_t n = json_array_size(shape);
    json_t *f = json_array_get(shape, 0), *l = json_array_get(shape, n ? n - 1 : 0);
    a->dim0 = json_is_integer(f) ? (int64_t)json_integer_value(f) : 0;
    a->dim_last = json_is_integer(l) ? (int64_t)json_integer_value(l) : 0;
}

/* Appends the arguments of one side (values, types, shapes) to t->args; *first, *n say
 * where. */
static int read_args(walk *w, json_t *vals, json_t *types, json_t *shapes, uint32_t *first,
                     uint32_t *n)
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
        dims(json_array_get(shapes, i), a);
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

/* The profiler's name for a module's forward call: "nn.Module: Linear_0". */
#define MODULE_PREFIX "nn.Module: "

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Does a side hold a CUDA tensor? (a leaf without schema counts as an op only then) */
static int side_has_cuda(const et_trace *t, uint32_t first, uint32_t n)
{
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t i = 0; i < t->args[first + a].n; i++)
            if (t->tensors[t->args[first + a].first + i].cuda)
                return 1;
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
        else if (!nd->has_child && !starts(nd->name, "##") && !starts(nd->name, "[pytorch|") &&
                 !starts(nd->name, MODULE_PREFIX))
            nd->is_op = side_has_cuda(w->t, nd->in_first, nd->n_in) ||
                        side_has_cuda(w->t, nd->out_first, nd->n_out);
    }
}

enum { UNDER_OP = 1, UNDER_AUTOGRAD = 2, UNDER_OPTIMIZER = 4 };

/* The limits a .gmt scope has (docs/trace-format.md 2.4): deeper modules are left out. */
enum { MODULE_DEPTH_MAX = 64, MODULE_PATH_MAX = 4095 };

/* The dotted path of the "nn.Module: NAME" record functions around node i, outermost first,
 * interned; NULL when there are none. Dots inside a NAME become '_' so that the path's
 * components stay the modules. *out_of_memory is set when interning fails. */
static const char *module_path(walk *w, size_t i, int *out_of_memory)
{
    const node *chain[MODULE_DEPTH_MAX];
    size_t depth = 0;
    const node *nd = &w->nodes[i];
    for (size_t steps = 0; steps < w->n && nd->parent != nd->id; steps++) {
        size_t p = find(w, nd->parent);
        if (p == SIZE_MAX)
            break;
        nd = &w->nodes[p];
        if (starts(nd->name, MODULE_PREFIX)) {
            if (depth == MODULE_DEPTH_MAX) /* keep the outermost ones */
                memmove(chain, chain + 1, (MODULE_DEPTH_MAX - 1) * sizeof *chain), depth--;
            chain[depth++] = nd;
        }
    }
    if (!depth)
        return NULL;
    char path[MODULE_PATH_MAX + 1];
    size_t len = 0;
    for (size_t d = depth; d-- > 0;) {
        const char *name = chain[d]->name + strlen(MODULE_PREFIX);
        size_t n = strlen(name);
        if (!n)
            name = "module", n = strlen(name);
        if (len + (len > 0) + n > MODULE_PATH_MAX)
            break;
        if (len)
            path[len++] = '.';
        for (size_t c = 0; c < n; c++)
            path[len++] = name[c] == '.' ? '_' : name[c];
    }
    if (!len)
        return NULL;
    path[len] = '\0';
    const char *s = intern(w, path);
    if (!s)
        *out_of_memory = 1;
    return s;
}

/* What encloses node i: an operator (then it is nested, and *top is the outermost one), an
 * autograd engine function (backward), an optimizer step. Bounded by the node count, so a
 * cycle cannot loop. */
static int ancestry(const walk *w, size_t i, size_t *top)
{
    int f = 0;
    const node *nd = &w->nodes[i];
    *top = SIZE_MAX;
    for (size_t steps = 0; steps < w->n && nd->parent != nd->id; steps++) {
        size_t p = find(w, nd->parent);
        if (p == SIZE_MAX)
            break;
        nd = &w->nodes[p];
        if (nd->is_op) {
            f |= UNDER_OP;
            *top = p;
        }
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

/* The outputs of nested calls, as et_trace.hidden ranges of their outermost op: pairs
 * (op, arg) collected in execution order, grouped by op with a counting sort. */
static int group_hidden(et_trace *t, const uint32_t (*pairs)[2], size_t n)
{
    t->hidden = malloc((n ? n : 1) * sizeof *t->hidden);
    if (!t->hidden)
        return -1;
    for (size_t i = 0; i < n; i++)
        t->ops[pairs[i][0]].n_hid++;
    uint32_t at = 0;
    for (size_t k = 0; k < t->n_ops; k++) {
        t->ops[k].hid_first = at;
        at += t->ops[k].n_hid;
        t->ops[k].n_hid = 0;
    }
    for (size_t i = 0; i < n; i++) {
        et_op *op = &t->ops[pairs[i][0]];
        t->hidden[op->hid_first + op->n_hid++] = pairs[i][1];
    }
    t->n_hidden = n;
    return 0;
}

static int keep_ops(walk *w, int *under_opt)
{
    et_trace *t = w->t;
    uint32_t *op_of = calloc(w->n ? w->n : 1, sizeof *op_of); /* node -> op index + 1 */
    uint32_t(*pairs)[2] = NULL;
    size_t n_pairs = 0, cap_pairs = 0;
    if (!op_of)
        return -1;
    size_t n_markers[3] = {0};
    for (size_t k = 0; k < w->n; k++) {
        const node *nd = &w->nodes[w->by_id[k]];
        for (int m = 0; m < 3; m++)
            if (starts(nd->name, markers[m]))
                n_markers[m]++;
        if (starts(nd->name, "ProfilerStep#") && nd->name[13] >= '0' && nd->name[13] <= '9' &&
            strlen(nd->name) < 30) {
            long long n = atoll(nd->name + 13);
            if (t->step_first < 0 || n < t->step_first)
                t->step_first = n;
            if (n > t->step_last)
                t->step_last = n;
        }
        if (!nd->is_op && nd->parent != nd->id && !starts(nd->name, "[pytorch|"))
            t->wrappers++;
        if (starts(nd->name, MODULE_PREFIX))
            t->module_calls++;
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
        size_t top;
        int f = ancestry(w, i, &top);
        if (f & UNDER_OP) {
            t->nested_ops++;
            /* what it makes may outlive the call (saved for backward): its outermost op's */
            uint32_t owner = top != SIZE_MAX ? op_of[top] : 0;
            for (uint32_t a = 0; owner && a < nd->n_out; a++) {
                if (!t->args[nd->out_first + a].is_tensor)
                    continue;
                if (grow((void **)&pairs, &cap_pairs, n_pairs + 1, sizeof *pairs)) {
                    free(op_of);
                    free(pairs);
                    return -1;
                }
                pairs[n_pairs][0] = owner - 1;
                pairs[n_pairs++][1] = nd->out_first + a;
            }
            continue;
        }
        if (t->n_ops >= UINT32_MAX - 1 ||
            grow((void **)&t->ops, &w->cap_ops, t->n_ops + 1, sizeof *t->ops)) {
            free(op_of);
            free(pairs);
            return -1;
        }
        op_of[i] = (uint32_t)t->n_ops + 1;
        et_op *op = &t->ops[t->n_ops];
        memset(op, 0, sizeof *op);
        op->id = nd->id;
        op->rf_id = nd->rf_id;
        op->tid = nd->tid;
        op->name = nd->name;
        op->schema = nd->schema;
        op->in_first = nd->in_first;
        op->n_in = nd->n_in;
        op->out_first = nd->out_first;
        op->n_out = nd->n_out;
        op->backward = (f & UNDER_AUTOGRAD) != 0;
        op->optimizer = (f & UNDER_OPTIMIZER) != 0;
        int oom = 0;
        op->module_path = module_path(w, i, &oom);
        if (oom) {
            free(op_of);
            free(pairs);
            return -1;
        }
        if (fam < 2) {
            op->iter_start = pending;
            pending = 0;
        } else { /* optimizer family: the first op, and the first op after a step ends */
            int opt = (f & UNDER_OPTIMIZER) != 0;
            op->iter_start = t->n_ops == 0 || (*under_opt && !opt);
            *under_opt = opt;
        }
        t->iterations += (size_t)op->iter_start;
        t->n_ops++;
    }
    if (fam == 2 && !n_markers[2] && t->n_ops) /* no marker at all: the trace is one step */
        t->iterations = 1;
    int rc = group_hidden(t, (const uint32_t(*)[2])pairs, n_pairs);
    free(op_of);
    free(pairs);
    return rc;
}

/* The schema string's major version must be 1: "1.0.1", "1.1.0-chakra.0.0.4". */
static int check_schema(const et_scan *sc, const char *path, et_trace *t, gms_error *err)
{
    if (!sc->have_schema)
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: not a PyTorch Execution Trace: no \"schema\" string at the top "
                             "(record one with torch.profiler.ExecutionTraceObserver)",
                             path);
    snprintf(t->schema, sizeof t->schema, "%s", sc->schema);
    if (strncmp(t->schema, "1.", 2) != 0)
        return gms_error_set(err, GMS_EVERSION,
                             "%s: Execution Trace schema \"%s\" is not supported (this build "
                             "reads schema 1.x: 1.0.x and 1.1.x-chakra); record the trace with a "
                             "PyTorch that writes 1.x or convert it with Chakra's tools",
                             path, t->schema);
    t->chakra = strstr(t->schema, "chakra") != NULL;
    if (!sc->nodes)
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: not a PyTorch Execution Trace: no \"nodes\" array", path);
    return 0;
}

/* Parses the nodes one at a time (each node's JSON is freed once its record is taken). */
static int read_nodes(walk *w, et_scan *sc, gms_error *err)
{
    const char *elem;
    size_t len;
    int rc;
    while ((rc = et_scan_node(sc, &elem, &len, err)) == 1) {
        json_error_t jerr;
        json_t *j = json_loadb(elem, len, JSON_ALLOW_NUL, &jerr);
        if (!j) {
            char where[64];
            et_scan_where(sc, elem, where, sizeof where);
            return gms_error_set(err, GMS_EFORMAT,
                                 "%s: node %zu (at %s): not valid JSON (%s); is the file "
                                 "complete?",
                                 w->path, w->n, where, jerr.text);
        }
        if (grow((void **)&w->nodes, &w->cap_nodes, w->n + 1, sizeof *w->nodes)) {
            json_decref(j);
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
        }
        int bad = json_is_object(j) ? read_node(w, j, &w->nodes[w->n]) : 1;
        json_decref(j);
        if (bad < 0)
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory (or over 2^32 arguments)",
                                 w->path);
        if (bad)
            return gms_error_set(err, GMS_EFORMAT,
                                 "%s: node %zu has no integer \"id\" or no \"name\"; the file is "
                                 "not a complete Execution Trace",
                                 w->path, w->n);
        w->n++;
    }
    return rc;
}

static int walk_nodes(walk *w, et_scan *sc, gms_error *err)
{
    et_trace *t = w->t;
    int rc = read_nodes(w, sc, err);
    if (rc)
        return rc;
    t->nodes = w->n;
    w->by_id = malloc((w->n ? w->n : 1) * sizeof *w->by_id);
    if (!w->by_id)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
    for (size_t i = 0; i < w->n; i++)
        w->by_id[i] = i;
    sort_nodes = w->nodes;
    qsort(w->by_id, w->n, sizeof *w->by_id, cmp_id_static);
    for (size_t k = 1; k < w->n; k++)
        if (w->nodes[w->by_id[k]].id == w->nodes[w->by_id[k - 1]].id)
            return gms_error_set(err, GMS_EFORMAT, "%s: two nodes have the id %lld", w->path,
                                 (long long)w->nodes[w->by_id[k]].id);
    classify(w);
    int under_opt = 0;
    if (keep_ops(w, &under_opt))
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
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
    et_scan sc;
    int rc = et_scan_top(&sc, buf, len, name, err);
    if (!rc)
        rc = check_schema(&sc, name, t, err);
    walk w = {.path = name, .t = t};
    t->pid = sc.pid;
    t->step_first = t->step_last = -1;
    if (!rc)
        rc = walk_nodes(&w, &sc, err);
    t->cuda_device = -1;
    for (size_t i = 0; !rc && i < t->n_tensors && t->cuda_device != -2; i++) {
        int d = t->tensors[i].cuda ? t->tensors[i].device : -1;
        if (d >= 0 && t->cuda_device != d)
            t->cuda_device = t->cuda_device == -1 ? d : -2;
    }
    free(w.nodes);
    free(w.by_id);
    addr_map_free(&w.interned);
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
    for (size_t i = 0; i < t->n_strs; i++)
        free(t->strs[i]);
    free(t->strs);
    free(t->ops);
    free(t->allocs);
    free(t->args);
    free(t->tensors);
    free(t->hidden);
    free(t);
}
