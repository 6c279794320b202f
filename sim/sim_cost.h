/*
 * sim_cost: the runtime-cost model (docs/fidelity.md). A real DTR runtime pays costs a trace
 * does not record: a fixed cost per op it dispatches (its wrapper's bookkeeping), a cost per
 * candidate it scores when it searches for a victim, and a cost per eviction. The engine
 * calls these three hooks at those moments; each adds its cost to the simulated clock (so
 * later staleness sees it, as on the real runtime) and keeps its own total for the result.
 * With every cost 0 (the default) only the counters move: the clock and every choice stay
 * simrd's.
 */
#ifndef SIM_COST_H
#define SIM_COST_H

#include "sim_internal.h"

static inline void sim_cost_reset(sim_view *v, const sim_config *cfg)
{
    v->cost = (sim_cost_state){.op_ns = cfg->op_overhead_ns,
                               .search_ns = cfg->search_cost_ns,
                               .evict_ns = cfg->evict_cost_ns};
}

/* Op o ran (first run or rematerialization). CONSTANTs (no arguments, no cost) run nothing on
 * a device and pay nothing. */
static inline void sim_cost_on_op(sim_view *v, const sim_op *op)
{
    if (op->n_args == 0 && op->cost == 0)
        return;
    v->cost.ops++;
    v->clock += v->cost.op_ns;
}

/* An eviction search scored n candidates. */
static inline void sim_cost_on_search(sim_view *v, uint64_t n)
{
    v->cost.candidates += n;
    v->clock += n * v->cost.search_ns;
}

/* The policy's victim was evicted. */
static inline void sim_cost_on_evict(sim_view *v)
{
    v->clock += v->cost.evict_ns;
}

static inline void sim_cost_finish(const sim_view *v, sim_result *res)
{
    res->ops_executed = v->cost.ops;
    res->candidates = v->cost.candidates;
    res->op_overhead_ns = v->cost.ops * v->cost.op_ns;
    res->search_ns = v->cost.candidates * v->cost.search_ns;
    res->evict_ns = v->evictions * v->cost.evict_ns;
}

#endif
