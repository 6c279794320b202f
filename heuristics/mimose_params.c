/*
 * mimose_params: the mimose and mimose-static parameter strings (--policy-args). See mimose.h.
 */
#include <stdlib.h>
#include <string.h>

#include "mimose.h"

/* Strict decimal parse of the n bytes at s. 0 or -1. */
static int parse_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 20)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int key_is(const char *k, size_t kn, const char *name)
{
    return strlen(name) == kn && memcmp(k, name, kn) == 0;
}

int pol_mimose_params_parse(const char *who, const char *s, pol_mimose_params *out,
                            gms_error *err)
{
    int is_static = strcmp(who, "mimose-static") == 0;
    const char *known = is_static ? "warmup, bucket, reserve, predict, max_input"
                                  : "warmup, bucket, reserve, predict";
    out->warmup = 10;
    out->bucket = POL_MIMOSE_BUCKET_AUTO;
    out->reserve = 0;
    out->max_input = -1;
    out->predict_authors = 0;
    unsigned seen = 0;
    while (s && *s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', len);
        if (!eq)
            return gms_error_set(err, GMS_EINVAL,
                                 "%s: parameter '%.*s' is not KEY=VALUE (known keys: %s)", who,
                                 (int)len, s, known);
        size_t kn = (size_t)(eq - s), vn = len - kn - 1;
        const char *v = eq + 1;
        uint64_t u = 0;
        unsigned bit;
        int bad = 0;
        if (key_is(s, kn, "warmup")) {
            bit = 1;
            bad = parse_u64(v, vn, &u) || u < 2 || u > UINT32_MAX;
            if (!bad)
                out->warmup = (uint32_t)u;
        } else if (key_is(s, kn, "bucket")) {
            bit = 2;
            if (vn == 4 && memcmp(v, "auto", 4) == 0)
                out->bucket = POL_MIMOSE_BUCKET_AUTO;
            else if (!(bad = parse_u64(v, vn, &u) || u < 1 || u > INT64_MAX))
                out->bucket = (int64_t)u;
        } else if (key_is(s, kn, "reserve")) {
            bit = 4;
            if (!(bad = parse_u64(v, vn, &u)))
                out->reserve = u;
        } else if (key_is(s, kn, "predict")) {
            bit = 16;
            if (vn == 7 && memcmp(v, "authors", 7) == 0)
                out->predict_authors = 1;
            else if (vn == 10 && memcmp(v, "sequential", 10) == 0)
                out->predict_authors = 0;
            else
                bad = 1;
        } else if (is_static && key_is(s, kn, "max_input")) {
            bit = 8;
            if (!(bad = parse_u64(v, vn, &u) || u > INT64_MAX))
                out->max_input = (int64_t)u;
        } else {
            return gms_error_set(err, GMS_EINVAL, "%s: unknown parameter '%.*s' (known: %s)",
                                 who, (int)kn, s, known);
        }
        if (bad) {
            const char *want = bit == 1   ? "an integer >= 2 (iterations)"
                               : bit == 2  ? "'auto' or an integer >= 1 (input-size units)"
                               : bit == 4  ? "an integer (bytes)"
                               : bit == 16 ? "'sequential' or 'authors'"
                                           : "an integer (input-size units)";
            return gms_error_set(err, GMS_EINVAL, "%s: parameter %.*s='%.*s': expected %s", who,
                                 (int)kn, s, (int)vn, v, want);
        }
        if (seen & bit)
            return gms_error_set(err, GMS_EINVAL, "%s: parameter '%.*s' given twice", who,
                                 (int)kn, s);
        seen |= bit;
        s = end ? end + 1 : NULL;
        if (end && !*s)
            return gms_error_set(err, GMS_EINVAL, "%s: parameter string ends with ','", who);
    }
    return 0;
}
