/*
 * mimose_cache: Mimose's plan cache (Manager.cached_strategy), one plan per input-size bucket,
 * and the bucket rule (Manager.round_input). See mimose.h.
 *
 * Buckets are kept sorted for binary search: a run has at most as many as iterations.
 */
#include <stdlib.h>
#include <string.h>

#include "mimose.h"

struct pol_mimose_cache {
    uint32_t n_layers;
    size_t n, cap;
    int64_t *keys;   /* sorted */
    uint8_t *flags;  /* n_layers per key, in key order */
};

pol_mimose_cache *pol_mimose_cache_new(uint32_t n_layers)
{
    pol_mimose_cache *c = calloc(1, sizeof *c);
    if (c)
        c->n_layers = n_layers;
    return c;
}

void pol_mimose_cache_free(pol_mimose_cache *c)
{
    if (!c)
        return;
    free(c->keys);
    free(c->flags);
    free(c);
}

size_t pol_mimose_cache_size(const pol_mimose_cache *c)
{
    return c->n;
}

/* First index whose key >= bucket. */
static size_t lower_bound(const pol_mimose_cache *c, int64_t bucket)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->keys[mid] < bucket)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const uint8_t *pol_mimose_cache_get(const pol_mimose_cache *c, int64_t bucket)
{
    size_t i = lower_bound(c, bucket);
    if (i < c->n && c->keys[i] == bucket)
        return c->flags + i * c->n_layers;
    return NULL;
}

int pol_mimose_cache_put(pol_mimose_cache *c, int64_t bucket, const uint8_t *flags,
                         gms_error *err)
{
    size_t w = c->n_layers, i = lower_bound(c, bucket);
    if (i < c->n && c->keys[i] == bucket) {
        memcpy(c->flags + i * w, flags, w);
        return 0;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        int64_t *k = realloc(c->keys, cap * sizeof *k);
        if (!k)
            return gms_error_set(err, GMS_ENOMEM, "mimose: out of memory caching a plan");
        c->keys = k;
        uint8_t *f = realloc(c->flags, cap * (w ? w : 1));
        if (!f)
            return gms_error_set(err, GMS_ENOMEM, "mimose: out of memory caching a plan");
        c->flags = f;
        c->cap = cap;
    }
    memmove(c->keys + i + 1, c->keys + i, (c->n - i) * sizeof *c->keys);
    if (w)
        memmove(c->flags + (i + 1) * w, c->flags + i * w, (c->n - i) * w);
    c->keys[i] = bucket;
    if (w)
        memcpy(c->flags + i * w, flags, w);
    c->n++;
    return 0;
}

int64_t pol_mimose_bucket(int64_t x, int64_t width)
{
    if (width <= 1)
        return x;
    /* ceil for negative x too (C division truncates toward zero) */
    int64_t q = x / width;
    if (x % width > 0)
        q++;
    if (q > INT64_MAX / width)
        return INT64_MAX; /* saturate rather than overflow on absurd sizes */
    return q * width;
}
