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
    char *save = NULL;
    for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
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
        } else if (!is_caching && strcmp(k, "first_fit") == 0) {
            if (conf_bool(v, &o->first_fit))
                return gms_error_set(err, GMS_EINVAL, "first_fit:%s must be True or False", v);
        } else {
            return gms_error_set(err, GMS_EINVAL,
                                 "'%s' is not a setting of the %s allocator (it takes %s)", k,
                                 name, is_caching ? "max_split_size_mb, expandable_segments"
                                                  : "first_fit");
        }
    }
    if (is_caching) {
        if (o->expandable_segments && o->max_split_size != UINT64_MAX)
            return gms_error_set(err, GMS_EINVAL,
                                 "max_split_size_mb with expandable_segments:True is not "
                                 "modelled (PyTorch ignores the split limit for expandable "
                                 "segments, and the pair grows without bound: pytorch#193400)");
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
    if (o->first_fit) {
        snprintf(canon + u, len - u, "%sfirst_fit:True", sep);
        sep = ",";
        u = strlen(canon);
    }
    if (sep[0] == ',')
        snprintf(canon + u, len - u, "}");
    return 0;
}
