/*
 * synth_graph: item list, tensor table, gradient accumulation, optimizer step and the flush that
 * turns one iteration's items into gmt events with RELEASEs after last uses (see synth_graph.h).
 */
#include "synth_graph.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grows *arr (element size esz, capacity *cap) to hold at least need elements. */
static int grow(void **arr, uint32_t *cap, uint32_t need, size_t esz)
{
    if (need <= *cap)
        return 0;
    uint64_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    if (ncap > UINT32_MAX)
        return -1;
    void *p = realloc(*arr, (size_t)ncap * esz);
    if (!p)
        return -1;
    *arr = p;
    *cap = (uint32_t)ncap;
    return 0;
}

void sg_init(sg_builder *b, const gmt_synth_params *p, gmt_synth_sink sink, void *ctx,
             gmt_synth_totals *tot, gms_error *err)
{
    memset(b, 0, sizeof *b);
    b->p = p;
    b->dsize = gmt_synth_dtype_size(p->dtype);
    b->sink = sink;
    b->ctx = ctx;
    b->tot = tot;
    b->err = err;
    b->next_id = 1;
    b->scope_cur = -1;
}

/* Drops the iteration's scope tree (the next iteration names its own). */
static void scopes_clear(sg_builder *b)
{
    for (uint32_t i = 0; i < b->n_scopes; i++)
        free(b->scope_name[i]);
    b->n_scopes = 0;
    b->scope_cur = -1;
}

void sg_free(sg_builder *b)
{
    for (uint32_t i = 0; i < b->n_names; i++)
        free(b->names[i]);
    free(b->names);
    free(b->t);
    free(b->items);
    free(b->pool);
    free(b->alias);
    free(b->tape);
    free(b->scratch_ids);
    free(b->scratch_out);
    free(b->scratch_mut);
    scopes_clear(b);
    free(b->scope_name);
    free(b->scope_parent);
    memset(b, 0, sizeof *b);
}

int sg_fail(sg_builder *b, int code, const char *msg)
{
    if (!b->failed) {
        b->failed = code ? code : GMS_ENOMEM;
        gms_error_set(b->err, b->failed, "synth: %s", msg);
    }
    return -1;
}

int32_t sg_tensor_new(sg_builder *b, uint32_t ndim, const uint64_t *dims, uint32_t esize)
{
    if (b->failed)
        return -1;
    if (ndim == 0 || ndim > SG_MAX_DIMS)
        return sg_fail(b, GMS_EINVAL, "internal: bad tensor rank");
    uint64_t numel = 1;
    for (uint32_t i = 0; i < ndim; i++) {
        if (dims[i] == 0 || dims[i] > (1ull << 40) || numel > (1ull << 48) / dims[i])
            return sg_fail(b, GMS_EINVAL,
                           "a tensor would exceed 2^48 elements (or has a zero dimension); "
                           "reduce --batch, --seq, --image or --hidden");
        numel *= dims[i];
    }
    if (b->n_t >= INT32_MAX - 1 ||
        grow((void **)&b->t, &b->cap_t, b->n_t + 1, sizeof *b->t))
        return sg_fail(b, GMS_ENOMEM, "out of memory building the op graph");
    sg_tensor *t = &b->t[b->n_t];
    memset(t, 0, sizeof *t);
    t->id = b->next_id++;
    t->ndim = ndim;
    for (uint32_t i = 0; i < ndim; i++)
        t->dims[i] = dims[i];
    t->esize = esize;
    t->grad = -1;
    t->state[0] = t->state[1] = -1;
    t->name = -1;
    t->last_use = -1;
    return (int32_t)b->n_t++;
}

uint64_t sg_numel(const sg_builder *b, int32_t t)
{
    if (t < 0)
        return 0;
    uint64_t n = 1;
    for (uint32_t i = 0; i < b->t[t].ndim; i++)
        n *= b->t[t].dims[i];
    return n;
}

uint64_t sg_bytes(const sg_builder *b, int32_t t)
{
    return t < 0 ? 0 : sg_numel(b, t) * b->t[t].esize;
}

/* Appends an item of kind; returns it or NULL after a failure. */
static sg_item *item_new(sg_builder *b, gmt_kind kind)
{
    if (b->failed)
        return NULL;
    if (grow((void **)&b->items, &b->cap_items, b->n_items + 1, sizeof *b->items)) {
        sg_fail(b, GMS_ENOMEM, "out of memory building the op graph");
        return NULL;
    }
    sg_item *it = &b->items[b->n_items++];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    it->tensor = -1;
    return it;
}

/* Reserves n pool slots; returns the offset or UINT32_MAX after a failure. */
static uint32_t pool_take(sg_builder *b, uint32_t n)
{
    if (b->failed)
        return UINT32_MAX;
    if (grow((void **)&b->pool, &b->cap_pool, b->n_pool + n, sizeof *b->pool) ||
        grow((void **)&b->alias, &b->cap_alias, b->n_pool + n, sizeof *b->alias)) {
        sg_fail(b, GMS_ENOMEM, "out of memory building the op graph");
        return UINT32_MAX;
    }
    uint32_t off = b->n_pool;
    b->n_pool += n;
    return off;
}

/* Keeps a copy of text in the arena; returns its index or -1. */
static int32_t name_keep(sg_builder *b, const char *text)
{
    if (b->failed)
        return -1;
    if (grow((void **)&b->names, &b->cap_names, b->n_names + 1, sizeof *b->names))
        return sg_fail(b, GMS_ENOMEM, "out of memory");
    size_t len = strlen(text);
    char *s = malloc(len + 1);
    if (!s)
        return sg_fail(b, GMS_ENOMEM, "out of memory");
    memcpy(s, text, len + 1);
    b->names[b->n_names] = s;
    return (int32_t)b->n_names++;
}

/* A persistent CONSTANT plus its NAME event. */
static int32_t persistent_new(sg_builder *b, const char *name, uint32_t ndim,
                              const uint64_t *dims, uint32_t esize)
{
    if (b->n_t != b->n_persistent)
        return sg_fail(b, GMS_ESTATE, "internal: persistent tensor after an iteration tensor");
    int32_t t = sg_tensor_new(b, ndim, dims, esize);
    if (t < 0)
        return -1;
    b->t[t].persistent = 1;
    b->n_persistent++;
    b->t[t].name = name_keep(b, name);
    if (b->t[t].name < 0)
        return -1;
    /* NAME before CONSTANT: a DTR-log export must know the name at the tensor's first line. */
    sg_item *n = item_new(b, GMT_NAME);
    if (!n)
        return -1;
    n->tensor = t;
    n->text = b->names[b->t[t].name];
    sg_item *c = item_new(b, GMT_CONSTANT); /* may move the items: n is not used after this */
    if (!c)
        return -1;
    c->tensor = t;
    return t;
}

int32_t sg_param(sg_builder *b, const char *name, uint32_t ndim, const uint64_t *dims)
{
    int32_t t = persistent_new(b, name, ndim, dims, b->dsize);
    if (t < 0)
        return -1;
    b->t[t].needs_grad = 1;
    b->t[t].is_param = 1;
    if (b->tot) {
        b->tot->param_count += sg_numel(b, t);
        b->tot->param_bytes += sg_bytes(b, t);
    }
    return t;
}

int32_t sg_buffer(sg_builder *b, const char *name, uint32_t ndim, const uint64_t *dims,
                  uint32_t esize)
{
    int32_t t = persistent_new(b, name, ndim, dims, esize);
    if (t >= 0 && b->tot)
        b->tot->buffer_bytes += sg_bytes(b, t);
    return t;
}

void sg_optimizer_init(sg_builder *b)
{
    static const char *const sgd_names[] = {"momentum_buffer"};
    static const char *const adam_names[] = {"exp_avg", "exp_avg_sq"};
    int adam = b->p->optim == GMT_SYNTH_ADAM;
    uint32_t n_state = adam ? 2 : b->p->optim == GMT_SYNTH_SGD ? 1 : 0;
    uint32_t n_params = b->n_persistent;
    for (uint32_t i = 0; i < n_params && !b->failed; i++) {
        if (!b->t[i].is_param)
            continue;
        for (uint32_t k = 0; k < n_state; k++) {
            char name[512];
            const char *pname = b->t[i].name >= 0 ? b->names[b->t[i].name] : "param";
            snprintf(name, sizeof name, "%s.%s", pname, adam ? adam_names[k] : sgd_names[k]);
            uint64_t dims[SG_MAX_DIMS];
            memcpy(dims, b->t[i].dims, sizeof dims);
            int32_t s = persistent_new(b, name, b->t[i].ndim, dims, b->t[i].esize);
            if (s < 0)
                return;
            b->t[i].state[k] = s;
            if (b->tot)
                b->tot->state_bytes += sg_bytes(b, s);
        }
    }
}

int32_t sg_input(sg_builder *b, uint32_t ndim, const uint64_t *dims, uint32_t esize)
{
    int32_t t = sg_tensor_new(b, ndim, dims, esize);
    if (t < 0)
        return -1;
    sg_call(b, "copy_h2d", NULL, 0, &t, NULL, 1, 0, (double)sg_bytes(b, t));
    if (b->failed)
        return -1;
    b->items[b->n_items - 1].host_copy = 1;
    if (b->tot)
        b->tot->input_bytes += sg_bytes(b, t);
    return t;
}

void sg_annotate(sg_builder *b, const char *kind, int has_value, int64_t value)
{
    sg_item *it = item_new(b, GMT_ANNOTATE);
    if (!it)
        return;
    it->text = kind;
    it->has_value = has_value;
    it->value = value;
}

/* A SCOPE item for node (begin) or closing it (end). */
static void scope_item(sg_builder *b, int32_t node, int end)
{
    if (!b->p->scopes)
        return;
    sg_item *it = item_new(b, GMT_SCOPE);
    if (!it)
        return;
    it->text = b->scope_name[node];
    it->scope_end = end;
}

void sg_scope_begin(sg_builder *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    char *copy = malloc(strlen(name) + 1);
    if (!copy ||
        grow((void **)&b->scope_name, &b->cap_scopes, b->n_scopes + 1, sizeof *b->scope_name) ||
        grow((void **)&b->scope_parent, &b->cap_scope_parent, b->n_scopes + 1,
             sizeof *b->scope_parent)) {
        free(copy);
        sg_fail(b, GMS_ENOMEM, "out of memory");
        return;
    }
    strcpy(copy, name);
    int32_t node = (int32_t)b->n_scopes++;
    b->scope_name[node] = copy;
    b->scope_parent[node] = b->scope_cur;
    b->scope_cur = node;
    scope_item(b, node, 0);
}

void sg_scope_end(sg_builder *b)
{
    if (b->failed)
        return;
    if (b->scope_cur < 0) {
        sg_fail(b, GMS_ESTATE, "internal: scope end without a scope");
        return;
    }
    scope_item(b, b->scope_cur, 1);
    b->scope_cur = b->scope_parent[b->scope_cur];
}

/* 1 when node a is b or one of b's ancestors (a = -1: the root, an ancestor of all). */
static int scope_encloses(const sg_builder *b, int32_t a, int32_t n)
{
    for (; n >= 0; n = b->scope_parent[n])
        if (n == a)
            return 1;
    return a < 0;
}

void sg_scope_move(sg_builder *b, int32_t to)
{
    if (b->failed || to == b->scope_cur)
        return;
    /* close up to the deepest open node that encloses `to`, then open the path down to it */
    while (b->scope_cur >= 0 && !scope_encloses(b, b->scope_cur, to)) {
        scope_item(b, b->scope_cur, 1);
        b->scope_cur = b->scope_parent[b->scope_cur];
    }
    int32_t path[64];
    uint32_t n = 0;
    for (int32_t k = to; k != b->scope_cur && k >= 0 && n < 64; k = b->scope_parent[k])
        path[n++] = k;
    while (n > 0) {
        int32_t node = path[--n];
        scope_item(b, node, 0);
        b->scope_cur = node;
    }
}

/* Fails the build when an op input is missing (-1: an earlier step failed to make it). */
static void check_inputs(sg_builder *b, const int32_t *ins, uint32_t n_in)
{
    for (uint32_t i = 0; i < n_in; i++)
        if (ins[i] < 0)
            sg_fail(b, GMS_EINVAL, "internal: op input missing");
}

/* Stores an op's inputs at pool[off..] (none a view) and returns the bytes they occupy. */
static double put_inputs(sg_builder *b, uint32_t off, const int32_t *ins, uint32_t n_in)
{
    double moved = 0;
    for (uint32_t i = 0; i < n_in; i++) {
        b->pool[off + i] = ins[i];
        b->alias[off + i] = -1;
        moved += (double)sg_bytes(b, ins[i]);
    }
    return moved;
}

void sg_call(sg_builder *b, const char *op, const int32_t *ins, uint32_t n_in,
             const int32_t *outs, const int32_t *alias, uint32_t n_out, double flops,
             double bytes)
{
    check_inputs(b, ins, n_in);
    for (uint32_t i = 0; i < n_out; i++)
        if (outs[i] < 0 || (alias && alias[i] >= (int32_t)n_in))
            sg_fail(b, GMS_EINVAL, "internal: op output missing");
    sg_item *it = item_new(b, GMT_CALL);
    uint32_t off = pool_take(b, n_in + n_out);
    if (!it || off == UINT32_MAX)
        return;
    it->text = op;
    it->in_off = off;
    it->n_in = n_in;
    it->out_off = off + n_in;
    it->n_out = n_out;
    double moved = put_inputs(b, off, ins, n_in);
    for (uint32_t i = 0; i < n_out; i++) {
        int32_t a = alias ? alias[i] : -1;
        b->pool[off + n_in + i] = outs[i];
        b->alias[off + n_in + i] = a;
        if (a < 0)
            moved += (double)sg_bytes(b, outs[i]);
    }
    it->flops = flops;
    it->bytes = bytes < 0 ? moved : bytes;
}

void sg_mutate(sg_builder *b, const char *op, const int32_t *ins, uint32_t n_in,
               const uint32_t *mut, uint32_t n_mut, double flops, double bytes)
{
    check_inputs(b, ins, n_in);
    for (uint32_t i = 0; i < n_mut; i++)
        if (mut[i] >= n_in)
            sg_fail(b, GMS_EINVAL, "internal: bad mutated index");
    sg_item *it = item_new(b, GMT_MUTATE);
    uint32_t off = pool_take(b, n_in + n_mut);
    if (!it || off == UINT32_MAX)
        return;
    it->text = op;
    it->in_off = off;
    it->n_in = n_in;
    it->mut_off = off + n_in;
    it->n_mut = n_mut;
    double moved = put_inputs(b, off, ins, n_in);
    for (uint32_t i = 0; i < n_mut; i++) {
        b->pool[off + n_in + i] = (int32_t)mut[i];
        b->alias[off + n_in + i] = -1;
        moved += (double)sg_bytes(b, ins[mut[i]]);
    }
    it->flops = flops;
    it->bytes = bytes < 0 ? moved : bytes;
}

void sg_tape_push(sg_builder *b, const sg_tape *e)
{
    if (b->failed)
        return;
    if (grow((void **)&b->tape, &b->cap_tape, b->n_tape + 1, sizeof *b->tape)) {
        sg_fail(b, GMS_ENOMEM, "out of memory building the op graph");
        return;
    }
    b->tape[b->n_tape] = *e;
    b->tape[b->n_tape++].scope = b->scope_cur;
}

void sg_grad_accumulate(sg_builder *b, int32_t t, int32_t g)
{
    if (b->failed || t < 0 || g < 0 || !b->t[t].needs_grad)
        return;
    if (b->t[t].grad < 0) {
        b->t[t].grad = g;
        return;
    }
    int32_t old = b->t[t].grad;
    uint64_t dims[SG_MAX_DIMS]; /* a copy: sg_tensor_new may move the table */
    memcpy(dims, b->t[g].dims, sizeof dims);
    int32_t sum = sg_tensor_new(b, b->t[g].ndim, dims, b->t[g].esize);
    int32_t ins[2] = {old, g};
    sg_call(b, "add", ins, 2, &sum, NULL, 1, (double)sg_numel(b, g), -1);
    b->t[t].grad = sum;
}

void sg_optimizer_step(sg_builder *b)
{
    int adam = b->p->optim == GMT_SYNTH_ADAM;
    if (b->p->optim == GMT_SYNTH_NOOPT)
        return;
    for (uint32_t i = 0; i < b->n_persistent && !b->failed; i++) {
        sg_tensor *w = &b->t[i];
        if (!w->is_param || w->grad < 0)
            continue;
        double n = (double)sg_numel(b, (int32_t)i);
        int32_t ins[4] = {(int32_t)i, w->grad, w->state[0], w->state[1]};
        uint32_t n_in = adam ? 4 : 3;
        const char *op = adam ? "_fused_adam_" : "_fused_sgd_";
        double flops = (adam ? 12.0 : 4.0) * n;
        if (b->p->update == GMT_SYNTH_UPDATE_MUTATE) {
            static const uint32_t mut[3] = {0, 2, 3};
            sg_mutate(b, op, ins, n_in, mut, n_in - 1, flops, -1);
        } else {
            /* new weight and state copies, released right away (never used) */
            int32_t outs[3];
            uint32_t n_out = 0;
            for (uint32_t k = 0; k < n_in; k++) {
                if (k == 1)
                    continue;
                uint64_t dims[SG_MAX_DIMS];
                memcpy(dims, b->t[ins[k]].dims, sizeof dims);
                outs[n_out++] = sg_tensor_new(b, b->t[ins[k]].ndim, dims, b->t[ins[k]].esize);
            }
            sg_call(b, op, ins, n_in, outs, NULL, n_out, flops, -1);
        }
    }
}

static int emit(sg_builder *b, const gmt_event *ev, const gmt_synth_opcost *cost);

void sg_release_persistent(sg_builder *b)
{
    for (uint32_t i = 0; i < b->n_persistent && !b->failed; i++) {
        gmt_event ev;
        gmt_event_init(&ev, GMT_RELEASE);
        ev.id = b->t[i].id;
        emit(b, &ev, NULL);
    }
}

/* Makes the scratch arrays hold n entries. */
static int scratch_reserve(sg_builder *b, uint32_t n)
{
    if (n <= b->cap_scratch)
        return 0;
    uint32_t cap = n < 64 ? 64 : n;
    uint64_t *ids = realloc(b->scratch_ids, cap * sizeof *ids);
    if (ids)
        b->scratch_ids = ids;
    gmt_output *outs = realloc(b->scratch_out, cap * sizeof *outs);
    if (outs)
        b->scratch_out = outs;
    uint32_t *mut = realloc(b->scratch_mut, cap * sizeof *mut);
    if (mut)
        b->scratch_mut = mut;
    if (!ids || !outs || !mut)
        return sg_fail(b, GMS_ENOMEM, "out of memory");
    b->cap_scratch = cap;
    return 0;
}

/* Hands one event to the sink and counts it. */
static int emit(sg_builder *b, const gmt_event *ev, const gmt_synth_opcost *cost)
{
    int rc = b->sink ? b->sink(b->ctx, ev, cost, b->err) : 0;
    if (rc) {
        b->failed = rc;
        return rc;
    }
    if (b->tot)
        b->tot->events++;
    return 0;
}

/* Emits item it as one gmt event. */
static int emit_item(sg_builder *b, const sg_item *it)
{
    gmt_event ev;
    gmt_event_init(&ev, it->kind);
    gmt_synth_opcost cost = {it->flops, it->bytes, it->host_copy};
    const gmt_synth_opcost *pc = NULL;
    switch (it->kind) {
    case GMT_CONSTANT:
        ev.id = b->t[it->tensor].id;
        ev.size = sg_bytes(b, it->tensor);
        if (b->tot)
            b->tot->constant_bytes += ev.size;
        break;
    case GMT_NAME:
        ev.id = b->t[it->tensor].id;
        ev.text = it->text;
        break;
    case GMT_ANNOTATE:
        ev.text = it->text;
        ev.has_value = it->has_value;
        ev.value = it->value;
        break;
    case GMT_SCOPE:
        gmt_event_scope(&ev, it->text, it->scope_end);
        break;
    case GMT_CALL:
    case GMT_MUTATE: {
        uint32_t extra = it->kind == GMT_CALL ? it->n_out : it->n_mut;
        if (scratch_reserve(b, it->n_in + extra))
            return b->failed;
        for (uint32_t i = 0; i < it->n_in; i++)
            b->scratch_ids[i] = b->t[b->pool[it->in_off + i]].id;
        ev.op = it->text;
        ev.n_inputs = it->n_in;
        ev.inputs = b->scratch_ids;
        ev.dur_ns = it->host_copy ? gmt_synth_h2d_cost_ns(b->p->gpu, it->bytes)
                                  : gmt_synth_cost_ns(b->p->gpu, b->p->dtype, it->flops, it->bytes);
        if (it->kind == GMT_CALL) {
            for (uint32_t i = 0; i < it->n_out; i++) {
                int32_t o = b->pool[it->out_off + i];
                b->scratch_out[i].id = b->t[o].id;
                b->scratch_out[i].size = sg_bytes(b, o);
                b->scratch_out[i].alias_of = b->alias[it->out_off + i];
            }
            ev.n_outputs = it->n_out;
            ev.outputs = b->scratch_out;
        } else {
            for (uint32_t i = 0; i < it->n_mut; i++)
                b->scratch_mut[i] = (uint32_t)b->pool[it->mut_off + i];
            ev.n_mutated = it->n_mut;
            ev.mutated = b->scratch_mut;
        }
        if (b->tot) {
            b->tot->ops++;
            b->tot->flops += it->flops;
            b->tot->bytes_moved += it->bytes;
            b->tot->dur_ns += ev.dur_ns;
        }
        pc = &cost;
        break;
    }
    default:
        return sg_fail(b, GMS_EINVAL, "internal: bad item kind");
    }
    gms_error verr;
    if (gmt_event_validate(&ev, &verr) != 0)
        return sg_fail(b, GMS_EINVAL, verr.msg);
    return emit(b, &ev, pc);
}

/* Marks item i as a use of tensor t (iteration tensors only). */
static void use(sg_builder *b, int32_t t, uint32_t i)
{
    if (t >= (int32_t)b->n_persistent && (int32_t)i > b->t[t].last_use)
        b->t[t].last_use = (int32_t)i;
}

int sg_flush(sg_builder *b)
{
    if (b->failed)
        return b->failed;
    for (uint32_t i = 0; i < b->n_items; i++) {
        const sg_item *it = &b->items[i];
        if (it->kind == GMT_CONSTANT)
            use(b, it->tensor, i);
        if (it->kind == GMT_CALL || it->kind == GMT_MUTATE)
            for (uint32_t k = 0; k < it->n_in; k++)
                use(b, b->pool[it->in_off + k], i);
        if (it->kind == GMT_CALL)
            for (uint32_t k = 0; k < it->n_out; k++)
                use(b, b->pool[it->out_off + k], i);
    }
    /* A parameter's gradient lives until the end of the iteration (optimizer.zero_grad). */
    for (uint32_t k = 0; k < b->n_persistent && b->n_items; k++)
        if (b->t[k].is_param && b->t[k].grad >= 0)
            use(b, b->t[k].grad, b->n_items - 1);
    /* Bucket the iteration's tensors by last use, ascending tensor index within a bucket. */
    uint32_t n_iter = b->n_t - b->n_persistent;
    int32_t *head = malloc(((size_t)b->n_items + 1) * sizeof *head);
    int32_t *next = malloc(((size_t)n_iter + 1) * sizeof *next);
    if (!head || !next) {
        free(head);
        free(next);
        return sg_fail(b, GMS_ENOMEM, "out of memory"), b->failed;
    }
    for (uint32_t i = 0; i < b->n_items; i++)
        head[i] = -1;
    for (uint32_t k = n_iter; k-- > 0;) {
        int32_t t = (int32_t)(b->n_persistent + k);
        int32_t lu = b->t[t].last_use;
        if (lu < 0)
            continue;
        next[k] = head[lu];
        head[lu] = t;
    }
    for (uint32_t i = 0; i < b->n_items && !b->failed; i++) {
        if (emit_item(b, &b->items[i]))
            break;
        for (int32_t t = head[i]; t >= 0 && !b->failed; t = next[t - (int32_t)b->n_persistent]) {
            gmt_event ev;
            gmt_event_init(&ev, GMT_RELEASE);
            ev.id = b->t[t].id;
            emit(b, &ev, NULL);
        }
    }
    free(head);
    free(next);
    b->n_t = b->n_persistent;
    b->n_items = 0;
    b->n_pool = 0;
    b->n_tape = 0;
    scopes_clear(b);
    for (uint32_t i = 0; i < b->n_persistent; i++)
        b->t[i].grad = -1;
    return b->failed;
}
