/*
 * import_et_ops: the Execution Trace's outermost operator calls as .gmt events (import_et.h).
 * The rules, with their limits, are in docs/import-pytorch.md:
 *
 *  - a storage is an ET storage id on a CUDA device; CPU tensors are counted and left out;
 *    its size is the largest (offset + numel) * itemsize seen for it;
 *  - a storage first seen as an op's input existed before the trace: a CONSTANT (parameters,
 *    optimizer state, buffers), unless its id later comes back as a new allocation (the
 *    allocator reused the address, so it was freed): then it was a per-step input, emitted
 *    as a zero-input copy op "et::step_input" just before its first use;
 *  - new storages output by an op's nested calls (saved for backward) are outputs of the op;
 *  - an output on a storage none of the op's inputs has is a new storage (alias_of -1); an
 *    output on an input's storage with another tensor id is a view (alias of that input); an
 *    output that is an input tensor itself (in-place ops return self) adds nothing;
 *  - inputs annotated `Tensor(a!)` in the op schema are written in place: the op allocates
 *    nothing for them; each written tensor gets a new version, a view (alias) output of the
 *    op on the same storage, and later readers read that version (see "versions" below);
 *  - a `_foreach_*` op over lists of N tensors is N ops, one per element
 *    (import_et_foreach.c);
 *  - an ET records no frees: every handle but a constant is released right after its last
 *    use, a lower bound of its real lifetime (PyTorch frees at refcount zero), but for
 *    gradients and optimizer state made in a step, held to the step's end (hold_step_state),
 *    and for storages whose real free a one-to-one Kineto join's memory events give
 *    (import_et_lifetimes.c, which also adds the kernels' workspaces as op outputs);
 *  - ANNOTATE "iteration" where the walk found an iteration start, ANNOTATE "BACKWARD" before
 *    the first op of an iteration that runs under the autograd engine, ANNOTATE "optimizer"
 *    before the first op of each optimizer step.
 *
 * Versions: the engine recomputes a view by recomputing its base and then the view's own op,
 * so a write in place as a view output "version k+1 of the storage, made by this op from
 * version k and its other inputs" is recomputed as the whole chain of writes, and costs no
 * bytes. A tensor made before its storage's latest write (a view taken earlier) that is read
 * afterwards is read together with the latest version, so recomputing its reader replays the
 * writes too.
 */
#include <stdlib.h>
#include <string.h>

#include "gmt.h"
#include "import_et.h"
#include "synth.h"

#include "import_et_ops_priv.h"

int et_vgrow(void **v, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 256;
    while (c < need)
        c *= 2;
    void *p = realloc(*v, c * size);
    if (!p)
        return -1;
    *v = p;
    *cap = c;
    return 0;
}

/* Bytes a tensor spans in its storage, saturating instead of wrapping on absurd input. */
static uint64_t extent(const et_tensor *x)
{
    uint64_t e, b;
    if (__builtin_add_overflow(x->offset, x->numel, &e) ||
        __builtin_mul_overflow(e, x->itemsize, &b))
        return UINT64_MAX / 4;
    return b > UINT64_MAX / 4 ? UINT64_MAX / 4 : b;
}

static int new_gen(et_events *e, uint64_t storage_id, uint64_t size, uint32_t op, int pre,
                   uint32_t *h)
{
    gen g = {size, (uint32_t)e->handles.n, op, NO_HANDLE, 0, (uint8_t)pre, 0, 0, 0, 0, 0};
    handle hd = {(uint32_t)e->gens.n, op, 0, 0};
    if (e->handles.n >= UINT32_MAX - 1 || PUSH(e->gens, g) || PUSH(e->handles, hd) ||
        addr_map_put(&e->storages, storage_id, (uint32_t)(e->gens.n - 1)))
        return -1;
    *h = g.base;
    return 0;
}

/* The handle an input tensor reads: its own (a view an earlier op made), else its storage's
 * first handle; a storage never seen is created as pre-existing. */
static int resolve(et_events *e, const et_tensor *x, uint32_t op, uint32_t *h)
{
    uint64_t g, th;
    if (!addr_map_get(&e->storages, x->storage_id, &g)) {
        if (new_gen(e, x->storage_id, extent(x), op, 1, h))
            return -1;
        return addr_map_put(&e->tensors, x->tensor_id, *h);
    }
    gen *gp = &e->gens.v[g];
    uint64_t ext = extent(x);
    if (ext > gp->size)
        gp->size = ext;
    *h = addr_map_get(&e->tensors, x->tensor_id, &th) && e->handles.v[th].gen == g ? (uint32_t)th
                                                                                  : gp->base;
    return 0;
}

/* Marks the schema's `(x!)` arguments: mut[i] = 1 for each written argument i. The ET lists
 * every argument in schema order (keyword-only ones too), so positions line up. */
static void mutated_args(const char *schema, uint8_t *mut, uint32_t n)
{
    const char *p = strchr(schema, '(');
    if (!p)
        return;
    p++;
    int depth = 0;
    uint32_t arg = 0;
    int bang = 0, star = 1;
    for (; *p && arg < n; p++) {
        char c = *p;
        if (c == '(' || c == '[') {
            depth++;
            star = 0;
        } else if ((c == ')' || c == ']') && depth > 0) {
            depth--;
        } else if (depth == 0 && (c == ',' || c == ')')) {
            if (!star) { /* a lone "*" marks keyword-only arguments, it is not one */
                mut[arg] = (uint8_t)bang;
                arg++;
            }
            bang = 0;
            star = 1;
            if (c == ')')
                break;
        } else if (c == '!') {
            bang = 1;
        } else if (c != '*' && c != ' ') {
            star = 0;
        }
    }
}

static int add_input(et_events *e, rec *r, uint32_t h)
{
    for (uint32_t i = 0; i < r->n_in; i++)
        if (e->ins.v[r->in_first + i] == h)
            return 0;
    r->n_in++;
    return PUSH(e->ins, (uint64_t)h);
}

static int index_of(const et_events *e, const rec *r, uint32_t h)
{
    for (uint32_t i = 0; i < r->n_in; i++)
        if (e->ins.v[r->in_first + i] == h)
            return (int)i;
    return -1;
}

static void touch(et_events *e, uint32_t h, uint32_t k)
{
    e->handles.v[h].last_use = k;
}

/* The new storages that the op's nested calls made (a saved mean, pooling indices, a
 * log-softmax kept for backward): outputs of the op, since later ops may read them. A storage
 * the op already reads or made is not new; one whose id is known but that the op does not
 * touch came back as a new allocation. */
/* 1 when one of the recs first..here-1 or r (the parts of one op so far) reads gen g. */
static int op_reads(const et_events *e, uint32_t first, const rec *r, uint32_t g)
{
    for (uint32_t k = first; k <= e->recs.n; k++) {
        const rec *q = k < e->recs.n ? &e->recs.v[k] : r;
        for (uint32_t j = 0; j < q->n_in; j++)
            if (e->handles.v[e->ins.v[q->in_first + j]].gen == g)
                return 1;
    }
    return 0;
}

/* The nested calls' new storages, given to the op's last part (first = its first part's
 * rec): a split op's parts made its own results, so only what none of them made or read
 * is new. */
static int hidden_outputs(et_events *e, const et_op *op, uint32_t first, rec *r,
                          et_event_totals *tot)
{
    const et_trace *t = e->t;
    for (uint32_t k = 0; k < op->n_hid; k++) {
        const et_arg *arg = &t->args[t->hidden[op->hid_first + k]];
        for (uint32_t i = 0; i < arg->n; i++) {
            const et_tensor *x = &t->tensors[arg->first + i];
            uint64_t g;
            uint32_t h;
            if (!x->cuda)
                continue;
            int have = addr_map_get(&e->storages, x->storage_id, &g);
            if (have && e->gens.v[g].first_use >= first)
                continue; /* made (or first read) by this op */
            if (have && op_reads(e, first, r, g))
                continue;
            if (have) {
                tot->storage_reuses++;
                if (e->gens.v[g].preexisting)
                    e->gens.v[g].reused = 1;
            }
            if (new_gen(e, x->storage_id, extent(x), (uint32_t)e->recs.n, 0, &h) ||
                addr_map_put(&e->tensors, x->tensor_id, h))
                return -1;
            gmt_output o = {(uint64_t)h, extent(x), -1};
            if (PUSH(e->outs, o))
                return -1;
            r->n_out++;
            tot->nested_outputs++;
        }
    }
    return 0;
}

/* Reads handle h: marks its use, and when h was made before its storage's latest in-place
 * write (a view taken earlier), also reads the latest version, so that recomputing this op
 * recomputes the writes it saw. */
static int read_handle(et_events *e, rec *r, uint32_t h, et_event_totals *tot)
{
    uint32_t here = (uint32_t)e->recs.n;
    if (add_input(e, r, h))
        return -1;
    touch(e, h, here);
    gen *gp = &e->gens.v[e->handles.v[h].gen];
    gp->read_by_optimizer |= (uint8_t)e->t->ops[r->op].optimizer;
    if (gp->latest == NO_HANDLE || gp->latest == h || e->handles.v[h].ver == gp->version)
        return 0;
    uint32_t n = r->n_in;
    if (add_input(e, r, gp->latest))
        return -1;
    touch(e, gp->latest, here);
    tot->stale_reads += r->n_in > n;
    return 0;
}

/* 1 when gen g is a gradient: a backward op made it (it is not pre-existing) and an optimizer
 * step reads it. */
static int is_gradient(const et_events *e, uint32_t g)
{
    const gen *gp = &e->gens.v[g];
    return !gp->preexisting && gp->read_by_optimizer && gp->first_use < e->recs.n &&
           e->t->ops[e->recs.v[gp->first_use].op].backward;
}

/* The op's in-place writes: one version per written input, a view output of it; the written
 * tensor id names the new version from now on. */
static int add_versions(et_events *e, rec *r, et_event_totals *tot)
{
    int with_grad = 0;
    for (uint32_t j = 0; e->t->ops[r->op].optimizer && j < r->n_in && !with_grad; j++)
        with_grad = is_gradient(e, e->handles.v[e->ins.v[r->in_first + j]].gen);
    for (size_t m = 0; m < e->muts.n; m++) {
        uint32_t idx = e->muts.v[m], h = (uint32_t)e->ins.v[r->in_first + idx];
        uint32_t g = e->handles.v[h].gen;
        gen *gp = &e->gens.v[g];
        if (gp->version == UINT32_MAX - 1 || e->handles.n >= UINT32_MAX - 1)
            return -1;
        handle hd = {g, (uint32_t)e->recs.n, ++gp->version, 1};
        uint32_t hv = (uint32_t)e->handles.n;
        gmt_output o = {(uint64_t)hv, 0, (int64_t)idx};
        if (PUSH(e->handles, hd) || PUSH(e->outs, o) ||
            addr_map_put(&e->tensors, e->mut_tids.v[m], hv))
            return -1;
        gp->latest = hv;
        gp->written_with_grad |= (uint8_t)with_grad;
        r->n_out++;
        tot->in_place_writes++;
    }
    return 0;
}

/* Records input `idx` (tensor id tid) as written by the op being built, once. */
static int note_write(et_events *e, uint32_t idx, uint64_t tid)
{
    for (size_t m = 0; m < e->muts.n; m++)
        if (e->muts.v[m] == idx)
            return 0;
    return PUSH(e->muts, idx) || PUSH(e->mut_tids, tid) ? -1 : 0;
}

/* Part `part` of op k's cost: its share of the bytes, the remainder to the last part so the
 * parts sum to the op's cost. */
static uint64_t part_cost(et_events *e, const et_op *op, uint32_t part, uint32_t parts)
{
    if (parts == 1)
        return op->dur_ns;
    if (part == 0) {
        e->split_total = 0;
        for (uint32_t p = 0; p < parts; p++)
            e->split_total += et_part_bytes(e->t, op, p, parts);
        e->split_given = 0;
    }
    uint64_t c;
    if (part + 1 == parts)
        c = op->dur_ns - e->split_given;
    else if (e->split_total == 0)
        c = op->dur_ns / parts;
    else
        c = (uint64_t)((long double)op->dur_ns * et_part_bytes(e->t, op, part, parts) /
                       e->split_total);
    if (c > op->dur_ns - e->split_given)
        c = op->dur_ns - e->split_given;
    e->split_given += c;
    return c;
}

/* One op (or one part of a split foreach op): its inputs, outputs and in-place writes as a
 * rec (handles as ids for now). */
static int build_op(et_events *e, uint32_t k, uint32_t part, uint32_t parts,
                    et_event_totals *tot, int *kept)
{
    const et_trace *t = e->t;
    const et_op *op = &t->ops[k];
    rec r = {k, part_cost(e, op, part, parts), (uint32_t)e->ins.n, 0, (uint32_t)e->outs.n, 0, 0};
    uint8_t mut_arg[256] = {0};
    mutated_args(op->schema, mut_arg, op->n_in < 256 ? op->n_in : 256);
    e->muts.n = e->mut_tids.n = 0;
    int any_cuda = 0;
    for (uint32_t a = 0; a < op->n_in; a++) {
        const et_arg *arg = &t->args[op->in_first + a];
        uint32_t lo, hi;
        et_part_range(arg, part, parts, &lo, &hi);
        for (uint32_t i = lo; i < hi; i++) {
            const et_tensor *x = &t->tensors[arg->first + i];
            if (!x->cuda) {
                tot->cpu_tensors++;
                continue;
            }
            any_cuda = 1;
            uint32_t h;
            if (resolve(e, x, (uint32_t)e->recs.n, &h) || read_handle(e, &r, h, tot))
                return -1;
            if (a < 256 && mut_arg[a] && note_write(e, (uint32_t)index_of(e, &r, h), x->tensor_id))
                return -1;
        }
    }
    for (uint32_t a = 0; a < op->n_out; a++) {
        const et_arg *arg = &t->args[op->out_first + a];
        uint32_t lo, hi;
        et_part_range(arg, part, parts, &lo, &hi);
        for (uint32_t i = lo; i < hi; i++) {
            const et_tensor *x = &t->tensors[arg->first + i];
            if (!x->cuda) {
                tot->cpu_tensors++;
                continue;
            }
            any_cuda = 1;
            uint64_t g, th;
            int have_gen = addr_map_get(&e->storages, x->storage_id, &g);
            if (have_gen && addr_map_get(&e->tensors, x->tensor_id, &th) &&
                e->handles.v[th].gen == g && index_of(e, &r, th) >= 0)
                continue; /* an input tensor returned (in-place ops return self) */
            int alias = -1;
            for (uint32_t j = 0; have_gen && j < r.n_in && alias < 0; j++)
                if (e->handles.v[e->ins.v[r.in_first + j]].gen == g)
                    alias = (int)j;
            uint32_t h;
            if (alias >= 0) { /* a view of input `alias` */
                handle hd = {g, (uint32_t)e->recs.n, e->gens.v[g].version, 0};
                h = (uint32_t)e->handles.n;
                if (PUSH(e->handles, hd))
                    return -1;
                tot->aliases++;
            } else {
                if (have_gen) { /* the id came back: the old storage was freed */
                    tot->storage_reuses++;
                    if (e->gens.v[g].preexisting)
                        e->gens.v[g].reused = 1;
                }
                if (new_gen(e, x->storage_id, extent(x), (uint32_t)e->recs.n, 0, &h))
                    return -1;
            }
            if (addr_map_put(&e->tensors, x->tensor_id, h))
                return -1;
            gmt_output o = {(uint64_t)h, extent(x), alias};
            if (PUSH(e->outs, o))
                return -1;
            r.n_out++;
        }
    }
    if (part == 0)
        e->op_first_rec = (uint32_t)e->recs.n;
    if (any_cuda && part + 1 == parts && hidden_outputs(e, op, e->op_first_rec, &r, tot))
        return -1;
    *kept = any_cuda;
    if (!any_cuda) { /* a CPU-only op: nothing to simulate */
        tot->ops_without_cuda++;
        e->ins.n = r.in_first;
        return 0;
    }
    if (e->muts.n > 0) {
        tot->in_place_ops++;
        tot->mutations_in_calls += r.n_out > 0;
        if (add_versions(e, &r, tot))
            return -1;
    }
    tot->calls++;
    return PUSH(e->recs, r);
}

/* Components of a dotted module path, and the byte length of its first k. */
static uint32_t path_depth(const char *p)
{
    uint32_t d = p && *p ? 1 : 0;
    for (; p && *p; p++)
        d += *p == '.';
    return d;
}

static uint32_t path_prefix_len(const char *p, uint32_t k)
{
    uint32_t len = 0, d = 0;
    for (; p[len]; len++)
        if (p[len] == '.' && ++d == k)
            return len;
    return len;
}

/* Closes the open scopes down to `keep` of them. */
static int close_scopes(et_events *e, uint32_t keep)
{
    int rc = 0;
    for (; e->open_depth > keep && !rc; e->open_depth--)
        rc = PUSH(e->items, ((item){IT_SCOPE_END, 0}));
    if (!e->open_depth)
        e->open_path = NULL;
    return rc;
}

/* Moves the open scopes to the modules of path (NULL: none): closes those it is not inside,
 * opens the ones it enters. */
static int enter_modules(et_events *e, const char *path, et_event_totals *tot)
{
    if (path == e->open_path)
        return 0;
    uint32_t depth = path_depth(path), common = 0;
    while (common < depth && common < e->open_depth) {
        uint32_t a = path_prefix_len(path, common + 1);
        if (a != path_prefix_len(e->open_path, common + 1) ||
            memcmp(path, e->open_path, a) != 0)
            break;
        common++;
    }
    int rc = close_scopes(e, common);
    for (uint32_t d = common + 1; d <= depth && !rc; d++) {
        rc = PUSH(e->scope_names, ((scope_name){path, path_prefix_len(path, d)}));
        rc |= PUSH(e->items, ((item){IT_SCOPE_BEGIN, (uint32_t)(e->scope_names.n - 1)}));
        tot->scopes++;
    }
    e->open_path = depth ? path : NULL;
    e->open_depth = depth;
    return rc;
}

/* Orders the events: START, constants, then per op its annotations, the step inputs it is the
 * first to read, the op, and the releases of handles it used last. */
/* Gradients and optimizer state live to the end of their step, where an ET's release after
 * the last use would free them: a gradient (is_gradient) is a parameter's .grad, held until
 * the next zero_grad; optimizer state (a storage made in the optimizer step and written there
 * by an op that reads a gradient: Adam's exp_avg and exp_avg_sq, SGD's momentum buffer) is
 * held by optimizer.state for good. */
static void hold_step_state(et_events *e, et_event_totals *tot)
{
    size_t nr = e->recs.n;
    uint32_t *step_end = malloc((nr ? nr : 1) * sizeof *step_end);
    if (!step_end)
        return;
    for (size_t k = nr; k-- > 0;)
        step_end[k] = k + 1 == nr || e->recs.v[k + 1].iter_start ? (uint32_t)k : step_end[k + 1];
    for (size_t g = 0; g < e->gens.n; g++) {
        gen *gp = &e->gens.v[g];
        int grad = is_gradient(e, (uint32_t)g);
        int state = !gp->preexisting && gp->written_with_grad && gp->first_use < nr &&
                    e->t->ops[e->recs.v[gp->first_use].op].optimizer;
        if (!grad && !state)
            continue;
        handle *hd = &e->handles.v[gp->base];
        if (step_end[gp->first_use] > hd->last_use)
            hd->last_use = step_end[gp->first_use];
        tot->gradients_held += grad;
        tot->state_held += state;
    }
    free(step_end);
}

static int order(et_events *e, const struct gmt_synth_gpu *gpu, et_event_totals *tot)
{
    size_t nh = e->handles.n, nr = e->recs.n;
    uint32_t *rel_count = calloc(nr + 1, sizeof *rel_count);
    uint32_t *rel = malloc((nh ? nh : 1) * sizeof *rel);
    e->step_cost = calloc(e->gens.n + 1, sizeof *e->step_cost);
    if (!rel_count || !rel || !e->step_cost) {
        free(rel_count);
        free(rel);
        return -1;
    }
    int rc = PUSH(e->items, ((item){IT_START, 0}));
    for (size_t g = 0; g < e->gens.n && !rc; g++) {
        gen *gp = &e->gens.v[g];
        if (gp->preexisting && !gp->reused) {
            rc = PUSH(e->items, ((item){IT_CONST, gp->base}));
            tot->constants++;
            tot->constant_bytes += gp->size;
        } else if (gp->preexisting) {
            tot->step_inputs++;
            e->step_cost[g] = gpu ? gmt_synth_h2d_cost_ns(gpu, (double)gp->size) : 0;
        }
    }
    /* releases bucketed by the rec that used them last (counting sort) */
    for (size_t h = 0; h < nh; h++) {
        const gen *gp = &e->gens.v[e->handles.v[h].gen];
        tot->constant_writes += e->handles.v[h].is_version && gp->preexisting && !gp->reused;
        if (gp->preexisting && !gp->reused && gp->base == h)
            continue; /* a constant lives throughout */
        rel_count[e->handles.v[h].last_use + 1]++;
    }
    for (size_t k = 0; k < nr; k++)
        rel_count[k + 1] += rel_count[k];
    uint32_t *fill = calloc(nr + 1, sizeof *fill);
    if (!fill)
        rc = -1;
    for (size_t h = 0; h < nh && !rc; h++) {
        const gen *gp = &e->gens.v[e->handles.v[h].gen];
        if (gp->preexisting && !gp->reused && gp->base == h)
            continue;
        uint32_t k = e->handles.v[h].last_use;
        rel[rel_count[k] + fill[k]++] = (uint32_t)h;
    }
    /* step inputs bucketed by first use: at most one gen per handle, so scan gens per rec */
    size_t gi = 0;
    int in_backward = 0, in_optimizer = 0;
    for (size_t k = 0; k < nr && !rc; k++) {
        const et_op *op = &e->t->ops[e->recs.v[k].op];
        if (e->recs.v[k].iter_start) {
            rc |= close_scopes(e, 0);
            rc |= PUSH(e->items, ((item){IT_ITER, 0}));
            in_backward = 0;
        }
        if (op->backward && !in_backward) {
            rc |= close_scopes(e, 0);
            rc |= PUSH(e->items, ((item){IT_BWD, 0}));
            in_backward = 1;
            tot->backward_marks++;
        }
        if (op->optimizer && !in_optimizer) {
            rc |= close_scopes(e, 0);
            rc |= PUSH(e->items, ((item){IT_OPT, 0}));
            tot->optimizer_marks++;
        }
        in_optimizer = op->optimizer;
        for (; gi < e->gens.n && e->gens.v[gi].first_use <= k; gi++)
            if (e->gens.v[gi].preexisting && e->gens.v[gi].reused)
                rc |= PUSH(e->items, ((item){IT_STEPIN, (uint32_t)gi}));
        rc |= enter_modules(e, op->module_path, tot);
        rc |= PUSH(e->items, ((item){IT_OP, (uint32_t)k}));
        for (uint32_t i = rel_count[k]; i < rel_count[k + 1] && !rc; i++) {
            rc |= PUSH(e->items, ((item){IT_RELEASE, rel[i]}));
            tot->releases++;
        }
    }
    if (!rc)
        rc = close_scopes(e, 0);
    free(fill);
    free(rel_count);
    free(rel);
    return rc;
}

int et_events_build(const et_trace *t, const struct gmt_synth_gpu *gpu, et_events **out,
                    et_event_totals *tot, gms_error *err)
{
    *out = NULL;
    memset(tot, 0, sizeof *tot);
    et_events *e = calloc(1, sizeof *e);
    if (!e)
        return gms_error_set(err, GMS_ENOMEM, "out of memory importing the Execution Trace");
    e->t = t;
    int rc = 0;
    /* pending marks of ops left out move to the next op kept */
    int iter = 0;
    for (size_t k = 0; k < t->n_ops && !rc; k++) {
        iter |= t->ops[k].iter_start;
        uint32_t parts = et_foreach_parts(t, &t->ops[k]);
        size_t gens_before = e->gens.n, recs_before = e->recs.n;
        tot->foreach_split += parts > 1;
        tot->foreach_parts += parts > 1 ? parts : 0;
        for (uint32_t p = 0; p < parts && !rc; p++) {
            int kept = 0;
            rc = build_op(e, (uint32_t)k, p, parts, tot, &kept);
            if (!rc && kept && iter) {
                e->recs.v[e->recs.n - 1].iter_start = 1;
                iter = 0;
            }
        }
        if (!rc && t->n_allocs && t->ops[k].kt_joined && e->recs.n > recs_before)
            rc = et_lifetimes_op(e, (uint32_t)k, gens_before, tot);
    }
    /* fresh outputs carry their storage's final size; handles become 1-based ids */
    for (size_t i = 0; i < e->outs.n && !rc; i++) {
        if (e->outs.v[i].alias_of < 0)
            e->outs.v[i].size = e->gens.v[e->handles.v[e->outs.v[i].id].gen].size;
        e->outs.v[i].id++;
    }
    for (size_t i = 0; i < e->ins.n; i++)
        e->ins.v[i]++;
    if (!rc && t->n_allocs)
        rc = et_lifetimes_apply(e, tot);
    if (!rc) {
        hold_step_state(e, tot);
        rc = order(e, gpu, tot);
    }
    if (rc) {
        et_events_free(e);
        return gms_error_set(err, GMS_ENOMEM, "out of memory importing the Execution Trace");
    }
    tot->ops = e->recs.n;
    *out = e;
    return 0;
}

int et_events_next(et_events *e, gmt_event *ev)
{
    if (e->pos >= e->items.n)
        return 0;
    item it = e->items.v[e->pos++];
    switch (it.kind) {
    case IT_START:
        gmt_event_init(ev, GMT_ANNOTATE);
        ev->text = "START";
        break;
    case IT_ITER:
        gmt_event_init(ev, GMT_ANNOTATE);
        ev->text = "iteration";
        break;
    case IT_BWD:
        gmt_event_init(ev, GMT_ANNOTATE);
        ev->text = "BACKWARD";
        break;
    case IT_OPT:
        gmt_event_init(ev, GMT_ANNOTATE);
        ev->text = "optimizer";
        break;
    case IT_CONST:
        gmt_event_init(ev, GMT_CONSTANT);
        ev->id = (uint64_t)it.ref + 1;
        ev->size = e->gens.v[e->handles.v[it.ref].gen].size;
        break;
    case IT_STEPIN: {
        const gen *gp = &e->gens.v[it.ref];
        gmt_event_init(ev, GMT_CALL);
        ev->op = "et::step_input";
        ev->dur_ns = e->step_cost[it.ref];
        e->one_out = (gmt_output){(uint64_t)gp->base + 1, gp->size, -1};
        ev->n_outputs = 1;
        ev->outputs = &e->one_out;
        break;
    }
    case IT_RELEASE:
        gmt_event_init(ev, GMT_RELEASE);
        ev->id = (uint64_t)it.ref + 1;
        break;
    case IT_SCOPE_BEGIN: {
        scope_name sn = e->scope_names.v[it.ref];
        memcpy(e->scope_text, sn.path, sn.len); /* len <= 4095: module_path's limit */
        e->scope_text[sn.len] = '\0';
        gmt_event_scope(ev, e->scope_text, 0);
        break;
    }
    case IT_SCOPE_END:
        gmt_event_scope(ev, NULL, 1);
        break;
    default: { /* IT_OP: handles are 0-based inside, ids 1-based outside */
        const rec *r = &e->recs.v[it.ref];
        const et_op *op = &e->t->ops[r->op];
        gmt_event_init(ev, GMT_CALL);
        ev->op = op->name;
        ev->dur_ns = r->dur_ns;
        /* a pool nothing was pushed to is NULL: point into pools only for non-empty lists */
        ev->n_inputs = r->n_in;
        ev->inputs = r->n_in ? e->ins.v + r->in_first : NULL;
        ev->n_outputs = r->n_out;
        ev->outputs = r->n_out ? e->outs.v + r->out_first : NULL;
        break;
    }
    }
    return 1;
}

void et_events_free(et_events *e)
{
    if (!e)
        return;
    free(e->gens.v);
    free(e->handles.v);
    free(e->recs.v);
    free(e->ins.v);
    free(e->outs.v);
    free(e->muts.v);
    free(e->mut_tids.v);
    free(e->items.v);
    free(e->scope_names.v);
    free(e->step_cost);
    addr_map_free(&e->storages);
    addr_map_free(&e->tensors);
    free(e);
}
