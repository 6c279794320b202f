/* db_seeds: runs that differ only in their seed, as one distribution (see db_seeds.h). */
#include "db_seeds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct group {
    char *key;     /* trace hash, policy, params less the seed, budget, limit, semantics, alloc */
    char *trace, *policy, *params;
    double ratio;
    double *overheads; /* INFINITY for a stopped run */
    size_t n, cap, oom, limit;
} group;

struct db_seeds {
    group *g;
    size_t n, cap;
};

db_seeds *db_seeds_new(void)
{
    return calloc(1, sizeof(db_seeds));
}

/* The params less their "seed=K" entry ("seed=3,sample=8" -> "sample=8"); 0 when there was
 * none. */
static int params_less_seed(const char *params, char *out, size_t len)
{
    int found = 0;
    size_t k = 0;
    out[0] = '\0';
    for (const char *p = params; *p;) {
        size_t n = strcspn(p, ",");
        if (strncmp(p, "seed=", 5) == 0)
            found = 1;
        else if (k + n + 2 < len) {
            k += (size_t)snprintf(out + k, len - k, "%s%.*s", k ? "," : "", (int)n, p);
        }
        p += n + (p[n] == ',');
    }
    return found;
}

int db_seeds_add(db_seeds *d, const store_row *r)
{
    char rest[512], key[1024];
    if (!params_less_seed(r->params, rest, sizeof rest))
        return 0;
    snprintf(key, sizeof key, "%s|%s|%s|%llu|%.17g|%s|%s", r->trace_hash, r->policy, rest,
             (unsigned long long)r->budget, r->remat_limit, r->semantics, r->allocator);
    group *g = NULL;
    for (size_t i = 0; i < d->n && !g; i++)
        if (strcmp(d->g[i].key, key) == 0)
            g = &d->g[i];
    if (!g) {
        if (d->n == d->cap) {
            size_t cap = d->cap ? 2 * d->cap : 16;
            group *ng = realloc(d->g, cap * sizeof *ng);
            if (!ng)
                return -1;
            d->g = ng;
            d->cap = cap;
        }
        g = &d->g[d->n];
        memset(g, 0, sizeof *g);
        g->key = strdup(key);
        g->trace = strdup(r->trace_name);
        g->policy = strdup(r->policy);
        g->params = strdup(rest);
        g->ratio = r->ratio;
        d->n++;
        if (!g->key || !g->trace || !g->policy || !g->params)
            return -1;
    }
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 8;
        double *no = realloc(g->overheads, cap * sizeof *no);
        if (!no)
            return -1;
        g->overheads = no;
        g->cap = cap;
    }
    g->overheads[g->n++] = r->has_overhead ? r->overhead : INFINITY;
    g->oom += strcmp(r->status, "oom") == 0;
    g->limit += strcmp(r->status, "remat-limit") == 0;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void db_seeds_print(const db_seeds *d)
{
    size_t shown = 0;
    for (size_t i = 0; i < d->n; i++) {
        group *g = &d->g[i];
        if (g->n < 2)
            continue;
        if (!shown++)
            printf("\nseeds (runs that differ only in their seed; median: stopped runs rank "
                   "last; mean only when every seed finished):\n");
        qsort(g->overheads, g->n, sizeof *g->overheads, by_value);
        size_t ok = 0;
        double sum = 0;
        while (ok < g->n && isfinite(g->overheads[ok]))
            sum += g->overheads[ok++];
        double median = g->overheads[(g->n - 1) / 2];
        printf("  %s  %s%s%s  ratio %g: %zu seeds, ", g->trace, g->policy, *g->params ? " " : "",
               g->params, g->ratio, g->n);
        if (isfinite(median))
            printf("median %.4f", median);
        else
            printf("median stopped");
        if (ok)
            printf(", min %.4f, max %.4f", g->overheads[0], g->overheads[ok - 1]);
        if (ok == g->n)
            printf(", mean %.4f\n", sum / (double)ok);
        else
            printf("; %zu oom, %zu remat-limit, no mean\n", g->oom, g->limit);
    }
}

void db_seeds_free(db_seeds *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++) {
        free(d->g[i].key);
        free(d->g[i].trace);
        free(d->g[i].policy);
        free(d->g[i].params);
        free(d->g[i].overheads);
    }
    free(d->g);
    free(d);
}
