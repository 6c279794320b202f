/* plot_lines: an overhead chart's lines: one per policy and parameter set (a planner's knob),
 * how several lines of one policy look and what their labels say, and the run key's rest
 * that a line's runs must share (plot_internal.h). */
#include <stdio.h>
#include <string.h>

#include "plot_internal.h"
#include "store.h"

void plot_style_nth(const char *policy, size_t k, plot_style *out)
{
    static const char *const dashes[] = {"(6,3)", "(2,2)", "(8,3,2,3)", "(12,4)", "(3,6)"};
    static const int points[] = {4, 6, 8, 12, 14, 3}; /* never the failure marks' */
    plot_style_for(policy, out);
    if (k == 0)
        return;
    size_t nd = sizeof dashes / sizeof dashes[0], np = sizeof points / sizeof points[0];
    out->dash = dashes[(k - 1) % nd];
    int pt = points[(k - 1) % np];
    out->point = pt == out->point ? points[k % np] : pt;
}

size_t plot_line_nth(const char *const *policies, size_t p)
{
    size_t k = 0;
    for (size_t q = 0; q < p; q++)
        k += strcmp(policies[q], policies[p]) == 0;
    return k;
}

/* 1 when the comma-separated list has the word w (n bytes) */
static int has_word(const char *list, const char *w, size_t n)
{
    while (*list) {
        size_t m = strcspn(list, ",");
        if (m == n && strncmp(list, w, n) == 0)
            return 1;
        list += m + (list[m] == ',');
    }
    return 0;
}

void plot_line_params(const char *const *policies, const char *const *params, size_t n,
                      size_t p, char *buf, size_t len)
{
    size_t k = 0;
    int several = 0;
    buf[0] = '\0';
    for (size_t q = 0; q < n && !several; q++)
        several = q != p && strcmp(policies[q], policies[p]) == 0;
    if (!several)
        return;
    for (const char *w = params[p]; *w;) {
        size_t m = strcspn(w, ",");
        int common = 1;
        for (size_t q = 0; q < n && common; q++)
            if (q != p && strcmp(policies[q], policies[p]) == 0)
                common = has_word(params[q], w, m);
        if (!common && k + m + 2 < len)
            k += (size_t)snprintf(buf + k, len - k, "%s%.*s", k ? "," : "", (int)m, w);
        w += m + (w[m] == ',');
    }
    if (k == 0)
        snprintf(buf, len, "%s", params[p][0] ? params[p] : "defaults");
}

/* The parameters of a run less its seed ("seed=3" -> "", "seed=3,k=2" -> "k=2"). */
void plot_params_less_seed(const char *params, char *out, size_t len)
{
    size_t k = 0;
    out[0] = '\0';
    while (*params) {
        const char *comma = strchr(params, ',');
        size_t n = comma ? (size_t)(comma - params) : strlen(params);
        if (strncmp(params, "seed=", 5) != 0 && k + n + 2 < len) {
            k += (size_t)snprintf(out + k, len - k, "%s%.*s", k ? "," : "", (int)n, params);
        }
        params += n + (comma ? 1 : 0);
    }
}

int plot_variant_check(plot_variant *v, size_t trace, const char *params, const store_row *r,
                       gms_error *err)
{
    char key[256], desc[300];
    snprintf(key, sizeof key, "%.17g|%s|%s", r->remat_limit, r->semantics, r->allocator);
    snprintf(desc, sizeof desc, "remat limit %g, semantics %s, allocator %s%s%.128s%s",
             r->remat_limit, r->semantics, r->allocator, params[0] ? ", parameters '" : "",
             params, params[0] ? "'" : "");
    if (v->trace != trace) {
        v->trace = trace;
        snprintf(v->key, sizeof v->key, "%s", key);
        snprintf(v->desc, sizeof v->desc, "%s", desc);
        return 0;
    }
    if (strcmp(v->key, key) == 0)
        return 0;
    return gms_error_set(err, GMS_EINVAL,
                         "trace %s, policy %s: the store holds runs that differ in more than "
                         "the seed (%s; and %s); one line never averages them: pick one with "
                         "--remat-limit, --semantics, --allocator or --where params=... (see "
                         "the LIMIT, SEMANTICS, ALLOCATOR and PARAMS columns of 'gpumemsim db "
                         "runs')",
                         r->trace_name, r->policy, v->desc, desc);
}
