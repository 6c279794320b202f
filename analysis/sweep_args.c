/* sweep: parsing budget ratio ranges and shard specs (see sweep.h). */
#include "sweep.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_MAX_RATIOS 100000

/* Parses a whole string as a finite double; 0 or -1. */
static int parse_double(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end != '\0' || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Decimal places a literal like "0.05" or "2.5e-2" is written with. */
static int decimals(const char *s, size_t len)
{
    int frac = 0, seen_dot = 0;
    size_t i = 0;
    for (; i < len && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] == '.')
            seen_dot = 1;
        else if (seen_dot && isdigit((unsigned char)s[i]))
            frac++;
    }
    long exp = 0;
    if (i < len)
        exp = strtol(s + i + 1, NULL, 10);
    long d = frac - exp;
    return d < 0 ? 0 : d > 18 ? 18 : (int)d; /* 18: more places than rounding can keep */
}

static int check_ratio(double r, const char *text, gms_error *err)
{
    if (!(r > 0 && r <= SWEEP_MAX_RATIO))
        return gms_error_set(err, GMS_EINVAL,
                             "budget ratio %g in '%s' is out of range: ratios of baseline memory "
                             "must lie in (0, %g]",
                             r, text, SWEEP_MAX_RATIO);
    return 0;
}

/* Appends r unless it is already there (a repeated ratio is the same experiment). */
static void add_unique(double *v, size_t *n, double r)
{
    for (size_t i = 0; i < *n; i++)
        if (v[i] == r)
            return;
    v[(*n)++] = r;
}

static int parse_range(const char *text, double **ratios, size_t *n, gms_error *err)
{
    const char *c1 = strchr(text, ':');
    const char *c2 = strchr(c1 + 1, ':');
    double start, stop, step;
    if (!c2 || strchr(c2 + 1, ':') || parse_double(text, (size_t)(c1 - text), &start) ||
        parse_double(c1 + 1, (size_t)(c2 - c1 - 1), &stop) ||
        parse_double(c2 + 1, strlen(c2 + 1), &step))
        return gms_error_set(err, GMS_EINVAL,
                             "budgets '%s': expected START:STOP:STEP such as 0.1:1.0:0.05", text);
    if (!(step > 0) || stop < start)
        return gms_error_set(err, GMS_EINVAL,
                             "budgets '%s': need STEP > 0 and STOP >= START", text);
    int rc = check_ratio(start, text, err);
    if (!rc)
        rc = check_ratio(stop, text, err);
    if (rc)
        return rc;
    int d1 = decimals(text, (size_t)(c1 - text)), d2 = decimals(c2 + 1, strlen(c2 + 1));
    int d = d1 > d2 ? d1 : d2;
    double count = floor((stop - start) / step + 1e-9) + 1;
    if (count > SWEEP_MAX_RATIOS)
        return gms_error_set(err, GMS_EINVAL, "budgets '%s': more than %d ratios", text,
                             SWEEP_MAX_RATIOS);
    double *v = malloc((size_t)count * sizeof *v);
    if (!v)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < (size_t)count; i++) {
        /* each ratio rounded to the places START and STEP were written with, so that
         * 0.1:0.3:0.1 gives 0.3 and not 0.30000000000000004; not for ratios written with more
         * places than a fixed-point literal keeps (1e-20 would round to 0) */
        double r = start + (double)i * step;
        if (d < 18) {
            char lit[64];
            snprintf(lit, sizeof lit, "%.*f", d, r);
            r = strtod(lit, NULL);
        }
        if (r > 0 && r <= SWEEP_MAX_RATIO)
            add_unique(v, &k, r);
    }
    *ratios = v;
    *n = k;
    return 0;
}

int sweep_parse_ratios(const char *text, double **ratios, size_t *n, gms_error *err)
{
    *ratios = NULL;
    *n = 0;
    if (strchr(text, ':'))
        return parse_range(text, ratios, n, err);
    size_t cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    double *v = malloc(cap * sizeof *v);
    if (!v)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    size_t k = 0;
    const char *s = text;
    for (;;) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        double r = 0;
        int rc = 0;
        if (parse_double(s, len, &r))
            rc = gms_error_set(err, GMS_EINVAL,
                               "budgets '%s': expected ratios such as 0.2,0.5 or a range "
                               "START:STOP:STEP",
                               text);
        else
            rc = check_ratio(r, text, err);
        if (rc) {
            free(v);
            return rc;
        }
        add_unique(v, &k, r);
        if (!e)
            break;
        s = e + 1;
    }
    *ratios = v;
    *n = k;
    return 0;
}

int sweep_parse_shard(const char *text, unsigned *k, unsigned *n, gms_error *err)
{
    unsigned long a, b;
    char *end;
    errno = 0;
    a = strtoul(text, &end, 10);
    if (end != text && *end == '/' && isdigit((unsigned char)end[1])) {
        const char *s = end + 1;
        b = strtoul(s, &end, 10);
        if (*end == '\0' && !errno && a >= 1 && b >= 1 && a <= b && b <= 1000000) {
            *k = (unsigned)a;
            *n = (unsigned)b;
            return 0;
        }
    }
    return gms_error_set(err, GMS_EINVAL,
                         "shard '%s': expected K/N with 1 <= K <= N, e.g. --shard 2/3", text);
}

int sweep_policy_is_random(const char *policy)
{
    /* dtr-proto samples its candidates at random (dtr-proto-all scans them all) */
    return strcmp(policy, "random") == 0 || strcmp(policy, "dtr-proto") == 0;
}
