/* store_gaps: runs beside the solver's answers, with their gaps (see store_gaps.h). */
#include "store_gaps.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct gaps_ctx {
    store *s;
    int unsolved;
    store_gap_fn fn;
    void *ctx;
    const store_row *run;
    size_t seen; /* solutions seen for the current run */
    int stop;    /* fn's non-zero answer */
    gms_error *err;
} gaps_ctx;

/* A checkmate run is compared with answers of its own program only (its params say which:
 * "coarsen=layers,iteration=0,..."); beside another program's optimum it would be read as a
 * heuristic. */
static int other_program(const store_row *r, const store_solution *sol)
{
    if (strncmp(r->policy, "checkmate", 9) != 0)
        return 0;
    const char *k = strstr(r->params, "coarsen="), *it = strstr(r->params, "iteration=");
    size_t n = k ? strcspn(k + 8, ",") : 0;
    if (k && (strlen(sol->key.coarsen) != n || strncmp(k + 8, sol->key.coarsen, n) != 0))
        return 1;
    return it && strtoul(it + 10, NULL, 10) != sol->key.iteration;
}

static int one_solution(void *vctx, const store_solution *sol)
{
    gaps_ctx *c = vctx;
    const store_row *r = c->run;
    if (other_program(r, sol))
        return 0;
    yardstick_solution ys = {.status = sol->status,
                             .has_objective = !isnan(sol->objective),
                             .objective = sol->objective,
                             .lower_bound = sol->lower_bound,
                             .compute = sol->compute,
                             .coarsen = sol->key.coarsen};
    store_gap_row g = {.run = r, .sol = sol};
    yardstick_gap_of(strcmp(r->status, "ok") == 0 && r->has_overhead, r->overhead, &ys, &g.gap);
    c->seen++;
    return c->stop = c->fn(c->ctx, &g);
}

static int one_run(void *vctx, const store_row *r)
{
    gaps_ctx *c = vctx;
    c->run = r;
    c->seen = 0;
    int rc = store_solutions_at(c->s, r->trace_hash, r->budget, one_solution, c, c->err);
    if (rc || c->stop)
        return rc ? rc : c->stop;
    if (c->seen == 0 && c->unsolved) {
        store_gap_row g = {.run = r, .sol = NULL};
        yardstick_gap_of(0, 0, NULL, &g.gap);
        return c->stop = c->fn(c->ctx, &g);
    }
    return 0;
}

int store_query_gaps(store *s, const store_filter *f, int unsolved, store_gap_fn fn, void *ctx,
                     gms_error *err)
{
    gaps_ctx c = {.s = s, .unsolved = unsolved, .fn = fn, .ctx = ctx, .err = err};
    int rc = store_query_runs(s, f, one_run, &c, err);
    return c.stop ? c.stop : rc;
}
