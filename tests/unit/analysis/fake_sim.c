/*
 * A stand-in simulator and policy registry for the sweep unit tests: the sweep runner's own
 * logic (work list, sharding, skipping stored runs, batching) is tested against a fake whose
 * results are a known function of the run, independently of the real simulator.
 *
 * A fake trace is a text file "OPS MEMORY COMPUTE". A run is ok when budget >= MEMORY/4, with
 * overhead 1 + (MEMORY - budget)/MEMORY for budget < MEMORY (+ seed/1000 for "random").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iter_log.h"
#include "planners.h"
#include "plugin_isolate.h"
#include "registry.h"
#include "sim.h"

struct sim_trace {
    sim_baseline b;
};

struct sim_policy {
    const char *name;
};

static const struct sim_policy fake_policies[] = {{"dtr"}, {"lru"}, {"random"}};

int sim_trace_load(const char *path, sim_trace **out, gms_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gms_error_set(err, GMS_EIO, "%s: cannot open", path);
    sim_trace *t = calloc(1, sizeof *t);
    unsigned long long ops, mem, comp;
    int n = fscanf(f, "%llu %llu %llu", &ops, &mem, &comp);
    fclose(f);
    if (!t || n != 3) {
        free(t);
        return gms_error_set(err, GMS_EFORMAT, "%s: not a fake trace", path);
    }
    t->b.ops = ops;
    t->b.memory = mem;
    t->b.compute = comp;
    *out = t;
    return 0;
}

void sim_trace_free(sim_trace *t)
{
    free(t);
}

const sim_baseline *sim_trace_baseline(const sim_trace *t)
{
    return &t->b;
}

const char *sim_status_name(sim_status s)
{
    return s == SIM_OK ? "ok" : s == SIM_OOM ? "oom" : "remat-limit";
}

void sim_config_init(sim_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->budget = UINT64_MAX;
    cfg->remat_limit = 2.0;
}

int sim_run(const sim_trace *t, const sim_config *cfg, sim_result *res, gms_error *err)
{
    if (!cfg->policy)
        return gms_error_set(err, GMS_EINVAL, "no policy");
    memset(res, 0, sizeof *res);
    uint64_t mem = t->b.memory;
    res->peak_memory = cfg->budget < mem ? cfg->budget : mem;
    if (cfg->budget < mem / 4) {
        res->status = SIM_OOM;
        return 0;
    }
    double over = cfg->budget < mem ? (double)(mem - cfg->budget) / (double)mem : 0;
    if (strcmp(cfg->policy->name, "random") == 0)
        over += (double)cfg->seed / 1000.0;
    res->status = SIM_OK;
    res->overhead = 1.0 + over;
    res->evictions = (uint64_t)(over * 100);
    res->remats = res->evictions;
    if (cfg->observer) {
        sim_event ev = {.kind = SIM_EV_COMPUTE, .clock = 2, .memory = res->peak_memory,
                        .size = res->peak_memory, .op = "op"};
        cfg->observer(cfg->observer_ctx, &ev);
        ev.kind = SIM_EV_EVICT;
        ev.clock = 3;
        cfg->observer(cfg->observer_ctx, &ev);
    }
    return 0;
}

struct sim_runner {
    const sim_trace *t;
};

int sim_runner_new(const sim_trace *t, sim_runner **out, gms_error *err)
{
    if (!(*out = malloc(sizeof **out)))
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    (*out)->t = t;
    return 0;
}

int sim_runner_run(sim_runner *r, const sim_config *cfg, sim_result *res, gms_error *err)
{
    return sim_run(r->t, cfg, res, err);
}

/* The fake has no plugins; a plugin's run would be isolated, here it is simply run. */
int pol_run_isolated(sim_runner *r, const sim_config *cfg, sim_result *res, gms_error *err)
{
    return sim_runner_run(r, cfg, res, err);
}

void pol_fork_gate_enter(void)
{
}

void pol_fork_gate_leave(void)
{
}

void sim_runner_free(sim_runner *r)
{
    free(r);
}

uint64_t sim_budget_for_ratio(const sim_trace *t, double ratio)
{
    return (uint64_t)((double)t->b.memory * ratio);
}

const struct sim_policy *pol_find(const char *name)
{
    for (size_t i = 0; i < pol_count(); i++)
        if (strcmp(fake_policies[i].name, name) == 0)
            return &fake_policies[i];
    return NULL;
}

size_t pol_count(void)
{
    return sizeof fake_policies / sizeof fake_policies[0];
}

const struct sim_policy *pol_at(size_t i)
{
    return i < pol_count() ? &fake_policies[i] : NULL;
}

const char *pol_name(const struct sim_policy *p)
{
    return p->name;
}

const char *pol_description(const struct sim_policy *p)
{
    return p->name;
}

int pol_swaps(const struct sim_policy *p)
{
    (void)p;
    return 0;
}

int pol_needs_addresses(const struct sim_policy *p)
{
    (void)p;
    return 0;
}

/* No checkpoint planners here: every name is an eviction policy of the fake registry. */
const sim_planner *planner_find(const char *name)
{
    (void)name;
    return NULL;
}

void iter_log_observe(void *ctx, const struct sim_iteration_report *r)
{
    (void)ctx, (void)r;
}

void iter_log_free(iter_log *l)
{
    memset(l, 0, sizeof *l);
}
