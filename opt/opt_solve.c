/*
 * opt_solve: the optimal planners' requests (opt_solve.h): LP bound, MILP, LP rounding.
 */
#include "opt_solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opt_bound.h"
#include "opt_child.h"
#include "opt_first.h"
#include "opt_lns.h"
#include "opt_moccasin.h"
#include "opt_program.h"
#include "opt_size.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void opt_answer_clear(opt_answer *a)
{
    opt_schedule_free(a->schedule);
    memset(a, 0, sizeof *a);
}

uint64_t opt_greedy_min_budget(const opt_graph *g, uint64_t lo, uint64_t hi)
{
    opt_schedule *s = opt_schedule_new(g->n);
    if (!s)
        return hi;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (opt_schedule_greedy(g, mid, s) == 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    opt_schedule_free(s);
    return hi;
}

/* The program rq asks for: Checkmate's (the authors', or tightened) or MOCCASIN's. */
static uint32_t copies_of(const opt_request *rq)
{
    return rq->formulation == OPT_FORM_MOCCASIN
               ? (rq->copies ? rq->copies : OPT_MOCCASIN_COPIES_DEFAULT) : UINT32_MAX;
}

static int build(const opt_graph *g, uint64_t act, int integral, const opt_request *rq,
                 opt_program **p, gms_error *err)
{
    if (rq->formulation == OPT_FORM_MOCCASIN)
        return opt_moccasin_build(g, act, integral, copies_of(rq), p, err);
    return opt_program_build(g, act, integral, rq->tighten, p, err);
}

/* Solves the LP relaxation at an activation budget; *pout gets the program (pout NULL: it is
 * freed). Clp's limit counts CPU time, so under a limit the LP too runs in a child process
 * that is killed at the limit (*killed). */
static int solve_lp(const opt_graph *g, uint64_t act, const opt_request *rq, double limit,
                    const char *model, int log, opt_program **pout, opt_solver_result *r,
                    int *killed, gms_error *err)
{
    opt_program *p;
    int rc = build(g, act, 0, rq, &p, err);
    if (rc)
        return rc;
    if (model && (rc = opt_program_write_lp(p, g, model, err)) != 0) {
        opt_program_free(p);
        return rc;
    }
    opt_solver_opts o = {.time_limit = limit, .log = log};
    rc = opt_child_solve(p, g, &o, r, killed, err);
    if (rc || !pout)
        opt_program_free(p);
    else
        *pout = p;
    return rc;
}

/* The infeasibility facts: the floor and what the greedy heuristic needs. */
static void explain_infeasible(const opt_graph *g, opt_answer *a)
{
    a->floor = opt_graph_floor(g);
    a->floor_node = opt_graph_floor_node(g);
    uint64_t peak = opt_graph_peak(g) - g->constant_bytes;
    uint64_t lo = a->floor - g->constant_bytes;
    a->heuristic_fit = g->constant_bytes + opt_greedy_min_budget(g, lo, peak > lo ? peak : lo);
}

/* Keeps *best the cheaper of *best and cand when cand fits act and is correct (*best_name
 * follows: name); frees the other. */
static void keep_cheaper_named(const opt_graph *g, uint64_t act, uint32_t copies,
                               opt_schedule **best, const char **best_name, opt_schedule *cand,
                               const char *name)
{
    if (cand && opt_schedule_peak(g, cand) <= act && opt_schedule_check(g, cand, NULL, 0) == 0 &&
        opt_moccasin_fits(cand, copies) &&
        (!*best || opt_schedule_cost(g, cand) < opt_schedule_cost(g, *best))) {
        opt_schedule_free(*best);
        *best = cand;
        if (best_name)
            *best_name = name;
    } else {
        opt_schedule_free(cand);
    }
}

static void keep_cheaper(const opt_graph *g, uint64_t act, uint32_t copies, opt_schedule **best,
                         opt_schedule *cand)
{
    keep_cheaper_named(g, act, copies, best, NULL, cand, NULL);
}

static opt_schedule *copy_schedule(const opt_schedule *s)
{
    opt_schedule *c = opt_schedule_new(s->n);
    if (c) {
        memcpy(c->R, s->R, (size_t)s->n * s->n);
        memcpy(c->S, s->S, (size_t)s->n * s->n);
    }
    return c;
}

/* The seed: the cheapest of checkpoint-all (when it fits), the greedy schedule, the LP
 * solution rounded at 0.1 .. 0.9 (lp may be NULL) and the request's own seeds (heuristics'
 * runs). NULL when none fits; *name says which. */
static opt_schedule *seed_schedule(const opt_graph *g, uint64_t act, const opt_request *rq,
                                   const opt_program *lp, const double *x, const char **name)
{
    uint32_t copies = copies_of(rq);
    opt_schedule *best = NULL, *s = opt_schedule_new(g->n);
    *name = NULL;
    if (s) {
        opt_schedule_checkpoint_all(g, s);
        keep_cheaper_named(g, act, copies, &best, name, s, "checkpoint-all");
    }
    s = opt_schedule_new(g->n);
    if (s && opt_schedule_greedy(g, act, s) != 0) {
        opt_schedule_free(s);
        s = NULL;
    }
    keep_cheaper_named(g, act, copies, &best, name, s, "greedy");
    for (int k = 1; lp && x && k <= 9; k++) {
        s = opt_schedule_new(g->n);
        if (s)
            opt_program_schedule(lp, g, x, k / 10.0, 1, s);
        keep_cheaper_named(g, act, copies, &best, name, s, "lp-rounding");
    }
    for (uint32_t k = 0; k < rq->n_seeds; k++)
        if (rq->seeds[k] && rq->seeds[k]->n == g->n)
            keep_cheaper_named(g, act, copies, &best, name, copy_schedule(rq->seeds[k]),
                               rq->seed_names ? rq->seed_names[k] : "given");
    return best;
}

/* The rounding hook (opt_solver_opts.round; issue 28, item 3): the search's LP solutions (each
 * root cut pass tightens the LP, each node fixes more) rounded as the seed's LP is (S at 0.1 ..
 * 0.9, the cheapest R for it), the cheapest that fits and is correct. CBC 2.10 reports no
 * incumbent from a search killed at its limit; these survive it (opt_child.h). */
typedef struct lp_rounder {
    const opt_graph *g;
    const opt_program *p;
    uint64_t act;
    uint32_t copies;
} lp_rounder;

static int round_lp(void *ctx, const double *lp_x, double *x_out, double *obj)
{
    const lp_rounder *lr = ctx;
    opt_schedule *best = NULL;
    for (int k = 1; k <= 9; k++) {
        opt_schedule *s = opt_schedule_new(lr->g->n);
        if (s)
            opt_program_schedule(lr->p, lr->g, lp_x, k / 10.0, 1, s);
        keep_cheaper(lr->g, lr->act, lr->copies, &best, s);
    }
    if (!best)
        return 0;
    memset(x_out, 0, (size_t)lr->p->n_cols * sizeof *x_out);
    opt_program_start(lr->p, lr->g, best, x_out);
    *obj = opt_schedule_cost(lr->g, best);
    opt_schedule_free(best);
    return 1;
}

static double remaining(const opt_request *rq, double t0)
{
    if (rq->time_limit <= 0)
        return 0;
    double left = rq->time_limit - (now_s() - t0);
    return left > 0.05 ? left : 0.05;
}

/* The window search (opt_lns.h) runs on a time-limited MILP of Checkmate's program with a
 * seed: MOCCASIN's copies are not in the window program. */
static double improve_share(const opt_request *rq)
{
    return rq->improve_share > 0 && rq->improve_share <= 1 ? rq->improve_share
                                                            : OPT_IMPROVE_SHARE;
}

static int wants_improve(const opt_request *rq)
{
    return rq->improve && rq->time_limit > 0 && rq->mode == OPT_MODE_MILP && !rq->no_seed &&
           rq->formulation == OPT_FORM_CHECKMATE;
}

/* The search's widest window (nonzeros): OPT_LNS_MAX_NONZEROS, or less where the memory cap
 * allows less (each window's program stays under the cap too, item 4). */
static double widest_window_nonzeros(void)
{
    double cap_nz = opt_size_memory_cap() / opt_solver_bytes_per_nonzero();
    return cap_nz < OPT_LNS_MAX_NONZEROS ? cap_nz : OPT_LNS_MAX_NONZEROS;
}

/* Issue 28, item 3: improves s (the best seed, named name) in place by the window search for
 * up to share of the time left, and says so in a (adding to an earlier run's counts). */
static int improve_seed(const opt_graph *g, uint64_t act, const opt_request *rq, double t0,
                        double share, opt_schedule *s, const char *name, opt_answer *a,
                        gms_error *err)
{
    opt_lns_opts o = {.seconds = share * remaining(rq, t0), .log = rq->log,
                      .max_nonzeros = widest_window_nonzeros()};
    opt_lns_result r;
    int rc = opt_lns_improve(g, act, s, &o, &r, err);
    if (rc)
        return rc;
    if (!a->improve_ran) {
        a->improve_from = name;
        a->improve_start = r.start_cost;
    }
    a->improve_ran = 1;
    a->improve_windows += r.windows;
    a->improve_improved += r.improved;
    a->improve_failed += r.failed;
    a->improve_seconds += r.seconds;
    a->improve_converged = r.converged;
    return 0;
}

/* Authors' two-phase rounding: LP at 0.9 budget, S >= threshold, R by solve_r_opt; the
 * cheapest rounded schedule whose memory fits (ties to the higher threshold, as theirs). */
static int approx(const opt_graph *g, uint64_t act, const opt_request *rq, double t0,
                  opt_answer *a, gms_error *err)
{
    opt_program *p = NULL;
    opt_solver_result r;
    if (a->killed_at_limit) { /* the limit stopped the bound's LP: no time for another */
        a->status = OPT_STATUS_UNKNOWN;
        return 0;
    }
    int rc = solve_lp(g, (uint64_t)(0.9 * (double)act), rq, remaining(rq, t0), NULL,
                      rq->log, &p, &r, &a->killed_at_limit, err);
    if (rc)
        return rc;
    a->status = OPT_STATUS_UNKNOWN;
    if (r.x) {
        opt_schedule *s = opt_schedule_new(g->n);
        double best = INFINITY;
        for (int k = 1; s && k <= 9; k++) {
            double thr = k / 10.0;
            opt_program_schedule(p, g, r.x, thr, 1, s);
            double cost = opt_schedule_cost(g, s);
            if (opt_schedule_peak(g, s) <= act && cost <= best) {
                best = cost;
                a->threshold = thr;
                if (!a->schedule)
                    a->schedule = opt_schedule_new(g->n);
                if (a->schedule) {
                    memcpy(a->schedule->R, s->R, (size_t)g->n * g->n);
                    memcpy(a->schedule->S, s->S, (size_t)g->n * g->n);
                }
            }
        }
        opt_schedule_free(s);
        if (a->schedule)
            a->status = OPT_STATUS_FEASIBLE;
    } else if (r.status == OPT_STATUS_INFEASIBLE) {
        a->status = OPT_STATUS_INFEASIBLE;
    }
    free(r.x);
    opt_program_free(p);
    return 0;
}

/* A time-limited MILP as rounds (issue 28, item 3): CBC, in a child process killed at its
 * limit, takes what it found with it, so one long solve that overruns answers with the seed
 * even when CBC had improved on it. Instead each round gets half the time left (all of it once
 * less than a third of the limit is left), starts from the best schedule so far and is cut off
 * at its objective (only better ones count); a round that returns keeps what it found, so the
 * answer is the best schedule any finished round found. A round that proves nothing better
 * exists (INFEASIBLE under the cutoff) makes the best one optimal; a killed round ends the
 * rounds (the next would overrun as well: CBC's root processing is the same each round).
 * *r gets the best solution (its x), its status and the last round's bound. */
static int milp_rounds(const opt_program *p, const opt_graph *g, const opt_request *rq,
                       double t0, double seed_cost, opt_solver_opts *o, opt_solver_result *r,
                       opt_answer *a, gms_error *err)
{
    memset(r, 0, sizeof *r);
    r->status = isfinite(seed_cost) ? OPT_STATUS_FEASIBLE : OPT_STATUS_UNKNOWN;
    r->bound = -1;
    double best = seed_cost, *start = NULL;
    for (int round = 0;; round++) {
        double left = rq->time_limit - (now_s() - t0);
        if (left < 1.5 * a->lp_seconds || left < 0.5)
            break;
        o->time_limit = left < rq->time_limit / 3 ? left : left / 2;
        o->has_cutoff = isfinite(best);
        /* CBC keeps only solutions strictly better than the cutoff: a relative hair below */
        o->cutoff = best - 1e-9 * fabs(best) - 1e-12;
        if (start)
            o->start = start;
        opt_solver_result rr;
        int killed = 0;
        int rc = opt_child_solve(p, g, o, &rr, &killed, err);
        if (rc) {
            free(start);
            if (r->x != start)
                free(r->x);
            r->x = NULL;
            return rc;
        }
        a->nodes += rr.nodes;
        a->rounds++;
        r->round_calls += rr.round_calls;
        if (rr.x && rr.objective < best) { /* a better schedule: the next round starts there */
            best = rr.objective;
            free(start);
            start = rr.x;
            r->x = start;
            r->objective = best;
            r->status = OPT_STATUS_FEASIBLE;
            r->rounded = rr.rounded;
            a->improved_rounds++;
        } else {
            free(rr.x);
        }
        if (killed) { /* with what its rounding hook found, kept above */
            a->killed_at_limit = 1;
            break;
        }
        if (rr.bound >= 0)
            r->bound = isfinite(best) && rr.bound > best ? best : rr.bound;
        if (rr.status == OPT_STATUS_OPTIMAL) { /* the best below the cutoff, proven */
            r->status = OPT_STATUS_OPTIMAL;
            break;
        }
        if (rr.status == OPT_STATUS_INFEASIBLE && o->has_cutoff && rr.bound >= 0) {
            r->status = OPT_STATUS_OPTIMAL; /* nothing below the best: it is optimal */
            r->bound = best;
            break;
        }
        if (rr.status == OPT_STATUS_INFEASIBLE && !o->has_cutoff) {
            r->status = OPT_STATUS_INFEASIBLE;
            break;
        }
    }
    /* r->x is start (the best solution) or NULL; the caller frees it */
    return 0;
}

static int milp(const opt_graph *g, uint64_t act, const opt_request *rq, double t0,
                const opt_program *lp, const double *lp_x, opt_answer *a, gms_error *err)
{
    opt_program *p;
    int rc = build(g, act, 1, rq, &p, err);
    if (rc)
        return rc;
    double *start = NULL;
    const char *seed_name = NULL;
    opt_schedule *seed = rq->no_seed ? NULL : seed_schedule(g, act, rq, lp, lp_x, &seed_name);
    if (seed) {
        a->seed_from = seed_name;
        start = malloc(((size_t)p->n_cols + 1) * sizeof *start);
        if (start)
            opt_program_start(p, g, seed, start);
        a->seeded = 1;
        a->seed_objective = opt_schedule_cost(g, seed);
    }
    lp_rounder lr = {.g = g, .p = p, .act = act, .copies = copies_of(rq)};
    opt_solver_opts o = {.time_limit = remaining(rq, t0), .start = start, .log = rq->log,
                         .round = !rq->round || rq->time_limit <= 0 ? NULL : round_lp,
                         .round_ctx = &lr};
    /* the hook only with a limit: without one nothing is killed and CBC's own answer stands
     * (and CBC 2.10.8's preprocessing with kept names leaks 30 kB in CoinPresolve, which
     * LeakSanitizer reports in process; a limited solve's child ends with _exit) */
    opt_solver_result r;
    if (rq->write_model)
        rc = opt_program_write_lp(p, g, rq->write_model, err);
    /* CBC's root LP (the same LP we just solved) ignores its time limit: with less time left
     * than about that LP took, searching would only be killed, so the seed is the answer; so
     * it is when the limit already stopped the LP */
    if (rc == 0 && rq->time_limit > 0 &&
        (a->killed_at_limit || (seed && o.time_limit < 1.5 * a->lp_seconds))) {
        memset(&r, 0, sizeof r);
        r.status = seed ? OPT_STATUS_FEASIBLE : OPT_STATUS_UNKNOWN;
        r.bound = -1;
        a->skipped_search = 1;
    } else if (rc == 0 && rq->time_limit > 0 && getenv("GMS_OPT_ROUNDS")) {
        /* opt-in: rounds restart CBC from scratch, which loses a search that needed the whole
         * limit (measured: a 16-node layer graph proven in 2 s alone went unanswered in 60 s
         * under ASan and load, its rounds each too short); docs/optimal.md */
        rc = milp_rounds(p, g, rq, t0, seed ? opt_schedule_cost(g, seed) : INFINITY, &o, &r,
                         a, err);
    } else if (rc == 0) {
        /* CBC's root processing checks no clock either: a child process killed at the limit */
        int killed = 0;
        rc = opt_child_solve(p, g, &o, &r, &killed, err);
        a->killed_at_limit |= killed;
    }
    free(start);
    if (rc) {
        opt_schedule_free(seed);
        opt_program_free(p);
        return rc;
    }
    a->status = r.status;
    a->nodes = r.nodes;
    a->solver_bound = r.bound;
    a->rounded = r.rounded;
    a->round_calls = r.round_calls;
    if (r.x) {
        /* the authors prune R after solving; keep the solver's R if pruning raised memory */
        opt_schedule *s = opt_schedule_new(g->n);
        if (s) {
            opt_program_schedule(p, g, r.x, 0.5, 1, s);
            if (opt_schedule_peak(g, s) > act || opt_schedule_check(g, s, NULL, 0) != 0)
                opt_program_schedule(p, g, r.x, 0.5, 0, s);
        }
        a->schedule = s;
    }
    /* the solver lost the seed (numerics): the seed is still a feasible answer */
    if (seed && (!a->schedule || opt_schedule_cost(g, seed) < opt_schedule_cost(g, a->schedule))) {
        opt_schedule_free(a->schedule);
        a->schedule = seed;
        a->rounded = 0;
        seed = NULL;
        if (a->status != OPT_STATUS_OPTIMAL)
            a->status = OPT_STATUS_FEASIBLE;
    }
    opt_schedule_free(seed);
    free(r.x);
    opt_program_free(p);
    return 0;
}

/* A budget at or above the graph's unconstrained peak needs no recomputation: checkpoint-all
 * (each node computed once, kept until its last reader) fits, and no schedule computes less,
 * so it is the optimum, and the graph's compute is every bound (LP, boundary) too. Answered
 * at once, without a solver (a->no_solver), unless the caller wants the model written. */
static int answer_unconstrained(const opt_graph *g, const opt_request *rq, opt_answer *a,
                                gms_error *err)
{
    uint64_t peak = opt_graph_peak(g);
    if (peak == UINT64_MAX || rq->budget < peak)
        return 0;
    a->status = OPT_STATUS_OPTIMAL;
    a->objective = a->lower_bound = a->solver_bound = a->compute;
    a->gap = 0;
    a->no_solver = 1;
    a->peak = peak;
    if (rq->mode == OPT_MODE_RELAX || rq->mode == OPT_MODE_BOUND)
        return 0;
    if (!(a->schedule = opt_schedule_new(g->n)))
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    opt_schedule_checkpoint_all(g, a->schedule);
    return 0;
}

/* Issue 28, item 4: no solve may need more than the memory cap (opt_size_memory_cap). The
 * program is sized before it is built (opt_size.h): 0 when it fits, else the bytes it would
 * need. */
static double bytes_over_cap(const opt_graph *g)
{
    opt_size sz;
    opt_size_program(g, &sz);
    return sz.bytes <= opt_size_memory_cap() ? 0 : sz.bytes;
}

static int too_big_error(const opt_graph *g, double bytes, gms_error *err)
{
    opt_size sz;
    opt_size_program(g, &sz);
    return gms_error_set(err, GMS_ENOMEM,
                         "the program for %u nodes has about %llu nonzeros and would need about "
                         "%.1f GB, more than the %.3g GB a solve may use; coarsen the graph "
                         "(--coarsen layers, or auto, which picks what fits), ask for the "
                         "boundary bound alone (optimal --bound boundary), or the MILP, which "
                         "answers such a graph with its best seed and the boundary bound",
                         g->n, (unsigned long long)sz.nonzeros, bytes / 1e9,
                         opt_size_memory_cap() / 1e9);
}

/* A MILP whose program is over the cap is not built (item 4): the answer is the best seed
 * (checkpoint-all, greedy, the request's heuristic runs), with the boundary bound, which
 * stays cheap at any size (one column per edge, one row per node), as its lower bound. So
 * the graph still gets a schedule, never worse than the best run, and an honest gap. */
static int answer_too_big(const opt_graph *g, uint64_t act, const opt_request *rq, double t0,
                          double bytes, opt_answer *a, gms_error *err)
{
    a->too_big_bytes = bytes;
    opt_bound_result b;
    int rc = opt_boundary_bound(g, act, remaining(rq, t0), &b, err);
    if (rc)
        return rc;
    a->lp_seconds = b.seconds;
    if (b.status == OPT_STATUS_INFEASIBLE) { /* a proof: no schedule fits */
        a->status = OPT_STATUS_INFEASIBLE;
        return 0;
    }
    if (b.status == OPT_STATUS_OPTIMAL) {
        a->lower_bound = b.value;
        a->bound_boundary = 1;
    }
    const char *name = NULL;
    opt_schedule *seed = rq->no_seed ? NULL : seed_schedule(g, act, rq, NULL, NULL, &name);
    a->status = seed ? OPT_STATUS_FEASIBLE : OPT_STATUS_UNKNOWN;
    if (seed) {
        a->seeded = 1;
        a->seed_from = name;
        a->seed_objective = opt_schedule_cost(g, seed);
        a->schedule = seed;
        /* the window program is built over the window alone: it fits where the whole does
         * not (issue 28, item 3) */
        if (wants_improve(rq) && (rc = improve_seed(g, act, rq, t0, 1, seed, name, a, err)) != 0)
            return rc;
        if (a->improve_improved) {
            a->seed_from = "window-search";
            a->seed_objective = opt_schedule_cost(g, seed);
        }
        /* the bound met: nothing can be cheaper */
        if (a->lower_bound >= 0 && a->seed_objective <= a->lower_bound * (1 + 1e-9))
            a->status = OPT_STATUS_OPTIMAL;
    }
    return 0;
}

/* What every answer with a schedule reports: its cost, peak and gap to the best bound. */
static void finish(const opt_graph *g, double t0, opt_answer *a)
{
    if (a->status == OPT_STATUS_INFEASIBLE)
        explain_infeasible(g, a);
    if (a->schedule) {
        a->objective = opt_schedule_cost(g, a->schedule);
        a->peak = opt_schedule_peak(g, a->schedule) + g->constant_bytes;
        double bound = a->lower_bound;
        if (a->solver_bound > bound)
            bound = a->solver_bound;
        if (a->status == OPT_STATUS_OPTIMAL || a->objective <= 0)
            a->gap = 0;
        else if (bound < 0)
            a->gap = -1; /* the time limit stopped the LP: no bound */
        else
            a->gap = fmax(0, (a->objective - bound) / a->objective);
    }
    a->seconds = now_s() - t0;
}

/* The LP relaxation, then what the mode asks (the MILP, the LP's rounding), with the
 * boundary bound bb standing in for an LP the limit stopped. */
static int lp_then(const opt_graph *g, const opt_request *rq, uint64_t act, double t0,
                   const opt_bound_result *bbp, opt_schedule *improving, opt_answer *a,
                   gms_error *err)
{
    const opt_bound_result bb = *bbp;
    opt_solver_result lp;
    opt_program *lp_prog = NULL;
    /* while the window search improves a seed, the LP gets half the time left; stopped, the
     * search goes on with the rest (the op-level LPs of the DTR logs did not finish in 300 s) */
    double lp_limit = remaining(rq, t0) * (improving && !a->improve_converged ? 0.5 : 1);
    int rc = solve_lp(g, act, rq, lp_limit, rq->mode == OPT_MODE_RELAX ? rq->write_model : NULL,
                      rq->log, &lp_prog, &lp, &a->killed_at_limit, err);
    if (rc)
        return rc;
    if (improving && a->killed_at_limit && !a->improve_converged &&
        (rc = improve_seed(g, act, rq, t0, 1, improving, NULL, a, err)) != 0) {
        free(lp.x);
        opt_program_free(lp_prog);
        return rc;
    }
    a->lp_seconds = lp.seconds;
    if (lp.status == OPT_STATUS_OPTIMAL) {
        a->lower_bound = a->lp_bound = lp.objective;
        /* the gap is to the best bound: on the op-level DTR logs the boundary bound is the
         * higher (unet at 0.5: 1.0505 against the LP's 1.0451) */
        if (bb.status == OPT_STATUS_OPTIMAL && bb.value > lp.objective) {
            a->lower_bound = bb.value;
            a->bound_boundary = 1;
        }
    } else if (bb.status == OPT_STATUS_OPTIMAL && lp.status != OPT_STATUS_INFEASIBLE) {
        a->lower_bound = bb.value; /* the LP stopped by the limit: the boundary bound */
        a->bound_boundary = 1;
    }
    if (lp.status == OPT_STATUS_INFEASIBLE || rq->mode != OPT_MODE_MILP) {
        /* only the MILP's seed reads the LP's solution */
        free(lp.x);
        lp.x = NULL;
        opt_program_free(lp_prog);
        lp_prog = NULL;
    }
    if (lp.status == OPT_STATUS_INFEASIBLE) {
        a->status = OPT_STATUS_INFEASIBLE;
        explain_infeasible(g, a);
        a->seconds = now_s() - t0;
        return 0;
    }
    if (rq->mode == OPT_MODE_RELAX) {
        a->status = lp.status;
        a->objective = lp.objective;
        a->seconds = now_s() - t0;
        return 0;
    }
    rc = rq->mode == OPT_MODE_APPROX ? approx(g, act, rq, t0, a, err)
                                     : milp(g, act, rq, t0, lp_prog, lp.x, a, err);
    free(lp.x);
    opt_program_free(lp_prog);
    if (rc) {
        opt_answer_clear(a);
        return rc;
    }
    finish(g, t0, a);
    return 0;
}

/* rq with one more seed, s named name: *out is rq's copy, its seed arrays (*seeds, *names,
 * the caller frees them) rq's and s. */
static int add_seed(const opt_request *rq, const opt_schedule *s, const char *name,
                    opt_request *out, const opt_schedule ***seeds, const char ***names,
                    gms_error *err)
{
    uint32_t n = rq->n_seeds + 1;
    *seeds = malloc(n * sizeof **seeds);
    *names = malloc(n * sizeof **names);
    if (!*seeds || !*names) {
        free(*seeds), free(*names);
        *seeds = NULL, *names = NULL;
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
    for (uint32_t k = 0; k + 1 < n; k++) {
        (*seeds)[k] = rq->seeds[k];
        (*names)[k] = rq->seed_names ? rq->seed_names[k] : "given";
    }
    (*seeds)[n - 1] = s;
    (*names)[n - 1] = name;
    *out = *rq;
    out->seeds = *seeds;
    out->seed_names = *names;
    out->n_seeds = n;
    return 0;
}

/* lp_then with one more seed, s (the window search's schedule, "window-search", which the
 * search may go on improving while the LP is stopped). */
static int solve_with_seed(const opt_graph *g, const opt_request *rq, uint64_t act, double t0,
                           const opt_bound_result *bb, opt_schedule *s, opt_answer *a,
                           gms_error *err)
{
    opt_request rq2;
    const opt_schedule **seeds;
    const char **names;
    int rc = add_seed(rq, s, "window-search", &rq2, &seeds, &names, err);
    if (rc) {
        opt_answer_clear(a);
        return rc;
    }
    rc = lp_then(g, &rq2, act, t0, bb, s, a, err);
    free(seeds), free(names);
    return rc;
}

/* CBC on the whole program first, for plan's slice (opt_first.h): the LP and the MILP as
 * without the window search, under the slice. A proof (optimal or infeasible) is the answer,
 * in *a; otherwise *a keeps only what the slice did (a->first_*) and *best gets the slice's
 * schedule (NULL when it has none), which seeds the window search. */
static int solver_first(const opt_graph *g, const opt_request *rq, uint64_t act, double t0,
                        const opt_bound_result *bb, const opt_first_plan *plan, opt_answer *a,
                        opt_schedule **best, gms_error *err)
{
    *best = NULL;
    double start = now_s();
    opt_request rq1 = *rq;
    rq1.improve = 0;
    rq1.time_limit = (start - t0) + plan->seconds;
    opt_answer a1 = *a; /* opt_solve's first values, no schedule yet */
    int rc = lp_then(g, &rq1, act, t0, bb, NULL, &a1, err);
    if (rc)
        return rc;
    int proved = !a1.killed_at_limit &&
                 (a1.status == OPT_STATUS_OPTIMAL || a1.status == OPT_STATUS_INFEASIBLE);
    if (proved) {
        *a = a1;
    } else {
        *best = a1.schedule;
        a1.schedule = NULL;
        opt_answer_clear(&a1);
    }
    a->first_tried = 1;
    a->first_proved = proved;
    a->first_slice = plan->seconds;
    a->first_seconds = now_s() - start;
    a->first_nonzeros = plan->nonzeros;
    return 0;
}

/* The window search from the best seed (rq's), then the LP and CBC from its schedule. */
static int search_then_lp(const opt_graph *g, const opt_request *rq, uint64_t act, double t0,
                          const opt_bound_result *bb, opt_answer *a, gms_error *err)
{
    const char *name = NULL;
    opt_schedule *s = seed_schedule(g, act, rq, NULL, NULL, &name);
    int rc = s ? improve_seed(g, act, rq, t0, improve_share(rq), s, name, a, err) : 0;
    if (rc == 0 && s)
        rc = solve_with_seed(g, rq, act, t0, bb, s, a, err);
    else if (rc == 0)
        rc = lp_then(g, rq, act, t0, bb, NULL, a, err);
    else
        opt_answer_clear(a);
    opt_schedule_free(s);
    return rc;
}

/* A time-limited MILP with the window search (wants_improve): CBC first on a small program
 * (opt_first.h); the search where that proved nothing, from CBC's best schedule too. */
static int improve_then_lp(const opt_graph *g, const opt_request *rq, uint64_t act, double t0,
                           const opt_bound_result *bb, opt_answer *a, gms_error *err)
{
    opt_size sz;
    opt_size_program(g, &sz);
    opt_first_plan plan;
    opt_first_plan_for(&sz, rq->time_limit, opt_first_max_nonzeros(widest_window_nonzeros()),
                       &plan);
    if (!plan.first)
        return search_then_lp(g, rq, act, t0, bb, a, err);
    opt_schedule *cbc = NULL;
    int rc = solver_first(g, rq, act, t0, bb, &plan, a, &cbc, err);
    if (rc || a->first_proved)
        return rc;
    if (!cbc)
        return search_then_lp(g, rq, act, t0, bb, a, err);
    opt_request rq2;
    const opt_schedule **seeds;
    const char **names;
    rc = add_seed(rq, cbc, OPT_FIRST_SEED_NAME, &rq2, &seeds, &names, err);
    if (rc == 0)
        rc = search_then_lp(g, &rq2, act, t0, bb, a, err);
    else
        opt_answer_clear(a);
    free(seeds), free(names);
    opt_schedule_free(cbc);
    return rc;
}

int opt_solve(const opt_graph *g, const opt_request *rq, opt_answer *a, gms_error *err)
{
    memset(a, 0, sizeof *a);
    double t0 = now_s();
    a->lower_bound = a->lp_bound = -1;
    a->solver_bound = -1;
    a->compute = opt_graph_compute(g);
    a->heuristic_fit = UINT64_MAX;
    if (rq->budget < opt_graph_floor(g)) {
        a->status = OPT_STATUS_INFEASIBLE;
        explain_infeasible(g, a);
        a->seconds = now_s() - t0;
        return 0;
    }
    if (!rq->write_model && answer_unconstrained(g, rq, a, err) != 0)
        return err ? err->code : GMS_ENOMEM;
    if (a->no_solver) {
        a->seconds = now_s() - t0;
        return 0;
    }
    uint64_t act = rq->budget - g->constant_bytes;
    double too_big = rq->mode == OPT_MODE_BOUND ? 0 : bytes_over_cap(g);
    if (too_big > 0 && rq->mode == OPT_MODE_MILP && !rq->write_model) {
        int rc = answer_too_big(g, act, rq, t0, too_big, a, err);
        if (rc) {
            opt_answer_clear(a);
            return rc;
        }
        finish(g, t0, a);
        return 0;
    }
    if (too_big > 0)
        return too_big_error(g, too_big, err);
    if (rq->mode == OPT_MODE_BOUND) {
        opt_bound_result b;
        int rc = opt_boundary_bound(g, act, rq->time_limit, &b, err);
        if (rc)
            return rc;
        a->status = b.status;
        a->objective = a->lower_bound = b.status == OPT_STATUS_OPTIMAL ? b.value : -1;
        a->lp_seconds = b.seconds;
        if (b.status == OPT_STATUS_INFEASIBLE)
            explain_infeasible(g, a);
        a->seconds = now_s() - t0;
        return 0;
    }

    /* Issue 28, item 3: a time-limited MILP first takes the boundary bound (one column per
     * edge, one row per node: well under a second where the LP takes minutes), so that when
     * the limit stops the LP the gap is still to a valid bound, not unknown. On the op-level
     * DTR logs it is even above the LP's (unet at 0.7: 1.0237 against 1.0182). */
    opt_bound_result bb = {.status = OPT_STATUS_UNKNOWN};
    if (rq->mode == OPT_MODE_MILP && rq->time_limit > 0) {
        int brc = opt_boundary_bound(g, act, remaining(rq, t0), &bb, err);
        if (brc)
            return brc;
    }
    /* Issue 28, item 3: the window search improves the best seed first, for the limit (or
     * OPT_IMPROVE_SHARE of it) unless it converges first: its widest window is the whole
     * program, so it is the search, and the LP and CBC get what it leaves (measured: on the
     * unet log at 0.5 a finished LP and 280 s of CBC after it found nothing, where the
     * windows kept improving; docs/benchmarks.md). Its schedule joins the seeds */
    if (wants_improve(rq))
        return improve_then_lp(g, rq, act, t0, &bb, a, err);
    return lp_then(g, rq, act, t0, &bb, NULL, a, err);
}

const char *opt_answer_from(const opt_answer *a)
{
    if (!a->schedule)
        return NULL;
    if (!a->seeded || a->objective < a->seed_objective - 1e-9 * fabs(a->seed_objective))
        return "solver";
    if (a->seed_from && !strcmp(a->seed_from, OPT_FIRST_SEED_NAME))
        return "solver"; /* CBC's schedule from its first slice (opt_first.h) */
    return a->seed_from && !strcmp(a->seed_from, "window-search") ? "window-search" : "seed";
}
