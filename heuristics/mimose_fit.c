/*
 * mimose_fit: the quadratic least-squares fit Mimose makes per layer and for the whole model
 * (PolyPrediction.fit_poly: np.polyfit(x, y, 2)). See mimose.h.
 *
 * x is centred on its mean and scaled by its largest distance from it, so u lies in [-1, 1]
 * and the normal equations (at most 3x3) stay well conditioned even for pixel counts in the
 * millions, where the raw Vandermonde matrix's x^4 terms would swamp double precision.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mimose.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Distinct values among x[0..n-1]. */
static int distinct_values(const double *x, size_t n, size_t *out, gms_error *err)
{
    double *c = malloc(n * sizeof *c);
    if (!c)
        return gms_error_set(err, GMS_ENOMEM, "mimose: out of memory fitting %zu samples", n);
    memcpy(c, x, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    size_t d = 1;
    for (size_t i = 1; i < n; i++)
        d += c[i] != c[i - 1];
    free(c);
    *out = d;
    return 0;
}

/* Solves the k x k system a.z = b (k <= 3) by Gaussian elimination with partial pivoting.
 * 0, or -1 when singular (cannot happen with k distinct points, kept as a guard). */
static int solve(double a[3][3], double b[3], int k, double z[3])
{
    for (int c = 0; c < k; c++) {
        int p = c;
        for (int r = c + 1; r < k; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        if (a[p][c] == 0.0)
            return -1;
        if (p != c) {
            for (int j = 0; j < k; j++) {
                double t = a[c][j];
                a[c][j] = a[p][j];
                a[p][j] = t;
            }
            double t = b[c];
            b[c] = b[p];
            b[p] = t;
        }
        for (int r = c + 1; r < k; r++) {
            double f = a[r][c] / a[c][c];
            for (int j = c; j < k; j++)
                a[r][j] -= f * a[c][j];
            b[r] -= f * b[c];
        }
    }
    for (int r = k - 1; r >= 0; r--) {
        double s = b[r];
        for (int j = r + 1; j < k; j++)
            s -= a[r][j] * z[j];
        z[r] = s / a[r][r];
    }
    return 0;
}

int pol_qfit_solve(const double *x, const double *y, size_t n, pol_qfit *out, gms_error *err)
{
    memset(out, 0, sizeof *out);
    out->xs = 1.0;
    out->degree = -1;
    if (n == 0)
        return 0;
    double xc = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            return gms_error_set(err, GMS_EINVAL, "mimose: sample %zu is not a finite number", i);
        xc += x[i];
    }
    xc /= (double)n;
    double xs = 0.0;
    for (size_t i = 0; i < n; i++)
        xs = fmax(xs, fabs(x[i] - xc));
    size_t d = 0;
    if (distinct_values(x, n, &d, err))
        return err ? err->code : GMS_ENOMEM;
    int k = d >= 3 ? 3 : (int)d; /* unknowns */
    out->xc = xc;
    out->xs = xs > 0.0 ? xs : 1.0;

    /* Normal equations: sum u^(i+j) z_j = sum u^i y. */
    double a[3][3] = {{0}}, b[3] = {0}, z[3] = {0};
    for (size_t s = 0; s < n; s++) {
        double u = (x[s] - xc) / out->xs, p[5] = {1.0, u, u * u, u * u * u, u * u * u * u};
        for (int i = 0; i < k; i++) {
            b[i] += p[i] * y[s];
            for (int j = 0; j < k; j++)
                a[i][j] += p[i + j];
        }
    }
    if (solve(a, b, k, z))
        return gms_error_set(err, GMS_EINVAL, "mimose: singular fit over %zu samples", n);
    out->a0 = z[0];
    out->a1 = k > 1 ? z[1] : 0.0;
    out->a2 = k > 2 ? z[2] : 0.0;
    out->degree = k - 1;
    return 0;
}

double pol_qfit_eval(const pol_qfit *f, double x)
{
    if (f->degree < 0)
        return 0.0;
    double u = (x - f->xc) / f->xs;
    return f->a0 + u * (f->a1 + u * f->a2);
}
