/* memory: the table of memory models (memory.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

void sim_memory_options_init(sim_memory_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_split_size = UINT64_MAX;
}

int sim_memory_find(const char *name, const sim_memory_model **model)
{
    static const sim_memory_model *const models[] = {&sim_memory_caching, &sim_memory_lifetime};
    *model = NULL;
    if (!name || strcmp(name, "ideal") == 0)
        return 0;
    for (size_t i = 0; i < sizeof models / sizeof *models; i++)
        if (strcmp(models[i]->name, name) == 0) {
            *model = models[i];
            return 0;
        }
    return -1;
}

const char *sim_memory_names(void)
{
    return "ideal, caching, lifetime";
}

/* One "key:value" of a configuration, value as text. */
static int conf_bool(const char *v, int *out)
{
    if (strcmp(v, "True") == 0 || strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
        *out = 1;
    else if (strcmp(v, "False") == 0 || strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
        *out = 0;
    else
        return -1;
    return 0;
}

/* Ends the setting at kv at the first ',' outside brackets; returns the next one or NULL. */
static char *next_setting(char *kv)
{
    int depth = 0;
    for (char *p = kv; *p; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']')
            depth--;
        else if (*p == ',' && depth == 0) {
            *p = 0;
            return p + 1;
        }
    }
    return NULL;
}

static int is_pow2(unsigned long long v)
{
    return v && (v & (v - 1)) == 0;
}

/* roundup_power2_divisions: "N" (every interval) or "[1:N,2:N,...,>:N]" (MiB interval
 * starts), as CUDAAllocatorConfig::parseRoundUpPower2Divisions reads them: the first entry
 * also fills the intervals below it, '>' fills from the last entry given to the end. */
static int parse_roundup(const char *v, uint32_t *div, gms_error *err)
{
    char *end;
    if (v[0] != '[') {
        unsigned long long n = strtoull(v, &end, 10);
        if (*v == '-' || *end || end == v || !is_pow2(n) || n > 1u << 20)
            return gms_error_set(err, GMS_EINVAL, "roundup_power2_divisions:%s must be a power "
                                 "of 2 (e.g. 4) or a list [256:1,512:2,>:4]", v);
        for (int i = 0; i < SIM_ROUNDUP_INTERVALS; i++)
            div[i] = (uint32_t)n;
        return 0;
    }
    char buf[200];
    size_t n = strlen(v);
    if (n < 2 || v[n - 1] != ']' || n - 2 >= sizeof buf)
        return gms_error_set(err, GMS_EINVAL, "roundup_power2_divisions:%s: a list is "
                             "[INTERVAL_MIB:DIVISIONS,...,>:DIVISIONS]", v);
    memcpy(buf, v + 1, n - 2);
    buf[n - 2] = 0;
    int first = 1, last = 0;
    char *save = NULL;
    for (char *e = strtok_r(buf, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(e, ':');
        unsigned long long d = colon ? strtoull(colon + 1, &end, 10) : 0;
        if (!colon || *end || end == colon + 1 || !is_pow2(d) || d > 1u << 20)
            return gms_error_set(err, GMS_EINVAL, "roundup_power2_divisions: '%s' is not "
                                 "INTERVAL_MIB:DIVISIONS with DIVISIONS a power of 2", e);
        *colon = 0;
        if (strcmp(e, ">") == 0) {
            for (int i = last; i < SIM_ROUNDUP_INTERVALS; i++)
                div[i] = (uint32_t)d;
            continue;
        }
        unsigned long long mib = strtoull(e, &end, 10);
        if (*end || end == e || !is_pow2(mib))
            return gms_error_set(err, GMS_EINVAL, "roundup_power2_divisions: interval '%s' "
                                 "must be a power of 2 of MiB (1, 2, 4, ..., 32768) or '>'", e);
        int idx = 63 - __builtin_clzll(mib);
        if (idx > SIM_ROUNDUP_INTERVALS - 1)
            idx = SIM_ROUNDUP_INTERVALS - 1;
        if (first)
            for (int i = 0; i < idx; i++)
                div[i] = (uint32_t)d;
        first = 0;
        div[idx] = (uint32_t)d;
        last = idx;
    }
    return 0;
}

int sim_memory_parse_conf(const sim_memory_model **mp, const char *conf, sim_memory_options *o,
                          char *canon, size_t len, gms_error *err)
{
    const sim_memory_model *m = *mp;
    sim_memory_options_init(o);
    const char *name = m ? m->name : "ideal";
    snprintf(canon, len, "%s", name);
    if (!conf || !*conf)
        return 0;
    if (!m)
        return gms_error_set(err, GMS_EINVAL,
                             "allocator settings '%s' need an allocator model (--allocator "
                             "caching or lifetime); the ideal model has none", conf);
    char buf[256];
    if (strlen(conf) >= sizeof buf)
        return gms_error_set(err, GMS_EINVAL, "allocator settings '%s' are too long", conf);
    strcpy(buf, conf);
    int is_caching = m == &sim_memory_caching || m == &sim_memory_caching_expandable;
    for (char *kv = buf, *next; kv; kv = next) {
        next = next_setting(kv);
        char *colon = strchr(kv, ':');
        if (!colon)
            return gms_error_set(err, GMS_EINVAL,
                                 "allocator setting '%s' is not KEY:VALUE (as in "
                                 "PYTORCH_CUDA_ALLOC_CONF, e.g. max_split_size_mb:128)", kv);
        *colon = 0;
        const char *k = kv, *v = colon + 1;
        int b;
        if (is_caching && strcmp(k, "max_split_size_mb") == 0) {
            char *end;
            unsigned long long mb = strtoull(v, &end, 10);
            /* AllocatorConfig: at least kLargeBuffer (20 MiB) */
            if (*v == '-' || *end || end == v || mb < 20 || mb > (UINT64_MAX >> 20))
                return gms_error_set(err, GMS_EINVAL,
                                     "max_split_size_mb:%s must be a whole number of MiB, at "
                                     "least 20 (as PyTorch requires) and at most %llu", v,
                                     (unsigned long long)(UINT64_MAX >> 20));
            o->max_split_size = (uint64_t)mb << 20;
        } else if (is_caching && strcmp(k, "expandable_segments") == 0) {
            if (conf_bool(v, &b))
                return gms_error_set(err, GMS_EINVAL, "expandable_segments:%s must be True or "
                                     "False", v);
            o->expandable_segments = b;
        } else if (is_caching && strcmp(k, "roundup_power2_divisions") == 0) {
            if (parse_roundup(v, o->roundup_divisions, err))
                return GMS_EINVAL;
        } else if (is_caching && strcmp(k, "garbage_collection_threshold") == 0) {
            char *end;
            double g = strtod(v, &end);
            if (*end || end == v || !(g > 0 && g < 1)) /* AllocatorConfig: (0.0, 1.0) */
                return gms_error_set(err, GMS_EINVAL, "garbage_collection_threshold:%s must be "
                                     "between 0 and 1 (exclusive), as PyTorch requires", v);
            o->gc_threshold = g;
        } else if (!is_caching && strcmp(k, "first_fit") == 0) {
            if (conf_bool(v, &o->first_fit))
                return gms_error_set(err, GMS_EINVAL, "first_fit:%s must be True or False", v);
        } else {
            return gms_error_set(err, GMS_EINVAL,
                                 "'%s' is not a setting of the %s allocator (it takes %s)", k,
                                 name, is_caching ? "max_split_size_mb, expandable_segments, "
                                                    "roundup_power2_divisions, "
                                                    "garbage_collection_threshold"
                                                  : "first_fit");
        }
    }
    if (is_caching) {
        if (o->expandable_segments && o->max_split_size != UINT64_MAX)
            return gms_error_set(err, GMS_EINVAL,
                                 "max_split_size_mb with expandable_segments:True is not "
                                 "modelled (PyTorch ignores the split limit for expandable "
                                 "segments, and the pair grows without bound: pytorch#193400)");
        int rounding = 0;
        for (int i = 0; i < SIM_ROUNDUP_INTERVALS; i++)
            rounding |= o->roundup_divisions[i] > 1;
        if (o->expandable_segments && (rounding || o->gc_threshold > 0))
            return gms_error_set(err, GMS_EINVAL,
                                 "roundup_power2_divisions and garbage_collection_threshold "
                                 "with expandable_segments:True are not modelled (the "
                                 "expandable model rounds to 512 bytes and has no garbage "
                                 "collection)");
        *mp = o->expandable_segments ? &sim_memory_caching_expandable : &sim_memory_caching;
    }
    /* canonical: the settings that differ from the defaults, in a fixed order */
    size_t u = strlen(canon);
    const char *sep = "{";
    if (o->max_split_size != UINT64_MAX) {
        snprintf(canon + u, len - u, "%smax_split_size_mb:%llu", sep,
                 (unsigned long long)(o->max_split_size >> 20));
        sep = ",";
        u = strlen(canon);
    }
    if (o->expandable_segments) {
        snprintf(canon + u, len - u, "%sexpandable_segments:True", sep);
        sep = ",";
        u = strlen(canon);
    }
    int same = 1, any = 0;
    for (int i = 0; i < SIM_ROUNDUP_INTERVALS; i++) {
        same &= o->roundup_divisions[i] == o->roundup_divisions[0];
        any |= o->roundup_divisions[i] > 1;
    }
    if (any) {
        if (same)
            snprintf(canon + u, len - u, "%sroundup_power2_divisions:%u", sep,
                     o->roundup_divisions[0]);
        else {
            snprintf(canon + u, len - u, "%sroundup_power2_divisions:[", sep);
            for (int i = 0; i < SIM_ROUNDUP_INTERVALS; i++) /* where the value changes */
                if (i == 0 || o->roundup_divisions[i] != o->roundup_divisions[i - 1]) {
                    u = strlen(canon);
                    snprintf(canon + u, len - u, "%s%u:%u", i ? "," : "", 1u << i,
                             o->roundup_divisions[i]);
                }
            u = strlen(canon);
            snprintf(canon + u, len - u, "]");
        }
        sep = ",";
        u = strlen(canon);
    }
    if (o->gc_threshold > 0) {
        snprintf(canon + u, len - u, "%sgarbage_collection_threshold:%g", sep, o->gc_threshold);
        sep = ",";
        u = strlen(canon);
    }
    if (o->first_fit) {
        snprintf(canon + u, len - u, "%sfirst_fit:True", sep);
        sep = ",";
        u = strlen(canon);
    }
    if (sep[0] == ',')
        snprintf(canon + u, len - u, "}");
    if (strlen(canon) + 1 >= len) /* a cut name could collide with another run's */
        return gms_error_set(err, GMS_EINVAL, "allocator settings '%s' are too long to name a "
                             "run", conf);
    return 0;
}
