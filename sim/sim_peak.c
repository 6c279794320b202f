/*
 * sim_peak: phases, storage categories, and the peak with what is resident there (sim_peak.h
 * states the rules).
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "sim_peak.h"

struct sim_categories {
    const sim_trace *t;
    uint8_t *phase;   /* per op */
    uint8_t *cat;     /* per storage */
};

struct sim_peak_tracker {
    const sim_trace *t;
    const sim_categories *c;
    uint8_t *resident; /* per storage */
    uint64_t by_category[SIM_CAT_COUNT];
    uint64_t last_op;
    sim_peak best;
    /* the highest point so far as observed (best gets it when read: a run rises through
     * many new highs, and sim_peak_at's names and fix-ups need only the last) */
    uint64_t top_memory, top_op;
    uint64_t top_by[SIM_CAT_COUNT];
    int top_seen;
};

const char *sim_category_name(sim_category c)
{
    static const char *const names[] = {"pre-existing", "gradients", "optimizer state",
                                        "saved activations", "temporaries", "unknown"};
    return c < SIM_CAT_COUNT ? names[c] : "unknown";
}

const char *sim_category_key(sim_category c)
{
    static const char *const keys[] = {"preexisting", "gradients", "optimizer_state",
                                       "saved_activations", "temporaries", "unknown"};
    return c < SIM_CAT_COUNT ? keys[c] : "unknown";
}

const char *sim_phase_name(sim_phase p)
{
    static const char *const names[] = {"none", "forward", "backward", "optimizer"};
    return p <= SIM_PHASE_OPTIMIZER ? names[p] : "none";
}

/* Each op's phase and iteration (-1 for the constants before the first model op). */
static void phases(const sim_trace *t, uint8_t *phase, int64_t *iter)
{
    uint32_t ii = 0, bi = 0, oi = 0;
    int64_t it = 0;
    uint8_t ph = SIM_PHASE_FORWARD;
    for (uint32_t o = 0; o < t->n_ops; o++) {
        for (; ii < t->n_iter && t->iter_op[ii] <= o; ii++) {
            it = ii;
            ph = SIM_PHASE_FORWARD;
        }
        for (; bi < t->n_bwd && t->bwd_op[bi] <= o; bi++)
            ph = SIM_PHASE_BACKWARD;
        for (; oi < t->n_opt && t->opt_op[oi] <= o; oi++)
            ph = SIM_PHASE_OPTIMIZER;
        phase[o] = o < t->first_model_op ? SIM_PHASE_NONE : ph;
        iter[o] = o < t->first_model_op ? -1 : it;
    }
}

int sim_categories_build(const sim_trace *t, sim_categories **out, gms_error *err)
{
    *out = NULL;
    sim_categories *c = calloc(1, sizeof *c);
    int64_t *iter = malloc(((size_t)t->n_ops + 1) * sizeof *iter);
    uint8_t *mask = calloc((size_t)t->n_storages + 1, 1); /* phases reading it, same iteration */
    uint8_t *later = calloc((size_t)t->n_storages + 1, 1); /* read in a later iteration */
    uint8_t *grad = calloc((size_t)t->n_storages + 1, 1);
    uint8_t *state = calloc((size_t)t->n_storages + 1, 1);
    if (c) {
        c->phase = malloc((size_t)t->n_ops + 1);
        c->cat = malloc((size_t)t->n_storages + 1);
    }
    if (!c || !c->phase || !c->cat || !iter || !mask || !later || !grad || !state) {
        free(iter), free(mask), free(later), free(grad), free(state);
        sim_categories_free(c);
        return gms_error_set(err, GMS_ENOMEM, "out of memory classifying storages");
    }
    c->t = t;
    phases(t, c->phase, iter);
#define MADE(s) (t->tensors[t->storages[s].root].op)
    for (uint32_t o = 0; o < t->n_ops; o++)
        for (uint32_t i = 0; i < t->ops[o].n_args; i++) {
            uint32_t s = t->arg_st[t->ops[o].args_off + i];
            int64_t made = iter[MADE(s)];
            if (iter[o] == made)
                mask[s] |= (uint8_t)(1u << c->phase[o]);
            else if (iter[o] > made && made >= 0)
                later[s] = 1;
        }
    for (uint32_t s = 0; s < t->n_storages; s++)
        grad[s] = c->phase[MADE(s)] == SIM_PHASE_BACKWARD &&
                  (mask[s] & (1u << SIM_PHASE_OPTIMIZER));
    /* optimizer state: written in place (a view output) by an optimizer op reading a gradient */
    for (uint32_t o = 0; o < t->n_ops; o++) {
        const sim_op *op = &t->ops[o];
        int reads_grad = 0;
        for (uint32_t i = 0; c->phase[o] == SIM_PHASE_OPTIMIZER && i < op->n_args; i++)
            reads_grad |= grad[t->arg_st[op->args_off + i]];
        for (uint32_t k = 0; reads_grad && k < op->n_out; k++) {
            const sim_tensor *te = &t->tensors[op->out_first + k];
            if (te->is_view && c->phase[MADE(te->storage)] == SIM_PHASE_OPTIMIZER)
                state[te->storage] = 1;
        }
    }
    for (uint32_t s = 0; s < t->n_storages; s++) {
        uint8_t made = c->phase[MADE(s)];
        sim_category cat = SIM_CAT_UNKNOWN;
        if (made == SIM_PHASE_NONE)
            cat = SIM_CAT_PREEXISTING;
        else if (state[s])
            cat = SIM_CAT_OPT_STATE;
        else if (grad[s])
            cat = SIM_CAT_GRADIENTS;
        else if (later[s])
            cat = SIM_CAT_UNKNOWN;
        else if (made == SIM_PHASE_FORWARD && (mask[s] & (1u << SIM_PHASE_BACKWARD)))
            cat = SIM_CAT_ACTIVATIONS;
        else if ((mask[s] & ~(1u << made)) == 0)
            cat = SIM_CAT_TEMPORARIES;
        c->cat[s] = (uint8_t)cat;
    }
#undef MADE
    free(iter), free(mask), free(later), free(grad), free(state);
    *out = c;
    return 0;
}

void sim_categories_free(sim_categories *c)
{
    if (!c)
        return;
    free(c->phase);
    free(c->cat);
    free(c);
}

sim_category sim_categories_of(const sim_categories *c, uint32_t storage)
{
    return storage < c->t->n_storages ? (sim_category)c->cat[storage] : SIM_CAT_UNKNOWN;
}

sim_phase sim_categories_phase(const sim_categories *c, uint32_t op)
{
    return op < c->t->n_ops ? (sim_phase)c->phase[op] : SIM_PHASE_NONE;
}

uint64_t sim_categories_add(const sim_categories *c, const uint32_t *st, uint32_t n,
                            uint64_t out[SIM_CAT_COUNT])
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (st[i] >= c->t->n_storages)
            continue;
        out[c->cat[st[i]]] += c->t->storages[st[i]].size;
        sum += c->t->storages[st[i]].size;
    }
    return sum;
}

/* The largest op: outputs plus the inputs' own bytes (the baseline's bottleneck). */
void sim_peak_largest_op(const sim_trace *t, sim_peak *p)
{
    for (uint32_t o = 0; o < t->n_ops; o++) {
        const sim_op *op = &t->ops[o];
        uint64_t foot = op->total_size;
        for (uint32_t i = 0; i < op->n_args; i++)
            foot += t->tensors[t->args[op->args_off + i]].size;
        if (foot > p->largest_op_bytes || !p->largest_op) {
            p->largest_op_bytes = foot;
            p->largest_op_index = o;
            p->largest_op = t->strings + op->name;
        }
    }
}

void sim_peak_at(sim_peak *p, const sim_trace *t, const sim_categories *c, uint64_t memory,
                 uint32_t o, const uint64_t by_category[SIM_CAT_COUNT])
{
    p->memory = memory;
    p->op_index = o;
    p->op = o < t->n_ops ? t->strings + t->ops[o].name : "";
    p->phase = sim_categories_phase(c, o);
    uint64_t sum = 0;
    for (int k = 0; k < SIM_CAT_COUNT; k++) {
        p->by_category[k] = by_category[k];
        sum += by_category[k];
    }
    /* what the events cannot place (a swap in flight, say) is unknown; never more than it */
    if (sum < memory) {
        p->by_category[SIM_CAT_UNKNOWN] += memory - sum;
    } else {
        uint64_t over = sum - memory;
        for (int k = SIM_CAT_COUNT - 1; k >= 0 && over; k--) {
            uint64_t d = p->by_category[k] < over ? p->by_category[k] : over;
            p->by_category[k] -= d;
            over -= d;
        }
    }
}

void sim_peak_baseline(const sim_trace *t, const sim_categories *c, sim_peak *out)
{
    memset(out, 0, sizeof *out);
    out->op = "";
    uint64_t mem = 0, by[SIM_CAT_COUNT] = {0};
    int have = 0;
    for (uint32_t i = 0; i < t->n_schedule; i++) {
        uint32_t e = t->schedule[i], idx = SCH_INDEX(e);
        if (SCH_KIND(e) == SCH_COMPUTE) {
            const sim_op *op = &t->ops[idx];
            for (uint32_t k = 0; k < op->n_out; k++) {
                const sim_tensor *te = &t->tensors[op->out_first + k];
                if (!te->is_view)
                    by[c->cat[te->storage]] += te->size;
            }
            mem += op->total_size;
            if (mem > out->memory || !have) {
                sim_peak_at(out, t, c, mem, idx, by);
                have = 1;
            }
        } else if (SCH_KIND(e) == SCH_RELEASE_LAST) {
            uint64_t size = t->storages[idx].size;
            mem -= size;
            by[c->cat[idx]] -= size;
        }
    }
    sim_peak_largest_op(t, out);
}

int sim_peak_tracker_new(const sim_trace *t, const sim_categories *c, sim_peak_tracker **out,
                         gms_error *err)
{
    *out = NULL;
    sim_peak_tracker *k = calloc(1, sizeof *k);
    if (k)
        k->resident = calloc((size_t)t->n_storages + 1, 1);
    if (!k || !k->resident) {
        free(k);
        return gms_error_set(err, GMS_ENOMEM, "out of memory following the peak");
    }
    k->t = t;
    k->c = c;
    k->best.op = "";
    sim_peak_largest_op(t, &k->best);
    *out = k;
    return 0;
}

static inline void set_resident(sim_peak_tracker *k, uint64_t s, int on)
{
    if (s >= k->t->n_storages || k->resident[s] == on)
        return;
    k->resident[s] = (uint8_t)on;
    uint64_t size = k->t->storages[s].size;
    if (on)
        k->by_category[k->c->cat[s]] += size;
    else
        k->by_category[k->c->cat[s]] -= size;
}

void sim_peak_observe(void *tracker, const sim_event *ev)
{
    sim_peak_tracker *k = tracker;
    const sim_trace *t = k->t;
    switch (ev->kind) {
    case SIM_EV_COMPUTE:
    case SIM_EV_REMAT:
        if (ev->op_index < t->n_ops) {
            const sim_op *op = &t->ops[ev->op_index];
            k->last_op = ev->op_index;
            for (uint32_t i = 0; i < op->n_out; i++)
                if (!t->tensors[op->out_first + i].is_view)
                    set_resident(k, t->tensors[op->out_first + i].storage, 1);
        }
        break;
    case SIM_EV_EVICT:
    case SIM_EV_EVICT_EAGER:
    case SIM_EV_SWAP_DONE:
        set_resident(k, ev->storage, 0);
        break;
    case SIM_EV_SWAP_IN:
        set_resident(k, ev->storage, 1);
        break;
    case SIM_EV_SWAP_OUT:
    case SIM_EV_MATERIALIZE: /* an exporter's storage event (memviz.h): no residency change */
    case SIM_EV_SEGMENTS:
        break;
    }
    if (ev->memory > k->top_memory) {
        k->top_memory = ev->memory;
        k->top_op = k->last_op;
        memcpy(k->top_by, k->by_category, sizeof k->top_by);
        k->top_seen = 1;
    }
}

void sim_peak_tracker_result(const sim_peak_tracker *k, sim_peak *out)
{
    *out = k->best;
    if (k->top_seen)
        sim_peak_at(out, k->t, k->c, k->top_memory, (uint32_t)k->top_op, k->top_by);
}

void sim_peak_tracker_now(const sim_peak_tracker *k, uint64_t out[SIM_CAT_COUNT])
{
    memcpy(out, k->by_category, sizeof k->by_category);
}

void sim_peak_tracker_free(sim_peak_tracker *k)
{
    if (!k)
        return;
    free(k->resident);
    free(k);
}

void sim_peak_name_ops(const sim_trace *t, sim_peak *p)
{
    p->op = p->op_index < t->n_ops ? t->strings + t->ops[p->op_index].name : "";
    p->largest_op = p->largest_op_index < t->n_ops
                        ? t->strings + t->ops[p->largest_op_index].name
                        : "";
}
