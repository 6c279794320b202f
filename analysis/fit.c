/* fit: the smallest budget within an overhead limit, by grid and bisection (see fit.h). */
#include "fit.h"

#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "plugin_isolate.h"

#define FIT_GRID_MAX 1000

/* The i-th of n grid points from floor to top (n >= 2), rounded down; the last is top. */
static uint64_t grid_point(const fit_search_opts *o, unsigned i, unsigned n)
{
    if (i + 1 >= n)
        return o->top;
    /* in long double, so that spans of many TB keep their bytes */
    long double span = (long double)(o->top - o->floor);
    return o->floor + (uint64_t)(span * i / (n - 1));
}

static unsigned grid_size(const fit_search_opts *o)
{
    return o->floor >= o->top ? 1 : o->grid;
}

unsigned fit_search_max_runs(const fit_search_opts *o)
{
    unsigned n = grid_size(o), steps = 0;
    if (n > 1) {
        /* the widest bracket is one grid step (plus rounding) */
        uint64_t w = (o->top - o->floor) / (n - 1) + 1;
        uint64_t tol = o->tolerance ? o->tolerance : 1;
        while (w > tol) {
            w = w - w / 2;
            steps++;
        }
    }
    return n + steps;
}

static int run_probe(const fit_search_opts *o, fit_probe_fn probe, void *ctx, uint64_t b,
                     fit_probe *out, fit_answer *ans, gms_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = probe(ctx, b, out, err);
    ans->runs++;
    if (o->on_probe)
        o->on_probe(o->on_probe_ctx, ans->runs);
    return rc;
}

int fit_search(const fit_search_opts *o, fit_probe_fn probe, void *ctx, fit_answer *ans,
               gms_error *err)
{
    memset(ans, 0, sizeof *ans);
    if (!o || !probe)
        return gms_error_set(err, GMS_EINVAL, "fit_search: NULL argument");
    if (o->grid < 2 || o->grid > FIT_GRID_MAX)
        return gms_error_set(err, GMS_EINVAL, "fit: the grid needs 2 to %d points, not %u",
                             FIT_GRID_MAX, o->grid);
    if (o->tolerance < 1)
        return gms_error_set(err, GMS_EINVAL, "fit: the bisection tolerance must be >= 1 byte");
    unsigned n = grid_size(o);
    fit_probe *g = calloc(n, sizeof *g);
    if (!g)
        return gms_error_set(err, GMS_ENOMEM, "fit: out of memory");
    int rc = 0;
    for (unsigned i = 0; i < n && !rc; i++)
        rc = run_probe(o, probe, ctx, grid_point(o, i, n), &g[i], ans, err);
    if (rc) {
        free(g);
        return rc;
    }
    /* k: the first grid point of the passing run at the top (n when the top fails) */
    unsigned k = n;
    while (k > 0 && g[k - 1].pass)
        k--;
    for (unsigned i = 0; i < n && !ans->lowest_pass; i++)
        if (g[i].pass)
            ans->lowest_pass = grid_point(o, i, n);
    if (k == n) { /* not even the top passes: no answer, but say what passed below it */
        free(g);
        ans->non_monotone = ans->lowest_pass != 0;
        return 0;
    }
    ans->found = 1;
    ans->budget = grid_point(o, k, n);
    ans->at = g[k];
    if (k == 0) {
        ans->at_floor = 1;
        free(g);
        return 0;
    }
    /* bisect (lo fails, hi passes) down to the tolerance; everything probed here lies between
     * two grid points, so passes only ever lower hi and failures only raise lo */
    uint64_t lo = grid_point(o, k - 1, n), hi = ans->budget;
    fit_probe lo_p = g[k - 1], hi_p = g[k];
    for (unsigned i = 0; i + 1 < k; i++)
        if (g[i].pass)
            ans->non_monotone = 1;
    free(g);
    while (hi - lo > o->tolerance) {
        uint64_t mid = lo + (hi - lo) / 2;
        fit_probe p;
        if ((rc = run_probe(o, probe, ctx, mid, &p, ans, err)))
            return rc;
        if (p.pass) {
            hi = mid;
            hi_p = p;
        } else {
            lo = mid;
            lo_p = p;
        }
    }
    ans->budget = hi;
    ans->at = hi_p;
    ans->failed_below = lo;
    ans->below = lo_p;
    if (!ans->non_monotone)
        ans->lowest_pass = hi;
    return 0;
}

uint64_t fit_floor(const sim_baseline *bl)
{
    return bl->bottleneck > bl->constants ? bl->bottleneck : bl->constants;
}

typedef struct policy_ctx {
    sim_runner *r;
    sim_config cfg;
    double max_overhead;
} policy_ctx;

static int probe_run(void *vctx, uint64_t budget, fit_probe *out, gms_error *err)
{
    policy_ctx *c = vctx;
    sim_result res;
    c->cfg.budget = budget;
    /* a plugin runs in a child process, as in sim and sweep: its crash is an error, not ours */
    int rc;
    if (pol_plugin_path(c->cfg.policy)) {
        rc = pol_run_isolated(c->r, &c->cfg, &res, err);
    } else {
        pol_fork_gate_enter(); /* other threads may fork plugin runs (plugin_isolate.h) */
        rc = sim_runner_run(c->r, &c->cfg, &res, err);
        pol_fork_gate_leave();
    }
    if (rc)
        return rc;
    out->status = (int)res.status;
    out->overhead = res.overhead;
    out->pass = res.status == SIM_OK && res.overhead <= c->max_overhead;
    return 0;
}

int fit_policy(sim_runner *r, const sim_config *base, double max_overhead,
               const fit_search_opts *o, fit_answer *ans, gms_error *err)
{
    policy_ctx c = {.r = r, .cfg = *base, .max_overhead = max_overhead};
    c.cfg.observer = NULL;
    c.cfg.observer_ctx = NULL;
    return fit_search(o, probe_run, &c, ans, err);
}
