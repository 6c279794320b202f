/*
 * event_hash: the exactness check of the engine's speed work. Replays a trace under every
 * given policy and budget ratio with an observer that hashes every event the run reports
 * (kind, clock, memory, size, op index, storage, copy times) and prints one line per run:
 * the hash, the event count and the result's figures (wall time aside). Built against an
 * old and a new engine, the two outputs must be identical (`diff`).
 *
 *   event_hash TRACE|--chain N POLICIES BUDGETS [REMAT_LIMIT]
 *     POLICIES: comma-separated registry names (dtr,msps,...)
 *     BUDGETS:  comma-separated ratios of the baseline memory (0.5,0.7,...)
 *
 * Used by scripts/bench/real.sh (numbers in docs/benchmarks.md, "Real traces").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "sim.h"

typedef struct hctx {
    uint64_t h, n;
} hctx;

static void mix(hctx *c, uint64_t x)
{
    /* FNV-1a over the value's 8 bytes */
    for (int i = 0; i < 8; i++) {
        c->h ^= (x >> (8 * i)) & 0xff;
        c->h *= UINT64_C(0x100000001b3);
    }
}

static void observe(void *ctx, const sim_event *ev)
{
    hctx *c = ctx;
    mix(c, (uint64_t)ev->kind);
    mix(c, ev->clock);
    mix(c, ev->memory);
    mix(c, ev->reserved);
    mix(c, ev->allocated);
    mix(c, ev->size);
    mix(c, ev->op_index);
    mix(c, ev->storage);
    mix(c, ev->copy_start);
    mix(c, ev->copy_end);
    c->n++;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "--chain") == 0 && argc < 5)) {
        fprintf(stderr, "usage: event_hash TRACE|--chain N POLICIES BUDGETS [REMAT_LIMIT]\n");
        return 2;
    }
    int chain = strcmp(argv[1], "--chain") == 0;
    const char *pols = argv[chain ? 3 : 2], *buds = argv[chain ? 4 : 3];
    const char *lim = argc > (chain ? 5 : 4) ? argv[chain ? 5 : 4] : NULL;
    gms_error err = {0};
    sim_trace *t = NULL;
    int rc = chain ? sim_trace_chain(strtoull(argv[2], NULL, 10), &t, &err)
                   : sim_trace_load(argv[1], &t, &err);
    if (rc) {
        fprintf(stderr, "event_hash: %s\n", err.msg);
        return 1;
    }
    sim_runner *r = NULL;
    if (sim_runner_new(t, &r, &err)) {
        fprintf(stderr, "event_hash: %s\n", err.msg);
        return 1;
    }
    char *pl = strdup(pols);
    for (char *sp = NULL, *p = strtok_r(pl, ",", &sp); p; p = strtok_r(NULL, ",", &sp)) {
        const struct sim_policy *pol = pol_find(p);
        if (!pol) {
            fprintf(stderr, "event_hash: no policy %s\n", p);
            return 1;
        }
        char *bl = strdup(buds);
        for (char *sb = NULL, *b = strtok_r(bl, ",", &sb); b; b = strtok_r(NULL, ",", &sb)) {
            sim_config cfg;
            sim_config_init(&cfg);
            cfg.policy = pol;
            cfg.budget = sim_budget_for_ratio(t, strtod(b, NULL));
            if (lim)
                cfg.remat_limit = strtod(lim, NULL);
            hctx c = {UINT64_C(0xcbf29ce484222325), 0};
            cfg.observer = observe;
            cfg.observer_ctx = &c;
            sim_result res;
            if (sim_runner_run(r, &cfg, &res, &err)) {
                printf("%s %s error %s\n", p, b, err.msg);
                continue;
            }
            printf("%s %s %s events %llu hash %016llx clock %llu evict %llu eager %llu "
                   "remats %llu remat_ns %llu peak %llu cand %llu overhead %.17g\n",
                   p, b, sim_status_name(res.status), (unsigned long long)c.n,
                   (unsigned long long)c.h, (unsigned long long)res.clock,
                   (unsigned long long)res.evictions, (unsigned long long)res.eager_evictions,
                   (unsigned long long)res.remats, (unsigned long long)res.remat_compute,
                   (unsigned long long)res.peak_memory, (unsigned long long)res.candidates,
                   res.overhead);
            fflush(stdout);
        }
        free(bl);
    }
    free(pl);
    sim_runner_free(r);
    sim_trace_free(t);
    return 0;
}
