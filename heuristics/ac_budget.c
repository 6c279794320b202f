/*
 * ac-budget: torch.compile's activation memory budget (torch._functorch.config
 * .activation_memory_budget) on a trace's iteration (docs/planners.md, "ac-budget"). The
 * iteration's ops are the joint graph (forward ops before its ANNOTATE BACKWARD, backward
 * ops after); knobs/ac_partition.c chooses the saved values as choose_saved_values_set does;
 * the engine carries the choice out: every layer is a checkpointed unit whose saved ops
 * (sim_plan.save_op) are the partitioner's saved values; at a layer's end what it made and
 * did not save is freed (unless a later forward op reads it), and when backward needs a
 * value that was not saved it is recomputed alone from its producer, missing inputs first
 * (sim_plan.no_hold): the partitioned backward graph's recomputation, in the order backward
 * needs the values.
 *
 *   budget=B      0..1 (default 1, torch's default)
 *   solver=S      dp (default, torch's) | greedy | ilp (an exact search: the MILP's optimum)
 *   estimator=E   flops (default, torch's): the ops FlopCounterMode counts get their trace
 *                 cost (the trace keeps no shapes; a roofline cost is proportional to flops
 *                 for these compute-bound ops), every other op 1, as max(flops, 1) gives
 *                 them; trace: every op its measured cost (torch's "profile")
 */
#include <stdlib.h>
#include <string.h>

#include "ac_partition.h"
#include "knob_params.h"
#include "planners.h"
#include "sim_dataflow.h"
#include "sim_layers.h"

typedef struct acb_state {
    const sim_layers *layers;
    double budget;
    ac_solver solver;
    int trace_costs;
} acb_state;

static int init(const struct sim_config *cfg, const struct sim_layers *layers,
                const char *params, void **state, gms_error *err)
{
    (void)cfg;
    knob_acb_params p;
    int rc = knob_acb_params_parse(params, &p, err);
    if (rc)
        return rc;
    for (uint32_t it = 0; it < sim_layers_iterations(layers); it++) {
        const sim_iteration_span *sp = sim_layers_iteration(layers, it);
        if (sp->backward_op >= sp->end_op && sp->end_op > sp->first_op)
            return gms_error_set(err, GMS_EINVAL,
                                 "ac-budget: iteration %u has no backward pass (no ANNOTATE "
                                 "BACKWARD marker): torch.compile partitions a joint forward "
                                 "and backward graph; record or import the trace with its "
                                 "backward marker", it);
    }
    acb_state *s = calloc(1, sizeof *s);
    if (!s)
        return gms_error_set(err, GMS_ENOMEM, "ac-budget: out of memory");
    s->layers = layers, s->budget = p.budget, s->trace_costs = p.trace_costs;
    s->solver = p.solver == 1 ? AC_SOLVER_GREEDY : p.solver == 2 ? AC_SOLVER_ILP : AC_SOLVER_DP;
    *state = s;
    return 0;
}

static void state_free(void *state)
{
    free(state);
}

static int plan(void *state, const sim_plan_request *req, sim_plan *out, gms_error *err)
{
    acb_state *s = state;
    for (uint32_t i = 0; i < req->n_layers; i++)
        out->checkpoint[i] = 1;
    out->no_hold = 1;
    if (req->n_layers == 0 || !out->save_op)
        return 0;
    const sim_iteration_span *sp = sim_layers_iteration(s->layers, req->iteration);
    sim_flow *f = NULL;
    int rc = sim_flow_build(sim_layers_trace(s->layers), sp->first_op, sp->end_op, &f, err);
    if (rc)
        return rc;
    uint32_t n = f->n_ops;
    size_t nn = n ? n : 1;
    ac_node *nd = calloc(nn, sizeof *nd);
    char (*names)[KNOB_OP_NAME] = malloc(nn * sizeof *names);
    uint32_t *uoff = calloc(nn + 1, sizeof *uoff), *users = NULL, *fill = calloc(nn, sizeof *fill);
    uint8_t *saved = malloc(nn);
    if (!nd || !names || !uoff || !fill || !saved) {
        rc = gms_error_set(err, GMS_ENOMEM, "ac-budget: out of memory");
        goto done;
    }
    for (uint32_t v = 0; v < n; v++)
        for (uint32_t q = 0; q < f->ops[v].n_inputs; q++)
            uoff[f->inputs[f->ops[v].inputs_off + q] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        uoff[i + 1] += uoff[i];
    if (!(users = malloc(((size_t)uoff[n] + 1) * sizeof *users))) {
        rc = gms_error_set(err, GMS_ENOMEM, "ac-budget: out of memory");
        goto done;
    }
    for (uint32_t v = 0; v < n; v++)
        for (uint32_t q = 0; q < f->ops[v].n_inputs; q++) {
            uint32_t u = f->inputs[f->ops[v].inputs_off + q];
            users[uoff[u] + fill[u]++] = v;
        }
    for (uint32_t k = 0; k < n; k++) {
        const sim_flow_op *o = &f->ops[k];
        ac_node *x = &nd[k];
        knob_op_base(o->name, names[k], sizeof names[k]);
        x->op = names[k];
        x->backward = o->op >= sp->backward_op;
        /* _size_of: a view's own bytes are 0 in the trace; it stands for what it views */
        x->size = (double)o->bytes;
        if (o->bytes == 0 && o->n_inputs > 0)
            x->size = nd[f->inputs[o->inputs_off]].size;
        x->runtime = s->trace_costs || ac_op_has_flops(x->op) ? (double)o->cost : 1;
        if (!s->trace_costs && x->runtime < 1)
            x->runtime = 1; /* max(counted_flops, 1) */
        x->args = f->inputs + o->inputs_off;
        x->n_args = o->n_inputs;
        x->users = users + uoff[k];
        x->n_users = uoff[k + 1] - uoff[k];
    }
    ac_choice ch = {.saved = saved};
    if ((rc = ac_choose_saved(nd, n, s->budget, s->solver, &ch, err)) != 0)
        goto done;
    for (uint32_t k = 0; k < n; k++)
        if (saved[k] && f->ops[k].op < sp->backward_op)
            out->save_op[f->ops[k].op - sp->first_op] = 1;
done:
    free(nd), free(names), free(uoff), free(users), free(fill), free(saved);
    sim_flow_free(f);
    return rc;
}

const sim_planner planner_ac_budget = {
    .name = "ac-budget",
    .description = "planner: torch.compile's activation memory budget (budget=0..1, "
                   "solver=dp|greedy|ilp, ilp = exact branch and bound)",
    .init = init,
    .free = state_free,
    .plan = plan,
};
