/*
 * peak_breakdown TRACE [ITERATION]: where the authors' op-level graph (`graph`, default) holds
 * more or less memory than the replay's baseline, at the graph's peak stage (docs/optimal.md,
 * "Why the authors' op-level graph peaks above the trace"). Under the schedule that computes
 * each node once and keeps each output until its node's last reader (opt_graph_peak), stage k
 * holds constant_bytes, node k and the kept nodes; the baseline holds, right after op k's
 * compute, every storage made and not yet released. Each storage that one holds and the other
 * does not falls in one class; the classes sum to the difference (checked at every stage).
 * Also prints the peak of the --coarsen outputs graph. A measuring tool, not a test.
 */
#include <stdio.h>
#include <stdlib.h>

#include "opt_extract.h"
#include "opt_schedule.h"
#include "sim_dataflow.h"
#include "sim_internal.h"
#include "sim_layers.h"

#define NEVER UINT32_MAX

enum { MULTI, VIEW, READ_LATER, BEFORE, CONST_INSIDE, OUTLIVES, HELD, N_CLASSES };
static const char *class_name[N_CLASSES] = {
    "a sibling output of the same op is read later (multi-output node)",
    "held for a view's reader (the view op's own outputs)",
    "read later (should not happen)",
    "made before the iteration, already released (constant_bytes)",
    "a CONSTANT of the iteration not made yet or released (constant_bytes)",
    "outlives the iteration, not made yet (constant_bytes)",
    "held by the replay after its last reader (the program frees at last use)",
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: peak_breakdown TRACE [ITERATION]\n");
        return 2;
    }
    uint32_t it = argc > 2 ? (uint32_t)atoi(argv[2]) : 0;
    sim_trace *t;
    sim_layers *L;
    sim_flow *f;
    opt_graph *g, *go;
    gms_error err = {0};
    if (sim_trace_load(argv[1], &t, &err) || sim_layers_build(t, &L, &err) ||
        it >= sim_layers_iterations(L)) {
        fprintf(stderr, "peak_breakdown: %s\n", err.msg[0] ? err.msg : "no such iteration");
        return 1;
    }
    const sim_iteration_span *sp = sim_layers_iteration(L, it);
    uint32_t F = sp->first_op, E = sp->end_op, ns = t->n_storages;
    if (sim_flow_build(t, F, E, &f, &err) ||
        opt_graph_from_trace(t, it, OPT_COARSEN_NONE, &g, NULL, &err) ||
        opt_graph_from_trace(t, it, OPT_COARSEN_OUTPUTS, &go, NULL, &err)) {
        fprintf(stderr, "peak_breakdown: %s\n", err.msg);
        return 1;
    }
    opt_schedule *s = opt_schedule_new(g->n);
    uint32_t *rel = malloc((ns + 1) * sizeof *rel), *made = malloc((ns + 1) * sizeof *made);
    uint32_t *last_read = malloc((ns + 1) * sizeof *last_read);
    uint32_t *node_of = malloc((t->n_ops + 1) * sizeof *node_of);
    uint64_t *base = calloc(t->n_ops + 1, sizeof *base);
    if (!s || !rel || !made || !last_read || !node_of || !base)
        return 1;
    opt_schedule_checkpoint_all(g, s);
    for (uint32_t x = 0; x < ns; x++)
        rel[x] = NEVER, made[x] = t->tensors[t->storages[x].root].op, last_read[x] = NEVER;
    /* the baseline right after each compute; when each storage is released (the next op) */
    uint64_t mem = 0, it_peak = 0;
    uint32_t next = 0;
    for (uint32_t i = 0; i < t->n_schedule; i++) {
        uint32_t e = t->schedule[i], x = SCH_INDEX(e);
        if (SCH_KIND(e) == SCH_COMPUTE) {
            base[x] = mem += t->ops[x].total_size;
            next = x + 1;
            if (x >= F && x < E && mem > it_peak)
                it_peak = mem;
        } else if (SCH_KIND(e) == SCH_RELEASE_LAST && x < ns) {
            mem -= t->storages[x].size;
            rel[x] = next;
        }
    }
    for (uint32_t o = 0; o < t->n_ops; o++) {
        node_of[o] = NEVER;
        for (uint32_t a = 0; a < t->ops[o].n_args; a++)
            last_read[t->tensors[t->args[t->ops[o].args_off + a]].storage] = o;
    }
    for (uint32_t i = 0; i < f->n_ops; i++)
        node_of[f->ops[i].op] = i;
    /* the graph's peak stage */
    uint32_t k = 0;
    uint64_t peak = 0;
    for (uint32_t v = 0; v < g->n; v++) {
        uint64_t p = g->nodes[v].bytes;
        for (uint32_t j = 0; j < v; j++)
            if (s->S[(size_t)v * g->n + j])
                p += g->nodes[j].bytes;
        if (p > peak)
            peak = p, k = v;
    }
    uint32_t o = f->ops[k].op;
    uint64_t cls[N_CLASSES] = {0};
    for (uint32_t x = 0; x < ns; x++) {
        uint64_t sz = t->storages[x].size;
        uint32_t m = made[x], j = m >= F && m < E ? node_of[m] : NEVER;
        int live = m <= o && rel[x] > o;
        if (m < F) {
            cls[BEFORE] += rel[x] > F && !live ? sz : 0;
            continue;
        }
        if (m >= E)
            continue;
        if (j == NEVER) {
            cls[CONST_INSIDE] += live ? 0 : sz;
            continue;
        }
        if (rel[x] == NEVER || rel[x] > E) {
            cls[OUTLIVES] += live ? 0 : sz;
            continue;
        }
        int held = j == k || (j < k && s->S[(size_t)k * g->n + j]);
        if (held && !live) {
            int sibling = 0;
            for (uint32_t q = 0; q < ns; q++)
                sibling |= q != x && made[q] == m && last_read[q] != NEVER && last_read[q] >= o &&
                           rel[q] != NEVER && rel[q] <= E;
            cls[last_read[x] != NEVER && last_read[x] >= o ? READ_LATER
                : sibling                                 ? MULTI
                                                          : VIEW] += sz;
        } else if (!held && live) {
            cls[HELD] += sz;
        }
    }
    int64_t sum = 0;
    for (int c = 0; c < N_CLASSES; c++)
        sum += c == HELD ? -(int64_t)cls[c] : (int64_t)cls[c];
    uint64_t prog = peak + g->constant_bytes;
    printf("trace %s, iteration %u (ops %u..%u), %u nodes\n", argv[1], it, F, E - 1, g->n);
    printf("authors' op graph peak: stage %u (op %u, %s): %llu B\n", k, o,
           t->strings + t->ops[o].name, (unsigned long long)prog);
    printf("baseline after op %u: %llu B; the iteration's baseline peak %llu B\n", o,
           (unsigned long long)base[o], (unsigned long long)it_peak);
    printf("difference %lld B =\n", (long long)prog - (long long)base[o]);
    for (int c = 0; c < N_CLASSES; c++)
        printf("  %s%llu  %s\n", c == HELD ? "-" : "+", (unsigned long long)cls[c], class_name[c]);
    printf("  (classes sum to %lld)\n", (long long)sum);
    printf("--coarsen outputs graph: %u nodes, peak %llu B (iteration baseline - %lld)\n", go->n,
           (unsigned long long)opt_graph_peak(go), (long long)it_peak - (long long)opt_graph_peak(go));
    return sum == (int64_t)prog - (int64_t)base[o] ? 0 : 1;
}
