/*
 * knapsack: torch.compile's knapsack solvers (knapsack.h), each after the function of
 * torch/_functorch/_activation_checkpointing/knapsack.py it names.
 */
#include "knapsack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ratio_item {
    size_t i;
    double r;
} ratio_item;

/* sorted(items, key=runtime/memory, reverse=True) is stable: equal keys keep their order */
static int by_ratio_desc(const void *a, const void *b)
{
    const ratio_item *x = a, *y = b;
    if (x->r != y->r)
        return x->r > y->r ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static double ratio(double runtime, double memory)
{
    if (memory == 0) /* Python would raise; a free item is always worth saving */
        return runtime > 0 ? INFINITY : 0;
    return runtime / memory;
}

/* greedy_knapsack */
int knap_greedy(const double *memory, const double *runtime, size_t n, double max_memory,
                uint8_t *save, double *value, gms_error *err)
{
    ratio_item *it = malloc((n ? n : 1) * sizeof *it);
    if (!it)
        return gms_error_set(err, GMS_ENOMEM, "knapsack: out of memory");
    for (size_t i = 0; i < n; i++)
        it[i] = (ratio_item){i, ratio(runtime[i], memory[i])};
    qsort(it, n, sizeof *it, by_ratio_desc);
    double total_memory = 0, total_runtime = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = it[k].i;
        if (total_memory + memory[i] <= max_memory) {
            total_memory += memory[i];
            total_runtime += runtime[i];
            save[i] = 1;
        } else {
            save[i] = 0;
        }
    }
    free(it);
    *value = total_runtime;
    return 0;
}

/* Python's round(x) for the quantization: to nearest, ties to even. */
static long long round_half_even(double x)
{
    double r = nearbyint(x); /* the default rounding mode is to nearest, ties to even */
    return (long long)r;
}

/* dp_knapsack */
int knap_dp(const double *memory, const double *runtime, size_t n, double max_memory,
            size_t max_cells, uint8_t *save, double *value, gms_error *err)
{
    const double S = 10000;
    long long cap = round_half_even(max_memory * S);
    if (cap < 0)
        cap = 0;
    size_t width = (size_t)cap + 1;
    if ((n + 1) > max_cells / width)
        return gms_error_set(err, GMS_EINVAL,
                             "knapsack: the dp table of %zu items x %lld capacity steps is too "
                             "large; use solver=greedy", n, cap);
    long long *q = malloc((n ? n : 1) * sizeof *q);
    float *dp = calloc((n + 1) * width, sizeof *dp);
    if (!q || !dp) {
        free(q), free(dp);
        return gms_error_set(err, GMS_ENOMEM, "knapsack: out of memory for the dp table");
    }
    for (size_t i = 0; i < n; i++) {
        q[i] = round_half_even(memory[i] * S);
        if (q[i] < 0)
            q[i] = 0;
    }
    for (size_t i = 1; i <= n; i++) {
        const float *prev = dp + (i - 1) * width;
        float *row = dp + i * width;
        float rt = (float)runtime[i - 1]; /* torch.tensor(runtime, dtype=float32) */
        long long cm = q[i - 1];
        memcpy(row, prev, width * sizeof *row);
        if (cm == 0) {
            for (size_t j = 0; j < width; j++)
                row[j] = prev[j] + rt;
        } else {
            for (size_t j = (size_t)cm; j < width; j++) {
                float with = prev[j - (size_t)cm] + rt;
                row[j] = prev[j] > with ? prev[j] : with; /* torch.maximum */
            }
        }
    }
    size_t j = (size_t)cap;
    for (size_t i = n; i > 0; i--) {
        if (dp[i * width + j] != dp[(i - 1) * width + j]) {
            save[i - 1] = 1;
            j -= (size_t)q[i - 1];
        } else {
            save[i - 1] = 0; /* equal: recomputable */
        }
    }
    *value = dp[n * width + (size_t)cap];
    free(q), free(dp);
    return 0;
}

typedef struct bb {
    const double *m, *r;
    const ratio_item *order;
    size_t n;
    double cap, best;
    uint8_t *cur, *best_set;
} bb;

/* A MILP solver's feasibility tolerance: scipy's milp (HiGHS) accepts a row 1e-7 over. */
#define KNAP_TOL 1e-9

/* Fractional bound from position k with `used` weight taken. */
static double bound(const bb *b, size_t k, double used)
{
    double v = 0, room = b->cap + KNAP_TOL - used;
    for (; k < b->n; k++) {
        size_t i = b->order[k].i;
        if (b->m[i] <= room) {
            room -= b->m[i];
            v += b->r[i];
        } else {
            if (b->m[i] > 0 && room > 0)
                v += b->r[i] * (room / b->m[i]);
            break;
        }
    }
    return v;
}

/* Weights are summed as the brute force and greedy_knapsack sum them (used + m <= cap), not
 * subtracted from a remaining room, so rounding never drops an item that fits. */
static void search(bb *b, size_t k, double used, double val)
{
    if (val > b->best) {
        b->best = val;
        memcpy(b->best_set, b->cur, b->n);
    }
    if (k == b->n || val + bound(b, k, used) <= b->best)
        return;
    size_t i = b->order[k].i;
    if (used + b->m[i] <= b->cap + KNAP_TOL) {
        b->cur[i] = 1;
        search(b, k + 1, used + b->m[i], val + b->r[i]);
        b->cur[i] = 0;
    }
    search(b, k + 1, used, val);
}

/* ilp_knapsack's optimum, by branch and bound */
int knap_exact(const double *memory, const double *runtime, size_t n, double max_memory,
               uint8_t *save, double *value, gms_error *err)
{
    ratio_item *it = malloc((n ? n : 1) * sizeof *it);
    uint8_t *cur = calloc(n ? n : 1, 1);
    if (!it || !cur) {
        free(it), free(cur);
        return gms_error_set(err, GMS_ENOMEM, "knapsack: out of memory");
    }
    for (size_t i = 0; i < n; i++)
        it[i] = (ratio_item){i, ratio(runtime[i], memory[i])};
    qsort(it, n, sizeof *it, by_ratio_desc);
    memset(save, 0, n);
    bb b = {memory, runtime, it, n, max_memory, 0, cur, save};
    b.best = -1;
    b.cap = max_memory < 0 ? 0 : max_memory;
    search(&b, 0, 0, 0);
    *value = b.best < 0 ? 0 : b.best;
    free(it), free(cur);
    return 0;
}
