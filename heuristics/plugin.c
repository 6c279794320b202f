/* plugin: policies from shared objects (see plugin.h). */
#undef _POSIX_C_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planners.h"
#include "catalog.h"
#include "plugin.h"
#include "registry.h"
#include "policy.h"
#ifdef GMS_SHARED_LIBRARY
#include "lib_scope.h"
#endif

#define ID_MAX 160

typedef struct plugin {
    struct plugin *next;
    char *path;      /* as given */
    char *realpath;  /* canonical */
    void *handle;
    const sim_policy *policy;
    char id[ID_MAX]; /* NAME@HASH */
} plugin;

static plugin *loaded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int pol_is_path(const char *s)
{
    if (!s)
        return 0;
    size_t n = strlen(s);
    return strchr(s, '/') != NULL || (n > 3 && strcmp(s + n - 3, ".so") == 0);
}

/* 64-bit FNV-1a of the file's bytes. */
static int hash_file(const char *path, uint64_t *out, gms_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return gms_error_set(err, GMS_EIO, "policy plugin %s: cannot open: %s", path,
                             strerror(errno));
    uint64_t h = 14695981039346656037ull;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++) {
            h ^= buf[i];
            h *= 1099511628211ull;
        }
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return gms_error_set(err, GMS_EIO, "policy plugin %s: read error", path);
    *out = h;
    return 0;
}

static int check_policy(const char *path, const sim_policy *p, gms_error *err)
{
    if (!p)
        return gms_error_set(err, GMS_EINVAL,
                             "policy plugin %s: %s() returned no policy (NULL)", path,
                             SIM_POLICY_ENTRY_NAME);
    if (!p->name || !*p->name || strlen(p->name) > 64 || strchr(p->name, '@') ||
        strchr(p->name, '/') || strchr(p->name, '|') || strchr(p->name, '"') || strchr(p->name, '\\'))
        return gms_error_set(err, GMS_EINVAL,
                             "policy plugin %s: the policy needs a name of 1 to 64 characters "
                             "without '@', '/' or '|'", path);
    for (const char *c = p->name; *c; c++)
        if ((unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e)
            return gms_error_set(err, GMS_EINVAL,
                                 "policy plugin %s: policy name '%s' has a space or a "
                                 "non-printable character", path, p->name);
    for (size_t i = 0; i < pol_count(); i++)
        if (strcmp(pol_name(pol_at(i)), p->name) == 0)
            return gms_error_set(err, GMS_EINVAL,
                                 "policy plugin %s: its policy is named '%s' like a built-in "
                                 "one; rename it in the plugin's sim_policy.name", path, p->name);
    if (!p->score == !p->choose)
        return gms_error_set(err, GMS_EINVAL,
                             "policy plugin %s (policy '%s'): set exactly one of score and "
                             "choose in its sim_policy", path, p->name);
    if (p->score_kind > SIM_SCORE_DTR_EQ || (p->score_kind && !p->score))
        return gms_error_set(err, GMS_EINVAL,
                             "policy plugin %s (policy '%s'): score_kind %u is not one of "
                             "SIM_SCORE_* or comes without a score function", path, p->name,
                             p->score_kind);
    if (p->needs & ~(unsigned)(SIM_NEEDS_REGIONS | SIM_NEEDS_EQCLASS))
        return gms_error_set(err, GMS_EINVAL,
                             "policy plugin %s (policy '%s'): unknown bits in needs (0x%x)",
                             path, p->name, p->needs);
    return 0;
}

static plugin *find_locked(const char *key, const char *real)
{
    for (plugin *q = loaded; q; q = q->next)
        if ((key && (strcmp(q->id, key) == 0 || strcmp(q->path, key) == 0)) ||
            (real && strcmp(q->realpath, real) == 0))
            return q;
    return NULL;
}

static int load(const char *path, const sim_policy **out, gms_error *err)
{
    char *real = realpath(path, NULL);
    if (!real)
        return gms_error_set(err, GMS_EIO,
                             "policy plugin %s: %s (give the path of a policy plugin .so, or "
                             "a built-in policy name)", path, strerror(errno));
    pthread_mutex_lock(&lock);
    plugin *q = find_locked(NULL, real);
    if (q) {
        pthread_mutex_unlock(&lock);
        free(real);
        *out = q->policy;
        return 0;
    }
    uint64_t h = 0;
    int rc = hash_file(real, &h, err);
    void *handle = NULL;
    if (rc)
        goto fail;
#ifdef GMS_SHARED_LIBRARY
    gms_lib_export_to_plugins(); /* the plugin's sim_view_* calls resolve to this library */
#endif
    dlerror();
    handle = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *e = dlerror();
        rc = gms_error_set(err, GMS_EFORMAT,
                           "policy plugin %s: cannot load it as a shared object: %s", path,
                           e ? e : "unknown dlopen error");
        goto fail;
    }
    dlerror();
    void *sym = dlsym(handle, SIM_POLICY_ENTRY_NAME);
    if (!sym) {
        rc = gms_error_set(err, GMS_EFORMAT,
                           "policy plugin %s: no exported function %s(); a plugin defines "
                           "'const sim_policy *%s(unsigned *abi_version)' (docs/plugins.md)",
                           path, SIM_POLICY_ENTRY_NAME, SIM_POLICY_ENTRY_NAME);
        goto fail;
    }
    sim_policy_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry); /* object pointer -> function pointer, as POSIX allows */
    unsigned abi = 0;
    const sim_policy *p = entry(&abi);
    if (abi != SIM_POLICY_ABI_VERSION) {
        rc = gms_error_set(err, GMS_EVERSION,
                           "policy plugin %s: built for policy ABI version %u, this gpumemsim "
                           "has version %u; rebuild the plugin against this gpumemsim's "
                           "sim/policy.h", path, abi, SIM_POLICY_ABI_VERSION);
        goto fail;
    }
    if ((rc = check_policy(path, p, err)))
        goto fail;
    for (plugin *o = loaded; o; o = o->next)
        if (strcmp(o->policy->name, p->name) == 0) {
            rc = gms_error_set(err, GMS_EINVAL,
                               "policy plugin %s: policy name '%s' is already taken by plugin "
                               "%s; give one of them another name", path, p->name, o->path);
            goto fail;
        }
    q = calloc(1, sizeof *q);
    if (!q || !(q->path = strdup(path))) {
        free(q);
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        goto fail;
    }
    q->realpath = real;
    q->handle = handle;
    q->policy = p;
    snprintf(q->id, sizeof q->id, "%s@%016" PRIx64, p->name, h);
    q->next = loaded;
    loaded = q;
    pthread_mutex_unlock(&lock);
    *out = p;
    return 0;
fail:
    if (handle)
        dlclose(handle);
    pthread_mutex_unlock(&lock);
    free(real);
    return rc;
}

int pol_resolve(const char *name, const sim_policy **out, gms_error *err)
{
    *out = NULL;
    if (!name || !*name)
        return gms_error_set(err, GMS_EINVAL, "empty policy name");
    const sim_policy *p = pol_find(name);
    if (p) {
        *out = p;
        return 0;
    }
    if (pol_is_path(name))
        return load(name, out, err);
    return pol_refuse(name, POL_KIND_EVICT, err); /* a planner, checkmate or unknown */
}

const sim_policy *pol_plugin_find(const char *key)
{
    if (!key)
        return NULL;
    pthread_mutex_lock(&lock);
    plugin *q = find_locked(key, NULL);
    pthread_mutex_unlock(&lock);
    return q ? q->policy : NULL;
}

static plugin *of(const sim_policy *p)
{
    pthread_mutex_lock(&lock);
    plugin *q = loaded;
    while (q && q->policy != p)
        q = q->next;
    pthread_mutex_unlock(&lock);
    return q;
}

const char *pol_id(const sim_policy *p)
{
    plugin *q = p ? of(p) : NULL;
    return q ? q->id : pol_name(p);
}

const char *pol_plugin_path(const sim_policy *p)
{
    plugin *q = p ? of(p) : NULL;
    return q ? q->path : NULL;
}
