/*
 * sim_extra: what 'sim --seeds' and 'sim --budget-band' add to a run (see sim_extra.h): the
 * runs over seeds and at the band's edges, the cliff verdict, and their JSON and text.
 */
#include "sim_extra.h"

#include <math.h>
#include <stdio.h>

#include "cli.h"

/* The largest relative change of the mean overhead within the band, or +inf when a status
 * changes inside it. */
static double band_sensitivity(const sim_extra *x)
{
    double worst = 0;
    for (int i = 0; i < 2; i++) {
        const cal_summary *b = &x->band_runs[i];
        if ((b->status == SIM_OK) != (x->center.status == SIM_OK))
            return INFINITY;
        if (b->status == SIM_OK && x->center.mean > 0) {
            double d = fabs(b->mean - x->center.mean) / x->center.mean;
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
    if (!rc)
        rc = cal_run_seeds(r, cfg, x->seeds, &x->center, err);
    for (int i = 0; i < 2 && !rc && x->band > 0; i++) {
        sim_config bc = *cfg;
        double b = floor((double)cfg->budget * (i == 0 ? 1 - x->band : 1 + x->band));
        bc.budget = b >= 18446744073709551615.0 ? UINT64_MAX - 1 : (uint64_t)b;
        x->band_budget[i] = bc.budget;
        rc = cal_run_seeds(r, &bc, x->seeds, &x->band_runs[i], err);
    }
    sim_runner_free(r);
    return rc;
}

static void print_summary_json(const cal_summary *s)
{
    char d1[32], d2[32], d3[32], d4[32];
    printf("\"runs\": %u, \"ok\": %u, \"status\": \"%s\", \"overhead_mean\": %s, "
           "\"overhead_min\": %s, \"overhead_max\": %s, \"overhead_sd\": %s",
           s->runs, s->ok, sim_status_name(s->status),
           s->ok ? cli_shortest_double(s->mean, d1, sizeof d1) : "null",
           s->ok ? cli_shortest_double(s->min, d2, sizeof d2) : "null",
           s->ok ? cli_shortest_double(s->max, d3, sizeof d3) : "null",
           s->ok ? cli_shortest_double(s->sd, d4, sizeof d4) : "null");
}

/* The --seeds and --budget-band members, appended to the JSON object. */
void sim_extra_print_json(const sim_extra *x)
{
    if (x->seeds > 1) {
        printf(", \"seeds\": {");
        print_summary_json(&x->center);
        printf("}");
    }
    if (x->band > 0) {
        char d1[32], d2[32];
        double sens = band_sensitivity(x);
        printf(", \"budget_band\": {\"band\": %s, \"low\": {\"budget\": %llu, ",
               cli_shortest_double(x->band, d1, sizeof d1), (unsigned long long)x->band_budget[0]);
        print_summary_json(&x->band_runs[0]);
        printf("}, \"high\": {\"budget\": %llu, ", (unsigned long long)x->band_budget[1]);
        print_summary_json(&x->band_runs[1]);
        printf("}, \"sensitivity\": %s, \"cliff\": %s}",
               isinf(sens) ? "null" : cli_shortest_double(sens, d2, sizeof d2),
               sens > SIM_CLIFF ? "true" : "false");
    }
}

static void print_summary_text(const cal_summary *s)
{
    if (s->ok && s->runs == 1)
        printf("%.6f", s->mean);
    else if (s->ok)
        printf("%.6f mean over %u seeds (min %.6f, max %.6f, sd %.6f)", s->mean, s->runs, s->min,
               s->max, s->sd);
    if (s->ok < s->runs)
        printf("%s%u of %u runs ended %s", s->ok ? "; " : "", s->runs - s->ok, s->runs,
               sim_status_name(s->status));
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
