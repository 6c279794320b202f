/*
 * mimose: the `mimose` and `mimose-static` checkpoint planners (sim/planner.h), Mimose's
 * Manager (buaa-hipo/mimose-transformers manager.py) on the engine's top-level layers, built
 * from the pieces in mimose.h. docs/planners.md says what is faithful and what is simplified.
 *
 * Per iteration (the authors' Manager.before_model_forward / schedule_checkpoint):
 *   warm-up (the first `warmup` iterations): checkpoint every top-level layer. The authors
 *     checkpoint every non-leaf module at depth max_levels // 2 of the module tree; our layers
 *     are the trace's top-level scopes (or forward segments), the one depth a planner acts on,
 *     so that rule becomes "all of them". Each iteration's layer samples are recorded, and
 *     from the second on the whole-model sample.
 *   the iteration after warm-up: fit every layer and the whole model.
 *   after: bucket = ceil(x / width) * width (mimose-static: always the largest input size);
 *     a cached plan is reused, else deficit = model(bucket) + start + reserve - budget, where
 *     start is the memory resident when the forward starts (the authors subtract
 *     max_memory - memory_allocated() at that point), and the greedy picks layers by their
 *     predicted bytes at the bucket; the plan is cached, also when empty.
 * The predicted peak reported is for the iteration's own input size x (the plan was made for
 * its bucket): by default the sequential estimate (mimose.h), start + the larger of the lowest
 * sampled peak and base(x) + the largest activation backward holds under the plan; with predict=authors the authors' own, start +
 * model(x) - the checkpointed layers' predicted bytes. The plan never depends on this choice.
 */
#include <stdlib.h>
#include <string.h>

#include "mimose.h"
#include "planner.h"
#include "planners.h"
#include "sim_layers.h"

typedef struct mimose_run {
    const char *who;
    int is_static;
    pol_mimose_params p;
    uint32_t n_layers;   /* layers per iteration (iteration 0's) */
    int use_proxy;       /* some iteration has no input size: forward compute stands in */
    int64_t width;       /* bucket width */
    int64_t static_x;    /* mimose-static: the input size planned for */
    uint32_t calls;      /* plan calls so far: the authors' `iters` */
    double last_x;       /* the input size of the iteration planned last */
    pol_mimose_samples *samples;
    pol_mimose_fits fits;
    int fitted;
    pol_mimose_cache *cache;
    double *bytes, *ns;  /* n_layers scratch */
    uint8_t *flags;      /* n_layers scratch */
    uint32_t *scratch;   /* 2 n_layers */
} mimose_run;

static void mimose_free(void *state)
{
    mimose_run *r = state;
    if (!r)
        return;
    pol_mimose_samples_free(r->samples);
    pol_mimose_fits_free(&r->fits);
    pol_mimose_cache_free(r->cache);
    free(r->bytes);
    free(r->ns);
    free(r->flags);
    free(r->scratch);
    free(r);
}

/* The iteration's input size: its annotation, or (use_proxy) its forward compute in ns, which
 * grows with the input as memory does. */
static int64_t input_of(const mimose_run *r, const sim_layers *l, uint32_t first, uint32_t n,
                        int64_t annotated)
{
    if (!r->use_proxy)
        return annotated;
    uint64_t c = 0;
    for (uint32_t i = 0; i < n; i++)
        c += sim_layers_at(l, first + i)->compute;
    return c > INT64_MAX ? INT64_MAX : (int64_t)c;
}

static int init_common(const char *who, int is_static, const sim_layers *layers,
                       const char *params, void **state, gms_error *err)
{
    mimose_run *r = calloc(1, sizeof *r);
    if (!r)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", who);
    r->who = who;
    r->is_static = is_static;
    int rc = pol_mimose_params_parse(who, params, &r->p, err);
    if (rc) {
        free(r);
        return rc;
    }
    uint32_t n_it = sim_layers_iterations(layers);
    r->n_layers = n_it ? sim_layers_iteration(layers, 0)->n_layers : 0;
    for (uint32_t it = 0; it < n_it; it++)
        if (sim_layers_iteration(layers, it)->input_size < 0)
            r->use_proxy = 1;
    /* The input-size range, known up front from the trace's iteration annotations: the authors
     * set max_input (and min_input) by hand from the data set; a simulator can read them. */
    int64_t lo = INT64_MAX, hi = 0;
    for (uint32_t it = 0; it < n_it; it++) {
        const sim_iteration_span *sp = sim_layers_iteration(layers, it);
        int64_t x = input_of(r, layers, sp->first_layer, sp->n_layers, sp->input_size);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    if (lo > hi)
        lo = hi;
    r->width = r->p.bucket != POL_MIMOSE_BUCKET_AUTO ? r->p.bucket : (hi - lo) / 50;
    if (r->width < 1)
        r->width = 1;
    r->static_x = r->p.max_input >= 0 ? r->p.max_input : hi;

    uint32_t n = r->n_layers ? r->n_layers : 1;
    r->samples = pol_mimose_samples_new(r->n_layers);
    r->cache = pol_mimose_cache_new(r->n_layers);
    r->bytes = malloc(n * sizeof *r->bytes);
    r->ns = malloc(n * sizeof *r->ns);
    r->flags = malloc(n);
    r->scratch = malloc(2 * (size_t)n * sizeof *r->scratch);
    if (!r->samples || !r->cache || !r->bytes || !r->ns || !r->flags || !r->scratch) {
        mimose_free(r);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", who);
    }
    *state = r;
    return 0;
}

static int mimose_init(const struct sim_config *cfg, const sim_layers *layers,
                       const char *params, void **state, gms_error *err)
{
    (void)cfg;
    return init_common("mimose", 0, layers, params, state, err);
}

static int mimose_static_init(const struct sim_config *cfg, const sim_layers *layers,
                              const char *params, void **state, gms_error *err)
{
    (void)cfg;
    return init_common("mimose-static", 1, layers, params, state, err);
}

/* A plan from the cache or the greedy, for planning input size key. */
static int plan_for(mimose_run *r, const sim_plan_request *req, int64_t key, sim_plan *out,
                    gms_error *err)
{
    const uint8_t *cached = pol_mimose_cache_get(r->cache, key);
    if (cached) {
        memcpy(out->checkpoint, cached, r->n_layers);
        out->cache_hit = 1;
        return 0;
    }
    double kx = (double)key;
    for (uint32_t i = 0; i < r->n_layers; i++)
        r->bytes[i] = pol_mimose_layer_bytes(&r->fits, i, kx);
    double budget = req->budget == UINT64_MAX ? 1e300 : (double)req->budget;
    double deficit = pol_mimose_model_bytes(&r->fits, kx) + (double)req->start_memory +
                     (double)r->p.reserve - budget;
    pol_mimose_greedy(r->bytes, r->n_layers, deficit, out->checkpoint, r->scratch);
    out->cache_hit = 0;
    return pol_mimose_cache_put(r->cache, key, out->checkpoint, err);
}

/* What the plan should peak at above start memory, for input size x (mimose.h: the authors'
 * estimate or the sequential one). */
static double predicted_activation(mimose_run *r, double x, const sim_plan *plan)
{
    for (uint32_t i = 0; i < r->n_layers; i++)
        r->bytes[i] = pol_mimose_layer_bytes(&r->fits, i, x);
    if (!r->p.predict_authors)
        return pol_mimose_sequential_bytes(
            &r->fits, x, pol_mimose_sequential_peak(r->bytes, plan->checkpoint, r->n_layers));
    double saved = 0.0;
    for (uint32_t i = 0; i < r->n_layers; i++)
        if (plan->checkpoint[i])
            saved += r->bytes[i];
    return pol_mimose_model_bytes(&r->fits, x) - saved;
}

static int mimose_plan(void *state, const sim_plan_request *req, sim_plan *out, gms_error *err)
{
    mimose_run *r = state;
    r->calls++;
    int64_t x = input_of(r, req->layers, req->first_layer, req->n_layers, req->input_size);
    r->last_x = (double)x;
    out->predicted_peak = -1.0;
    out->cache_hit = -1;
    if (req->n_layers != r->n_layers || r->calls <= r->p.warmup) {
        /* warm-up, or an iteration whose layers are not the ones learned: the conservative
         * warm-up plan */
        memset(out->checkpoint, 1, req->n_layers);
        return 0;
    }
    if (!r->fitted) {
        int rc = pol_mimose_fits_make(r->samples, &r->fits, err);
        if (rc)
            return rc;
        r->fitted = 1;
    }
    int64_t key = r->is_static ? r->static_x : pol_mimose_bucket(x, r->width);
    int rc = plan_for(r, req, key, out, err);
    if (rc)
        return rc;
    out->predicted_peak = (double)req->start_memory + predicted_activation(r, (double)x, out);
    return 0;
}

static void mimose_observe(void *state, const sim_iteration_outcome *o)
{
    mimose_run *r = state;
    if (r->calls > r->p.warmup || o->n_layers != r->n_layers)
        return; /* samples are taken in warm-up only, as the authors do */
    double reduce = 0.0;
    for (uint32_t i = 0; i < o->n_layers; i++) {
        r->bytes[i] = (double)o->layers[i].activation_bytes;
        r->ns[i] = (double)o->layers[i].forward_ns;
        r->flags[i] = o->layers[i].checkpointed;
        if (o->layers[i].checkpointed)
            reduce += r->bytes[i];
    }
    double above = (double)o->peak_memory - (double)o->start_memory;
    /* observe cannot fail: a sample that finds no memory is dropped (the fit uses the rest) */
    pol_mimose_samples_add_layers(r->samples, r->last_x, r->bytes, r->ns, NULL);
    if (r->calls > 1) { /* the authors skip the first iteration's whole-model sample */
        pol_mimose_samples_add_model(r->samples, r->last_x, above + reduce, NULL);
        pol_mimose_samples_add_base(r->samples, r->last_x, above,
                                    pol_mimose_sequential_peak(r->bytes, r->flags, r->n_layers),
                                    NULL);
    }
}

const sim_planner planner_mimose = {
    .name = "mimose",
    .description = "planner: Mimose, per-layer memory fitted online to the input size, greedy "
                   "checkpoint plan per input-size bucket",
    .init = mimose_init,
    .free = mimose_free,
    .plan = mimose_plan,
    .observe = mimose_observe,
};

const sim_planner planner_mimose_static = {
    .name = "mimose-static",
    .description = "planner: Mimose's static mode, after warm-up one plan for the largest "
                   "input size",
    .init = mimose_static_init,
    .free = mimose_free,
    .plan = mimose_plan,
    .observe = mimose_observe,
};
