/*
 * mimose_samples: what Mimose records during warm-up and the fits made from it at the end of
 * warm-up (Manager.add_data, collect_model_memory, fit_memory_consume, compute_time_used).
 * See mimose.h.
 *
 * The authors keep DataStorage lists per input size and flatten them into (x, y) lists before
 * fitting; keeping the flat lists directly gives the same points.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mimose.h"

struct pol_mimose_samples {
    uint32_t n_layers;
    size_t n, cap;       /* layer samples (iterations) */
    double *x;           /* per sample: input size */
    double *bytes, *ns;  /* per sample: n_layers values each */
    size_t n_model, cap_model;
    double *mx, *my;
    size_t n_base, cap_base;
    double *bx, *babove, *bseq;
};

pol_mimose_samples *pol_mimose_samples_new(uint32_t n_layers)
{
    pol_mimose_samples *s = calloc(1, sizeof *s);
    if (s)
        s->n_layers = n_layers;
    return s;
}

void pol_mimose_samples_free(pol_mimose_samples *s)
{
    if (!s)
        return;
    free(s->x);
    free(s->bytes);
    free(s->ns);
    free(s->mx);
    free(s->my);
    free(s->bx);
    free(s->babove);
    free(s->bseq);
    free(s);
}

uint32_t pol_mimose_samples_layers(const pol_mimose_samples *s)
{
    return s->n_layers;
}

size_t pol_mimose_samples_count(const pol_mimose_samples *s)
{
    return s->n;
}

size_t pol_mimose_samples_model_count(const pol_mimose_samples *s)
{
    return s->n_model;
}

/* Grows *p (elements of `width` doubles) to hold cap elements. 0 or -1. */
static int grow(double **p, size_t cap, size_t width)
{
    size_t w = width ? width : 1;
    double *q = realloc(*p, cap * w * sizeof *q);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

int pol_mimose_samples_add_layers(pol_mimose_samples *s, double x, const double *bytes,
                                  const double *forward_ns, gms_error *err)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        if (grow(&s->x, cap, 1) || grow(&s->bytes, cap, s->n_layers) ||
            grow(&s->ns, cap, s->n_layers))
            return gms_error_set(err, GMS_ENOMEM, "mimose: out of memory recording samples");
        s->cap = cap;
    }
    s->x[s->n] = x;
    memcpy(s->bytes + s->n * s->n_layers, bytes, s->n_layers * sizeof *bytes);
    memcpy(s->ns + s->n * s->n_layers, forward_ns, s->n_layers * sizeof *forward_ns);
    s->n++;
    return 0;
}

int pol_mimose_samples_add_model(pol_mimose_samples *s, double x, double activation_peak,
                                 gms_error *err)
{
    if (s->n_model == s->cap_model) {
        size_t cap = s->cap_model ? 2 * s->cap_model : 16;
        if (grow(&s->mx, cap, 1) || grow(&s->my, cap, 1))
            return gms_error_set(err, GMS_ENOMEM, "mimose: out of memory recording samples");
        s->cap_model = cap;
    }
    s->mx[s->n_model] = x;
    s->my[s->n_model] = activation_peak;
    s->n_model++;
    return 0;
}

int pol_mimose_samples_add_base(pol_mimose_samples *s, double x, double above, double seq,
                                gms_error *err)
{
    if (s->n_base == s->cap_base) {
        size_t cap = s->cap_base ? 2 * s->cap_base : 16;
        if (grow(&s->bx, cap, 1) || grow(&s->babove, cap, 1) || grow(&s->bseq, cap, 1))
            return gms_error_set(err, GMS_ENOMEM, "mimose: out of memory recording samples");
        s->cap_base = cap;
    }
    s->bx[s->n_base] = x;
    s->babove[s->n_base] = above;
    s->bseq[s->n_base] = seq;
    s->n_base++;
    return 0;
}

/* 1 when a is within 0.1% of b. */
static int near(double a, double b)
{
    return fabs(a - b) <= 1e-3 * fabs(b);
}


/* Fits base to above - seq over the samples whose peak is not near `low` (all when low < 0). */
static int fit_base_over(const pol_mimose_samples *s, double low, double *x, double *y,
                         pol_qfit *out, gms_error *err)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n_base; i++)
        if (low < 0.0 || !near(s->babove[i], low)) {
            x[k] = s->bx[i];
            y[k] = s->babove[i] - s->bseq[i];
            k++;
        }
    return pol_qfit_solve(x, y, k, out, err);
}

/* The sequential predictor's floor and base (mimose.h). The samples that peaked at the lowest
 * level (within 0.1%) are a floor when the activations do not explain that peak: fitted
 * without them, the base predicts more than 1% less there. Then they are left out of the
 * base's fit and every prediction is at least that level. Otherwise every sample counts. */
static int fit_base(const pol_mimose_samples *s, pol_mimose_fits *out, gms_error *err)
{
    size_t n = s->n_base;
    out->floor = 0.0;
    double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return gms_error_set(err, GMS_ENOMEM, "mimose: out of memory fitting the base");
    }
    int rc = 0;
    size_t lowest = 0, at_low = 0;
    for (size_t i = 1; i < n; i++)
        if (s->babove[i] < s->babove[lowest])
            lowest = i;
    double low = n ? s->babove[lowest] : 0.0;
    for (size_t i = 0; i < n; i++)
        at_low += near(s->babove[i], low);
    if (n && low > 0.0 && at_low < n) {
        pol_qfit without;
        if ((rc = fit_base_over(s, low, x, y, &without, err)))
            goto done;
        double explained = pol_qfit_eval(&without, s->bx[lowest]) + s->bseq[lowest];
        if (low > 1.01 * explained) {
            out->floor = low;
            out->base = without;
            goto done;
        }
    }
    rc = fit_base_over(s, -1.0, x, y, &out->base, err);
done:
    free(x);
    free(y);
    return rc;
}

void pol_mimose_fits_free(pol_mimose_fits *f)
{
    if (!f)
        return;
    free(f->layer);
    free(f->forward_ns);
    memset(f, 0, sizeof *f);
}

int pol_mimose_fits_make(const pol_mimose_samples *s, pol_mimose_fits *out, gms_error *err)
{
    memset(out, 0, sizeof *out);
    uint32_t n = s->n_layers;
    out->n_layers = n;
    out->layer = calloc(n ? n : 1, sizeof *out->layer);
    out->forward_ns = calloc(n ? n : 1, sizeof *out->forward_ns);
    double *y = malloc((s->n ? s->n : 1) * sizeof *y);
    int rc = 0;
    if (!out->layer || !out->forward_ns || !y) {
        rc = gms_error_set(err, GMS_ENOMEM, "mimose: out of memory fitting %u layers", n);
        goto done;
    }
    for (uint32_t l = 0; l < n; l++) {
        double t = 0.0;
        for (size_t i = 0; i < s->n; i++) {
            y[i] = s->bytes[i * n + l];
            t += s->ns[i * n + l];
        }
        out->forward_ns[l] = s->n ? t / (double)s->n : 0.0;
        if ((rc = pol_qfit_solve(s->x, y, s->n, &out->layer[l], err)))
            goto done;
    }
    if ((rc = pol_qfit_solve(s->mx, s->my, s->n_model, &out->model, err)))
        goto done;
    rc = fit_base(s, out, err);
done:
    free(y);
    if (rc)
        pol_mimose_fits_free(out);
    return rc;
}

double pol_mimose_layer_bytes(const pol_mimose_fits *f, uint32_t i, double x)
{
    if (i >= f->n_layers)
        return 0.0;
    double v = pol_qfit_eval(&f->layer[i], x);
    return v > 0.0 ? v : 0.0;
}

double pol_mimose_model_bytes(const pol_mimose_fits *f, double x)
{
    double v = pol_qfit_eval(&f->model, x);
    return v > 0.0 ? v : 0.0;
}

double pol_mimose_sequential_bytes(const pol_mimose_fits *f, double x, double seq)
{
    double v = pol_qfit_eval(&f->base, x) + seq;
    return v > f->floor ? v : f->floor;
}

double pol_mimose_sequential_peak(const double *bytes, const uint8_t *ckpt, uint32_t n)
{
    double kept = 0.0, peak = 0.0; /* kept: bytes of the earlier layers not checkpointed */
    for (uint32_t l = 0; l < n; l++) {
        double here = kept + 2.0 * bytes[l]; /* L's activations and their gradients */
        peak = here > peak ? here : peak;
        if (!ckpt || !ckpt[l])
            kept += bytes[l];
    }
    return peak;
}
