/*
 * planner_params: --policy-args parsing and canonical form (planners.h). The canonical string
 * goes into the run key (analysis/store.h), so it must not depend on how the user spelled it.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planners.h"

typedef struct kv {
    char *key, *val;
} kv;

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

static int key_ok(const char *k)
{
    for (; *k; k++)
        if (!isalnum((unsigned char)*k) && *k != '_' && *k != '-' && *k != '.')
            return 0;
    return 1;
}

static int cmp_kv(const void *a, const void *b)
{
    return strcmp(((const kv *)a)->key, ((const kv *)b)->key);
}

/* A number written the shortest way that reads back the same (integers without a point). */
static void norm_number(double d, char *buf, size_t len)
{
    if (d == 0)
        d = 0; /* -0 -> 0 */
    if (d == floor(d) && fabs(d) < 9007199254740992.0) {
        snprintf(buf, len, "%.0f", d);
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, len, "%.*g", p, d);
        if (strtod(buf, NULL) == d)
            return;
    }
}

int planner_params_canon(const char *args, char **out, gms_error *err)
{
    *out = NULL;
    char *copy = strdup(args ? args : "");
    size_t n = 1;
    for (const char *p = copy ? copy : ""; *p; p++)
        n += *p == ',';
    kv *items = calloc(n, sizeof *items);
    /* each value may grow to a normalized number of at most 32 bytes */
    size_t cap = (copy ? strlen(copy) : 0) + n * 40 + 1;
    char *res = malloc(cap), *nums = malloc(n * 40);
    if (!copy || !items || !res || !nums) {
        free(copy), free(items), free(res), free(nums);
        return gms_error_set(err, GMS_ENOMEM, "out of memory reading --policy-args");
    }
    int rc = 0;
    size_t m = 0;
    if (*trim(copy)) {
        char *save = NULL;
        for (char *part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(part, '=');
            if (!eq) {
                rc = gms_error_set(err, GMS_EINVAL,
                                   "--policy-args: '%s' is not KEY=VALUE (e.g. warmup=10)",
                                   trim(part));
                goto done;
            }
            *eq = 0;
            char *k = trim(part), *val = trim(eq + 1);
            if (!*k || !*val || !key_ok(k)) {
                rc = gms_error_set(err, GMS_EINVAL,
                                   "--policy-args: '%s=%s' needs a key of letters, digits, '_', "
                                   "'-' or '.' and a non-empty value", k, val);
                goto done;
            }
            char *end;
            errno = 0;
            double d = strtod(val, &end);
            if (!errno && !*end && isfinite(d)) {
                norm_number(d, nums + m * 40, 40);
                val = nums + m * 40;
            }
            items[m++] = (kv){k, val};
        }
        /* a trailing or doubled comma leaves an empty part strtok skips: refuse it */
        size_t commas = 0;
        for (const char *p = args; *p; p++)
            commas += *p == ',';
        if (commas + 1 != m) {
            rc = gms_error_set(err, GMS_EINVAL,
                               "--policy-args '%s': an empty item (a stray comma)", args);
            goto done;
        }
    }
    qsort(items, m, sizeof *items, cmp_kv);
    res[0] = 0;
    size_t len = 0;
    for (size_t i = 0; i < m; i++) {
        if (i && strcmp(items[i].key, items[i - 1].key) == 0) {
            rc = gms_error_set(err, GMS_EINVAL, "--policy-args: key '%s' is given twice",
                               items[i].key);
            goto done;
        }
        len += (size_t)snprintf(res + len, cap - len, "%s%s=%s", i ? "," : "", items[i].key,
                                items[i].val);
    }
done:
    free(copy);
    free(items);
    free(nums);
    if (rc) {
        free(res);
        return rc;
    }
    *out = res;
    return 0;
}

/* Walks "k=v,k=v": calls back with each key and value (not NUL-terminated). */
static int find_key(const char *params, const char *key, const char **val, size_t *vlen)
{
    size_t kl = strlen(key);
    for (const char *p = params ? params : ""; *p;) {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        if (!eq)
            return 0;
        if (!comma)
            comma = p + strlen(p);
        if ((size_t)(eq - p) == kl && strncmp(p, key, kl) == 0) {
            *val = eq + 1;
            *vlen = (size_t)(comma - eq - 1);
            return 1;
        }
        p = *comma ? comma + 1 : comma;
    }
    return 0;
}

int planner_params_check(const char *planner, const char *params, const char *const *known,
                         gms_error *err)
{
    for (const char *p = params ? params : ""; *p;) {
        const char *eq = strchr(p, '=');
        const char *comma = strchr(p, ',');
        if (!comma)
            comma = p + strlen(p);
        size_t kl = eq && eq < comma ? (size_t)(eq - p) : (size_t)(comma - p);
        int ok = 0;
        for (size_t i = 0; known && known[i]; i++)
            ok |= strlen(known[i]) == kl && strncmp(known[i], p, kl) == 0;
        if (!ok) {
            char names[256] = "";
            for (size_t i = 0; known && known[i]; i++) {
                size_t u = strlen(names);
                snprintf(names + u, sizeof names - u, "%s%s", i ? ", " : "", known[i]);
            }
            return gms_error_set(err, GMS_EINVAL,
                                 "planner %s has no parameter '%.*s' (%s%s)", planner, (int)kl,
                                 p, names[0] ? "its parameters: " : "it takes none",
                                 names);
        }
        p = *comma ? comma + 1 : comma;
    }
    return 0;
}

int planner_param_double(const char *planner, const char *params, const char *key, double *out,
                         gms_error *err)
{
    const char *val;
    size_t n;
    if (!find_key(params, key, &val, &n))
        return 0;
    char buf[64];
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, val, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    double d = strtod(buf, &end);
    if (errno || *end || !isfinite(d)) {
        gms_error_set(err, GMS_EINVAL, "planner %s: parameter %s='%s' is not a number", planner,
                      key, buf);
        return -1;
    }
    *out = d;
    return 1;
}
