/*
 * sim_builder: turns a stream of gmt events into the immutable replay schedule of the spec's
 * section 1 (simrd's parse_file + get_closure), plus the baseline figures of section 4.
 *
 * The builder keeps simrd's parse-time state: the name map (handle -> tensor, remembering the
 * order in which each name was first bound, because the final PINs follow it), each tensor's
 * parse-time refcount `_ref`, and each storage's external reference count. The latter is
 * budget-independent, so the builder resolves it once: a RELEASE that drops a storage's last
 * reference becomes a SCH_RELEASE_LAST entry (the only RELEASE with a runtime effect), other
 * RELEASEs and every GET vanish from the runtime schedule.
 */
#include <stdlib.h>
#include <string.h>

#include "gmt.h"
#include "sim_internal.h"

#define NO_SLOT UINT32_MAX
#define INTERN_MEMO 64 /* a power of two */

/* An entry of the name map's hash table: a handle and its slot (NO_SLOT = empty). */
typedef struct name_entry {
    uint64_t handle;
    uint32_t slot;
} name_entry;

struct sim_trace_builder {
    sim_trace *tr; /* arrays being filled */
    uint32_t cap_ops, cap_args, cap_tensors, cap_storages, cap_schedule, cap_strings;
    uint32_t cap_arg_st, cap_st_size;
    /* For sim_trace_link, counted as the ops come (their lines are in cache then): each
     * tensor's children in its children_off, each storage's tensors in its n_tensors, and
     * here their sum (sum over ops of args x outputs). */
    uint64_t n_children;

    /* 32 bits each (ref_step refuses a count beyond them: only a trace of billions of
     * events could reach one) */
    int32_t *tref;     /* per tensor: simrd's parse-time _ref */
    uint32_t cap_tref;
    int32_t *sref;     /* per storage: external references */
    uint32_t cap_sref;
    uint64_t *thandle; /* per tensor: the trace's id of it (for messages and MUTATE) */
    uint32_t cap_thandle;

    /* bound names in first-binding order: each one's tensor (a slot). The handles are not
     * kept per slot: a direct one is its index in `direct`, a hashed one is in its entry. */
    uint32_t *slots;
    uint32_t n_slots, cap_slots;
    /* handle -> slot. Handles below direct_cap are looked up in `direct` (NO_SLOT = unbound),
     * the others in `index`, a hash table of (handle, slot) entries. Traces number their
     * tensors densely (synth, DTR logs through the name map, most importers), and a
     * million-op trace's hash table is a cache miss per lookup: the direct table keeps them
     * local. It grows while it stays dense (see direct_grow). */
    uint32_t *direct;
    uint64_t direct_cap;
    name_entry *index;
    uint32_t index_cap;
    uint32_t n_hashed; /* slots in index */

    uint32_t *argbuf;  /* the current event's resolved inputs (resolve_inputs) */
    uint32_t cap_argbuf;

    uint32_t *intern;  /* hash table of string offsets, NO_SLOT = empty */
    uint32_t intern_cap, intern_n;
    /* the offsets of the last names interned, by the name's address (a .gmt source hands
     * out each op name at one address): a hit still compares the strings */
    const char *memo_name[INTERN_MEMO];
    uint32_t memo_off[INTERN_MEMO];

    uint32_t cap_scopes, cap_iter, cap_bwd, cap_opt, cap_iter_val;
    uint32_t *open;    /* indices into tr->scopes of the open scopes, outermost first */
    uint32_t n_open, cap_open;
    uint32_t orphan_ends; /* scopes opened before START: their ends are ignored */
    int have_model_op; /* tr->first_model_op is set */

    uint64_t events;   /* events added (for messages) */
    int started;       /* an ANNOTATE START was seen */
    int failed;
    uint64_t mem;      /* baseline replay */
};

static int oom(sim_trace_builder *b, gms_error *err)
{
    b->failed = 1;
    return gms_error_set(err, GMS_ENOMEM, "event %llu: out of memory building the schedule",
                         (unsigned long long)b->events);
}

static uint64_t hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return x;
}

/* ------------------------------------------------------------------------------------------
 * Op names, interned
 */
static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int intern_rehash(sim_trace_builder *b, uint32_t cap)
{
    uint32_t *n = malloc((size_t)cap * sizeof *n);
    if (!n)
        return -1;
    memset(n, 0xff, (size_t)cap * sizeof *n);
    for (uint32_t i = 0; i < b->intern_cap; i++) {
        uint32_t off = b->intern[i];
        if (off == NO_SLOT)
            continue;
        uint32_t j = str_hash(b->tr->strings + off) & (cap - 1);
        while (n[j] != NO_SLOT)
            j = (j + 1) & (cap - 1);
        n[j] = off;
    }
    free(b->intern);
    b->intern = n;
    b->intern_cap = cap;
    return 0;
}

/* Offset of name in the trace's string table, adding it once. */
static int intern(sim_trace_builder *b, const char *name, uint32_t *off)
{
    uint32_t m = (uint32_t)((uintptr_t)name >> 3) & (INTERN_MEMO - 1);
    if (b->memo_name[m] == name && strcmp(b->tr->strings + b->memo_off[m], name) == 0) {
        *off = b->memo_off[m];
        return 0;
    }
    b->memo_name[m] = name;
    if ((b->intern_n + 1) * 2 > b->intern_cap &&
        intern_rehash(b, b->intern_cap ? b->intern_cap * 2 : 64) != 0)
        return -1;
    uint32_t mask = b->intern_cap - 1;
    uint32_t j = str_hash(name) & mask;
    for (; b->intern[j] != NO_SLOT; j = (j + 1) & mask)
        if (strcmp(b->tr->strings + b->intern[j], name) == 0) {
            *off = b->memo_off[m] = b->intern[j];
            return 0;
        }
    size_t len = strlen(name) + 1;
    sim_trace *tr = b->tr;
    if (len > UINT32_MAX - tr->strings_len ||
        sim_grow((void **)&tr->strings, &b->cap_strings, tr->strings_len + (uint32_t)len, 1))
        return -1;
    memcpy(tr->strings + tr->strings_len, name, len);
    *off = b->memo_off[m] = tr->strings_len;
    b->intern[j] = tr->strings_len;
    b->intern_n++;
    tr->strings_len += (uint32_t)len;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * The name map (handle -> tensor), in first-binding order like a Python dict
 */
/* Rebuilds the hash table with cap entries, leaving out the handles the direct table now
 * covers. */
static int index_rehash(sim_trace_builder *b, uint32_t cap)
{
    name_entry *n = malloc((size_t)cap * sizeof *n);
    if (!n)
        return -1;
    memset(n, 0xff, (size_t)cap * sizeof *n);
    for (uint32_t i = 0; i < b->index_cap; i++) {
        const name_entry *e = &b->index[i];
        if (e->slot == NO_SLOT || e->handle < b->direct_cap)
            continue; /* empty, or now in the direct table */
        uint32_t j = (uint32_t)hash64(e->handle) & (cap - 1);
        while (n[j].slot != NO_SLOT)
            j = (j + 1) & (cap - 1);
        n[j] = *e;
    }
    free(b->index);
    b->index = n;
    b->index_cap = cap;
    return 0;
}

/* Extends the direct table to cover handle h if it stays dense: at most 4 entries per bound
 * name (plus a constant), so its memory stays linear in the trace. Handles it takes over move
 * out of the hash table. 0, or -1 when out of memory. */
static int direct_grow(sim_trace_builder *b, uint64_t h)
{
    uint64_t cap = b->direct_cap ? b->direct_cap : 4096;
    while (cap <= h)
        cap *= 2;
    if (cap > 4 * ((uint64_t)b->n_slots + 1) + 65536)
        return 0; /* too sparse: h goes to the hash table */
    uint32_t *d = realloc(b->direct, (size_t)cap * sizeof *d);
    if (!d)
        return -1;
    memset(d + b->direct_cap, 0xff, (size_t)(cap - b->direct_cap) * sizeof *d);
    b->direct = d;
    b->direct_cap = cap;
    if (b->n_hashed == 0)
        return 0;
    b->n_hashed = 0;
    for (uint32_t i = 0; i < b->index_cap; i++) {
        const name_entry *e = &b->index[i];
        if (e->slot == NO_SLOT)
            continue;
        if (e->handle < cap)
            d[e->handle] = e->slot;
        else
            b->n_hashed++;
    }
    return index_rehash(b, b->index_cap); /* drops the moved ones */
}

/* The slot of handle h, or NO_SLOT. */
static uint32_t name_find(const sim_trace_builder *b, uint64_t h)
{
    if (h < b->direct_cap)
        return b->direct[h];
    if (b->index_cap == 0)
        return NO_SLOT;
    uint32_t mask = b->index_cap - 1;
    for (uint32_t j = (uint32_t)hash64(h) & mask; b->index[j].slot != NO_SLOT; j = (j + 1) & mask)
        if (b->index[j].handle == h)
            return b->index[j].slot;
    return NO_SLOT;
}

/* Binds h to tensor t: a new name goes last, a rebound one keeps its position. */
static int name_bind(sim_trace_builder *b, uint64_t h, uint32_t t)
{
    uint32_t s = name_find(b, h);
    if (s != NO_SLOT) {
        b->slots[s] = t;
        return 0;
    }
    if (b->n_slots == NO_SLOT ||
        sim_grow((void **)&b->slots, &b->cap_slots, b->n_slots + 1, sizeof *b->slots))
        return -1;
    if (h >= b->direct_cap && direct_grow(b, h) != 0)
        return -1;
    if (h < b->direct_cap) {
        b->slots[b->n_slots] = t;
        b->direct[h] = b->n_slots++;
        return 0;
    }
    if ((b->n_hashed + 1) * 2 > b->index_cap &&
        index_rehash(b, b->index_cap ? b->index_cap * 2 : 1024) != 0)
        return -1;
    b->slots[b->n_slots] = t;
    b->n_hashed++;
    uint32_t mask = b->index_cap - 1;
    uint32_t j = (uint32_t)hash64(h) & mask;
    while (b->index[j].slot != NO_SLOT)
        j = (j + 1) & mask;
    b->index[j] = (name_entry){h, b->n_slots++};
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Schedule pieces
 */
static int sched(sim_trace_builder *b, uint32_t kind, uint32_t idx)
{
    sim_trace *tr = b->tr;
    if (sim_grow((void **)&tr->schedule, &b->cap_schedule, tr->n_schedule + 1, sizeof(uint32_t)))
        return -1;
    tr->schedule[tr->n_schedule++] = (idx << 3) | kind;
    return 0;
}

/* Looks up the live tensor of handle h for event kind `what`. */
static int resolve(sim_trace_builder *b, uint64_t h, const char *what, const char *op,
                   uint32_t *t, gms_error *err)
{
    uint32_t s = name_find(b, h);
    if (s == NO_SLOT) {
        b->failed = 1;
        return gms_error_set(err, GMS_EFORMAT,
                             "event %llu: %s%s%s: tensor %llu is not defined (no CONSTANT, CALL or "
                             "COPY bound it after the trace's START)",
                             (unsigned long long)b->events, what, op ? " " : "", op ? op : "",
                             (unsigned long long)h);
    }
    *t = b->slots[s];
    return 0;
}

/* Adds d (+1 or -1) to the reference count *r. 0, or -1 (err set) when the count would leave
 * 32 bits. */
static int ref_step(sim_trace_builder *b, int32_t *r, int d, gms_error *err)
{
    if (d > 0 ? *r == INT32_MAX : *r == INT32_MIN) {
        b->failed = 1;
        return gms_error_set(err, GMS_EFORMAT,
                             "event %llu: a tensor's reference count leaves 32 bits (more than "
                             "2^31 references: split the trace)",
                             (unsigned long long)b->events);
    }
    *r += d;
    return 0;
}

/* simrd's rt.get: one more external reference on t's storage. */
static int get_ref(sim_trace_builder *b, uint32_t t, const char *what, gms_error *err)
{
    uint32_t s = b->tr->tensors[t].storage;
    if (b->sref[s] <= 0) {
        b->failed = 1;
        return gms_error_set(err, GMS_EFORMAT,
                             "event %llu: %s: tensor %llu is used after all its references "
                             "were released",
                             (unsigned long long)b->events, what,
                             (unsigned long long)b->thandle[t]);
    }
    return ref_step(b, &b->sref[s], 1, err);
}

/* simrd's rt.release: drops a reference; the storage's last one becomes a runtime event and
 * frees the storage in the baseline replay. */
static int release_ref(sim_trace_builder *b, uint32_t t, gms_error *err)
{
    sim_trace *tr = b->tr;
    uint32_t s = tr->tensors[t].storage;
    if (b->sref[s] <= 0) {
        b->failed = 1;
        return gms_error_set(err, GMS_EFORMAT,
                             "event %llu: RELEASE: tensor %llu has no reference left to release",
                             (unsigned long long)b->events, (unsigned long long)b->thandle[t]);
    }
    if (--b->sref[s] == 0) {
        b->mem -= tr->storages[s].size;
        if (sched(b, SCH_RELEASE_LAST, s))
            return oom(b, err);
    }
    return 0;
}

/* Creates an op with the given resolved args; outputs are added by add_output. */
static int new_op(sim_trace_builder *b, const char *name, uint64_t cost, const uint32_t *args,
                  uint32_t n_args, uint32_t *out, gms_error *err)
{
    sim_trace *tr = b->tr;
    if (tr->n_ops >= SCH_MAX_INDEX || n_args > UINT32_MAX - tr->n_args_total) {
        b->failed = 1;
        return gms_error_set(err, GMS_EFORMAT, "event %llu: too many ops for the simulator",
                             (unsigned long long)b->events);
    }
    uint32_t name_off = 0;
    if (sim_grow((void **)&tr->ops, &b->cap_ops, tr->n_ops + 1, sizeof *tr->ops) ||
        sim_grow((void **)&tr->args, &b->cap_args, tr->n_args_total + n_args, sizeof(uint32_t)) ||
        sim_grow((void **)&tr->arg_st, &b->cap_arg_st, tr->n_args_total + n_args,
                 sizeof(uint32_t)) ||
        intern(b, name, &name_off))
        return oom(b, err);
    sim_op *op = &tr->ops[tr->n_ops];
    memset(op, 0, sizeof *op);
    op->cost = cost;
    op->args_off = tr->n_args_total;
    op->n_args = n_args;
    op->out_first = tr->n_tensors;
    op->name = name_off;
    for (uint32_t i = 0; i < n_args; i++) {
        tr->args[tr->n_args_total + i] = args[i];
        tr->arg_st[tr->n_args_total + i] = tr->tensors[args[i]].storage;
    }
    tr->n_args_total += n_args;
    *out = tr->n_ops++;
    return 0;
}

/* Adds an output tensor to op o: a view of storage `view_of` or (SIM_NONE) a new storage of
 * `size` bytes. Every new tensor holds one reference on its storage. */
static int add_output(sim_trace_builder *b, uint32_t o, uint64_t handle, uint32_t view_of,
                      uint64_t size, int mutated, uint32_t *out, gms_error *err)
{
    sim_trace *tr = b->tr;
    if (tr->n_tensors >= SCH_MAX_INDEX) {
        b->failed = 1;
        return gms_error_set(err, GMS_EFORMAT, "event %llu: too many tensors for the simulator",
                             (unsigned long long)b->events);
    }
    if (sim_grow((void **)&tr->tensors, &b->cap_tensors, tr->n_tensors + 1, sizeof *tr->tensors) ||
        sim_grow((void **)&b->tref, &b->cap_tref, tr->n_tensors + 1, sizeof *b->tref) ||
        sim_grow((void **)&b->thandle, &b->cap_thandle, tr->n_tensors + 1, sizeof *b->thandle) ||
        sim_grow((void **)&tr->storages, &b->cap_storages, tr->n_storages + 1,
                 sizeof *tr->storages) ||
        sim_grow((void **)&tr->st_size, &b->cap_st_size, tr->n_storages + 1,
                 sizeof *tr->st_size) ||
        sim_grow((void **)&b->sref, &b->cap_sref, tr->n_storages + 1, sizeof *b->sref))
        return oom(b, err);
    uint32_t t = tr->n_tensors++;
    sim_tensor *te = &tr->tensors[t];
    memset(te, 0, sizeof *te);
    b->thandle[t] = handle;
    te->op = o;
    te->mutated = (uint8_t)(mutated > 255 ? 255 : mutated);
    if (view_of != SIM_NONE) {
        te->is_view = 1;
        te->storage = view_of;
    } else {
        uint32_t s = tr->n_storages++;
        tr->storages[s] = (sim_storage_info){.size = size, .root = t};
        tr->st_size[s] = size;
        b->sref[s] = 0;
        te->storage = s;
        te->size = size;
        tr->ops[o].total_size += size;
    }
    if (ref_step(b, &b->sref[te->storage], 1, err))
        return -1;
    tr->storages[te->storage].n_tensors++;
    b->tref[t] = 1;
    tr->ops[o].n_out++;
    *out = t;
    return 0;
}

/* Baseline replay of one op (spec section 4): its outputs are allocated at once. */
static void baseline_op(sim_trace_builder *b, uint32_t o)
{
    sim_trace *tr = b->tr;
    const sim_op *op = &tr->ops[o];
    sim_baseline *bl = &tr->baseline;
    uint64_t foot = op->total_size;
    for (uint32_t i = 0; i < op->n_args; i++) {
        sim_tensor *te = &tr->tensors[tr->args[op->args_off + i]];
        foot += te->size;
        te->children_off += op->n_out; /* its children count, until the link */
    }
    b->n_children += (uint64_t)op->n_args * op->n_out;
    if (foot > bl->bottleneck)
        bl->bottleneck = foot;
    b->mem += op->total_size;
    if (b->mem > bl->memory)
        bl->memory = b->mem;
    bl->compute += op->cost;
    bl->ops++;
}

/* Forgets everything seen so far: the trace starts after its first ANNOTATE START. */
static void reset(sim_trace_builder *b)
{
    sim_trace *tr = b->tr;
    tr->n_ops = tr->n_args_total = tr->n_tensors = tr->n_storages = tr->n_schedule = 0;
    memset(&tr->baseline, 0, sizeof tr->baseline);
    b->n_slots = 0;
    if (b->index)
        memset(b->index, 0xff, (size_t)b->index_cap * sizeof *b->index);
    if (b->direct)
        memset(b->direct, 0xff, (size_t)b->direct_cap * sizeof *b->direct);
    b->n_hashed = 0;
    b->mem = 0;
    b->n_children = 0;
    tr->n_scopes = tr->n_iter = tr->n_bwd = tr->n_opt = tr->max_scope_depth = 0;
    b->orphan_ends += b->n_open;
    b->n_open = 0;
    b->have_model_op = 0;
}

/* ------------------------------------------------------------------------------------------
 * Layer structure (for sim_layers.c; nothing here touches the schedule)
 */
/* Records "the next op is index n_ops" in *arr (an iteration or backward boundary). */
static int mark(sim_trace_builder *b, uint32_t **arr, uint32_t *n, uint32_t *cap)
{
    if (sim_grow((void **)arr, cap, *n + 1, sizeof **arr))
        return -1;
    (*arr)[(*n)++] = b->tr->n_ops;
    return 0;
}

/* A SCOPE begins (a span opens at the next op) or the innermost open one ends. */
static int add_scope(sim_trace_builder *b, const gmt_event *ev, gms_error *err)
{
    sim_trace *tr = b->tr;
    if (ev->scope_end) {
        if (b->n_open == 0) {
            if (b->orphan_ends > 0) {
                b->orphan_ends--;
                return 0;
            }
            b->failed = 1;
            return gms_error_set(err, GMS_EFORMAT,
                                 "event %llu: SCOPE end without an open scope (scopes must "
                                 "balance: give every end an earlier begin)",
                                 (unsigned long long)b->events);
        }
        sim_scope_span *sp = &tr->scopes[b->open[--b->n_open]];
        if (ev->text && strcmp(ev->text, tr->strings + sp->name) != 0) {
            b->failed = 1;
            return gms_error_set(err, GMS_EFORMAT,
                                 "event %llu: SCOPE end '%s' does not match the open scope '%s' "
                                 "(close scopes in the reverse order of their begins)",
                                 (unsigned long long)b->events, ev->text, tr->strings + sp->name);
        }
        sp->end_op = tr->n_ops;
        return 0;
    }
    uint32_t name;
    if (tr->n_scopes >= SCH_MAX_INDEX ||
        sim_grow((void **)&tr->scopes, &b->cap_scopes, tr->n_scopes + 1, sizeof *tr->scopes) ||
        sim_grow((void **)&b->open, &b->cap_open, b->n_open + 1, sizeof *b->open) ||
        intern(b, ev->text, &name))
        return oom(b, err);
    tr->scopes[tr->n_scopes] =
        (sim_scope_span){.first_op = tr->n_ops, .end_op = tr->n_ops, .name = name,
                         .depth = b->n_open};
    b->open[b->n_open++] = tr->n_scopes++;
    if (b->n_open > tr->max_scope_depth)
        tr->max_scope_depth = b->n_open;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Events
 */
static int add_constant(sim_trace_builder *b, const gmt_event *ev, gms_error *err)
{
    uint32_t o = 0, t = 0;
    if (new_op(b, "constant", 0, NULL, 0, &o, err) ||
        add_output(b, o, ev->id, SIM_NONE, ev->size, 0, &t, err))
        return -1;
    b->tr->baseline.constants += ev->size;
    b->tr->baseline.constant_ops++;
    baseline_op(b, o);
    if (sched(b, SCH_COMPUTE, o) || sched(b, SCH_PIN, t) || name_bind(b, ev->id, t))
        return oom(b, err);
    return 0;
}

/* Resolves the event's inputs into the builder's buffer (no allocation per event). */
static int resolve_inputs(sim_trace_builder *b, const gmt_event *ev, uint32_t **args,
                          gms_error *err)
{
    *args = NULL;
    if (ev->n_inputs == 0)
        return 0;
    if (sim_grow((void **)&b->argbuf, &b->cap_argbuf, ev->n_inputs, sizeof *b->argbuf))
        return oom(b, err);
    *args = b->argbuf;
    for (uint32_t i = 0; i < ev->n_inputs; i++) {
        uint32_t s = name_find(b, ev->inputs[i]);
        if (s == NO_SLOT) /* resolve says why (the kind's name looked up for it only) */
            return resolve(b, ev->inputs[i], gmt_kind_name(ev->kind), ev->op, &(*args)[i], err);
        (*args)[i] = b->slots[s];
    }
    return 0;
}

static int add_call(sim_trace_builder *b, const gmt_event *ev, gms_error *err)
{
    sim_trace *tr = b->tr;
    uint32_t *args, o = 0, t = 0;
    if (resolve_inputs(b, ev, &args, err))
        return -1;
    int rc = new_op(b, ev->op, ev->dur_ns, args, ev->n_inputs, &o, err);
    uint32_t first = tr->n_tensors;
    for (uint32_t i = 0; rc == 0 && i < ev->n_outputs; i++) {
        const gmt_output *out = &ev->outputs[i];
        uint32_t view_of = out->alias_of < 0 ? SIM_NONE : tr->tensors[args[out->alias_of]].storage;
        rc = add_output(b, o, out->id, view_of, view_of == SIM_NONE ? out->size : 0, 0, &t, err);
    }
    if (rc)
        return -1;
    baseline_op(b, o);
    if (sched(b, SCH_COMPUTE, o))
        return oom(b, err);
    for (uint32_t i = 0; i < ev->n_outputs; i++)
        if (name_bind(b, ev->outputs[i].id, first + i))
            return oom(b, err);
    return 0;
}

/* MUTATE = an out-of-place op producing a new storage per mutated input (as big as the root
 * storage the input lives in), then each mutated name is rebound to its new tensor and the
 * old tensor is released. */
static int add_mutate(sim_trace_builder *b, const gmt_event *ev, gms_error *err)
{
    sim_trace *tr = b->tr;
    uint32_t *args, o = 0, t = 0;
    if (resolve_inputs(b, ev, &args, err))
        return -1;
    int rc = new_op(b, ev->op, ev->dur_ns, args, ev->n_inputs, &o, err);
    uint32_t first = tr->n_tensors;
    for (uint32_t i = 0; rc == 0 && i < ev->n_mutated; i++) {
        uint32_t a = args[ev->mutated[i]];
        uint64_t size = tr->storages[tr->tensors[a].storage].size;
        rc = add_output(b, o, b->thandle[a], SIM_NONE, size, tr->tensors[a].mutated + 1,
                        &t, err);
    }
    if (rc)
        return -1;
    baseline_op(b, o);
    if (sched(b, SCH_COMPUTE, o))
        return oom(b, err);
    for (uint32_t i = 0; i < ev->n_mutated; i++) {
        uint64_t h = ev->inputs[ev->mutated[i]];
        uint32_t old = 0;
        if (resolve(b, h, "MUTATE", ev->op, &old, err))
            return -1;
        if (name_bind(b, h, first + i))
            return oom(b, err);
        if (ref_step(b, &b->tref[old], -1, err) || release_ref(b, old, err))
            return -1;
    }
    return 0;
}

int sim_trace_builder_add(sim_trace_builder *b, const gmt_event *ev, gms_error *err)
{
    if (!b || !ev)
        return gms_error_set(err, GMS_EINVAL, "sim_trace_builder_add: NULL argument");
    if (b->failed)
        return gms_error_set(err, GMS_ESTATE, "sim_trace_builder_add: the builder already failed");
    b->events++;
    gms_error verr;
    if (gmt_event_validate(ev, &verr) != 0) {
        b->failed = 1;
        return gms_error_set(err, GMS_EFORMAT, "event %llu: %s", (unsigned long long)b->events,
                             verr.msg);
    }
    uint32_t t = 0, old = 0;
    if ((ev->kind == GMT_CALL || ev->kind == GMT_MUTATE) && !b->have_model_op) {
        b->have_model_op = 1;
        b->tr->first_model_op = b->tr->n_ops;
    }
    switch (ev->kind) {
    case GMT_CONSTANT:
        return add_constant(b, ev, err);
    case GMT_CALL:
        return add_call(b, ev, err);
    case GMT_MUTATE:
        return add_mutate(b, ev, err);
    case GMT_SCOPE:
        return add_scope(b, ev, err);
    case GMT_COPY:
        if (resolve(b, ev->src, "COPY", NULL, &t, err) || get_ref(b, t, "COPY", err) ||
            ref_step(b, &b->tref[t], 1, err))
            return -1;
        return name_bind(b, ev->id, t) ? oom(b, err) : 0;
    case GMT_COPY_FROM:
        if (resolve(b, ev->id, "COPY_FROM", NULL, &old, err) ||
            resolve(b, ev->src, "COPY_FROM", NULL, &t, err))
            return -1;
        if (name_bind(b, ev->id, t))
            return oom(b, err);
        return ref_step(b, &b->tref[old], -1, err) || ref_step(b, &b->tref[t], 1, err) ||
                       release_ref(b, old, err) || get_ref(b, t, "COPY_FROM", err)
                   ? -1
                   : 0;
    case GMT_RELEASE: {
        uint32_t s = name_find(b, ev->id);
        if (s == NO_SLOT)
            return 0; /* bound before START: simrd ignores it */
        t = b->slots[s];
        return ref_step(b, &b->tref[t], -1, err) || release_ref(b, t, err) ? -1 : 0;
    }
    case GMT_ANNOTATE:
        if (strcmp(ev->text, "START") == 0 && !b->started) {
            b->started = 1;
            reset(b);
            return 0;
        }
        if (strcmp(ev->text, "iteration") == 0) {
            if (sim_grow((void **)&b->tr->iter_val, &b->cap_iter_val, b->tr->n_iter + 1,
                         sizeof *b->tr->iter_val))
                return oom(b, err);
            b->tr->iter_val[b->tr->n_iter] = ev->has_value && ev->value >= 0 ? ev->value : -1;
            if (sched(b, SCH_ITERATION, 0) ||
                mark(b, &b->tr->iter_op, &b->tr->n_iter, &b->cap_iter))
                return oom(b, err);
        }
        if (strcmp(ev->text, "BACKWARD") == 0 &&
            mark(b, &b->tr->bwd_op, &b->tr->n_bwd, &b->cap_bwd))
            return oom(b, err);
        if (strcmp(ev->text, "optimizer") == 0 &&
            mark(b, &b->tr->opt_op, &b->tr->n_opt, &b->cap_opt))
            return oom(b, err);
        return 0;
    case GMT_NAME:
        return 0;
    }
    b->failed = 1;
    return gms_error_set(err, GMS_EFORMAT, "event %llu: unknown kind %d",
                         (unsigned long long)b->events, (int)ev->kind);
}

int sim_trace_builder_new(sim_trace_builder **out, gms_error *err)
{
    *out = NULL;
    sim_trace_builder *b = calloc(1, sizeof *b);
    if (!b || !(b->tr = calloc(1, sizeof *b->tr))) {
        free(b);
        return gms_error_set(err, GMS_ENOMEM, "out of memory creating a trace builder");
    }
    *out = b;
    return 0;
}

/* Frees the parse-time state (everything but the trace and b itself). */
static void builder_drop_state(sim_trace_builder *b)
{
    free(b->tref);
    free(b->sref);
    free(b->thandle);
    free(b->slots);
    free(b->index);
    free(b->direct);
    free(b->intern);
    free(b->argbuf);
    free(b->open);
    b->tref = b->sref = NULL;
    b->thandle = NULL;
    b->slots = b->direct = b->intern = b->argbuf = b->open = NULL;
    b->index = NULL;
}

static void builder_free_parts(sim_trace_builder *b)
{
    builder_drop_state(b);
    free(b);
}

void sim_trace_builder_free(sim_trace_builder *b)
{
    if (!b)
        return;
    sim_trace_free(b->tr);
    builder_free_parts(b);
}

int sim_trace_builder_finish(sim_trace_builder *b, sim_trace **out, gms_error *err)
{
    *out = NULL;
    if (!b)
        return gms_error_set(err, GMS_EINVAL, "sim_trace_builder_finish: NULL builder");
    if (b->failed) {
        sim_trace_builder_free(b);
        return gms_error_set(err, GMS_ESTATE, "sim_trace_builder_finish: the builder failed");
    }
    sim_trace *tr = b->tr;
    /* End of log: PIN every still-referenced tensor, in name order (each tensor once: a
     * repeated PIN of a pinned tensor does nothing, so a pinned tensor's count is zeroed) */
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < b->n_slots; i++) {
        uint32_t t = b->slots[i];
        if (b->tref[t] > 0) {
            b->tref[t] = 0;
            rc = sched(b, SCH_PIN, t);
        }
    }
    /* scopes a truncated trace left open end with it */
    for (uint32_t i = 0; i < b->n_open; i++)
        tr->scopes[b->open[i]].end_op = tr->n_ops;
    if (!b->have_model_op)
        tr->first_model_op = tr->n_ops;
    /* the parse-time state is dead: its memory goes back before the links are built, but
     * for the reference counts (a word per tensor and per storage), which the link reuses as
     * its scratch */
    sim_link_scratch sc = {(uint32_t *)b->tref, (uint32_t *)b->sref, b->cap_tref, b->cap_sref};
    b->tref = b->sref = NULL;
    builder_drop_state(b);
    if (b->n_children > UINT32_MAX)
        rc = -1;
    tr->n_children_total = (uint32_t)b->n_children;
    if (rc == 0)
        rc = sim_trace_link(tr, &sc);
    free(sc.t);
    free(sc.s);
    if (rc != 0) {
        sim_trace_builder_free(b);
        return gms_error_set(err, GMS_ENOMEM, "out of memory finishing the schedule");
    }
    b->tr = NULL;
    builder_free_parts(b);
    *out = tr;
    return 0;
}
