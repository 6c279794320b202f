/* sim_store: sim --db stores its run as a sweep would (sim_store.h). */
#include <string.h>

#include "sim_store.h"
#include "sweep.h"

const char *sim_store_refusal(const sim_config *cfg, const char *kineto)
{
    if (kineto)
        return "--kineto: a store keys runs by the trace file's content, so an Execution "
               "Trace with and without its Kineto timings would share a key; convert it with "
               "its timings first (gpumemsim convert ET --kineto K -o ET.gmt) and run the .gmt";
    if (cfg->seed > UINT32_MAX)
        return "--seed above 4294967295: a stored run's seed is 32 bits, as in a sweep";
    return NULL;
}

int sim_store_run(const sim_store_req *q, const sim_config *cfg, int *added, gms_error *err)
{
    const char *traces[] = {q->trace}, *policies[] = {q->policy_id};
    const char *allocators[] = {q->allocator};
    double ratio = q->ratio > 0 ? q->ratio : 0;
    uint64_t bytes = q->ratio > 0 ? 0 : q->bytes;
    sweep_spec sp = {
        .traces = traces, .n_traces = 1, .policies = policies, .n_policies = 1,
        .ratios = &ratio, .n_ratios = 1, .budget_bytes = bytes ? &bytes : NULL,
        .seeds = q->seeds ? q->seeds : 1, .seed0 = cfg->seed, .remat_limit = cfg->remat_limit,
        .shard_k = 1, .shard_n = 1, .jobs = 1,
        .allocators = allocators, .n_allocators = 1, .alloc_conf = q->alloc_conf,
        .sample = cfg->sample, .op_overhead_ns = cfg->op_overhead_ns,
        .search_cost_ns = cfg->search_cost_ns, .evict_cost_ns = cfg->evict_cost_ns,
        .policy_args = cfg->planner ? cfg->planner_params : NULL,
        .link_gbps = cfg->link_gbps, .link_latency_ns = cfg->link_latency_ns,
        .host_memory = cfg->host_memory == UINT64_MAX ? 0 : cfg->host_memory,
    };
    sweep_progress sum = {0};
    if (sweep_run(&sp, q->db, &sum, err) != 0)
        return -1;
    *added = sum.done > 0;
    return 0;
}
