/*
 * opt_schedule: cost, memory and correctness of a schedule under Checkmate's program, and the
 * schedules the program is seeded and compared with.
 */
#include "opt_schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

opt_schedule *opt_schedule_new(uint32_t n)
{
    opt_schedule *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->n = n;
    size_t cells = (size_t)n * n + 1;
    s->R = calloc(cells, 1);
    s->S = calloc(cells, 1);
    if (!s->R || !s->S) {
        opt_schedule_free(s);
        return NULL;
    }
    return s;
}

void opt_schedule_free(opt_schedule *s)
{
    if (!s)
        return;
    free(s->R);
    free(s->S);
    free(s);
}

int opt_schedule_frees(const opt_graph *g, const opt_schedule *s, uint32_t t, uint32_t i,
                       uint32_t k)
{
    uint32_t n = g->n;
    const uint8_t *r = s->R + (size_t)t * n;
    if (!r[k])
        return 0;
    if (t + 1 < n && s->S[(size_t)(t + 1) * n + i])
        return 0;
    for (uint32_t p = g->succ_off[i]; p < g->succ_off[i + 1]; p++)
        if (g->succ[p] > k && r[g->succ[p]])
            return 0;
    return 1;
}

double opt_schedule_cost(const opt_graph *g, const opt_schedule *s)
{
    double sum = 0;
    for (uint32_t t = 0; t < g->n; t++)
        for (uint32_t i = 0; i < g->n; i++)
            if (s->R[(size_t)t * g->n + i])
                sum += g->nodes[i].cost;
    return sum;
}

/* The program's U[t][k] for k = 0..t, its maximum. */
static uint64_t stage_peak(const opt_graph *g, const opt_schedule *s, uint32_t t)
{
    uint32_t n = g->n;
    const uint8_t *r = s->R + (size_t)t * n, *st = s->S + (size_t)t * n;
    uint64_t used = r[0] ? g->nodes[0].bytes : 0;
    for (uint32_t i = 0; i < n; i++)
        if (st[i])
            used += g->nodes[i].bytes;
    uint64_t peak = used;
    for (uint32_t k = 0; k < t; k++) {
        for (uint32_t e = g->pred_edge_off[k]; e < g->pred_edge_off[k + 1]; e++)
            if (opt_schedule_frees(g, s, t, g->edges[e].u, k))
                used -= g->nodes[g->edges[e].u].bytes;
        if (r[k + 1])
            used += g->nodes[k + 1].bytes;
        if (used > peak)
            peak = used;
    }
    return peak;
}

uint64_t opt_schedule_peak(const opt_graph *g, const opt_schedule *s)
{
    uint64_t peak = 0;
    for (uint32_t t = 0; t < g->n; t++) {
        uint64_t p = stage_peak(g, s, t);
        if (p > peak)
            peak = p;
    }
    return peak;
}

int opt_schedule_check(const opt_graph *g, const opt_schedule *s, char *why, size_t len)
{
    uint32_t n = g->n;
    char dummy[8];
    if (!why)
        why = dummy, len = sizeof dummy;
    for (uint32_t t = 0; t < n; t++) {
        const uint8_t *r = s->R + (size_t)t * n, *st = s->S + (size_t)t * n;
        if (!r[t]) {
            snprintf(why, len, "stage %u does not compute node %u", t, t);
            return -1;
        }
        for (uint32_t i = 0; i < n; i++) {
            if ((i > t && r[i]) || (i >= t && st[i])) {
                snprintf(why, len, "stage %u %s node %u, which is not yet scheduled", t,
                         r[i] ? "computes" : "keeps", i);
                return -1;
            }
            if (t + 1 < n && s->S[(size_t)(t + 1) * n + i] && !st[i] && !r[i]) {
                snprintf(why, len, "stage %u keeps node %u, which stage %u neither kept nor "
                         "computed", t + 1, i, t);
                return -1;
            }
        }
        for (uint32_t e = 0; e < g->n_edges; e++) {
            uint32_t u = g->edges[e].u, v = g->edges[e].v;
            if (r[v] && !r[u] && !st[u]) {
                snprintf(why, len, "stage %u computes node %u without its input %u", t, v, u);
                return -1;
            }
        }
    }
    return 0;
}

void opt_schedule_solve_r(const opt_graph *g, opt_schedule *s)
{
    uint32_t n = g->n;
    memset(s->R, 0, (size_t)n * n);
    for (uint32_t t = 0; t < n; t++) {
        uint8_t *r = s->R + (size_t)t * n;
        const uint8_t *st = s->S + (size_t)t * n;
        r[t] = 1;
        if (t + 1 < n)
            for (uint32_t i = 0; i < n; i++)
                if (s->S[(size_t)(t + 1) * n + i] && !st[i])
                    r[i] = 1;
        for (uint32_t v = t + 1; v-- > 0;)
            if (r[v])
                for (uint32_t k = 0; k < g->nodes[v].n_inputs; k++) {
                    uint32_t u = g->nodes[v].inputs[k];
                    if (!st[u])
                        r[u] = 1;
                }
    }
}

/* 1 when some consumer of i runs after stage t. */
static int needed_after(const opt_graph *g, uint32_t i, uint32_t t)
{
    uint32_t last = g->succ_off[i + 1];
    return last > g->succ_off[i] && g->succ[last - 1] > t;
}

void opt_schedule_checkpoint_all(const opt_graph *g, opt_schedule *s)
{
    uint32_t n = g->n;
    memset(s->S, 0, (size_t)n * n);
    for (uint32_t t = 1; t < n; t++)
        for (uint32_t i = 0; i < t; i++)
            s->S[(size_t)t * n + i] = (uint8_t)needed_after(g, i, t - 1);
    opt_schedule_solve_r(g, s);
}

/* Stage t's R from its checkpoints: node t and, recursively, every input not kept. */
static void stage_closure(const opt_graph *g, opt_schedule *s, uint32_t t)
{
    uint32_t n = g->n;
    uint8_t *r = s->R + (size_t)t * n;
    const uint8_t *st = s->S + (size_t)t * n;
    memset(r, 0, n);
    r[t] = 1;
    for (uint32_t v = t + 1; v-- > 0;)
        if (r[v])
            for (uint32_t k = 0; k < g->nodes[v].n_inputs; k++)
                if (!st[g->nodes[v].inputs[k]])
                    r[g->nodes[v].inputs[k]] = 1;
}

/* The compute of stage t's R. */
static double stage_cost(const opt_graph *g, const opt_schedule *s, uint32_t t)
{
    const uint8_t *r = s->R + (size_t)t * g->n;
    double c = 0;
    for (uint32_t i = 0; i <= t; i++)
        if (r[i])
            c += g->nodes[i].cost;
    return c;
}

/* Stage t from its checkpoints st = S[t] and the outputs banned from the next stage: R the
 * closure, S[t+1] what later stages need of st and R, less the banned. Returns the peak. */
static uint64_t stage_eval(const opt_graph *g, opt_schedule *s, uint32_t t, const uint8_t *ban)
{
    uint32_t n = g->n;
    const uint8_t *st = s->S + (size_t)t * n, *r = s->R + (size_t)t * n;
    stage_closure(g, s, t);
    if (t + 1 < n) {
        uint8_t *next = s->S + (size_t)(t + 1) * n;
        memset(next, 0, n);
        for (uint32_t i = 0; i <= t; i++)
            next[i] = (uint8_t)((st[i] || r[i]) && !ban[i] && needed_after(g, i, t));
    }
    return stage_peak(g, s, t);
}

int opt_schedule_greedy(const opt_graph *g, uint64_t budget, opt_schedule *s)
{
    uint32_t n = g->n;
    memset(s->R, 0, (size_t)n * n);
    memset(s->S, 0, (size_t)n * n);
    uint8_t *ban = calloc((size_t)n + 1, 1);
    if (!ban)
        return -1;
    int rc = 0;
    for (uint32_t t = 0; t < n && rc == 0; t++) {
        uint8_t *st = s->S + (size_t)t * n;
        uint8_t *next = t + 1 < n ? s->S + (size_t)(t + 1) * n : NULL;
        memset(ban, 0, n);
        uint64_t peak = stage_eval(g, s, t, ban);
        while (peak > budget) {
            /* Try each way to lower the stage's memory: drop a checkpoint (it is then
             * recomputed where this stage needs it) or do not carry an output into the next
             * stage. Take the one that adds the least compute per byte of peak it saves. */
            double base_cost = stage_cost(g, s, t), best = 0;
            uint32_t victim = UINT32_MAX;
            int victim_drop = 0;
            for (uint32_t i = 0; i <= t; i++) {
                int in_st = i < t && st[i], in_next = next && next[i];
                if ((!in_st && !in_next) || g->nodes[i].bytes == 0)
                    continue;
                uint8_t old_st = st[i], old_ban = ban[i];
                if (in_st)
                    st[i] = 0;
                ban[i] = 1;
                uint64_t p = stage_eval(g, s, t, ban);
                double added = stage_cost(g, s, t) - base_cost +
                               (needed_after(g, i, t) ? g->nodes[i].cost : 0);
                st[i] = old_st;
                ban[i] = old_ban;
                if (p >= peak)
                    continue;
                /* Belady's hint: what is needed again soon is worth keeping */
                uint32_t next_use = t + 1;
                for (uint32_t q = g->succ_off[i]; q < g->succ_off[i + 1]; q++)
                    if (g->succ[q] > t) {
                        next_use = g->succ[q];
                        break;
                    }
                double score = added / ((double)(peak - p) * (double)(next_use - t));
                if (victim == UINT32_MAX || score < best)
                    victim = i, best = score, victim_drop = in_st;
            }
            if (victim == UINT32_MAX) {
                rc = -1;
                break;
            }
            if (victim_drop)
                st[victim] = 0;
            ban[victim] = 1;
            peak = stage_eval(g, s, t, ban);
        }
    }
    free(ban);
    return rc;
}
