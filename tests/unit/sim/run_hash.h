/*
 * For the sim tests that compare a fast path with its plain version: a run's events folded
 * into one hash (two runs with equal hashes made the same choices in the same order), a DTR
 * probe that also folds in every region cost it reads, and the toggle-and-compare loop: the
 * same runs made with a fast path off and on must agree, event for event.
 */
#ifndef GMS_TEST_RUN_HASH_H
#define GMS_TEST_RUN_HASH_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>

#include "policy.h"
#include "registry.h"
#include "sim.h"
#include "sim_internal.h" /* sim_region_bitset_max */

#define RUN_HASH_SEED UINT64_C(14695981039346656037)

/* An observer folding every event into the uint64_t at ctx. */
static inline void hash_event(void *ctx, const sim_event *ev)
{
    uint64_t *h = ctx;
    const uint64_t f[6] = {ev->kind, ev->clock, ev->memory, ev->size, ev->op_index, ev->storage};
    for (int i = 0; i < 6; i++) {
        *h = (*h ^ f[i]) * UINT64_C(0x100000001b3);
        *h ^= *h >> 29;
    }
}

/* Runs cfg on t (on run when it is not NULL, a runner over t) with hash_event observing;
 * returns the hash. A run that fails fails the test. */
static inline uint64_t hash_cfg_run(const sim_trace *t, sim_runner *run, sim_config *cfg,
                                    sim_result *res)
{
    uint64_t h = RUN_HASH_SEED;
    cfg->observer = hash_event;
    cfg->observer_ctx = &h;
    gms_error err = {0};
    int rc = run ? sim_runner_run(run, cfg, res, &err) : sim_run(t, cfg, res, &err);
    ck_assert_msg(rc == 0, "%s", err.msg);
    cfg->observer = NULL;
    cfg->observer_ctx = NULL;
    return h;
}

/* The registry's policy pol on t at ratio of its baseline, on a slow link (2 GB/s: a swapping
 * policy such as hybrid-mix both swaps and drops); returns the events' hash. */
static inline uint64_t hash_policy_run(const sim_trace *t, const char *pol, double ratio,
                                       sim_result *res)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find(pol);
    ck_assert_msg(cfg.policy != NULL, "no policy %s", pol);
    cfg.budget = sim_budget_for_ratio(t, ratio);
    cfg.link_gbps = 2;
    return hash_cfg_run(t, NULL, &cfg, res);
}

/* DTR, folding every region cost it reads into the hash the observer also writes
 * (cfg->observer_ctx): two runs with equal hashes read the same region costs. */
static inline int probe_init(const sim_config *cfg, void **state, gms_error *err)
{
    (void)err;
    *state = cfg->observer_ctx;
    return 0;
}

static inline double probe_score(const sim_view *v, uint32_t s, void *state)
{
    uint64_t f = sim_view_region_fwd_cost(v, s), r = sim_view_region_rev_cost(v, s);
    uint64_t *h = state;
    *h = ((*h ^ s) * UINT64_C(0x100000001b3) ^ f) * UINT64_C(0x100000001b3) ^ r;
    return sim_score_ratio((int64_t)(sim_view_compute(v, s) + f + r), sim_view_size(v, s),
                           sim_view_staleness(v, s));
}

static inline const sim_policy *probe_policy(void)
{
    static const sim_policy probe = {
        .name = "probe",
        .description = "dtr, hashing the region costs it reads",
        .needs = SIM_NEEDS_REGIONS,
        .score = probe_score,
        .init = probe_init,
    };
    return &probe;
}

/* The members the bounded scans (sim_pool_bound.h) scored in the run so far, as the last
 * eviction saw them: bounded_scored() is a paths_case.probe, read_scored the on_evict hook
 * that fills it (it leaves every choice as it is). */
static inline uint64_t *bounded_scored(void)
{
    static uint64_t n;
    return &n;
}

static inline void read_scored(const sim_view *v, uint32_t s, int eager, void *state)
{
    (void)s, (void)eager, (void)state;
    *bounded_scored() = v->pkb_scored;
}

/* The policy called name with read_scored as its on_evict hook (it must have none). */
static inline sim_policy scored_policy(const char *name)
{
    const sim_policy *p = pol_find(name);
    ck_assert_msg(p != NULL, "no policy %s", name);
    ck_assert_ptr_null(p->on_evict);
    sim_policy q = *p;
    q.on_evict = read_scored;
    return q;
}

/* A toggle-and-compare: each run made twice, plain (every flag 0, policy[0]) and fast (every
 * flag 1, policy[1]; the same policy where only flags differ); the flags are set back after. */
typedef struct {
    const sim_policy *policy[2];
    int *const *flags;         /* NULL-terminated; NULL: none */
    const char *what;          /* what differs when the runs do: "bounded and plain scans" */
    uint64_t *probe;           /* NULL, or a counter the runs bump: zeroed before each run */
    double link_gbps;          /* 0: the default link */
    int windowed_too;          /* also with windowed region sets (sim_region_bitset_max 0) */
} paths_case;

/* What the plain runs did, summed over a paths_agree; probe[0] and probe[1]: *probe after the
 * plain and after the fast runs. */
typedef struct {
    uint64_t evictions, candidates, swaps, probe[2];
} paths_sums;

/* The two runs of one paths_case, plain [0] and fast [1], and *probe after each. */
typedef struct {
    sim_result r[2];
    uint64_t probe[2];
} paths_runs;

/* The two runs of c at budget on t: both must give the same events (hashed), status, clock,
 * evictions, candidates, swaps out and stall; where names the case in a failure. */
static inline paths_runs paths_pair(const sim_trace *t, uint64_t budget, const paths_case *c,
                                    const char *where)
{
    paths_runs p = {0};
    uint64_t h[2];
    int saved[8], n_flags = 0;
    while (c->flags && c->flags[n_flags]) {
        ck_assert_int_lt(n_flags, 8);
        saved[n_flags] = *c->flags[n_flags];
        n_flags++;
    }
    for (int d = 0; d < 2; d++) {
        for (int f = 0; f < n_flags; f++)
            *c->flags[f] = d;
        sim_config cfg;
        sim_config_init(&cfg);
        cfg.policy = c->policy[d];
        cfg.budget = budget;
        if (c->link_gbps > 0)
            cfg.link_gbps = c->link_gbps;
        if (c->probe)
            *c->probe = 0;
        h[d] = hash_cfg_run(t, NULL, &cfg, &p.r[d]);
        p.probe[d] = c->probe ? *c->probe : 0;
    }
    for (int f = 0; f < n_flags; f++)
        *c->flags[f] = saved[f];
    const sim_result *a = &p.r[0], *b = &p.r[1];
    ck_assert_msg(h[0] == h[1], "%s: %s differ", where, c->what);
    ck_assert_int_eq(a->status, b->status);
    ck_assert_uint_eq(a->clock, b->clock);
    ck_assert_uint_eq(a->evictions, b->evictions);
    ck_assert_uint_eq(a->candidates, b->candidates);
    ck_assert_uint_eq(a->swaps_out, b->swaps_out);
    ck_assert_uint_eq(a->stall_ns, b->stall_ns);
    return p;
}

/* paths_pair on every trace at every ratio of its baseline (and with windowed region sets
 * too where c says so); returns the sums. */
static inline paths_sums paths_agree(sim_trace *const *traces, int n_traces,
                                     const double *ratios, int n_ratios, const paths_case *c)
{
    paths_sums sum = {0};
    uint32_t saved_max = sim_region_bitset_max;
    for (int ti = 0; ti < n_traces; ti++)
        for (int w = 0; w < 1 + (c->windowed_too != 0); w++)
            for (int k = 0; k < n_ratios; k++) {
                char where[160];
                snprintf(where, sizeof where, "trace %d %s at %g (windowed %d)", ti,
                         c->policy[1]->name, ratios[k], w);
                sim_region_bitset_max = w ? 0 : saved_max;
                sim_region_full_ordered = !w; /* ordered graphs too */
                paths_runs p = paths_pair(traces[ti], sim_budget_for_ratio(traces[ti], ratios[k]),
                                          c, where);
                sum.evictions += p.r[0].evictions;
                sum.candidates += p.r[0].candidates;
                sum.swaps += p.r[0].swaps_out;
                sum.probe[0] += p.probe[0];
                sum.probe[1] += p.probe[1];
            }
    sim_region_bitset_max = saved_max;
    sim_region_full_ordered = 0;
    return sum;
}

/* The fast runs' bounded scans did the choosing and skipped: they scored some members, under
 * half the candidates the plain runs scored, and the plain runs scored none bounded. */
static inline void paths_assert_skipped(const paths_sums *sum, const char *name)
{
    ck_assert_msg(sum->probe[0] == 0, "%s: the plain runs scored %llu members bounded", name,
                  (unsigned long long)sum->probe[0]);
    ck_assert_msg(sum->probe[1] > 0 && sum->probe[1] < sum->candidates / 2,
                  "%s: the bounded scans scored %llu of %llu candidates", name,
                  (unsigned long long)sum->probe[1], (unsigned long long)sum->candidates);
}

#endif
