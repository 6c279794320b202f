/*
 * mimose: the pieces of the Mimose checkpoint planner (Liao et al., "Mimose: An Input-Aware
 * Checkpointing Planner for Efficient Training on GPU", arXiv 2209.02478), as the authors' code
 * does them (buaa-hipo/mimose-transformers@fc042a29, src/transformers/manager.py). Each piece is
 * pure, knows nothing of the engine and lives in its own file; mimose.c joins them into the
 * `mimose` and `mimose-static` planners (sim/planner.h). docs/planners.md says what is faithful
 * and what is simplified.
 *
 *   mimose_fit.c      quadratic least squares (np.polyfit(x, y, 2) + np.poly1d)
 *   mimose_samples.c  the warm-up samples and the fits made from them (Manager.add_data,
 *                     collect_model_memory, fit_memory_consume, compute_time_used)
 *   mimose_greedy.c   GreedyStrategy.get_checkpoint_module
 *   mimose_cache.c    Manager.cached_strategy: one plan per input-size bucket
 *   mimose_params.c   the planners' parameter string
 */
#ifndef POL_MIMOSE_H
#define POL_MIMOSE_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

/* ------------------------------------------------------------------------------------------
 * Quadratic fit. y ~ a0 + a1 u + a2 u^2 with u = (x - xc) / xs: centring and scaling x first
 * keeps the 3x3 normal equations well conditioned when x is in the millions (pixels). With
 * fewer than three distinct x the degree drops to what the points determine (two: a line;
 * one: their mean), where np.polyfit would warn and return a rank-deficient fit.
 */
typedef struct pol_qfit {
    double a0, a1, a2;
    double xc, xs;
    int degree; /* 2, 1, 0; -1 = no points (evaluates to 0) */
} pol_qfit;

/* Least-squares fit of n points. 0, or GMS_ENOMEM / GMS_EINVAL (a non-finite value). */
int pol_qfit_solve(const double *x, const double *y, size_t n, pol_qfit *out, gms_error *err);
double pol_qfit_eval(const pol_qfit *f, double x);

/* ------------------------------------------------------------------------------------------
 * Samples and fits. A layer is its position in the iteration (the authors key modules by their
 * path in the module tree; our top-level layers are the same module in every iteration).
 *
 * Layer samples: every warm-up iteration, each layer's activation bytes (what checkpointing it
 * frees: bytes its forward left live minus its output) and forward time, against the iteration's
 * input size. Whole-model samples: every warm-up iteration but the first, the no-checkpoint
 * activation peak the authors estimate as
 *     max_memory_allocated() - memory_allocated() at forward start
 *       + sum over the checkpointed layers of their activation bytes
 * (Manager.checkpoint_reduce_memory), i.e. peak - start + what checkpointing saved.
 */
typedef struct pol_mimose_samples pol_mimose_samples;

pol_mimose_samples *pol_mimose_samples_new(uint32_t n_layers);
void pol_mimose_samples_free(pol_mimose_samples *s);
uint32_t pol_mimose_samples_layers(const pol_mimose_samples *s);
/* One iteration's layer samples (n_layers of each). 0 or GMS_ENOMEM. */
int pol_mimose_samples_add_layers(pol_mimose_samples *s, double x, const double *bytes,
                                  const double *forward_ns, gms_error *err);
/* One whole-model sample: the estimated no-checkpoint activation peak above start memory. */
int pol_mimose_samples_add_model(pol_mimose_samples *s, double x, double activation_peak,
                                 gms_error *err);
/* One sample for the sequential predictor (below): the iteration's peak above start memory and
 * pol_mimose_sequential_peak of its measured layers and plan. */
int pol_mimose_samples_add_base(pol_mimose_samples *s, double x, double above, double seq,
                                gms_error *err);
size_t pol_mimose_samples_count(const pol_mimose_samples *s);       /* layer samples */
size_t pol_mimose_samples_model_count(const pol_mimose_samples *s); /* model samples */

/* The fits of one planner: per layer bytes(x), the mean forward time, the whole-model
 * activation peak(x), and the sequential predictor's floor and base(x). */
typedef struct pol_mimose_fits {
    uint32_t n_layers;
    pol_qfit *layer;        /* n_layers */
    double *forward_ns;     /* n_layers: mean over the samples (compute_time_used) */
    pol_qfit model;
    /* Sequential predictor. floor: the lowest sampled peak above start memory when the
     * activations do not explain it (the base fitted without the samples at that level, within
     * 0.1%, predicts over 1% less there): a peak every iteration reaches whatever its plan,
     * such as the optimizer step's with every gradient live and every activation gone; 0
     * otherwise. base: fitted to above - seq over the samples above the floor (all of them
     * when there is no floor). */
    double floor;
    pol_qfit base;
} pol_mimose_fits;

/* Fits every layer and the whole model from s (fit_memory_consume). 0 or an error. */
int pol_mimose_fits_make(const pol_mimose_samples *s, pol_mimose_fits *out, gms_error *err);
void pol_mimose_fits_free(pol_mimose_fits *f);
/* Predicted bytes freed by checkpointing layer i at input size x, never negative (a quadratic
 * can dip below zero between samples of a layer that frees nothing). */
double pol_mimose_layer_bytes(const pol_mimose_fits *f, uint32_t i, double x);
/* Predicted whole-model no-checkpoint activation peak above start memory, never negative. */
double pol_mimose_model_bytes(const pol_mimose_fits *f, double x);
/* The sequential predictor at x for a plan whose pol_mimose_sequential_peak is seq: bytes
 * above start memory, max(floor, base(x) + seq). */
double pol_mimose_sequential_bytes(const pol_mimose_fits *f, double x, double seq);

/* ------------------------------------------------------------------------------------------
 * The sequential predictor of a plan's peak (ours, not the authors'). The authors' estimate,
 * start + model(x) - sum of the checkpointed layers' bytes, counts the layer being recomputed
 * in backward twice in its whole-model samples (checkpoint-all peaks while one layer is
 * recomputed) and credits checkpointing the last layer, which backward recomputes at once.
 * Layer by layer, backward holds, while it works on layer L, L's activations (kept or
 * recomputed) and their gradients, which we take to be as many bytes, and the activations of
 * the layers before L that were not checkpointed; so the activation part of the peak is
 *     max over L of ( 2 bytes[L] + sum of bytes[j] for j < L not checkpointed )
 * (for L = the last layer this also bounds the end of the forward pass), on top of a base
 * fitted to what the samples add to it (outputs, parameter gradients: fits.base), and never
 * below a floor the samples show (fits.floor). Returns the max; 0 for n = 0. ckpt NULL = no
 * layer checkpointed. */
double pol_mimose_sequential_peak(const double *bytes, const uint8_t *ckpt, uint32_t n);

/* ------------------------------------------------------------------------------------------
 * The authors' greedy choice (GreedyStrategy.get_checkpoint_module). Given each layer's
 * predicted bytes and the deficit (bytes to free), sets pick[i] = 1 for the chosen layers:
 *   1. order the layers by bytes, largest first, and cut them into groups of near-equal size
 *      (a group takes the following layers while they are >= 0.9 x its first layer's bytes);
 *      inside a group, order by layer position, last layer first (split_bucket, sort_by_name);
 *   2. while the chosen bytes are below the deficit and layers are left: walk the list from
 *      its end (smallest group first; inside a group, earliest layer first) and take the first
 *      layer whose bytes cover the remaining deficit, or the list's last layer when none does
 *      (get_fit_module).
 * deficit <= 0 picks nothing. Returns the number picked; scratch holds 2 x n uint32_t.
 */
uint32_t pol_mimose_greedy(const double *bytes, uint32_t n, double deficit, uint8_t *pick,
                           uint32_t *scratch);

/* ------------------------------------------------------------------------------------------
 * Plan cache: one plan (n_layers checkpoint flags) per input-size bucket.
 */
typedef struct pol_mimose_cache pol_mimose_cache;

pol_mimose_cache *pol_mimose_cache_new(uint32_t n_layers);
void pol_mimose_cache_free(pol_mimose_cache *c);
/* The cached flags of bucket, or NULL. */
const uint8_t *pol_mimose_cache_get(const pol_mimose_cache *c, int64_t bucket);
/* Stores a copy of flags under bucket (replacing any). 0 or GMS_ENOMEM. */
int pol_mimose_cache_put(pol_mimose_cache *c, int64_t bucket, const uint8_t *flags,
                         gms_error *err);
size_t pol_mimose_cache_size(const pol_mimose_cache *c);

/* The bucket of input size x: ceil(x / width) * width (Manager.round_input). width >= 1. */
int64_t pol_mimose_bucket(int64_t x, int64_t width);

/* ------------------------------------------------------------------------------------------
 * Parameters: "key=value,..." with keys
 *   warmup=N     warm-up iterations (>= 2; the authors' default 10)
 *   bucket=N     bucket width in input-size units (>= 1), or "auto" (the default): 1/50 of the
 *                trace's input-size range, the rule left commented out in the authors'
 *                round_input (their fixed 5 is in sequence-length units; ours are tokens or
 *                pixels)
 *   reserve=N    bytes kept free below the budget (0)
 *   max_input=N  mimose-static only: the input size planned for (default: the trace's largest)
 *   predict=sequential|authors  which estimate the reported predicted peak is (default
 *                sequential; the plan itself always uses the authors' deficit)
 * An empty string gives the defaults.
 */
#define POL_MIMOSE_BUCKET_AUTO 0
typedef struct pol_mimose_params {
    uint32_t warmup;
    int64_t bucket;     /* POL_MIMOSE_BUCKET_AUTO or a width */
    uint64_t reserve;
    int64_t max_input;  /* -1 = the trace's largest */
    int predict_authors; /* 1 = report the authors' estimate, 0 = the sequential one */
} pol_mimose_params;

/* Parses s for planner `who` ("mimose" or "mimose-static"; only the latter knows max_input).
 * 0, or GMS_EINVAL with a message naming the offending parameter. */
int pol_mimose_params_parse(const char *who, const char *s, pol_mimose_params *out,
                            gms_error *err);

#endif
