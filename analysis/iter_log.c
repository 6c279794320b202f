/* iter_log: per-iteration reports of planner runs, kept and printed (iter_log.h). */
#include "iter_log.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_layers.h"
#include "sim_plan_report.h"

static char *plan_names(const sim_iteration_report *r)
{
    size_t len = 1;
    for (uint32_t i = 0; i < r->n_layers; i++)
        if (r->checkpoint[i])
            len += strlen(sim_layers_at(r->layers, r->first_layer + i)->name) + 1;
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    *p = 0;
    for (uint32_t i = 0; i < r->n_layers; i++) {
        if (!r->checkpoint[i])
            continue;
        const char *nm = sim_layers_at(r->layers, r->first_layer + i)->name;
        p += sprintf(p, "%s%s", p == s ? "" : ",", nm);
    }
    return s;
}

void iter_log_observe(void *ctx, const sim_iteration_report *r)
{
    iter_log *l = ctx;
    if (l->closed || l->failed)
        return;
    if (l->n && r->iteration <= l->recs[l->n - 1].iteration) {
        l->closed = 1;
        return;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        iter_rec *nr = realloc(l->recs, cap * sizeof *nr);
        if (!nr) {
            l->failed = 1;
            return;
        }
        l->recs = nr;
        l->cap = cap;
    }
    iter_rec *x = &l->recs[l->n];
    *x = (iter_rec){
        .iteration = r->iteration,
        .input_size = r->input_size,
        .status = r->status,
        .start_memory = r->start_memory,
        .peak_memory = r->peak_memory,
        .predicted_peak = r->predicted_peak,
        .cache_hit = r->cache_hit,
        .plan_ns = r->plan_ns,
        .clock_ns = r->clock_ns,
        .compute_ns = r->compute_ns,
        .recompute_ns = r->recompute_ns,
        .n_layers = r->n_layers,
        .n_checkpointed = r->n_checkpointed,
        .plan = plan_names(r),
    };
    if (!x->plan) {
        l->failed = 1;
        return;
    }
    l->n++;
}

void iter_log_free(iter_log *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->recs[i].plan);
    free(l->recs);
    memset(l, 0, sizeof *l);
}

double iter_rec_overhead(const iter_rec *r)
{
    return r->compute_ns ? (double)r->clock_ns / (double)r->compute_ns : 1.0;
}

static const char *num(double d, char *buf, size_t len)
{
    /* shortest round-trip */
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, len, "%.*g", p, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    return buf;
}

void iter_log_print_json(const iter_log *l, const sim_result *res)
{
    char a[32], b[32], c[32], d[32];
    uint32_t asked = res->cache_hits + res->cache_misses;
    printf(", \"planner\": {\"iterations\": %u, \"predicted\": %u, \"pred_err_mean\": %s, "
           "\"pred_err_max\": %s, \"cache_hits\": %u, \"cache_misses\": %u, "
           "\"cache_hit_rate\": %s, \"plan_s\": %s, \"checkpoints\": %llu}",
           res->plan_iterations, res->plan_predicted,
           res->plan_predicted ? num(res->pred_err_mean, a, sizeof a) : "null",
           res->plan_predicted ? num(res->pred_err_max, b, sizeof b) : "null", res->cache_hits,
           res->cache_misses, asked ? num((double)res->cache_hits / asked, c, sizeof c) : "null",
           num(res->plan_s, d, sizeof d), (unsigned long long)res->checkpoints);
    printf(", \"iterations\": [");
    for (size_t i = 0; i < l->n; i++) {
        const iter_rec *r = &l->recs[i];
        json_t *js = json_string(r->plan);
        char *pq = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
        json_decref(js);
        char in[32];
        if (r->input_size >= 0)
            snprintf(in, sizeof in, "%lld", (long long)r->input_size);
        else
            snprintf(in, sizeof in, "null");
        printf("%s{\"iteration\": %u, \"input_size\": %s, \"status\": \"%s\", "
               "\"start_memory\": %llu, \"peak_memory\": %llu, \"predicted_peak\": %s, "
               "\"cache\": %s, \"plan_ns\": %llu, \"clock_ns\": %llu, \"compute_ns\": %llu, "
               "\"recompute_ns\": %llu, \"overhead\": %s, \"layers\": %u, "
               "\"checkpointed\": %u, \"plan\": %s}",
               i ? ", " : "", r->iteration, in, sim_status_name(r->status),
               (unsigned long long)r->start_memory, (unsigned long long)r->peak_memory,
               r->predicted_peak >= 0 ? num(r->predicted_peak, a, sizeof a) : "null",
               r->cache_hit < 0 ? "null" : r->cache_hit ? "\"hit\"" : "\"miss\"",
               (unsigned long long)r->plan_ns, (unsigned long long)r->clock_ns,
               (unsigned long long)r->compute_ns, (unsigned long long)r->recompute_ns,
               num(iter_rec_overhead(r), b, sizeof b), r->n_layers, r->n_checkpointed,
               pq ? pq : "\"\"");
        free(pq);
    }
    printf("]");
}

void iter_log_print_text(const iter_log *l, const sim_result *res)
{
    uint64_t ck = 0, layers = 0;
    for (size_t i = 0; i < l->n; i++) {
        ck += l->recs[i].n_checkpointed;
        layers += l->recs[i].n_layers;
    }
    printf("planner          %u iterations planned, %llu of %llu layers checkpointed, "
           "%.6f s planning\n",
           res->plan_iterations, (unsigned long long)ck, (unsigned long long)layers,
           res->plan_s);
    if (res->plan_predicted)
        printf("prediction       peak error %.2f%% mean, %.2f%% max over %u iterations\n",
               100 * res->pred_err_mean, 100 * res->pred_err_max, res->plan_predicted);
    if (res->cache_hits + res->cache_misses)
        printf("plan cache       %u hits, %u misses (%.1f%% hit rate)\n", res->cache_hits,
               res->cache_misses,
               100.0 * res->cache_hits / (double)(res->cache_hits + res->cache_misses));
}
