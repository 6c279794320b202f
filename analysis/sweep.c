/* sweep: the parallel, resumable, sharded sweep runner (see sweep.h). */
#include "sweep.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iter_log.h"
#include "planners.h"
#include "plugin_isolate.h"
#include "registry.h"
#include "link.h"
#include "memory.h"
#include "policy.h"
#include "sim.h"
#include "store.h"
#include "sweep_checkmate.h"

#define SWEEP_SEMANTICS "simrd"
#define SWEEP_TICK_NS 500000000L /* progress refresh while nothing commits */

typedef struct sw_trace {
    const char *path;
    char name[256];
    char hash[17];
    sim_trace *t;
    gms_error err;
    int rc;
} sw_trace;

/* One memory model of the sweep, resolved. */
typedef struct sw_alloc {
    const sim_memory_model *model; /* NULL = ideal */
    sim_memory_options opt;
    char key[128]; /* the run key's name */
} sw_alloc;

typedef struct sw_item {
    uint32_t trace, policy, ratio, seed, alloc;
    uint64_t budget;
    char params[256];
    /* filled by the worker */
    sim_result res;
    iter_log log; /* planner runs: their iterations, until written */
    int next_done; /* index of the next completed item in the done list, -1 at its end */
} sw_item;

typedef struct sweep_ctx {
    const sweep_spec *spec;
    sw_trace *traces;
    const struct sim_policy **policies; /* NULL for a planner */
    const sim_planner **planners;       /* NULL for an eviction policy */
    sw_alloc *allocs;
    size_t n_allocs;
    sw_item *items;
    size_t n_items;
    size_t *todo; /* indexes into items, in run order */
    size_t n_todo;
    size_t *ck_todo; /* Checkmate runs (sweep_checkmate.h): on the writing thread */
    size_t n_ck;

    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next;      /* next todo slot to hand out */
    int done_head;    /* completed but not yet written (LIFO list through next_done) */
    size_t running;   /* workers still alive */
    int stop;         /* set on a fatal error */
    gms_error werr;   /* first worker error */
    size_t plugin_failed; /* failed runs of plugin policies (skipped, not recorded) */
    gms_error perr;       /* the first of them */
} sweep_ctx;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The trace's display name: its file name without directory and extension. */
static void trace_name(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(out, len, "%s", base);
    char *dot = strrchr(out, '.');
    if (dot && dot != out && (strcmp(dot, ".gmt") == 0 || strcmp(dot, ".log") == 0 ||
                              strcmp(dot, ".json") == 0))
        *dot = '\0';
}

/* ---- a tiny parallel-for: n tasks over `jobs` threads ---- */

typedef struct pfor {
    pthread_mutex_t mu;
    size_t next, n;
    void (*fn)(void *ctx, size_t i);
    void *ctx;
} pfor;

static void *pfor_main(void *arg)
{
    pfor *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            return NULL;
        p->fn(p->ctx, i);
    }
}

/* Runs fn(ctx, 0..n-1) on up to jobs threads (on the caller's thread when that fails). */
static void parallel_for(size_t n, unsigned jobs, void (*fn)(void *, size_t), void *ctx)
{
    pfor p = {PTHREAD_MUTEX_INITIALIZER, 0, n, fn, ctx};
    size_t nt = jobs < n ? jobs : n;
    pthread_t *th = nt > 1 ? calloc(nt, sizeof *th) : NULL;
    size_t started = 0;
    for (; th && started < nt; started++)
        if (pthread_create(&th[started], NULL, pfor_main, &p) != 0)
            break;
    pfor_main(&p);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
}

static void load_one(void *ctx, size_t i)
{
    sw_trace *t = &((sw_trace *)ctx)[i];
    gms_error_clear(&t->err);
    t->rc = store_hash_file(t->path, t->hash, &t->err);
    if (!t->rc)
        t->rc = sim_trace_load(t->path, &t->t, &t->err);
}

/* Runners a worker keeps, one per trace, so that runs hopping between traces (the work list
 * is ordered by cost, not by trace) do not reallocate the per-run state every time. Beyond
 * this many traces a worker keeps only the last one. */
#define SWEEP_RUNNER_CACHE 64

/* A worker: takes the next run off the shared list, simulates it and hands the result to the
 * writer. */
static void *worker_main(void *arg)
{
    sweep_ctx *c = arg;
    size_t n_cache = c->spec->n_traces < SWEEP_RUNNER_CACHE ? c->spec->n_traces
                                                            : SWEEP_RUNNER_CACHE;
    sim_runner *cache[SWEEP_RUNNER_CACHE] = {0};
    uint32_t cached[SWEEP_RUNNER_CACHE];
    for (size_t i = 0; i < SWEEP_RUNNER_CACHE; i++)
        cached[i] = UINT32_MAX;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        if (c->stop || c->next >= c->n_todo) {
            c->running--;
            pthread_cond_signal(&c->cv);
            pthread_mutex_unlock(&c->mu);
            for (size_t i = 0; i < n_cache; i++)
                sim_runner_free(cache[i]);
            return NULL;
        }
        size_t idx = c->todo[c->next++];
        pthread_mutex_unlock(&c->mu);

        sw_item *it = &c->items[idx];
        gms_error err;
        gms_error_clear(&err);
        int rc = 0;
        size_t slot = it->trace % n_cache;
        pol_fork_gate_enter(); /* allocating: no plugin fork meanwhile (sanitizer builds) */
        if (cached[slot] != it->trace) {
            sim_runner_free(cache[slot]);
            cache[slot] = NULL;
            cached[slot] = it->trace;
            rc = sim_runner_new(c->traces[it->trace].t, &cache[slot], &err);
        }
        pol_fork_gate_leave();
        sim_runner *runner = cache[slot];
        sim_config cfg;
        sim_config_init(&cfg);
        cfg.policy = c->policies[it->policy];
        cfg.budget = it->budget;
        cfg.remat_limit = c->spec->remat_limit;
        cfg.seed = it->seed;
        cfg.semantics = SIM_SEMANTICS_SIMRD;
        cfg.sample = c->spec->sample;
        cfg.op_overhead_ns = c->spec->op_overhead_ns;
        cfg.search_cost_ns = c->spec->search_cost_ns;
        cfg.evict_cost_ns = c->spec->evict_cost_ns;
        cfg.link_gbps = c->spec->link_gbps;
        cfg.link_latency_ns = c->spec->link_latency_ns;
        if (c->spec->host_memory)
            cfg.host_memory = c->spec->host_memory;
        cfg.allocator = c->allocs[it->alloc].model;
        cfg.allocator_options = &c->allocs[it->alloc].opt;
        if ((cfg.planner = c->planners[it->policy]) != NULL) {
            cfg.planner_params = c->spec->policy_args ? c->spec->policy_args : "";
            cfg.iteration_observer = iter_log_observe;
            cfg.iteration_ctx = &it->log;
        }
        /* a plugin policy (run key NAME@HASH) runs in a child process, so that a crash in
         * it fails this run only; built-in policies run here */
        int plugin = strchr(c->spec->policies[it->policy], '@') != NULL;
        if (!rc && plugin) {
            rc = pol_run_isolated(runner, &cfg, &it->res, &err);
        } else if (!rc) {
            pol_fork_gate_enter();
            rc = sim_runner_run(runner, &cfg, &it->res, &err);
            pol_fork_gate_leave();
        }
        if (rc)
            cached[slot] = UINT32_MAX; /* rebuild the runner after a failure */

        pthread_mutex_lock(&c->mu);
        if (rc && plugin) {
            /* a plugin policy failed, e.g. its score returned NaN or it crashed: a bug in the
             * plugin, not in the sweep; record nothing for this run and go on */
            if (c->plugin_failed++ == 0)
                gms_error_set(&c->perr, rc, "%s: %s at budget %llu: %s",
                              c->traces[it->trace].path, c->spec->policies[it->policy],
                              (unsigned long long)it->budget, err.msg);
        } else if (rc) {
            if (!c->stop)
                gms_error_set(&c->werr, rc, "%s: %s at budget %llu: %s",
                              c->traces[it->trace].path, c->spec->policies[it->policy],
                              (unsigned long long)it->budget, err.msg);
            c->stop = 1;
        } else {
            it->next_done = c->done_head;
            c->done_head = (int)idx;
        }
        pthread_cond_signal(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
}

/* The run's budget as a ratio of its trace's baseline memory: the ratio asked for, or for a
 * budget in bytes, bytes / baseline memory. */
static double item_ratio(const sweep_ctx *c, const sw_item *it)
{
    if (!(c->spec->budget_bytes && c->spec->budget_bytes[it->ratio]))
        return c->spec->ratios[it->ratio];
    uint64_t m = sim_trace_baseline(c->traces[it->trace].t)->memory;
    return m ? (double)it->budget / (double)m : 0;
}

/* Writes one finished run (and its timeline) inside the caller's transaction. */
/* note: a checkmate run's (sweep_checkmate_run), or NULL. */
static int write_item(sweep_ctx *c, store *s, sw_item *it, const char *note, gms_error *err)
{
    const sw_trace *t = &c->traces[it->trace];
    store_run r = {
        .key = {t->hash, c->spec->policies[it->policy], it->params, it->budget,
                c->spec->remat_limit, SWEEP_SEMANTICS, c->allocs[it->alloc].key},
        .ratio = item_ratio(c, it),
        .status = sim_status_name(it->res.status),
        .overhead = it->res.overhead,
        .evictions = it->res.evictions,
        .eager_evictions = it->res.eager_evictions,
        .remats = it->res.remats,
        .remat_compute = it->res.remat_compute,
        .peak_memory = it->res.peak_memory,
        .wall_s = it->res.wall_s,
        .peak_reserved = it->res.peak_reserved,
        .peak_allocated = it->res.peak_allocated,
        .largest_free = it->res.largest_free,
        .frag_allocs = it->res.frag_allocs,
        .frag_ratio = it->res.frag_ratio,
        .op_overhead_ns = it->res.op_overhead_ns,
        .search_ns = it->res.search_ns,
        .evict_ns = it->res.evict_ns,
        .plan_iterations = it->res.plan_iterations,
        .plan_predicted = it->res.plan_predicted,
        .pred_err_mean = it->res.pred_err_mean,
        .pred_err_max = it->res.pred_err_max,
        .cache_hits = it->res.cache_hits,
        .cache_misses = it->res.cache_misses,
        .plan_s = it->res.plan_s,
        .checkpoints = it->res.checkpoints,
        .swap_out_bytes = it->res.swap_out_bytes,
        .swap_in_bytes = it->res.swap_in_bytes,
        .stall_ns = it->res.stall_ns,
        .d2h_busy_ns = it->res.d2h_busy_ns,
        .h2d_busy_ns = it->res.h2d_busy_ns,
        .note = note,
    };
    int64_t id = 0;
    int rc = store_put_run(s, &r, &id, err);
    for (size_t i = 0; !rc && id && i < it->log.n; i++) {
        const iter_rec *x = &it->log.recs[i];
        store_iteration si = {
            .iteration = x->iteration, .input_size = x->input_size,
            .status = sim_status_name(x->status), .start_memory = x->start_memory,
            .peak_memory = x->peak_memory, .predicted_peak = x->predicted_peak,
            .cache_hit = x->cache_hit, .plan_ns = x->plan_ns, .clock_ns = x->clock_ns,
            .compute_ns = x->compute_ns, .recompute_ns = x->recompute_ns,
            .n_layers = x->n_layers, .n_checkpointed = x->n_checkpointed, .plan = x->plan,
        };
        rc = store_put_iteration(s, id, &si, err);
    }
    if (!rc && it->log.failed)
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory keeping a run's iterations");
    iter_log_free(&it->log);
    return rc;
}

/* The shard hash of a run key (FNV-1a over its fields, as the store hashes files). The ideal allocator is left out of it, so that shards of
 * stores made before allocators existed stay where they were. */
static uint64_t key_hash(const char *trace_hash, const char *policy, const char *params,
                         uint64_t budget, const char *allocator)
{
    char buf[512];
    int ideal = strcmp(allocator, "ideal") == 0;
    int n = snprintf(buf, sizeof buf, "%s|%s|%s|%llu%s%s", trace_hash, policy, params,
                     (unsigned long long)budget, ideal ? "" : "|", ideal ? "" : allocator);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf;
    return store_fnv1a(STORE_FNV_OFFSET, buf, len);
}

static int validate_spec(const sweep_spec *sp, gms_error *err)
{
    if (sp->n_traces == 0)
        return gms_error_set(err, GMS_EINVAL, "no traces to sweep");
    if (sp->n_policies == 0)
        return gms_error_set(err, GMS_EINVAL, "no policies to sweep");
    if (sp->n_ratios == 0)
        return gms_error_set(err, GMS_EINVAL, "no budgets to sweep");
    if (sp->seeds < 1 || sp->jobs < 1)
        return gms_error_set(err, GMS_EINVAL, "seeds and jobs must be at least 1");
    if (sp->shard_n < 1 || sp->shard_k < 1 || sp->shard_k > sp->shard_n)
        return gms_error_set(err, GMS_EINVAL, "shard %u/%u: need 1 <= K <= N", sp->shard_k,
                             sp->shard_n);
    if (!(sp->remat_limit == 0 || sp->remat_limit >= 1.0))
        return gms_error_set(err, GMS_EINVAL, "remat limit %g: must be at least 1, or 0 for none",
                             sp->remat_limit);
    int planners = 0;
    for (size_t i = 0; i < sp->n_policies; i++) {
        planners |= planner_find(sp->policies[i]) != NULL;
        if (!pol_find(sp->policies[i]) && !planner_find(sp->policies[i]) &&
            !sweep_checkmate_is(sp->policies[i]))
            return gms_error_set(err, GMS_EINVAL,
                                 "unknown policy '%s' (see 'gpumemsim sweep --help' for the list)",
                                 sp->policies[i]);
    }
    if (sp->policy_args && *sp->policy_args && !planners)
        return gms_error_set(err, GMS_EINVAL,
                             "--policy-args sets checkpoint planners' parameters, and no "
                             "planner is swept");
    for (size_t i = 0; i < sp->n_ratios; i++)
        if (!(sp->budget_bytes && sp->budget_bytes[i]) &&
            !(sp->ratios[i] > 0 && sp->ratios[i] <= SWEEP_MAX_RATIO))
            return gms_error_set(err, GMS_EINVAL, "budget ratio %g out of range (0, %g]",
                                 sp->ratios[i], SWEEP_MAX_RATIO);
    return 0;
}

/* A run's policy parameters in its key: "seed=K" for randomized runs, ",sample=N" (or
 * "sample=sqrt") with sampled victim choice, ",op_overhead=Nns", ",search_cost=Nns" and
 * ",evict_cost=Nns" for runtime costs that are not 0, "" otherwise (so runs without costs keep
 * the keys they always had). */
static void sweep_run_params(const sweep_spec *sp, const sim_policy *p, int random,
                             unsigned seed, char *buf, size_t len)
{
    buf[0] = '\0';
    if (random)
        snprintf(buf, len, "seed=%u", seed);
    if (sp->sample && p) { /* planners (p NULL) never pick victims: not part of their key */
        size_t n = strlen(buf);
        if (sp->sample == UINT32_MAX)
            snprintf(buf + n, len - n, "%ssample=sqrt", n ? "," : "");
        else
            snprintf(buf + n, len - n, "%ssample=%u", n ? "," : "", sp->sample);
    }
    const struct {
        const char *name;
        uint64_t ns;
    } costs[] = {{"op_overhead", sp->op_overhead_ns},
                 {"search_cost", sp->search_cost_ns},
                 {"evict_cost", sp->evict_cost_ns}};
    for (size_t i = 0; i < sizeof costs / sizeof costs[0]; i++) {
        size_t n = strlen(buf);
        if (costs[i].ns)
            snprintf(buf + n, len - n, "%s%s=%lluns", n ? "," : "", costs[i].name,
                     (unsigned long long)costs[i].ns);
    }
    if (pol_swaps(p)) { /* the engine's swap settings: ",link=...[,host=N]" */
        sim_link l = {sp->link_gbps, sp->link_latency_ns};
        if (!(l.gbps > 0))
            sim_link_default(&l);
        size_t n = strlen(buf);
        if (n && n + 1 < len)
            buf[n++] = ',';
        int w = sim_link_format(&l, buf + n, len - n);
        n = w > 0 && (size_t)w < len - n ? n + (size_t)w : strlen(buf);
        if (sp->host_memory)
            snprintf(buf + n, len - n, ",host=%llu", (unsigned long long)sp->host_memory);
    }
}

/* A planner run's params: its canonical parameters first, then the rest of the key's
 * (runtime costs). */
static void planner_run_params(const char *args, char *buf, size_t len)
{
    size_t a = strlen(args), r = strlen(buf);
    if (a + 1 + r + 1 > len)
        return; /* cannot happen: cmd_sweep limits --policy-args */
    memmove(buf + a + (r ? 1 : 0), buf, r + 1);
    memcpy(buf, args, a);
    if (r)
        buf[a] = ',';
}

/* Resolves the sweep's memory models and their settings. A policy that needs addresses
 * cannot run with the ideal model: with other models in the sweep its ideal runs are left
 * out (the plan skips them); with none, the sweep is refused. */
static int resolve_allocators(sweep_ctx *c, gms_error *err)
{
    const sweep_spec *sp = c->spec;
    static const char *const ideal_only[] = {"ideal"};
    const char *const *names = sp->n_allocators ? sp->allocators : ideal_only;
    c->n_allocs = sp->n_allocators ? sp->n_allocators : 1;
    c->allocs = calloc(c->n_allocs, sizeof *c->allocs);
    if (!c->allocs)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    int any_model = 0;
    for (size_t a = 0; a < c->n_allocs; a++) {
        sw_alloc *al = &c->allocs[a];
        if (sim_memory_find(names[a], &al->model))
            return gms_error_set(err, GMS_EINVAL, "unknown allocator '%s'; valid allocators: %s",
                                 names[a], sim_memory_names());
        gms_error e = {0};
        if (sim_memory_parse_conf(&al->model, al->model ? sp->alloc_conf : NULL, &al->opt,
                                  al->key, sizeof al->key, &e))
            return gms_error_set(err, GMS_EINVAL, "%s", e.msg);
        for (size_t b = 0; b < a; b++)
            if (strcmp(c->allocs[b].key, al->key) == 0)
                return gms_error_set(err, GMS_EINVAL, "allocator '%s' is listed twice", names[a]);
        any_model |= al->model != NULL;
    }
    for (size_t p = 0; p < sp->n_policies; p++)
        if (c->policies[p] && pol_needs_addresses(c->policies[p]) && !any_model)
            return gms_error_set(err, GMS_EINVAL,
                                 "policy %s chooses victims by address and needs a memory "
                                 "model with addresses: add --allocators caching (or lifetime)",
                                 sp->policies[p]);
    return 0;
}

/* Builds the work list of this shard: every combination, minus those already stored (traces
 * with the most ops first; order_by_cost then ranks the list). */
static int plan(sweep_ctx *c, store *s, size_t *skipped, gms_error *err)
{
    const sweep_spec *sp = c->spec;
    uint32_t *order = malloc(sp->n_traces * sizeof *order);
    if (!order)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < sp->n_traces; i++) { /* insertion sort by ops, descending */
        uint32_t j = i;
        uint64_t ops = sim_trace_baseline(c->traces[i].t)->ops;
        for (; j > 0 && sim_trace_baseline(c->traces[order[j - 1]].t)->ops < ops; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    size_t k = 0;
    for (uint32_t ti = 0; ti < sp->n_traces; ti++) {
        uint32_t t = order[ti];
        for (uint32_t p = 0; p < sp->n_policies; p++) {
            /* sampled victim choice draws at random too: every policy runs once per seed */
            int ck = sweep_checkmate_is(sp->policies[p]);
            int random = !c->planners[p] && !ck && (sweep_policy_is_random(sp->policies[p]) ||
                                                    sp->sample);
            unsigned seeds = random ? sp->seeds : 1;
            for (uint32_t a = 0; a < c->n_allocs; a++)
            for (uint32_t r = 0; r < sp->n_ratios; r++)
                for (uint32_t seed = 0; seed < seeds; seed++) {
                    if (c->policies[p] && pol_needs_addresses(c->policies[p]) &&
                        !c->allocs[a].model)
                        continue; /* validate_allocators allowed it: skipped by design */
                    if ((pol_swaps(c->policies[p]) || ck) && c->allocs[a].model)
                        continue; /* swapping and Checkmate run on the ideal model only */
                    sw_item *it = &c->items[k++];
                    it->trace = t;
                    it->policy = p;
                    it->ratio = r;
                    it->seed = (uint32_t)(sp->seed0 + seed);
                    it->alloc = a;
                    it->budget = sp->budget_bytes && sp->budget_bytes[r]
                                     ? sp->budget_bytes[r]
                                     : sim_budget_for_ratio(c->traces[t].t, sp->ratios[r]);
                    if (ck)
                        sweep_checkmate_params(sp, sp->policies[p], c->traces[t].t, it->budget,
                                               it->params, sizeof it->params);
                    else
                        sweep_run_params(sp, c->policies[p], random, it->seed, it->params,
                                         sizeof it->params);
                    if (c->planners[p] && sp->policy_args && *sp->policy_args)
                        planner_run_params(sp->policy_args, it->params, sizeof it->params);
                }
        }
    }
    free(order);
    *skipped = 0;
    c->n_todo = 0;
    c->n_ck = 0;
    for (size_t i = 0; i < k; i++) {
        sw_item *it = &c->items[i];
        const char *hash = c->traces[it->trace].hash, *pol = sp->policies[it->policy];
        const char *alloc = c->allocs[it->alloc].key;
        if (sp->shard_n > 1 &&
            key_hash(hash, pol, it->params, it->budget, alloc) % sp->shard_n != sp->shard_k - 1)
            continue;
        store_key key = {hash, pol, it->params, it->budget, sp->remat_limit, SWEEP_SEMANTICS,
                         alloc};
        int found;
        if (store_has_run(s, &key, &found, err))
            return GMS_EDB;
        if (found) {
            (*skipped)++;
            continue;
        }
        if (sweep_checkmate_is(pol))
            c->ck_todo[c->n_ck++] = i;
        else
            c->todo[c->n_todo++] = i;
    }
    return 0;
}

/* Work-list order: most expensive first, so that no long run is left alone at the tail while
 * the other cores idle. A run's cost grows with the trace's op count and steeply as the budget
 * shrinks (more evictions and rematerializations); ops / ratio^2 ranks the DTR paper's logs
 * close to their measured run times. Ties keep the plan order. */
typedef struct sw_rank {
    double cost;
    size_t idx;
} sw_rank;

static int by_cost_desc(const void *a, const void *b)
{
    const sw_rank *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int order_by_cost(sweep_ctx *c, gms_error *err)
{
    sw_rank *r = malloc((c->n_todo ? c->n_todo : 1) * sizeof *r);
    if (!r)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->n_todo; i++) {
        const sw_item *it = &c->items[c->todo[i]];
        double ratio = item_ratio(c, it);
        double ops = (double)sim_trace_baseline(c->traces[it->trace].t)->ops;
        r[i] = (sw_rank){ops / (ratio * ratio), c->todo[i]};
    }
    qsort(r, c->n_todo, sizeof *r, by_cost_desc);
    for (size_t i = 0; i < c->n_todo; i++)
        c->todo[i] = r[i].idx;
    free(r);
    return 0;
}

/* The Checkmate runs, one at a time on the calling thread (sweep_checkmate.h), each row
 * committed on its own after the solution it stored. */
static int run_checkmate(sweep_ctx *c, store *s, sweep_progress *pg, double t0, gms_error *err)
{
    const sweep_spec *sp = c->spec;
    for (size_t i = 0; i < c->n_ck; i++) {
        sw_item *it = &c->items[c->ck_todo[i]];
        const sw_trace *t = &c->traces[it->trace];
        int cached = 0;
        char note[400];
        /* solved outside the row's transaction: a long solve must not hold the store's write
         * lock (the solution commits on its own) */
        int rc = sweep_checkmate_run(s, t->t, t->hash, sp->policies[it->policy], it->budget, sp,
                                     &it->res, &cached, note, sizeof note, err);
        if (!rc)
            rc = store_begin(s, err);
        if (!rc)
            rc = write_item(c, s, it, note, err);
        if (!rc)
            rc = store_commit(s, err);
        if (rc) {
            store_rollback(s);
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            return gms_error_set(err, rc, "%s: %s at budget %llu: %s", t->path,
                                 sp->policies[it->policy], (unsigned long long)it->budget, msg);
        }
        pg->done++;
        pg->ok += it->res.status == SIM_OK;
        pg->failed += it->res.status != SIM_OK;
        pg->oom += it->res.status != SIM_OK;
        pg->solved += !cached;
        pg->cached += cached;
        pg->elapsed_s = now_s() - t0;
        if (sp->progress)
            sp->progress(sp->progress_ctx, pg);
    }
    return 0;
}

/* The writer loop on the calling thread: commits finished runs in batches (one transaction
 * per batch; each row is a complete run) and reports progress. */
static int write_loop(sweep_ctx *c, store *s, sweep_progress *pg, double t0, gms_error *err)
{
    const sweep_spec *sp = c->spec;
    int rc = 0;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (c->done_head < 0 && c->running > 0 && !c->stop) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += SWEEP_TICK_NS;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) != 0 && sp->progress) {
                pthread_mutex_unlock(&c->mu);
                pg->elapsed_s = now_s() - t0;
                sp->progress(sp->progress_ctx, pg);
                pthread_mutex_lock(&c->mu);
            }
        }
        int head = c->done_head;
        c->done_head = -1;
        int finished = c->running == 0 || c->stop;
        pthread_mutex_unlock(&c->mu);

        if (head >= 0) {
            pol_fork_gate_enter(); /* SQLite allocates (see plugin_isolate.h) */
            rc = store_begin(s, err);
            size_t ok = 0, failed = 0, oom = 0, n = 0;
            for (int i = head; !rc && i >= 0; i = c->items[i].next_done) {
                rc = write_item(c, s, &c->items[i], NULL, err);
                n++;
                if (c->items[i].res.status == SIM_OK)
                    ok++;
                else
                    failed++;
                oom += c->items[i].res.status == SIM_OOM;
            }
            if (!rc)
                rc = store_commit(s, err);
            if (rc) {
                store_rollback(s);
            } else {
                pg->done += n;
                pg->ok += ok;
                pg->failed += failed;
                pg->oom += oom;
                pg->remat_limit += failed - oom;
                pg->elapsed_s = now_s() - t0;
                if (sp->progress)
                    sp->progress(sp->progress_ctx, pg);
            }
            pol_fork_gate_leave();
        }
        pthread_mutex_lock(&c->mu);
        if (rc) {
            c->stop = 1;
            break;
        }
        if (finished && c->done_head < 0)
            break;
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

int sweep_run(const sweep_spec *sp, const char *db_path, sweep_progress *summary,
              gms_error *err)
{
    int rc = validate_spec(sp, err);
    if (rc)
        return rc;
    double t0 = now_s();
    sweep_ctx c;
    memset(&c, 0, sizeof c);
    c.spec = sp;
    c.done_head = -1;
    store *s = NULL;
    pthread_t *th = NULL;
    c.traces = calloc(sp->n_traces, sizeof *c.traces);
    c.policies = calloc(sp->n_policies, sizeof *c.policies);
    c.planners = calloc(sp->n_policies, sizeof *c.planners);
    if (!c.traces || !c.policies || !c.planners) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < sp->n_policies; i++)
        if (!(c.planners[i] = planner_find(sp->policies[i])))
            c.policies[i] = pol_find(sp->policies[i]);
    if ((rc = resolve_allocators(&c, err)))
        goto out;

    /* 1. load every trace (in parallel) before touching the store */
    for (size_t i = 0; i < sp->n_traces; i++) {
        c.traces[i].path = sp->traces[i];
        trace_name(sp->traces[i], c.traces[i].name, sizeof c.traces[i].name);
    }
    parallel_for(sp->n_traces, sp->jobs, load_one, c.traces);
    for (size_t i = 0; i < sp->n_traces; i++)
        if (c.traces[i].rc) {
            rc = gms_error_set(err, c.traces[i].rc, "%s", c.traces[i].err.msg);
            goto out;
        }
    for (size_t i = 0; i < sp->n_traces; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(c.traces[i].hash, c.traces[j].hash) == 0) {
                rc = gms_error_set(err, GMS_EINVAL, "%s and %s are the same trace (same bytes)",
                                   c.traces[j].path, c.traces[i].path);
                goto out;
            }

    /* 2. the store, the traces in it, and the work list */
    if ((rc = store_open(db_path, STORE_CREATE, &s, err)))
        goto out;
    if ((rc = store_begin(s, err)))
        goto out;
    for (size_t i = 0; i < sp->n_traces && !rc; i++) {
        const sim_baseline *b = sim_trace_baseline(c.traces[i].t);
        store_trace st = {.name = c.traces[i].name, .path = c.traces[i].path, .ops = b->ops,
                          .baseline_memory = b->memory, .baseline_compute = b->compute,
                          .constants = b->constants, .bottleneck = b->bottleneck};
        memcpy(st.hash, c.traces[i].hash, sizeof st.hash);
        rc = store_put_trace(s, &st, err);
    }
    if (rc || (rc = store_commit(s, err))) {
        store_rollback(s);
        goto out;
    }
    size_t n_items = 0;
    sweep_progress pg = {0};
    for (size_t p = 0; p < sp->n_policies; p++)
        n_items += sp->n_ratios * (!planner_find(sp->policies[p]) &&
                                           (sweep_policy_is_random(sp->policies[p]) ||
                                            sp->sample) ? sp->seeds : 1);
    n_items *= sp->n_traces * c.n_allocs; /* an upper bound: see resolve_allocators */
    c.items = calloc(n_items, sizeof *c.items);
    c.n_items = n_items;
    c.todo = calloc(n_items, sizeof *c.todo);
    c.ck_todo = calloc(n_items, sizeof *c.ck_todo);
    if (!c.items || !c.todo || !c.ck_todo) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory for %zu runs", n_items);
        goto out;
    }
    if ((rc = plan(&c, s, &pg.skipped, err)) || (rc = order_by_cost(&c, err)))
        goto out;
    pg.total = c.n_todo + c.n_ck;
    if (sp->progress)
        sp->progress(sp->progress_ctx, &pg);
    if ((rc = run_checkmate(&c, s, &pg, t0, err)))
        goto out;

    /* 3. workers simulate, this thread writes */
    if (pthread_mutex_init(&c.mu, NULL) || pthread_cond_init(&c.cv, NULL)) {
        rc = gms_error_set(err, GMS_ENOMEM, "cannot create thread primitives");
        goto out;
    }
    size_t nt = sp->jobs < c.n_todo ? sp->jobs : c.n_todo;
    th = calloc(nt ? nt : 1, sizeof *th);
    if (!th) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        goto sync_out;
    }
    for (size_t i = 0; i < nt; i++) {
        pthread_mutex_lock(&c.mu);
        c.running++;
        pthread_mutex_unlock(&c.mu);
        if (pthread_create(&th[i], NULL, worker_main, &c) != 0) {
            pthread_mutex_lock(&c.mu);
            c.running--;
            pthread_mutex_unlock(&c.mu);
            nt = i;
            break;
        }
    }
    if (nt == 0 && c.n_todo > 0) {
        rc = gms_error_set(err, GMS_ENOMEM, "cannot start worker threads");
        goto sync_out;
    }
    rc = write_loop(&c, s, &pg, t0, err);
    for (size_t i = 0; i < nt; i++)
        pthread_join(th[i], NULL);
    if (!rc && c.werr.code)
        rc = gms_error_set(err, c.werr.code, "%s", c.werr.msg);
    if (!rc && c.plugin_failed)
        rc = gms_error_set(err, c.perr.code,
                           "%zu run(s) of plugin policies failed and were not recorded (every "
                           "other run was); the first: %s", c.plugin_failed, c.perr.msg);
    pg.finished = 1;
    pg.elapsed_s = now_s() - t0;
    if (!rc && sp->progress)
        sp->progress(sp->progress_ctx, &pg);
    if (summary)
        *summary = pg;
sync_out:
    pthread_cond_destroy(&c.cv);
    pthread_mutex_destroy(&c.mu);
out:
    free(th);
    for (size_t i = 0; c.items && i < c.n_items; i++)
        iter_log_free(&c.items[i].log); /* runs never written (a failed sweep) */
    free(c.items);
    free(c.todo);
    free(c.ck_todo);
    store_close(s);
    for (size_t i = 0; c.traces && i < sp->n_traces; i++)
        sim_trace_free(c.traces[i].t);
    free(c.traces);
    free(c.policies);
    free(c.planners);
    free(c.allocs);
    return rc;
}
