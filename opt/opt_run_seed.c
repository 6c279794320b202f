/* opt_run_seed: a heuristic's run as a schedule of the op-level graph (opt_run_seed.h). */
#include "opt_run_seed.h"

#include <stdlib.h>
#include <string.h>

#include "sim_dataflow.h"
#include "sim_layers.h"

struct opt_run_seed {
    uint32_t first_op, end_op; /* the iteration's ops */
    uint32_t *node;            /* op - first_op -> its first node, UINT32_MAX: none */
    uint32_t *parts;           /* op - first_op -> its nodes (outputs: one per storage) */
    uint32_t n_nodes;
    /* the run: ops of the iteration in the order they ran, remat flagged in the top bit */
    uint32_t *ev;
    size_t n_ev, cap_ev;
    uint32_t computed;         /* first runs seen */
    int overflow;
};

#define REMAT_BIT 0x80000000u

int opt_run_seed_new(const sim_trace *t, uint32_t iteration, opt_coarsen coarsen,
                     opt_run_seed **out, gms_error *err)
{
    *out = NULL;
    if (coarsen != OPT_COARSEN_NONE && coarsen != OPT_COARSEN_OUTPUTS)
        return gms_error_set(err, GMS_EINVAL, "a run maps onto op-level graphs only "
                             "(--coarsen outputs or none), not %s", opt_coarsen_name(coarsen));
    sim_layers *L = NULL;
    int rc = sim_layers_build(t, &L, err);
    if (rc)
        return rc;
    uint32_t n_it = sim_layers_iterations(L);
    if (iteration >= n_it) {
        sim_layers_free(L);
        return gms_error_set(err, GMS_EINVAL, "iteration %u: the trace has %u", iteration, n_it);
    }
    const sim_iteration_span *sp = sim_layers_iteration(L, iteration);
    uint32_t first = sp->first_op, end = sp->end_op;
    sim_layers_free(L);
    sim_flow *f = NULL;
    rc = coarsen == OPT_COARSEN_OUTPUTS ? sim_flow_build_outputs(t, first, end, &f, err)
                                        : sim_flow_build(t, first, end, &f, err);
    if (rc)
        return rc;
    opt_run_seed *r = calloc(1, sizeof *r);
    size_t span = (size_t)(end - first) + 1;
    if (r) {
        r->node = malloc(span * sizeof *r->node);
        r->parts = calloc(span, sizeof *r->parts);
    }
    if (!r || !r->node || !r->parts) {
        sim_flow_free(f);
        opt_run_seed_free(r);
        return gms_error_set(err, GMS_ENOMEM, "out of memory mapping a run onto the graph");
    }
    r->first_op = first, r->end_op = end, r->n_nodes = f->n_ops;
    for (size_t i = 0; i < span; i++)
        r->node[i] = UINT32_MAX;
    for (uint32_t v = 0; v < f->n_ops; v++) {
        uint32_t o = f->ops[v].op - first;
        if (r->node[o] == UINT32_MAX)
            r->node[o] = v;
        r->parts[o]++;
    }
    sim_flow_free(f);
    *out = r;
    return 0;
}

void opt_run_seed_free(opt_run_seed *r)
{
    if (!r)
        return;
    free(r->node), free(r->parts), free(r->ev);
    free(r);
}

void opt_run_seed_reset(opt_run_seed *r)
{
    r->n_ev = 0, r->computed = 0, r->overflow = 0;
}

void opt_run_seed_observe(void *ctx, const sim_event *ev)
{
    opt_run_seed *r = ctx;
    if ((ev->kind != SIM_EV_COMPUTE && ev->kind != SIM_EV_REMAT) || r->overflow ||
        ev->op_index < r->first_op || ev->op_index >= r->end_op)
        return;
    uint32_t o = (uint32_t)(ev->op_index - r->first_op);
    if (r->node[o] == UINT32_MAX || r->computed >= r->n_nodes) /* a CONSTANT; or done */
        return;
    if (r->n_ev == r->cap_ev) {
        size_t cap = r->cap_ev ? 2 * r->cap_ev : 1024;
        uint32_t *e = realloc(r->ev, cap * sizeof *e);
        if (!e) {
            r->overflow = 1;
            return;
        }
        r->ev = e, r->cap_ev = cap;
    }
    r->ev[r->n_ev++] = o | (ev->kind == SIM_EV_REMAT ? REMAT_BIT : 0);
    if (ev->kind == SIM_EV_COMPUTE)
        r->computed += r->parts[o];
}

int opt_run_seed_schedule(const opt_run_seed *r, const opt_graph *g, opt_schedule *s)
{
    uint32_t n = g->n;
    if (r->overflow || n != r->n_nodes || r->computed != n)
        return -1;
    memset(s->R, 0, (size_t)n * n);
    memset(s->S, 0, (size_t)n * n);
    /* R: each op's first run computes its nodes in their own stages; the remats before it
     * run in the stage of its first node */
    size_t pending = 0;
    for (size_t k = 0; k < r->n_ev; k++) {
        uint32_t o = r->ev[k] & ~REMAT_BIT;
        if (r->ev[k] & REMAT_BIT)
            continue;
        uint32_t v = r->node[o];
        for (; pending < k; pending++) {
            uint32_t ro = r->ev[pending] & ~REMAT_BIT, w = r->node[ro];
            for (uint32_t q = 0; q < r->parts[ro] && w + q <= v; q++)
                s->R[(size_t)v * n + w + q] = 1;
        }
        pending = k + 1;
        for (uint32_t q = 0; q < r->parts[o]; q++)
            s->R[(size_t)(v + q) * n + v + q] = 1;
    }
    /* S by liveness, stage by stage from the last: kept into stage t is what stage t or a
     * later one reads before computing it again */
    uint8_t *need = calloc((size_t)n + 1, 1);
    if (!need)
        return -1;
    for (uint32_t t = n; t-- > 0;) {
        for (uint32_t k = t + 1; k-- > 0;)
            if (s->R[(size_t)t * n + k]) {
                need[k] = 0;
                for (uint32_t e = 0; e < g->nodes[k].n_inputs; e++)
                    need[g->nodes[k].inputs[e]] = 1;
            }
        for (uint32_t i = 0; i < t; i++)
            s->S[(size_t)t * n + i] = need[i];
    }
    free(need);
    opt_schedule_solve_r(g, s);
    return 0;
}
