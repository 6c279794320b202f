/*
 * opt_lns: the window search (opt_lns.h). Each window's MILP runs in a child process under a
 * hard limit (opt_child.h), as every time-limited solve does.
 */
#include "opt_lns.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opt_child.h"
#include "opt_replay.h"
#include "opt_window.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Every check an answer must pass: correct, its peak under the program within the budget,
 * and carried out step by step within it (the replay counts constant_bytes). */
static int acceptable(const opt_graph *g, uint64_t act, const opt_schedule *s)
{
    if (opt_schedule_check(g, s, NULL, 0) != 0 || opt_schedule_peak(g, s) > act)
        return 0;
    opt_replay rp;
    gms_error e = {0};
    if (opt_replay_run(g, s, 0, &rp, &e) != 0)
        return 0;
    int ok = rp.peak <= act + g->constant_bytes;
    opt_replay_clear(&rp);
    return ok;
}

/* The node neighbourhood: nodes [c, d) and their inputs, depth levels deep. */
static void node_window(const opt_graph *g, uint32_t c, uint32_t d, uint32_t depth,
                        uint8_t *mark)
{
    memset(mark, 0, g->n);
    memset(mark + c, 1, d - c);
    for (uint32_t l = 0; l < depth; l++) {
        for (uint32_t v = d; v-- > 0;)
            if (mark[v] == 1)
                for (uint32_t k = 0; k < g->nodes[v].n_inputs; k++)
                    if (!mark[g->nodes[v].inputs[k]])
                        mark[g->nodes[v].inputs[k]] = 2;
        for (uint32_t v = 0; v < d; v++)
            mark[v] = mark[v] ? 1 : 0;
    }
}

/* What the incumbent spends recomputing free nodes in stages [a, b) (ms): all a window can
 * gain (its objective is the free nodes' compute there). */
static double recompute_cost(const opt_graph *g, const opt_schedule *s, uint32_t a, uint32_t b,
                             const uint8_t *free_nodes)
{
    double c = 0;
    for (uint32_t i = 0; i < b; i++)
        for (uint32_t t = i + 1 > a ? i + 1 : a; free_nodes[i] && t < b; t++)
            if (s->R[(size_t)t * g->n + i])
                c += g->nodes[i].cost;
    return c;
}

/* A window of a pass: kind 0, stages [a, b) with what they touch free; kind 1, nodes [a, b)
 * (and their inputs) free over stages [a, n). */
typedef struct lns_window {
    int kind;
    uint32_t a, b;
    double gain; /* what the incumbent recomputes there when the pass began */
} lns_window;

static int by_kind_then_gain(const void *x, const void *y)
{
    const lns_window *p = x, *q = y;
    if (p->kind != q->kind)
        return p->kind > q->kind ? -1 : 1; /* node windows first: they gained most */
    return p->gain > q->gain ? -1 : p->gain < q->gain ? 1 : (p->a > q->a) - (p->a < q->a);
}

static void window_nodes(const opt_graph *g, const opt_schedule *inc, const lns_window *w,
                         uint32_t depth, uint8_t *free_nodes)
{
    if (w->kind == 0)
        opt_window_stage_nodes(g, inc, w->a, w->b, depth, free_nodes);
    else
        node_window(g, w->a, w->b, depth, free_nodes);
}

/* Solves one window; *better = 1 when inc was replaced by a cheaper schedule, *too_big = 1
 * when the window's program is over the size cap (not solved). */
static int try_window(const opt_graph *g, uint64_t act, opt_schedule *inc, opt_schedule *cand,
                      uint32_t a, uint32_t b, const uint8_t *free_nodes,
                      const uint8_t *quiet, const opt_lns_opts *o,
                      double limit, opt_lns_result *r, int *better, int *too_big,
                      gms_error *err)
{
    *better = *too_big = 0;
    opt_window *w;
    int rc = opt_window_build(g, inc, act, a, b, free_nodes, quiet, &w, err);
    if (rc)
        return rc;
    if ((double)w->p->n_ent > o->max_nonzeros) {
        *too_big = 1;
        opt_window_free(w);
        return 0;
    }
    double *start = malloc(((size_t)w->p->n_cols + 1) * sizeof *start);
    if (!start) {
        opt_window_free(w);
        return gms_error_set(err, GMS_ENOMEM, "out of memory in the window search");
    }
    opt_window_start(w, g, inc, start);
    double cut = w->incumbent_cost - fmax(1e-9 * w->incumbent_cost, 1e-12);
    opt_solver_opts so = {.time_limit = limit, .start = start, .has_cutoff = 1, .cutoff = cut};
    opt_solver_result res;
    int killed = 0;
    gms_error werr = {0};
    rc = opt_child_solve(w->p, g, &so, &res, &killed, &werr);
    free(start);
    if (rc) {
        /* a window whose solve failed (the solver's process died, say) leaves the incumbent
         * as it was: the search goes on, and says so (opt_lns.h) */
        r->failed++;
        snprintf(r->last_failure, sizeof r->last_failure, "%.199s", werr.msg);
        if (o->log)
            fprintf(stderr, "window [%u, %u): the solve failed: %s\n", a, b, werr.msg);
        opt_window_free(w);
        (void)err;
        return 0;
    }
    r->windows++;
    if (o->log)
        fprintf(stderr, "window [%u, %u): %u free nodes, %u columns, %zu nonzeros: %s in %.2f s%s, "
                "%.6g against %.6g\n", a, b, w->n_nodes, w->p->n_cols, w->p->n_ent,
                opt_status_name(res.status), res.seconds, killed ? " (killed)" : "",
                res.x ? res.objective : -1, w->incumbent_cost);
    if (res.x && res.objective < cut) {
        memcpy(cand->R, inc->R, (size_t)g->n * g->n);
        memcpy(cand->S, inc->S, (size_t)g->n * g->n);
        opt_window_apply(w, g, res.x, cand);
        if (acceptable(g, act, cand) && opt_schedule_cost(g, cand) < opt_schedule_cost(g, inc)) {
            memcpy(inc->R, cand->R, (size_t)g->n * g->n);
            memcpy(inc->S, cand->S, (size_t)g->n * g->n);
            r->improved++;
            *better = 1;
        } else {
            r->rejected++;
        }
    }
    free(res.x);
    opt_window_free(w);
    return 0;
}

int opt_lns_improve(const opt_graph *g, uint64_t act, opt_schedule *inc, const opt_lns_opts *o_in,
                    opt_lns_result *r, gms_error *err)
{
    double t0 = now_s();
    memset(r, 0, sizeof *r);
    r->start_cost = r->cost = opt_schedule_cost(g, inc);
    opt_lns_opts o = *o_in;
    if (!o.width)
        o.width = OPT_LNS_WIDTH;
    if (!o.depth)
        o.depth = OPT_LNS_DEPTH;
    if (o.window_seconds <= 0)
        o.window_seconds = OPT_LNS_WINDOW_SECONDS;
    if (o.max_nonzeros <= 0)
        o.max_nonzeros = OPT_LNS_MAX_NONZEROS;
    uint32_t n = g->n, maxw = o.max_width && o.max_width < n ? o.max_width : n;
    uint32_t width = o.width < maxw ? o.width : maxw;
    opt_schedule *cand = opt_schedule_new(n);
    uint8_t *free_nodes = malloc((size_t)n + 1), *quiet = malloc((size_t)n + 1);
    lns_window *list = malloc(((size_t)n * 2 + 2) * sizeof *list);
    int rc = 0, timed_out = 0;
    if (!cand || !free_nodes || !quiet || !list) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory in the window search");
        goto done;
    }
    while (n > 0 && !timed_out) {
        int improved = 0, over = 0;
        r->passes++;
        r->last_width = width;
        /* this pass's windows, overlapping by half, where the incumbent recomputes most first */
        uint32_t step = width / 2 ? width / 2 : 1, n_list = 0;
        for (int kind = 0; kind < 2; kind++)
            for (uint32_t a = 0; a < n; a += step) {
                lns_window lw = {kind, a, n - a > width ? a + width : n, 0};
                window_nodes(g, inc, &lw, o.depth, free_nodes);
                lw.gain = recompute_cost(g, inc, a, kind == 0 ? lw.b : n, free_nodes);
                if (lw.gain > 0)
                    list[n_list++] = lw;
                if (lw.b == n)
                    break;
            }
        qsort(list, n_list, sizeof *list, by_kind_then_gain);
        for (uint32_t q = 0; q < n_list; q++) {
            const lns_window *lw = &list[q];
            double left = o.seconds - (now_s() - t0);
            if (left < 0.5) {
                timed_out = 1;
                break;
            }
            window_nodes(g, inc, lw, o.depth, free_nodes);
            uint32_t end = lw->kind == 0 ? lw->b : n;
            if (recompute_cost(g, inc, lw->a, end, free_nodes) <= 0)
                continue; /* an earlier window took its recomputations away */
            /* a node window recomputes its nodes only where inc computes or reads them */
            const uint8_t *calm = NULL;
            if (lw->kind == 1 && !o.whole_node_windows) {
                opt_window_quiet_stages(g, inc, lw->a, end, free_nodes, quiet);
                calm = quiet;
            }
            int better, too_big;
            rc = try_window(g, act, inc, cand, lw->a, end, free_nodes, calm, &o,
                            left < o.window_seconds ? left : o.window_seconds, r, &better,
                            &too_big, err);
            if (rc || r->failed >= 8) /* eight failed solves: something is wrong here */
                goto done;
            improved |= better;
            over |= too_big;
            if (better && o.log)
                fprintf(stderr, "window search: %s %u..%u (width %u): %.9g ms\n",
                        lw->kind ? "nodes" : "stages", lw->a, lw->b - 1, width,
                        opt_schedule_cost(g, inc));
        }
        if (!improved && !timed_out) {
            if (width >= maxw || over) {
                r->converged = 1;
                break;
            }
            width = width > maxw / 2 ? maxw : width * 2;
        }
    }
done:
    free(list);
    free(quiet);
    free(free_nodes);
    opt_schedule_free(cand);
    r->cost = opt_schedule_cost(g, inc);
    r->seconds = now_s() - t0;
    return rc;
}
