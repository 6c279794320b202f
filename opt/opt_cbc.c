/*
 * opt_cbc: the one binding to a MILP solver (COIN-OR CBC, C API, found through pkg-config;
 * opt_solver.h). Loads the program column-wise, seeds it with the start solution, runs
 * CbcMain's default search on one thread and reads back status, solution and bound.
 */
#include "opt_solver.h"

#include <Cbc_C_Interface.h>
#include <Clp_C_Interface.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>


const char *opt_status_name(opt_solve_status s)
{
    switch (s) {
    case OPT_STATUS_OPTIMAL: return "optimal";
    case OPT_STATUS_FEASIBLE: return "feasible";
    case OPT_STATUS_INFEASIBLE: return "infeasible";
    case OPT_STATUS_UNKNOWN: return "unknown";
    }
    return "?";
}

const char *opt_solver_name(void)
{
    static char name[64];
    if (!name[0])
        snprintf(name, sizeof name, "CBC %s", Cbc_getVersion());
    return name;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The row-wise matrix of p as CSC (CBC's loadProblem takes columns). */
static int to_csc(const opt_program *p, CoinBigIndex **start, int **index, double **value)
{
    *start = calloc((size_t)p->n_cols + 2, sizeof **start);
    *index = malloc((p->n_ent + 1) * sizeof **index);
    *value = malloc((p->n_ent + 1) * sizeof **value);
    if (!*start || !*index || !*value)
        return -1;
    CoinBigIndex *st = *start;
    for (size_t k = 0; k < p->n_ent; k++)
        st[p->ent_col[k] + 2]++;
    for (uint32_t c = 0; c < p->n_cols; c++)
        st[c + 2] += st[c + 1];
    for (uint32_t r = 0; r < p->n_rows; r++)
        for (size_t k = p->row_start[r]; k < p->row_start[r + 1]; k++) {
            CoinBigIndex at = st[p->ent_col[k] + 1]++;
            (*index)[at] = (int)r;
            (*value)[at] = p->ent_val[k];
        }
    return 0;
}

/* What CBC needs for a program, measured: about 400 bytes per nonzero (418 MB for the LP of
 * a 305-node graph, 1.09 M nonzeros). CBC throws std::bad_alloc through its C interface when
 * it runs out, which kills the process; refusing first keeps the error an error. */
#define CBC_BYTES_PER_NONZERO 400.0

double opt_solver_bytes_per_nonzero(void)
{
    return CBC_BYTES_PER_NONZERO;
}

static double memory_available(void)
{
    double avail = (double)sysconf(_SC_AVPHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (double)rl.rlim_cur < avail)
        avail = (double)rl.rlim_cur;
    return avail;
}

/* An LP goes to Clp, CBC's own LP engine, directly: CBC's LP path ignores its time limit
 * (a 305-node LP ran 5 minutes past a 300 s limit inside Clp's initial solve), Clp honours
 * its own. Same algorithm choice as CBC's (ClpSimplex::initialSolve, automatic). */
static int solve_lp(const opt_program *p, const opt_solver_opts *o, CoinBigIndex *start,
                    int *index, double *value, opt_solver_result *r, gms_error *err)
{
    Clp_Simplex *m = Clp_newModel();
    Clp_loadProblem(m, (int)p->n_cols, (int)p->n_rows, start, index, value, p->col_lb,
                    p->col_ub, p->obj, p->row_lb, p->row_ub);
    Clp_setLogLevel(m, o->log ? 1 : 0);
    if (o->time_limit > 0)
        Clp_setMaximumSeconds(m, o->time_limit);
    double t0 = now_s();
    /* GMS_CLP_ALGO=dual|primal|barrier: Clp's algorithm, for experiments (docs/optimal.md;
     * measured in docs/benchmarks.md: none was reliably faster than the automatic choice on
     * the op-level LPs, so the default stays Clp's own) */
    const char *algo = getenv("GMS_CLP_ALGO");
    if (algo && !strcmp(algo, "dual"))
        Clp_initialDualSolve(m);
    else if (algo && !strcmp(algo, "primal"))
        Clp_initialPrimalSolve(m);
    else if (algo && !strcmp(algo, "barrier"))
        Clp_initialBarrierSolve(m);
    else
        Clp_initialSolve(m);
    r->seconds = now_s() - t0;
    if (Clp_isProvenOptimal(m)) {
        r->status = OPT_STATUS_OPTIMAL;
        r->objective = r->bound = Clp_objectiveValue(m);
        r->x = malloc(((size_t)p->n_cols + 1) * sizeof *r->x);
        if (!r->x) {
            Clp_deleteModel(m);
            return gms_error_set(err, GMS_ENOMEM, "out of memory reading the LP's solution");
        }
        memcpy(r->x, Clp_primalColumnSolution(m), (size_t)p->n_cols * sizeof *r->x);
    } else if (Clp_isProvenPrimalInfeasible(m)) {
        r->status = OPT_STATUS_INFEASIBLE;
    } else {
        r->status = OPT_STATUS_UNKNOWN; /* the time limit */
    }
    Clp_deleteModel(m);
    return 0;
}

/* The rounding hook (opt_solver_opts.round) as a CBC cut generator that adds no cuts: CBC
 * 2.10's C API reaches the search's LP solutions only through a cut callback, on the
 * preprocessed model, whose columns keep the names we gave them ("c<index>",
 * Cbc_addCutCallback keeps names through preprocessing); map turns its columns into ours. */
typedef struct round_hook {
    const opt_program *p;
    const opt_solver_opts *o;
    int *map;        /* preprocessed column -> our column, or -1 */
    int map_n;       /* columns map was made for (-1: none yet) */
    double *lp, *x, *best;
    double best_obj;
    long calls;
    int failed;      /* out of memory: the hook stays quiet */
} round_hook;

static void COINLINKAGE_CB round_cut_callback(void *osi, void *cuts, void *appdata)
{
    (void)cuts;
    round_hook *h = appdata;
    if (h->failed)
        return;
    int n = Osi_getNumCols(osi);
    if (n != h->map_n) {
        free(h->map);
        h->map = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof *h->map);
        if (!h->map) {
            h->failed = 1;
            return;
        }
        char name[32];
        for (int i = 0; i < n; i++) {
            name[0] = 0;
            Osi_getColName(osi, i, name, (int)sizeof name - 1);
            name[sizeof name - 1] = 0;
            char *end;
            unsigned long c = name[0] == 'c' ? strtoul(name + 1, &end, 10) : ULONG_MAX;
            h->map[i] = c < h->p->n_cols && name[1] && !*end ? (int)c : -1;
        }
        h->map_n = n;
    }
    const double *sol = Osi_getColSolution(osi);
    if (!sol)
        return;
    memset(h->lp, 0, (size_t)h->p->n_cols * sizeof *h->lp);
    for (int i = 0; i < n; i++)
        if (h->map[i] >= 0)
            h->lp[h->map[i]] = sol[i];
    double obj;
    h->calls++;
    if (h->o->round(h->o->round_ctx, h->lp, h->x, &obj) && obj < h->best_obj) {
        double *t = h->best;
        h->best = h->x;
        h->x = t;
        h->best_obj = obj;
    }
}

static void round_hook_free(round_hook *h)
{
    free(h->map), free(h->lp), free(h->x), free(h->best);
}

/* Names every column "c<index>" and adds the hook; 0, or -1 (out of memory). */
static int round_hook_add(Cbc_Model *m, const opt_program *p, const opt_solver_opts *o,
                          round_hook *h)
{
    memset(h, 0, sizeof *h);
    h->p = p, h->o = o, h->map_n = -1, h->best_obj = INFINITY;
    size_t bytes = ((size_t)p->n_cols + 1) * sizeof(double);
    h->lp = malloc(bytes), h->x = malloc(bytes), h->best = malloc(bytes);
    if (!h->lp || !h->x || !h->best)
        return -1;
    char name[32];
    for (uint32_t c = 0; c < p->n_cols; c++) {
        snprintf(name, sizeof name, "c%u", c);
        Cbc_setColName(m, (int)c, name);
    }
    Cbc_addCutCallback(m, round_cut_callback, "gms-lp-rounding", h);
    return 0;
}

int opt_solver_solve(const opt_program *p, const opt_graph *g, const opt_solver_opts *o,
                     opt_solver_result *r, gms_error *err)
{
    memset(r, 0, sizeof *r);
    double need = CBC_BYTES_PER_NONZERO * (double)p->n_ent, avail = memory_available();
    if (avail > 0 && need > avail)
        return gms_error_set(err, GMS_ENOMEM,
                             "the program has %u variables, %u rows and %zu nonzeros; CBC "
                             "would need about %.1f GB, more than the %.1f GB available; "
                             "coarsen the graph (--coarsen layers) or use a larger machine",
                             p->n_cols, p->n_rows, p->n_ent, need / 1e9, avail / 1e9);
    CoinBigIndex *start = NULL;
    int *index = NULL;
    double *value = NULL;
    if (to_csc(p, &start, &index, &value)) {
        free(start), free(index), free(value);
        return gms_error_set(err, GMS_ENOMEM, "out of memory handing the program to CBC");
    }
    int integral = 0;
    for (uint32_t c = 0; c < p->n_cols && !integral; c++)
        integral = p->col_int[c];
    if (!integral) {
        int rc = solve_lp(p, o, start, index, value, r, err);
        free(start), free(index), free(value);
        return rc;
    }
    Cbc_Model *m = Cbc_newModel();
    Cbc_loadProblem(m, (int)p->n_cols, (int)p->n_rows, start, index, value, p->col_lb,
                    p->col_ub, p->obj, p->row_lb, p->row_ub);
    free(start), free(index), free(value);
    int n_int = 0;
    for (uint32_t c = 0; c < p->n_cols; c++)
        if (p->col_int[c]) {
            Cbc_setInteger(m, (int)c);
            n_int++;
        }
    Cbc_setObjSense(m, 1);
    Cbc_setLogLevel(m, o->log ? 1 : 0);
    if (!o->log)
        Cbc_setParameter(m, "slogLevel", "0");
    char buf[32];
    snprintf(buf, sizeof buf, "%d", o->threads > 1 ? o->threads : 1);
    if (o->threads > 1)
        Cbc_setParameter(m, "threads", buf);
    if (o->time_limit > 0) {
        /* CbcMain reads its own "seconds" parameter, not the model's maximum */
        snprintf(buf, sizeof buf, "%.3f", o->time_limit);
        Cbc_setParameter(m, "timeMode", "elapsed");
        Cbc_setParameter(m, "seconds", buf);
        Cbc_setMaximumSeconds(m, o->time_limit);
    }
    /* GMS_CBC_PARAMS="name=value,...": CBC settings for experiments (docs/optimal.md) */
    const char *extra = getenv("GMS_CBC_PARAMS");
    if (extra && *extra) {
        char *copy = strdup(extra), *save = NULL;
        for (char *kv = copy ? strtok_r(copy, ",", &save) : NULL; kv; kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');
            if (eq) {
                *eq = 0;
                Cbc_setParameter(m, kv, eq + 1);
            }
        }
        free(copy);
    }
    /* the gap CBC stops at: none beyond round-off (the authors' OptimalityTol is 1e-4) */
    Cbc_setAllowableFractionGap(m, 1e-9);
    Cbc_setAllowableGap(m, 1e-9);
    int *idx = NULL;
    double *val = NULL;
    if (o->start && n_int > 0) {
        idx = malloc(((size_t)p->n_cols + 1) * sizeof *idx);
        val = malloc(((size_t)p->n_cols + 1) * sizeof *val);
        if (!idx || !val) {
            free(idx), free(val);
            Cbc_deleteModel(m);
            return gms_error_set(err, GMS_ENOMEM, "out of memory seeding CBC");
        }
        int k = 0;
        for (uint32_t c = 0; c < p->n_cols; c++)
            if (p->col_int[c] && o->start[c] != 0)
                idx[k] = (int)c, val[k] = o->start[c], k++;
        Cbc_setMIPStartI(m, k, idx, val);
    }
    if (o->has_cutoff)
        Cbc_setCutoff(m, o->cutoff);
    round_hook hook;
    memset(&hook, 0, sizeof hook);
    hook.best_obj = INFINITY; /* none */
    if (o->round && n_int > 0 && round_hook_add(m, p, o, &hook) != 0) {
        round_hook_free(&hook);
        free(idx), free(val);
        Cbc_deleteModel(m);
        return gms_error_set(err, GMS_ENOMEM, "out of memory for the rounding hook");
    }
    double t0 = now_s();
    Cbc_solve(m);
    r->seconds = now_s() - t0;
    free(idx), free(val);

    const double *sol = NULL;
    if (n_int > 0) {
        sol = Cbc_bestSolution(m);
        if (Cbc_isProvenOptimal(m) && sol)
            r->status = OPT_STATUS_OPTIMAL;
        else if (Cbc_isProvenInfeasible(m))
            r->status = OPT_STATUS_INFEASIBLE;
        else if (sol)
            r->status = OPT_STATUS_FEASIBLE;
        else if (Cbc_isSecondsLimitReached(m))
            r->status = OPT_STATUS_UNKNOWN;
        else if (Cbc_status(m) == 0 && !sol)
            r->status = OPT_STATUS_INFEASIBLE;
        else
            r->status = OPT_STATUS_UNKNOWN;
        /* CBC 2.10 reports a root LP that its clock stopped as proven infeasible (status 0,
         * secondary 1, no seconds-limit flag): measured on a 60-node graph under a 1 s limit
         * at 1.24 s. An infeasibility found as the limit ran out is no proof. */
        int unproven = r->status == OPT_STATUS_INFEASIBLE && o->time_limit > 0 &&
                       r->seconds >= 0.9 * o->time_limit;
        if (unproven)
            r->status = OPT_STATUS_UNKNOWN;
        r->bound = unproven ? -1 : Cbc_getBestPossibleObjValue(m); /* its bound is no bound */
        r->nodes = Cbc_getNodeCount(m);
    } else {
        sol = Cbc_getColSolution(m);
        if (Cbc_isProvenOptimal(m))
            r->status = OPT_STATUS_OPTIMAL;
        else if (Cbc_isProvenInfeasible(m) || Cbc_isInitialSolveProvenPrimalInfeasible(m))
            r->status = OPT_STATUS_INFEASIBLE;
        else
            r->status = OPT_STATUS_UNKNOWN;
        if (r->status != OPT_STATUS_OPTIMAL)
            sol = NULL;
    }
    if (sol) {
        r->objective = Cbc_getObjValue(m);
        if (n_int == 0)
            r->bound = r->objective;
        r->x = malloc(((size_t)p->n_cols + 1) * sizeof *r->x);
        if (!r->x) {
            Cbc_deleteModel(m);
            return gms_error_set(err, GMS_ENOMEM, "out of memory reading CBC's solution");
        }
        memcpy(r->x, sol, (size_t)p->n_cols * sizeof *r->x);
    }
    r->round_calls = hook.calls;
    /* the hook's best beats CBC's (or CBC kept none, e.g. stopped by its limit): answer
     * with it; CBC's bound stays a bound */
    if (isfinite(hook.best_obj) && (!r->x || hook.best_obj < r->objective - 1e-9 * fabs(r->objective))) {
        if (!r->x && !(r->x = malloc(((size_t)p->n_cols + 1) * sizeof *r->x))) {
            round_hook_free(&hook);
            Cbc_deleteModel(m);
            return gms_error_set(err, GMS_ENOMEM, "out of memory reading CBC's solution");
        }
        memcpy(r->x, hook.best, (size_t)p->n_cols * sizeof *r->x);
        r->objective = hook.best_obj;
        r->rounded = 1;
        if (r->status != OPT_STATUS_OPTIMAL)
            r->status = OPT_STATUS_FEASIBLE;
    }
    round_hook_free(&hook);
    if (r->status == OPT_STATUS_OPTIMAL && r->bound > r->objective)
        r->bound = r->objective;
    Cbc_deleteModel(m);
    return 0;
}
