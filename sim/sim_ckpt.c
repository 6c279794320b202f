/*
 * sim_ckpt: checkpointed layers in the replay, for checkpoint planners (sim_ckpt.h says what
 * a unit is and what happens to it; docs/planners.md the semantics and what is simplified).
 *
 * Per run: before each iteration's first op the planner picks the layers to checkpoint; the
 * hooks then follow the forward pass layer by layer (measuring each layer for the planner and
 * carrying out the plan), re-run a unit when backward first needs what it freed, and at the
 * iteration's end report what happened and tell the planner. Everything trace-sized that does
 * not depend on the run (the layers, which op last reads each storage outside backward) is
 * built on the runner's first planner run and kept.
 */
#include "sim_ckpt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "planner.h"
#include "sim_ckpt_nest.h"
#include "sim_layers.h"
#include "sim_plan_report.h"

#define NONE32 UINT32_MAX

enum { UNIT_OFF = 0, UNIT_HOLDING = 1, UNIT_DONE = 2 };

struct sim_ckpt {
    const sim_trace *tr;
    sim_layers *layers;
    uint32_t n_layers, n_iters;
    /* per storage */
    uint32_t *keep_until; /* last op reading it outside its own iteration's backward (0: none;
                           * NONE32: pinned at the end), i.e. how long the forward keeps it */
    uint32_t *freed_by;   /* first layer of the unit whose end freed it, + 1; 0 = none */
    uint32_t *hold;       /* checkpointed units holding it as an input */
    uint32_t *lu;         /* scratch: its last use inside the unit being re-run */
    uint8_t *released;    /* its last reference died */
    /* per layer */
    uint8_t *flags, *join, *state;
    uint32_t *unit_first; /* checkpointed layers: the first layer of their unit */
    uint32_t *unit_last;  /* a unit's first layer: the unit's last layer */
    /* per op */
    uint8_t *save;        /* the plan's save_op: outputs kept, op not re-run */
    sim_nest *nest;       /* the plan's nested intervals (ids n_layers + k) */
    uint32_t *nest_pairs; /* the plan's buffer for them: 2 x 2 x n_layers */
    sim_layer_sample *samples;
    /* the run */
    const sim_planner *pl;
    void *pl_state;
    gms_error err;
    int failed;
    uint32_t it, next_it;          /* current iteration (NONE32 = none), next to begin */
    uint32_t cur_layer, end_layer; /* next layer to end in it; one past its last */
    int layer_started;             /* cur_layer's first op has run */
    uint32_t recomputing;          /* unit being re-run (first layer + 1), 0 = none */
    uint64_t it_clock0, it_remat0, it_saved_peak, it_start_mem, it_plan_ns, it_compute;
    uint64_t layer_clock0;
    double pred;
    int cache_hit;
    uint32_t it_ckpt;
    int no_hold;                   /* the iteration's plan: units hold nothing */
    int by_layer;                  /* the iteration's plan: units free layer by layer */
    /* summary */
    uint32_t planned, predicted, hits, misses;
    double err_sum, err_max;
    uint64_t plan_ns, checkpoints;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t producer(const sim_trace *tr, uint32_t s)
{
    return tr->tensors[tr->storages[s].root].op;
}

/* A planner run never evicts: this choose ends the run with SIM_OOM (sim_evict_one treats a
 * non-member as nothing evictable) and scores nobody. */
static uint32_t no_victim(const sim_view *v, void *state)
{
    (void)state;
    sim_view_count_candidates(v, 0);
    return SIM_NONE;
}

const sim_policy sim_ckpt_policy = {
    .name = "(planner)",
    .description = "no eviction: a checkpoint planner's run",
    .choose = no_victim,
};

void sim_ckpt_free(sim_ckpt *c)
{
    if (!c)
        return;
    sim_layers_free(c->layers);
    free(c->keep_until);
    free(c->freed_by);
    free(c->hold);
    free(c->lu);
    free(c->released);
    free(c->flags);
    free(c->join);
    free(c->state);
    free(c->unit_first);
    free(c->unit_last);
    free(c->save);
    sim_nest_free(c->nest);
    free(c->nest_pairs);
    free(c->samples);
    free(c);
}

/* keep_until: an op reading a storage outside the backward pass of the iteration that made
 * it (later forward ops, later iterations) keeps it alive through a checkpoint, as the
 * outputs of a checkpointed function are; a tensor still live at the end (pinned) too. */
static int build_keep(sim_ckpt *c, const sim_trace *tr)
{
    uint32_t *op_iter = malloc(((size_t)tr->n_ops + 1) * sizeof *op_iter);
    if (!op_iter)
        return -1;
    for (uint32_t o = 0; o < tr->n_ops; o++)
        op_iter[o] = NONE32;
    for (uint32_t it = 0; it < c->n_iters; it++) {
        const sim_iteration_span *sp = sim_layers_iteration(c->layers, it);
        for (uint32_t o = sp->first_op; o < sp->end_op; o++)
            op_iter[o] = it;
    }
    for (uint32_t o = 0; o < tr->n_ops; o++) {
        const sim_op *op = &tr->ops[o];
        for (uint32_t i = 0; i < op->n_args; i++) {
            uint32_t s = tr->arg_st[op->args_off + i];
            uint32_t pit = op_iter[producer(tr, s)];
            if (pit != NONE32) {
                const sim_iteration_span *sp = sim_layers_iteration(c->layers, pit);
                if (o >= sp->backward_op && o < sp->end_op)
                    continue;
            }
            if (o > c->keep_until[s])
                c->keep_until[s] = o;
        }
    }
    for (uint32_t i = 0; i < tr->n_schedule; i++)
        if (SCH_KIND(tr->schedule[i]) == SCH_PIN)
            c->keep_until[tr->tensors[SCH_INDEX(tr->schedule[i])].storage] = NONE32;
    free(op_iter);
    return 0;
}

static int build(sim_view *v, gms_error *err)
{
    const sim_trace *tr = v->tr;
    sim_ckpt *c = calloc(1, sizeof *c);
    if (!c)
        return gms_error_set(err, GMS_ENOMEM, "out of memory for a planner run");
    c->tr = tr;
    if (sim_layers_build(tr, &c->layers, err)) {
        free(c);
        return err && err->code ? err->code : GMS_ENOMEM;
    }
    c->n_layers = sim_layers_count(c->layers);
    c->n_iters = sim_layers_iterations(c->layers);
    size_t ns = (size_t)tr->n_storages + 1, nl = (size_t)c->n_layers + 1;
    c->keep_until = calloc(ns, sizeof *c->keep_until);
    c->freed_by = calloc(ns, sizeof *c->freed_by);
    c->hold = calloc(ns, sizeof *c->hold);
    c->lu = calloc(ns, sizeof *c->lu);
    c->released = calloc(ns, 1);
    c->flags = calloc(nl, 1);
    c->join = calloc(nl, 1);
    c->state = calloc(nl, 1);
    c->unit_first = calloc(nl, sizeof *c->unit_first);
    c->unit_last = calloc(nl, sizeof *c->unit_last);
    c->samples = calloc(nl, sizeof *c->samples);
    c->save = calloc((size_t)tr->n_ops + 1, 1);
    c->nest = sim_nest_new(c->n_layers);
    c->nest_pairs = calloc(4 * nl, sizeof *c->nest_pairs);
    if (!c->save || !c->nest || !c->nest_pairs || !c->keep_until || !c->freed_by || !c->hold || !c->lu || !c->released || !c->flags ||
        !c->join || !c->state || !c->unit_first || !c->unit_last || !c->samples ||
        build_keep(c, tr)) {
        sim_ckpt_free(c);
        return gms_error_set(err, GMS_ENOMEM, "out of memory for a planner run");
    }
    v->ckpt_mem = c;
    return 0;
}

static void refresh_marks(sim_view *v);

int sim_ckpt_start(sim_view *v, const sim_config *cfg, gms_error *err)
{
    if (!cfg->planner->plan)
        return gms_error_set(err, GMS_EINVAL, "planner %s has no plan function",
                             cfg->planner->name ? cfg->planner->name : "?");
    if (!v->ckpt_mem) {
        int rc = build(v, err);
        if (rc)
            return rc;
    }
    sim_ckpt *c = v->ckpt_mem;
    size_t ns = v->tr->n_storages;
    memset(c->freed_by, 0, ns * sizeof *c->freed_by);
    memset(c->hold, 0, ns * sizeof *c->hold);
    memset(c->released, 0, ns);
    c->pl = cfg->planner;
    c->pl_state = NULL;
    c->err = (gms_error){0};
    c->failed = 0;
    c->it = NONE32;
    c->next_it = 0;
    c->cur_layer = c->end_layer = 0;
    c->layer_started = 0;
    c->recomputing = 0;
    c->planned = c->predicted = c->hits = c->misses = 0;
    c->err_sum = c->err_max = 0;
    c->plan_ns = c->checkpoints = 0;
    const char *params = cfg->planner_params ? cfg->planner_params : "";
    if (c->pl->init && c->pl->init(cfg, c->layers, params, &c->pl_state, err) != 0)
        return err && err->code ? err->code : GMS_EINVAL;
    v->ckpt = c;
    refresh_marks(v);
    return 0;
}

/* The ops of unit u (a top-level unit's first layer, or a nested interval's id):
 * [*first, *last]. */
static void unit_range(const sim_ckpt *c, uint32_t u, uint32_t *first, uint32_t *last)
{
    uint32_t lf = u, ll;
    if (sim_nest_is(c->nest, u))
        sim_nest_layers(c->nest, u, &lf, &ll);
    else
        ll = c->unit_last[u];
    *first = sim_layers_at(c->layers, lf)->first_op;
    *last = sim_layers_at(c->layers, ll)->last_op;
}

static uint8_t *unit_state(sim_ckpt *c, uint32_t u)
{
    return sim_nest_is(c->nest, u) ? sim_nest_state(c->nest, u) : &c->state[u];
}

/* Frees s if nothing needs it any more: its last reference died, no unit holds it, no op
 * being materialized locks it. */
static void maybe_free(sim_view *v, uint32_t s)
{
    sim_ckpt *c = v->ckpt;
    if (c->released[s] && c->hold[s] == 0 && (v->fl[s] & (SIM_FL_MAT | SIM_FL_PINNED)) ==
                                                 SIM_FL_MAT && v->ss[s].ref_int == 0)
        sim_free_storage(v, s);
}

/* Holds (d = +1) or lets go of (d = -1) storage s; letting go frees it when released. */
static void hold_one(sim_view *v, uint32_t s, int d)
{
    sim_ckpt *c = v->ckpt;
    if (d > 0)
        c->hold[s]++;
    else if (--c->hold[s] == 0)
        maybe_free(v, s);
}

/* A checkpointed unit starts: it holds what it reads from before it (d = +1) until it is
 * re-run or its iteration ends (d = -1, which frees what was released meanwhile); and the
 * outputs of its saved ops (selective checkpointing: torch's cache keeps them from the
 * forward until the re-run takes them). */
static void hold_inputs(sim_view *v, uint32_t u, int d)
{
    sim_ckpt *c = v->ckpt;
    const sim_trace *tr = v->tr;
    uint32_t first, last;
    unit_range(c, u, &first, &last);
    for (uint32_t o = first; o <= last; o++) {
        const sim_op *op = &tr->ops[o];
        if (c->save[o])
            for (uint32_t k = 0; k < op->n_out; k++)
                if (!tr->tensors[op->out_first + k].is_view)
                    hold_one(v, tr->tensors[op->out_first + k].storage, d);
        for (uint32_t i = 0; i < op->n_args; i++) {
            uint32_t s = tr->arg_st[op->args_off + i];
            if (producer(tr, s) >= first)
                continue;
            hold_one(v, s, d);
        }
    }
    *unit_state(c, u) = d > 0 ? UNIT_HOLDING : UNIT_DONE;
}

static int begin_iteration(sim_view *v, uint32_t it)
{
    sim_ckpt *c = v->ckpt;
    const sim_trace *tr = v->tr;
    const sim_iteration_span *sp = sim_layers_iteration(c->layers, it);
    c->it = it;
    c->it_clock0 = v->clock;
    c->it_remat0 = v->remat_compute;
    c->it_start_mem = v->memory;
    c->it_saved_peak = v->peak;
    v->peak = v->memory; /* the iteration's own peak; end_iteration puts back the maximum */
    c->it_compute = 0;
    for (uint32_t o = sp->first_op; o < sp->end_op; o++)
        c->it_compute += tr->ops[o].cost;
    uint32_t l0 = sp->first_layer, n = sp->n_layers;
    memset(c->flags + l0, 0, n);
    memset(c->join + l0, 0, n);
    memset(c->state + l0, 0, n);
    memset(c->samples + l0, 0, (size_t)n * sizeof *c->samples);
    memset(c->save + sp->first_op, 0, sp->end_op - sp->first_op);
    c->cur_layer = l0;
    c->end_layer = l0 + n;
    c->layer_started = 0;

    sim_plan_request req = {
        .iteration = it,
        .n_iterations = c->n_iters,
        .input_size = sp->input_size,
        .layers = c->layers,
        .first_layer = l0,
        .n_layers = n,
        .budget = v->budget,
        .start_memory = v->memory,
    };
    sim_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.checkpoint = c->flags + l0;
    plan.with_previous = c->join + l0;
    plan.save_op = c->save + sp->first_op;
    plan.nested = c->nest_pairs;
    plan.predicted_peak = -1;
    plan.cache_hit = -1;
    uint64_t t0 = now_ns();
    int rc = c->pl->plan(c->pl_state, &req, &plan, &c->err);
    c->it_plan_ns = now_ns() - t0;
    c->plan_ns += c->it_plan_ns;
    if (rc) {
        if (!c->err.code)
            gms_error_set(&c->err, GMS_EINVAL, "planner %s failed at iteration %u",
                          c->pl->name ? c->pl->name : "?", it);
        c->failed = 1;
        return -1;
    }
    c->planned++;
    c->pred = plan.predicted_peak;
    c->no_hold = plan.no_hold != 0;
    c->by_layer = plan.by_layer != 0;
    c->cache_hit = plan.cache_hit;
    if (plan.cache_hit == 1)
        c->hits++;
    else if (plan.cache_hit == 0)
        c->misses++;
    c->it_ckpt = 0;
    for (uint32_t l = l0; l < l0 + n; l++) {
        c->flags[l] = c->flags[l] != 0;
        if (!c->flags[l])
            continue;
        c->it_ckpt++;
        if (l > l0 && c->join[l] && c->flags[l - 1])
            c->unit_first[l] = c->unit_first[l - 1];
        else
            c->unit_first[l] = l;
        c->unit_last[c->unit_first[l]] = l;
    }
    c->checkpoints += c->it_ckpt;
    if (sim_nest_set(c->nest, l0, n, c->flags, c->unit_first, c->unit_last, plan.nested,
                     plan.n_nested, c->n_layers, &c->err)) {
        c->failed = 1;
        return -1;
    }
    return 0;
}

static void end_iteration(sim_view *v, sim_status status)
{
    sim_ckpt *c = v->ckpt;
    const sim_iteration_span *sp = sim_layers_iteration(c->layers, c->it);
    uint32_t l0 = sp->first_layer, n = sp->n_layers;
    if (status == SIM_OK) /* units backward never needed: torch drops their inputs here */
        for (uint32_t l = l0; l < l0 + n; l++)
            if (c->flags[l] && c->unit_first[l] == l && c->state[l] == UNIT_HOLDING)
                hold_inputs(v, l, -1);
    if (status == SIM_OK) /* nested intervals likewise */
        for (uint32_t k = 0; k < sim_nest_count(c->nest); k++)
            if (*unit_state(c, c->n_layers + k) == UNIT_HOLDING)
                hold_inputs(v, c->n_layers + k, -1);
    uint64_t peak = v->peak;
    if (c->it_saved_peak > v->peak)
        v->peak = c->it_saved_peak;
    uint64_t recompute = v->remat_compute - c->it_remat0;
    if (v->cfg->iteration_observer) {
        sim_iteration_report r = {
            .iteration = c->it,
            .input_size = sp->input_size,
            .status = status,
            .start_memory = c->it_start_mem,
            .peak_memory = peak,
            .predicted_peak = c->pred,
            .cache_hit = c->cache_hit,
            .plan_ns = c->it_plan_ns,
            .clock_ns = v->clock - c->it_clock0,
            .compute_ns = c->it_compute,
            .recompute_ns = recompute,
            .layers = c->layers,
            .first_layer = l0,
            .n_layers = n,
            .checkpoint = c->flags + l0,
            .n_checkpointed = c->it_ckpt,
        };
        v->cfg->iteration_observer(v->cfg->iteration_ctx, &r);
    }
    if (status == SIM_OK) {
        if (c->pred >= 0 && peak > 0) {
            double e = fabs(c->pred - (double)peak) / (double)peak;
            c->predicted++;
            c->err_sum += e;
            if (e > c->err_max)
                c->err_max = e;
        }
        if (c->pl->observe) {
            sim_iteration_outcome out = {
                .iteration = c->it,
                .input_size = sp->input_size,
                .start_memory = c->it_start_mem,
                .peak_memory = peak,
                .recompute_ns = recompute,
                .layers = c->samples + l0,
                .n_layers = n,
            };
            uint64_t t0 = now_ns();
            c->pl->observe(c->pl_state, &out);
            c->plan_ns += now_ns() - t0;
        }
    }
    c->it = NONE32;
}

/* Where the hooks must run next (v->ckpt_begin_op, v->ckpt_end_op): the next iteration's
 * first op or the current layer's first op, whichever comes first, and the layer's last op. */
static void refresh_marks(sim_view *v)
{
    sim_ckpt *c = v->ckpt;
    uint32_t b = UINT32_MAX, e = UINT32_MAX;
    if (c->next_it < c->n_iters)
        b = sim_layers_iteration(c->layers, c->next_it)->first_op;
    if (c->cur_layer < c->end_layer) {
        const sim_layer *L = sim_layers_at(c->layers, c->cur_layer);
        if (!c->layer_started && L->first_op < b)
            b = L->first_op;
        e = L->last_op;
    }
    v->ckpt_begin_op = b;
    v->ckpt_end_op = e;
}

int sim_ckpt_before_op(sim_view *v, uint32_t o)
{
    sim_ckpt *c = v->ckpt;
    while (c->next_it < c->n_iters &&
           sim_layers_iteration(c->layers, c->next_it)->first_op <= o) {
        if (c->it != NONE32)
            end_iteration(v, SIM_OK);
        if (begin_iteration(v, c->next_it++))
            return -1;
    }
    if (c->cur_layer < c->end_layer && !c->layer_started &&
        sim_layers_at(c->layers, c->cur_layer)->first_op == o) {
        c->layer_clock0 = v->clock;
        c->layer_started = 1;
        uint32_t l = c->cur_layer;
        if (c->flags[l] && c->unit_first[l] == l && !c->no_hold)
            hold_inputs(v, l, +1);
    }
    refresh_marks(v);
    return 0;
}

/* Layer l's forward ended: what it leaves resident, split into what later forward ops read
 * (outputs) and the rest (what checkpointing it frees). */
static void sample_layer(sim_view *v, uint32_t l)
{
    sim_ckpt *c = v->ckpt;
    const sim_trace *tr = v->tr;
    const sim_layer *L = sim_layers_at(c->layers, l);
    sim_layer_sample *sm = &c->samples[l];
    for (uint32_t o = L->first_op; o <= L->last_op; o++) {
        const sim_op *op = &tr->ops[o];
        for (uint32_t k = 0; k < op->n_out; k++) {
            const sim_tensor *te = &tr->tensors[op->out_first + k];
            if (te->is_view || !(v->fl[te->storage] & SIM_FL_MAT))
                continue;
            if (c->keep_until[te->storage] > L->last_op)
                sm->output_bytes += te->size;
            else
                sm->activation_bytes += te->size;
        }
    }
    sm->forward_ns = v->clock - c->layer_clock0;
    sm->checkpointed = c->flags[l];
}

/* Unit u ended its forward (or, nested, its part of a re-run): free what it made and does not
 * pass on. */
static void free_upto(sim_view *v, uint32_t u, uint32_t last)
{
    sim_ckpt *c = v->ckpt;
    const sim_trace *tr = v->tr;
    uint32_t first, ulast;
    unit_range(c, u, &first, &ulast);
    for (uint32_t o = first; o <= last; o++) {
        const sim_op *op = &tr->ops[o];
        for (uint32_t k = 0; k < op->n_out; k++) {
            const sim_tensor *te = &tr->tensors[op->out_first + k];
            uint32_t s = te->storage;
            if (te->is_view || (v->fl[s] & (SIM_FL_MAT | SIM_FL_PINNED)) != SIM_FL_MAT ||
                c->keep_until[s] > last || v->ss[s].ref_int || c->save[o])
                continue;
            sim_free_storage(v, s);
            c->freed_by[s] = u + 1;
        }
    }
}

static void free_unit(sim_view *v, uint32_t u)
{
    uint32_t first, last;
    unit_range(v->ckpt, u, &first, &last);
    free_upto(v, u, last);
}

/* by_layer plans: op o ends a layer inside unit u (not its last): what the unit made so far
 * and no later forward op reads goes now, as under torch's no_grad forward. */
static void layer_end_in_unit(sim_view *v, uint32_t u, uint32_t o)
{
    sim_ckpt *c = v->ckpt;
    uint32_t l = sim_layers_of_op(c->layers, o);
    if (l != SIM_LAYER_NONE && sim_layers_at(c->layers, l)->last_op == o)
        free_upto(v, u, o);
}

int sim_ckpt_after_op(sim_view *v, uint32_t o)
{
    sim_ckpt *c = v->ckpt;
    if (c->cur_layer < c->end_layer && sim_layers_at(c->layers, c->cur_layer)->last_op == o) {
        uint32_t l = c->cur_layer++;
        c->layer_started = 0;
        sample_layer(v, l);
        if (c->flags[l] && c->unit_last[c->unit_first[l]] == l)
            free_unit(v, c->unit_first[l]);
        else if (c->flags[l] && c->by_layer)
            free_upto(v, c->unit_first[l], o);
    }
    refresh_marks(v);
    return v->failed_alloc ? -1 : 0;
}

int sim_ckpt_on_release(sim_view *v, uint32_t s)
{
    sim_ckpt *c = v->ckpt;
    c->released[s] = 1;
    return c->hold[s] > 0;
}

/* Re-runs every op of unit u, in order, as torch.utils.checkpoint does in backward; what was
 * released before is freed again after its last use here. The plan's nested intervals
 * directly inside u (sim_ckpt_nest.h) are checkpointed within the re-run: each holds its
 * inputs from its first op and frees what it made at its last, to be re-run in turn. */
static int rerun_unit(sim_view *v, uint32_t u)
{
    sim_ckpt *c = v->ckpt;
    const sim_trace *tr = v->tr;
    uint32_t first, last;
    unit_range(c, u, &first, &last);
    for (uint32_t o = first; o <= last; o++) {
        const sim_op *op = &tr->ops[o];
        for (uint32_t k = 0; k < op->n_out; k++)
            c->lu[tr->tensors[op->out_first + k].storage] = o;
        for (uint32_t i = 0; i < op->n_args; i++) {
            uint32_t s = tr->arg_st[op->args_off + i];
            if (producer(tr, s) >= first)
                c->lu[s] = o;
        }
    }
    uint32_t outer = c->recomputing;
    c->recomputing = u + 1;
    /* the nested intervals directly inside u are checkpointed within this re-run */
    uint32_t n_ch, kc = 0, cf = UINT32_MAX, cl = UINT32_MAX;
    const uint32_t *ch = sim_nest_children(c->nest, u, &n_ch);
    if (n_ch)
        unit_range(c, ch[0], &cf, &cl);
    for (uint32_t o = first; o <= last; o++) {
        if (o == cf)
            hold_inputs(v, ch[kc], +1);
        if (!c->save[o]) { /* saved: the re-run takes its outputs from the cache */
            if (sim_rerun_op(v, o))
                return -1;
            const sim_op *op = &tr->ops[o];
            for (uint32_t i = 0; i < op->n_args; i++) {
                uint32_t s = tr->arg_st[op->args_off + i];
                if (producer(tr, s) >= first && c->lu[s] == o)
                    maybe_free(v, s);
            }
            for (uint32_t k = 0; k < op->n_out; k++) {
                uint32_t s = tr->tensors[op->out_first + k].storage;
                if (producer(tr, s) >= first && c->lu[s] == o)
                    maybe_free(v, s);
            }
        }
        if (c->by_layer && o >= cf && o < cl)
            layer_end_in_unit(v, ch[kc], o);
        if (o == cl) { /* the nested interval's part of the re-run ended */
            free_unit(v, ch[kc]);
            if (++kc < n_ch)
                unit_range(c, ch[kc], &cf, &cl);
            else
                cf = cl = UINT32_MAX;
        }
    }
    c->recomputing = outer;
    /* inputs the re-run had rematerialized after the trace had let them go */
    for (uint32_t o = first; o <= last; o++) {
        const sim_op *op = &tr->ops[o];
        for (uint32_t i = 0; i < op->n_args; i++) {
            uint32_t s = tr->arg_st[op->args_off + i];
            if (producer(tr, s) < first)
                maybe_free(v, s);
        }
    }
    for (uint32_t o = first; o <= last; o++) {
        const sim_op *op = &tr->ops[o];
        for (uint32_t k = 0; k < op->n_out; k++)
            if (c->freed_by[tr->tensors[op->out_first + k].storage] == u + 1)
                c->freed_by[tr->tensors[op->out_first + k].storage] = 0;
    }
    if (*unit_state(c, u) == UNIT_HOLDING)
        hold_inputs(v, u, -1);
    return v->failed_alloc ? -1 : 1;
}

/* no_hold plans (ac-budget): a forward value of this iteration that backward needs and the
 * plan did not save is recomputed alone, from its producer (whose missing inputs come back
 * the same way, first), as the partitioned backward graph recomputes it; what the re-run
 * read or made and the trace has let go is freed right after. */
static int recompute_value(sim_view *v, uint32_t t)
{
    const sim_trace *tr = v->tr;
    uint32_t o = tr->tensors[t].op;
    if (sim_rerun_op(v, o))
        return -1;
    const sim_op *op = &tr->ops[o];
    for (uint32_t i = 0; i < op->n_args; i++)
        maybe_free(v, tr->arg_st[op->args_off + i]);
    for (uint32_t k = 0; k < op->n_out; k++)
        if (tr->tensors[op->out_first + k].storage != tr->tensors[t].storage)
            maybe_free(v, tr->tensors[op->out_first + k].storage);
    return v->failed_alloc ? -1 : 1;
}

int sim_ckpt_on_missing(sim_view *v, uint32_t t)
{
    sim_ckpt *c = v->ckpt;
    if (c->no_hold && c->it != NONE32) {
        const sim_iteration_span *sp = sim_layers_iteration(c->layers, c->it);
        uint32_t o = v->tr->tensors[t].op;
        if (o >= sp->first_op && o < sp->backward_op)
            return recompute_value(v, t);
    }
    uint32_t u1 = c->freed_by[v->tr->tensors[t].storage];
    if (u1 == 0 || u1 == c->recomputing)
        return 0;
    return rerun_unit(v, u1 - 1);
}

int sim_ckpt_finish(sim_view *v, sim_result *res, gms_error *err)
{
    sim_ckpt *c = v->ckpt;
    int ok = v->status == SIM_OK && !c->failed && !v->failed_alloc &&
             v->nan_storage == SIM_NONE;
    if (ok) {
        if (c->it != NONE32)
            end_iteration(v, SIM_OK);
        /* iterations with no op (a marker at the very end) */
        while (ok && c->next_it < c->n_iters) {
            if (begin_iteration(v, c->next_it++))
                break;
            end_iteration(v, SIM_OK);
        }
    } else if (c->it != NONE32 && !c->failed) {
        end_iteration(v, v->status);
    } else if (c->it != NONE32 && c->it_saved_peak > v->peak) {
        v->peak = c->it_saved_peak;
    }
    if (c->pl->free)
        c->pl->free(c->pl_state);
    c->pl_state = NULL;
    res->plan_iterations = c->planned;
    res->plan_predicted = c->predicted;
    res->pred_err_mean = c->predicted ? c->err_sum / c->predicted : 0;
    res->pred_err_max = c->err_max;
    res->cache_hits = c->hits;
    res->cache_misses = c->misses;
    res->plan_s = (double)c->plan_ns * 1e-9;
    res->checkpoints = c->checkpoints;
    v->ckpt = NULL;
    if (c->failed) {
        if (err)
            *err = c->err;
        return c->err.code ? c->err.code : GMS_EINVAL;
    }
    return 0;
}
