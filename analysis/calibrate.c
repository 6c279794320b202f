/* calibrate: seed averages and the op-overhead solver (see calibrate.h). */
#include "calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "peak_run.h"

/* One run's place in the ranking: stopped runs after every finished one, ties by seed. */
typedef struct ranked {
    double overhead; /* +inf for a stopped run */
    unsigned index;
} ranked;

static int by_rank(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->overhead != y->overhead)
        return x->overhead < y->overhead ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

int cal_run_seeds(sim_runner *r, const sim_config *cfg, unsigned seeds, cal_summary *out,
                  gms_error *err)
{
    return cal_run_seeds_each(r, cfg, seeds, out, NULL, err);
}

int cal_run_seeds_each(sim_runner *r, const sim_config *cfg, unsigned seeds, cal_summary *out,
                       double *each, gms_error *err)
{
    return cal_run_seeds_peak(r, NULL, cfg, seeds, out, each, NULL, NULL, err);
}

int cal_run_seeds_peak(sim_runner *r, const sim_trace *t, const sim_config *cfg, unsigned seeds,
                       cal_summary *out, double *each, const sim_categories *cats,
                       sim_peak *median_peak, gms_error *err)
{
    memset(out, 0, sizeof *out);
    if (seeds < 1)
        return gms_error_set(err, GMS_EINVAL, "seeds must be at least 1");
    if (cats && (!t || !median_peak))
        return gms_error_set(err, GMS_EINVAL, "following the peak needs the trace");
    sim_result *all = malloc((size_t)seeds * sizeof *all);
    ranked *rank = malloc((size_t)seeds * sizeof *rank);
    sim_peak *peaks = cats ? malloc((size_t)seeds * sizeof *peaks) : NULL;
    if (!all || !rank || (cats && !peaks)) {
        free(all);
        free(rank);
        free(peaks);
        return gms_error_set(err, GMS_ENOMEM, "out of memory keeping %u seeds' results", seeds);
    }
    out->status = SIM_OK;
    sim_config c = *cfg;
    double sum = 0, sum2 = 0;
    for (unsigned i = 0; i < seeds; i++) {
        sim_result *res = &all[i];
        c.seed = cfg->seed + i;
        /* a plugin's run is isolated in a child process (peak_run.h) */
        int rc = peak_run(r, t, &c, cats, res, cats ? &peaks[i] : NULL, err);
        if (rc) {
            free(all);
            free(rank);
            free(peaks);
            return rc;
        }
        out->runs++;
        out->remat_compute += (double)res->remat_compute;
        out->evictions += (double)res->evictions;
        out->remats += (double)res->remats;
        out->ops_executed += (double)res->ops_executed;
        out->candidates += (double)res->candidates;
        out->op_overhead_ns += (double)res->op_overhead_ns;
        out->search_ns += (double)res->search_ns;
        out->evict_ns += (double)res->evict_ns;
        out->wall_s += res->wall_s;
        rank[i] = (ranked){res->status == SIM_OK ? res->overhead : INFINITY, i};
        if (each)
            each[i] = res->status == SIM_OK ? res->overhead : NAN;
        if (res->status != SIM_OK) {
            if (out->status == SIM_OK)
                out->status = res->status;
            out->oom += res->status == SIM_OOM;
            out->limit += res->status == SIM_REMAT_LIMIT;
            continue;
        }
        if (out->ok == 0 || res->overhead < out->min)
            out->min = res->overhead;
        if (out->ok == 0 || res->overhead > out->max)
            out->max = res->overhead;
        out->ok++;
        sum += res->overhead;
        sum2 += res->overhead * res->overhead;
    }
    double n = (double)out->runs;
    out->remat_compute /= n;
    out->evictions /= n;
    out->remats /= n;
    out->ops_executed /= n;
    out->candidates /= n;
    out->op_overhead_ns /= n;
    out->search_ns /= n;
    out->evict_ns /= n;
    qsort(rank, seeds, sizeof *rank, by_rank);
    unsigned m = rank[(seeds - 1) / 2].index;
    out->median_run = all[m];
    out->median_seed = cfg->seed + m;
    out->median = all[m].status == SIM_OK ? all[m].overhead : NAN;
    if (cats)
        *median_peak = peaks[m];
    out->mean = out->sd = NAN;
    if (out->ok == out->runs) {
        out->mean = sum / n;
        double var = sum2 / n - out->mean * out->mean;
        out->sd = var > 0 ? sqrt(var) : 0;
    }
    free(all);
    free(rank);
    free(peaks);
    return 0;
}

/* One evaluation of the solver: the mean overhead with op overhead c. */
static int eval(sim_runner *r, const sim_config *base, unsigned seeds, uint64_t c,
                cal_summary *s, cal_result *out, gms_error *err)
{
    sim_config cfg = *base;
    cfg.op_overhead_ns = c;
    int rc = cal_run_seeds(r, &cfg, seeds, s, err);
    if (rc)
        return rc;
    out->simulations++;
    if (s->status != SIM_OK && s->runs == 1)
        return gms_error_set(err, GMS_EINVAL,
                             "with an op overhead of %llu ns a run ended with status %s: the "
                             "budget is too small for this trace and policy, so no slowdown "
                             "can be calibrated there (pick a budget where sim reports ok)",
                             (unsigned long long)c, sim_status_name(s->status));
    if (s->status != SIM_OK)
        return gms_error_set(err, GMS_EINVAL,
                             "with an op overhead of %llu ns %u of %u seeds stopped (%u oom, "
                             "%u remat-limit): a slowdown is averaged only when every seed "
                             "finishes, so none can be calibrated here (pick a budget where "
                             "'sim --seeds %u' finishes every seed)",
                             (unsigned long long)c, s->runs - s->ok, s->runs, s->oom, s->limit,
                             s->runs);
    return 0;
}

/* Keeps the evaluation closest to the target. */
static void keep_best(cal_result *out, uint64_t c, const cal_summary *s, double measured)
{
    if (out->simulations == 1 || fabs(s->mean - measured) < fabs(out->error)) {
        out->op_overhead_ns = c;
        out->at = *s;
        out->error = s->mean - measured;
    }
}

int cal_solve_op_overhead(sim_runner *r, const sim_trace *t, const sim_config *base,
                          unsigned seeds, double measured, double tol, cal_result *out,
                          gms_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(measured >= 1 && measured <= CAL_MAX_SLOWDOWN))
        return gms_error_set(err, GMS_EINVAL,
                             "a measured slowdown must be a number from 1 to %g (time / "
                             "baseline time), not %g", CAL_MAX_SLOWDOWN, measured);
    if (!(tol > 0))
        return gms_error_set(err, GMS_EINVAL, "the tolerance must be > 0");
    const double compute = (double)sim_trace_baseline(t)->compute;
    if (compute <= 0)
        return gms_error_set(err, GMS_EINVAL, "the trace has no compute time to scale");

    cal_summary s;
    int rc = eval(r, base, seeds, 0, &s, out, err);
    if (rc)
        return rc;
    keep_best(out, 0, &s, measured);
    out->ideal = s.mean;
    if (s.mean >= measured) {
        out->below_ideal = s.mean > measured;
        out->converged = 1;
        return 0;
    }
    if (s.ops_executed <= 0)
        return gms_error_set(err, GMS_EINVAL, "the trace runs no ops: nothing pays an overhead");

    /* Bracket: lo undershoots, hi overshoots. The first guess is the fixed-schedule line. */
    uint64_t lo = 0, hi;
    double f_lo = s.mean - measured, f_hi;
    double guess = (measured - s.mean) * compute / s.ops_executed;
    if (!(guess <= CAL_MAX_OP_OVERHEAD_NS)) /* checked before the conversion to integer */
        return gms_error_set(err, GMS_EINVAL,
                             "slowdown %g would need an op overhead above %g s (the simulation "
                             "reaches %g without one): is the measurement right?",
                             measured, CAL_MAX_OP_OVERHEAD_NS / 1e9, s.mean);
    hi = guess < 1 ? 1 : (uint64_t)ceil(guess);
    for (int grow = 0;; grow++) {
        if ((rc = eval(r, base, seeds, hi, &s, out, err)) != 0)
            return rc;
        keep_best(out, hi, &s, measured);
        f_hi = s.mean - measured;
        if (fabs(f_hi) <= tol) {
            out->converged = 1;
            return 0;
        }
        if (f_hi > 0)
            break;
        lo = hi;
        f_lo = f_hi;
        if (grow == 40 || (double)hi > CAL_MAX_OP_OVERHEAD_NS)
            return gms_error_set(err, GMS_EINVAL,
                                 "no op overhead up to %llu ns reaches slowdown %g (the "
                                 "simulation stays at %g): is the measurement right?",
                                 (unsigned long long)hi, measured, s.mean);
        hi *= 2;
    }

    /* Narrow [lo, hi] by regula falsi; a side kept twice in a row has its value halved
     * (Illinois), and every third step bisects, so a jump in f (a changed schedule) cannot
     * stall it. */
    int side = 0;
    for (int step = 1; hi - lo > 1 && out->simulations < 200; step++) {
        uint64_t c;
        if (step % 3 == 0)
            c = lo + (hi - lo) / 2;
        else
            c = lo + (uint64_t)llround((double)(hi - lo) * (-f_lo) / (f_hi - f_lo));
        if (c <= lo)
            c = lo + 1;
        if (c >= hi)
            c = hi - 1;
        if ((rc = eval(r, base, seeds, c, &s, out, err)) != 0)
            return rc;
        keep_best(out, c, &s, measured);
        double f = s.mean - measured;
        if (fabs(f) <= tol) {
            out->converged = 1;
            return 0;
        }
        if (f < 0) {
            lo = c;
            f_lo = f;
            if (side == -1)
                f_hi /= 2;
            side = -1;
        } else {
            hi = c;
            f_hi = f;
            if (side == 1)
                f_lo /= 2;
            side = 1;
        }
    }
    out->converged = hi - lo <= 1;
    return 0;
}
