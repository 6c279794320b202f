/*
 * sim_extra: what 'sim --seeds' and 'sim --budget-band' add to a run (see sim_extra.h): the
 * runs over seeds and at the band's edges, the cliff verdict, and their JSON and text.
 */
#include "sim_extra.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "peak_report.h"

/* The largest relative change of the overhead within the band (the mean where every seed
 * finished, else the median), or +inf when a status changes inside it. */
static double band_sensitivity(const sim_extra *x)
{
    const cal_summary *c = &x->center;
    double worst = 0;
    for (int i = 0; i < 2; i++) {
        const cal_summary *b = &x->band_runs[i];
        if ((b->status == SIM_OK) != (c->status == SIM_OK) ||
            isfinite(b->median) != isfinite(c->median))
            return INFINITY;
        double from = c->status == SIM_OK ? c->mean : c->median;
        double to = c->status == SIM_OK ? b->mean : b->median;
        if (isfinite(from) && from > 0) {
            double d = fabs(to - from) / from;
            if (d > worst)
                worst = d;
        }
    }
    return worst;
}

int sim_extra_run(const sim_trace *t, const sim_config *cfg, sim_extra *x, gms_error *err)
{
    sim_runner *r;
    int rc = sim_runner_new(t, &r, err);
    if (!rc && !(x->each = malloc((size_t)x->seeds * sizeof *x->each)))
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
    if (!rc)
        rc = cal_run_seeds_peak(r, t, cfg, x->seeds, &x->center, x->each, x->cats, &x->peak,
                                err);
    for (int i = 0; i < 2 && !rc && x->band > 0; i++) {
        sim_config bc = *cfg;
        double b = floor((double)cfg->budget * (i == 0 ? 1 - x->band : 1 + x->band));
        bc.budget = b >= 18446744073709551615.0 ? UINT64_MAX - 1 : (uint64_t)b;
        x->band_budget[i] = bc.budget;
        rc = cal_run_seeds_peak(r, t, &bc, x->seeds, &x->band_runs[i], NULL, x->cats,
                                &x->band_peak[i], err);
    }
    sim_runner_free(r);
    return rc;
}

static const char *num(double v, char *buf, size_t len)
{
    return isfinite(v) ? cli_shortest_double(v, buf, len) : "null";
}

/* The distribution over seeds: the median run, the range of the finished runs, how many
 * stopped and why, and the mean only when every seed finished. */
static void print_summary_json(const cal_summary *s)
{
    char d[6][32];
    printf("\"runs\": %u, \"ok\": %u, \"oom\": %u, \"remat_limit\": %u, \"status\": \"%s\", "
           "\"all_finished\": %s, \"median_seed\": %llu, \"median_status\": \"%s\", "
           "\"overhead_median\": %s, \"overhead_min\": %s, \"overhead_max\": %s, "
           "\"overhead_mean\": %s, \"overhead_sd\": %s",
           s->runs, s->ok, s->oom, s->limit, sim_status_name(s->status),
           s->ok == s->runs ? "true" : "false", (unsigned long long)s->median_seed,
           sim_status_name(s->median_run.status), num(s->median, d[0], sizeof d[0]),
           s->ok ? num(s->min, d[1], sizeof d[1]) : "null",
           s->ok ? num(s->max, d[2], sizeof d[2]) : "null", num(s->mean, d[3], sizeof d[3]),
           num(s->sd, d[4], sizeof d[4]));
}

/* A band edge's "peak_at": its median seed's run's peak (null when not followed). */
static void print_peak_json(const sim_extra *x, int i)
{
    char *q = x->cats ? peak_report_run_json(&x->band_peak[i], x->band_runs[i].median_seed,
                                             x->seeds)
                      : NULL;
    printf(", \"peak_at\": %s", q ? q : "null");
    free(q);
}

void sim_extra_free(sim_extra *x)
{
    free(x->each);
    x->each = NULL;
}

/* The --seeds and --budget-band members, appended to the JSON object. */
void sim_extra_print_json(const sim_extra *x)
{
    if (x->seeds > 1) {
        char d[32];
        printf(", \"seeds\": {");
        print_summary_json(&x->center);
        printf(", \"overheads\": [");
        for (unsigned i = 0; i < x->seeds; i++)
            printf("%s%s", i ? ", " : "", num(x->each[i], d, sizeof d));
        printf("]}");
    }
    if (x->band > 0) {
        char d1[32], d2[32];
        double sens = band_sensitivity(x);
        printf(", \"budget_band\": {\"band\": %s, \"low\": {\"budget\": %llu, ",
               cli_shortest_double(x->band, d1, sizeof d1), (unsigned long long)x->band_budget[0]);
        print_summary_json(&x->band_runs[0]);
        print_peak_json(x, 0);
        printf("}, \"high\": {\"budget\": %llu, ", (unsigned long long)x->band_budget[1]);
        print_summary_json(&x->band_runs[1]);
        print_peak_json(x, 1);
        printf("}, \"sensitivity\": %s, \"cliff\": %s}",
               isinf(sens) ? "null" : cli_shortest_double(sens, d2, sizeof d2),
               sens > SIM_CLIFF ? "true" : "false");
    }
}

static void print_summary_text(const cal_summary *s)
{
    if (s->runs == 1) {
        if (s->ok)
            printf("%.6f", s->median);
        else
            printf("- (%s)", sim_status_name(s->status));
        return;
    }
    if (isfinite(s->median))
        printf("median %.6f of %u seeds (seed %llu)", s->median, s->runs,
               (unsigned long long)s->median_seed);
    else
        printf("median of %u seeds: stopped (%s, seed %llu)", s->runs,
               sim_status_name(s->median_run.status), (unsigned long long)s->median_seed);
    if (s->ok)
        printf(", min %.6f, max %.6f", s->min, s->max);
    if (s->ok == s->runs)
        printf("; mean %.6f, sd %.6f", s->mean, s->sd);
    else
        printf("; %u of %u stopped (%u oom, %u remat-limit), so no mean", s->runs - s->ok,
               s->runs, s->oom, s->limit);
}

void sim_extra_print_text(const sim_extra *x)
{
    if (x->seeds > 1) {
        printf("seeds            ");
        print_summary_text(&x->center);
        printf("\n");
    }
    if (x->band > 0) {
        const char *side[2] = {"-", "+"};
        for (int i = 0; i < 2; i++) {
            printf("budget %s%g%%%*s%llu B: overhead ", side[i], x->band * 100, 4, "",
                   (unsigned long long)x->band_budget[i]);
            print_summary_text(&x->band_runs[i]);
            if (x->cats) {
                const sim_peak *p = &x->band_peak[i];
                printf("; peak %llu B at op %llu %s (%s)", (unsigned long long)p->memory,
                       (unsigned long long)p->op_index, p->op, sim_phase_name(p->phase));
            }
            printf("\n");
        }
        double sens = band_sensitivity(x);
        if (isinf(sens))
            printf("budget band      ON A CLIFF: the run's status changes within +-%g%% of the "
                   "budget\n", x->band * 100);
        else if (sens > SIM_CLIFF)
            printf("budget band      ON A CLIFF: the overhead moves by %.1f%% within +-%g%% of "
                   "the budget; a prediction here is only as good as the budget is exact\n",
                   sens * 100, x->band * 100);
        else
            printf("budget band      flat: the overhead moves by %.2f%% within +-%g%% of the "
                   "budget\n", sens * 100, x->band * 100);
    }
}
