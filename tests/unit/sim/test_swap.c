/*
 * Swapping to host memory (sim/streams.c, sim/link.c, docs/swap.md): exact stalls on a
 * hand-made trace where they can be worked out by hand, the copy engines' order, the byte
 * and time bookkeeping on longer traces, host memory running out, determinism, and runs
 * without a swapping policy staying as they were.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "graph.h"
#include "link.h"
#include "policy.h"

#define SWAP_LRU (pol_find("swap-lru"))
#define S 2000000u /* bytes of each big tensor (AutoSwap skips those under 1 MiB) */
#define LAT 1000u  /* ns per copy */
/* copy time on a 1 GB/s link (1 byte per ns) */
#define X ((uint64_t)LAT + S)

/* c (1 B, constant); A = f(c); B = g(c); D = k(B) needs room: the LRU victim A goes to the
 * host; B released; [F = m(D); G = n(F): only with `window`]; E = h(A, D) needs A back. */
static sim_trace *one_swap_trace_f(int window, uint64_t tg, uint64_t tf)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 1);
    g_call(b, "f", tf, 2, S, 1, (uint64_t)1);
    g_call(b, "g", 20, 3, S, 1, (uint64_t)1);
    g_call(b, "k", 30, 4, S, 1, (uint64_t)3);
    g_release(b, 3);
    if (window) {
        g_call(b, "m", 40, 5, 1, 1, (uint64_t)4);
        g_call(b, "n", tg, 6, 1, 1, (uint64_t)5);
    }
    g_call(b, "h", 50, 7, 1, 2, (uint64_t)2, (uint64_t)4);
    return g_finish(b);
}

static sim_trace *one_swap_trace(int window, uint64_t tg)
{
    return one_swap_trace_f(window, tg, 10);
}

/* A test policy: swap-lru that prefetches storage 1 (A) after op m (index 4: the constant is op 0) ran. */
static void prefetch_after_m(const sim_view *v, uint32_t op, void *state)
{
    (void)state;
    if (op == 4 && sim_view_on_host(v, 1))
        ck_assert_int_eq(sim_view_prefetch(v, 1), 1);
}

static double lru_score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
    return (double)sim_view_last_access(v, s);
}

static const sim_policy prefetching = {
    .name = "test-prefetch",
    .description = "swap-lru with one prefetch",
    .needs = SIM_NEEDS_SWAP,
    .score = lru_score,
    .on_access = prefetch_after_m,
};

static sim_result run_cfg(const sim_trace *t, const sim_policy *p, uint64_t budget,
                          uint64_t host, g_log *log)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = p;
    cfg.budget = budget;
    cfg.link_gbps = 1.0;
    cfg.link_latency_ns = LAT;
    cfg.host_memory = host;
    return g_run_cfg(t, &cfg, log);
}

START_TEST(test_link_presets_and_formula)
{
    sim_link l;
    gms_error err = {0};
    ck_assert_int_eq(sim_link_parse("pcie3", &l, &err), 0);
    ck_assert(l.gbps == 15.75 && l.latency_ns == 10000);
    ck_assert_int_eq(sim_link_parse("nvlink-c2c", &l, &err), 0);
    ck_assert(l.gbps == 450.0);
    ck_assert_int_eq(sim_link_parse("12.5,7.5", &l, &err), 0);
    ck_assert(l.gbps == 12.5 && l.latency_ns == 7500);
    ck_assert_uint_eq(sim_link_copy_ns(&l, 1000), 7500 + 80);
    ck_assert_uint_eq(sim_link_copy_ns(&l, 1001), 7500 + 81); /* rounds up */
    const char *bad[] = {"pcie9", "", "0", "-3", "16,", "16,-1", "16x", "nan", "inf", "16,10,3",
                         "1e-300"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err = (gms_error){0};
        ck_assert_msg(sim_link_parse(bad[i], &l, &err) != 0, "'%s' accepted", bad[i]);
        ck_assert(strlen(err.msg) > 10);
    }
    char buf[64];
    l = (sim_link){31.5, 10000};
    sim_link_format(&l, buf, sizeof buf);
    ck_assert_str_eq(buf, "link=31.5GBps/10000ns");
    /* a slow link saturates instead of overflowing (fuzz find) */
    l = (sim_link){1e-6, UINT64_MAX};
    ck_assert_uint_le(sim_link_copy_ns(&l, UINT64_MAX), (uint64_t)2e18);
}
END_TEST

START_TEST(test_on_demand_swap_stalls_for_both_copies)
{
    sim_trace *t = one_swap_trace(0, 0);
    g_log log;
    sim_result r = run_cfg(t, SWAP_LRU, 2 * S + 10, UINT64_MAX, &log);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.swaps_out, 1);
    ck_assert_uint_eq(r.swaps_in, 1);
    ck_assert_uint_eq(r.swap_out_bytes, S);
    ck_assert_uint_eq(r.swap_in_bytes, S);
    ck_assert_uint_eq(r.evictions, 0);
    ck_assert_uint_eq(r.remats, 0);
    /* nothing overlaps: D waits for A's way out, E for its way back */
    ck_assert_uint_eq(r.stall_ns, 2 * X);
    ck_assert_uint_eq(r.clock, 1 + 10 + 20 + 30 + 50 + 2 * X);
    ck_assert_uint_eq(r.d2h_busy_ns, X);
    ck_assert_uint_eq(r.h2d_busy_ns, X);
    ck_assert_uint_eq(r.host_peak, S);
    ck_assert_uint_le(log.max_memory, 2 * S + 10);
    sim_trace_free(t);
}
END_TEST

/* The prefetch is queued when m ends; n's compute (tg) overlaps it: E stalls max(0, X - tg). */
START_TEST(test_prefetch_overlap_hides_the_copy_back)
{
    const uint64_t tgs[3] = {X / 4, X - 1, 3 * X};
    for (int i = 0; i < 3; i++) {
        uint64_t tg = tgs[i];
        sim_trace *t = one_swap_trace(1, tg);
        sim_result r = run_cfg(t, &prefetching, 2 * S + 10, UINT64_MAX, NULL);
        ck_assert_int_eq(r.status, SIM_OK);
        ck_assert_uint_eq(r.prefetches, 1);
        ck_assert_uint_eq(r.swaps_in, 1);
        uint64_t hidden = tg < X ? X - tg : 0;
        ck_assert_uint_eq(r.stall_ns, X + hidden);
        ck_assert_uint_eq(r.clock, 1 + 10 + 20 + 30 + 40 + tg + 50 + X + hidden);
        sim_trace_free(t);
    }
}
END_TEST

START_TEST(test_full_host_memory_falls_back_to_recomputation)
{
    sim_trace *t = one_swap_trace(0, 0);
    sim_result r = run_cfg(t, SWAP_LRU, 2 * S + 10, S - 1, NULL);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.swaps_out, 0);
    ck_assert_uint_eq(r.swap_fallbacks, 1);
    ck_assert_uint_eq(r.evictions, 1);
    ck_assert_uint_eq(r.remats, 1);
    ck_assert_uint_eq(r.remat_compute, 10);
    ck_assert_uint_eq(r.stall_ns, 0);
    /* and when not even that fits, oom */
    r = run_cfg(t, SWAP_LRU, S + 10, S - 1, NULL);
    ck_assert_int_eq(r.status, SIM_OOM);
    sim_trace_free(t);
}
END_TEST

/* hybrid's per-victim director (hybrid-mix) swaps A when its round trip costs less than
 * recomputing it, else drops it (a plain comparison since issue 30: no premium). */
START_TEST(test_hybrid_mix_swaps_only_what_is_dearer_to_recompute)
{
    const sim_policy *h = pol_find("hybrid-mix");
    ck_assert_ptr_nonnull(h);
    sim_trace *cheap = one_swap_trace_f(0, 0, 10), *dear = one_swap_trace_f(0, 0, 5 * X);
    sim_result r = run_cfg(cheap, h, 2 * S + 10, UINT64_MAX, NULL);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.swaps_out, 0);
    ck_assert_uint_eq(r.evictions, 1);
    ck_assert_uint_eq(r.remat_compute, 10);
    r = run_cfg(dear, h, 2 * S + 10, UINT64_MAX, NULL);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.swaps_out, 1);
    ck_assert_uint_eq(r.evictions, 0);
    ck_assert_uint_eq(r.stall_ns, 2 * X);
    /* the round trip is 2X: at 3X it swaps, at 2X (a tie) and X recomputing is kept */
    sim_trace_free(dear);
    dear = one_swap_trace_f(0, 0, 3 * X);
    r = run_cfg(dear, h, 2 * S + 10, UINT64_MAX, NULL);
    ck_assert_uint_eq(r.swaps_out, 1);
    ck_assert_uint_eq(r.stall_ns, 2 * X);
    for (uint64_t c = 1; c <= 2; c++) {
        sim_trace_free(dear);
        dear = one_swap_trace_f(0, 0, c * X);
        r = run_cfg(dear, h, 2 * S + 10, UINT64_MAX, NULL);
        ck_assert_uint_eq(r.swaps_out, 0);
        ck_assert_uint_eq(r.remat_compute, c * X);
    }
    sim_trace_free(cheap);
    sim_trace_free(dear);
}
END_TEST

/* capuchin swaps A out when that costs less than recomputing it and prefetches it when the
 * compute left before its use no longer covers the copy back (here: after op m, since after
 * k it does not fit under the budget yet). */
START_TEST(test_capuchin_prefetches_in_time)
{
    const sim_policy *cap = pol_find("capuchin");
    ck_assert_ptr_nonnull(cap);
    sim_trace *t = one_swap_trace_f(1, 3 * X, 5 * X);
    sim_result r = run_cfg(t, cap, 2 * S + 10, UINT64_MAX, NULL);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.swaps_out, 1);
    ck_assert_uint_eq(r.prefetches, 1);
    ck_assert_uint_eq(r.remats, 0);
    ck_assert_uint_eq(r.stall_ns, X); /* the copy out only: n's 3X hide the copy back */
    sim_trace_free(t);
    t = one_swap_trace_f(1, X / 4, 5 * X);
    r = run_cfg(t, cap, 2 * S + 10, UINT64_MAX, NULL);
    ck_assert_uint_eq(r.swaps_out, 1);
    ck_assert_uint_eq(r.prefetches, 1);
    ck_assert_uint_eq(r.stall_ns, X + (X - X / 4));
    sim_trace_free(t);
    /* recomputing A (10 ns) is cheaper than any copy: dropped */
    t = one_swap_trace_f(1, 3 * X, 10);
    r = run_cfg(t, cap, 2 * S + 10, UINT64_MAX, NULL);
    ck_assert_uint_eq(r.swaps_out, 0);
    ck_assert_uint_eq(r.remat_compute, 10);
    ck_assert_uint_eq(r.stall_ns, 0);
    sim_trace_free(t);
}
END_TEST

/* autoswap plans from the no-budget load curve: the peak is op k (index 3); only A idles across
 * it, so A is swapped out right after f (its copy overlaps g, and k waits for what is left of
 * it) and its copy back is queued after m, the last op that ends before the copy must start
 * to end by h: n's 3X hide it. */
START_TEST(test_autoswap_plans_around_the_peak)
{
    const sim_policy *as = pol_find("autoswap");
    ck_assert_ptr_nonnull(as);
    sim_trace *t = one_swap_trace_f(1, 3 * X, 10);
    sim_result r = run_cfg(t, as, 2 * S + 10, UINT64_MAX, NULL);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.swaps_out, 1);
    ck_assert_uint_eq(r.prefetches, 1);
    ck_assert_uint_eq(r.evictions, 0);
    ck_assert_uint_eq(r.remats, 0);
    ck_assert_uint_eq(r.stall_ns, X - 20); /* g (20 ns) ran while A was copied out */
    ck_assert_uint_eq(r.clock, 1 + 10 + 20 + 30 + 40 + 3 * X + 50 + X - 20);
    sim_trace_free(t);
}
END_TEST

/* The evicted-neighbourhood regions (DTR's and MSPS's costs) see a swapped-out storage as
 * material: it comes back by a copy, not a recomputation (docs/swap.md). c; A = f(c) (cost
 * 5000); B = g(A); D = k(B) needs room and the probe policy frees A, dropping or swapping it
 * as told; F = m(D); A released; G = n(F). B's reverse cost (its evicted ancestors' compute) is
 * read after m, while A is away, and after n, once A is dead. */
static unsigned probe_action;
static uint64_t probe_cost[2];
static int probe_on_host;

static uint32_t probe_choose(const sim_view *v, void *state)
{
    (void)state;
    for (uint32_t s = sim_view_pool_first(v); s != SIM_NONE; s = sim_view_pool_next(v, s))
        if (s == 1)
            return s;
    return sim_view_pool_first(v);
}

static unsigned probe_act(const sim_view *v, uint32_t s, void *state)
{
    (void)v, (void)s, (void)state;
    return probe_action;
}

static void probe_access(const sim_view *v, uint32_t op, void *state)
{
    (void)state;
    if (op == 4) {
        probe_cost[0] = sim_view_region_rev_cost(v, 2);
        probe_on_host = sim_view_on_host(v, 1);
    } else if (op == 5) {
        probe_cost[1] = sim_view_region_rev_cost(v, 2);
    }
}

static const sim_policy region_probe = {
    .name = "test-regions",
    .description = "frees A, drops or swaps it as told, reads B's region cost",
    .needs = SIM_NEEDS_SWAP | SIM_NEEDS_REGIONS,
    .choose = probe_choose,
    .action = probe_act,
    .on_access = probe_access,
};

START_TEST(test_a_swapped_neighbour_adds_no_recompute_cost)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 1);
    g_call(b, "f", 5000, 2, S, 1, (uint64_t)1);
    g_call(b, "g", 20, 3, S, 1, (uint64_t)2);
    g_call(b, "k", 30, 4, S, 1, (uint64_t)3);
    g_call(b, "m", 40, 5, 1, 1, (uint64_t)4);
    g_release(b, 2);
    g_call(b, "n", 50, 6, 1, 1, (uint64_t)5);
    sim_trace *t = g_finish(b);
    for (int swap = 0; swap < 2; swap++) {
        probe_action = swap ? SIM_ACTION_SWAP : SIM_ACTION_DROP;
        probe_cost[0] = probe_cost[1] = 12345;
        sim_result r = run_cfg(t, &region_probe, 2 * S + 10, UINT64_MAX, NULL);
        ck_assert_int_eq(r.status, SIM_OK);
        ck_assert_uint_eq(r.swaps_out, (uint64_t)swap);
        ck_assert_uint_eq(r.evictions, (uint64_t)!swap);
        ck_assert_int_eq(probe_on_host, swap);
        /* dropped, A is recomputed if B must be: its 5000 ns count; swapped, they do not */
        ck_assert_uint_eq(probe_cost[0], swap ? 0 : 5000);
        /* once A died on the host it is evicted like any dead storage: they count again */
        ck_assert_uint_eq(probe_cost[1], 5000);
    }
    sim_trace_free(t);
}
END_TEST

/* sim_view_baseline_load is the builder's baseline replay: its peak is the baseline memory. */
static uint64_t load_peak;
static void record_load_peak(const sim_view *v, uint32_t op, void *state)
{
    (void)state;
    if (op != 1)
        return;
    for (uint32_t o = 0; o < sim_view_op_count(v); o++)
        if (sim_view_baseline_load(v, o) > load_peak)
            load_peak = sim_view_baseline_load(v, o);
}

static const sim_policy load_probe = {
    .name = "test-load",
    .description = "reads the load curve",
    .needs = SIM_NEEDS_SWAP,
    .score = lru_score,
    .on_access = record_load_peak,
};

START_TEST(test_baseline_load_peaks_at_the_baseline_memory)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(50, &t, &err), 0);
    load_peak = 0;
    run_cfg(t, &load_probe, UINT64_MAX, UINT64_MAX, NULL);
    ck_assert_uint_eq(load_peak, sim_trace_baseline(t)->memory);
    sim_trace_free(t);
}
END_TEST

/* Records every copy: per engine, in queue order. */
typedef struct copies {
    uint64_t start[2][4096], end[2][4096], size[2][4096], storage[4096];
    uint32_t n[2];
    /* swap-outs reported done: how many, their bytes, and how many of them did not match a
     * queued swap-out of the same storage ending at the reported clock */
    uint64_t done, done_bytes, done_unmatched;
    uint64_t max_memory, budget;
} copies;

static void record_copy(void *ctx, const sim_event *ev)
{
    copies *c = ctx;
    if (ev->memory > c->max_memory)
        c->max_memory = ev->memory;
    if (ev->kind == SIM_EV_SWAP_DONE) {
        int found = 0;
        for (uint32_t i = c->n[0]; i-- > 0 && !found;)
            found = c->storage[i] == ev->storage && c->end[0][i] == ev->clock &&
                    ev->copy_end == ev->clock && c->size[0][i] == ev->size;
        c->done++;
        c->done_bytes += ev->size;
        c->done_unmatched += !found;
        return;
    }
    if (ev->kind != SIM_EV_SWAP_OUT && ev->kind != SIM_EV_SWAP_IN)
        return;
    int e = ev->kind == SIM_EV_SWAP_IN;
    if (c->n[e] < 4096) {
        if (!e)
            c->storage[c->n[e]] = ev->storage;
        c->start[e][c->n[e]] = ev->copy_start;
        c->end[e][c->n[e]] = ev->copy_end;
        c->size[e][c->n[e]++] = ev->size;
    }
}

static sim_link chain_link = {0.5, 3000};

static sim_result run_chain_with(const sim_policy *p, const sim_trace *t, double ratio,
                                 uint64_t host, copies *c)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = p;
    cfg.budget = sim_budget_for_ratio(t, ratio);
    cfg.link_gbps = chain_link.gbps;
    cfg.link_latency_ns = chain_link.latency_ns;
    cfg.host_memory = host;
    cfg.remat_limit = 0;
    if (c) {
        memset(c, 0, sizeof *c);
        c->budget = cfg.budget;
        cfg.observer = record_copy;
        cfg.observer_ctx = c;
    }
    sim_result r;
    gms_error err = {0};
    ck_assert_msg(sim_run(t, &cfg, &r, &err) == 0, "%s", err.msg);
    return r;
}

static sim_result run_chain(const sim_trace *t, double ratio, uint64_t host, copies *c)
{
    return run_chain_with(SWAP_LRU, t, ratio, host, c);
}

/* The same books for the planning policies, which also drop, recompute and prefetch. */
START_TEST(test_every_swapping_policy_keeps_the_books)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(300, &t, &err), 0);
    const sim_baseline *bl = sim_trace_baseline(t);
    static copies c;
    /* a link fast enough against the chain's op costs that swapping is worth it sometimes */
    sim_link l = {500, 100};
    chain_link = l;
    /* hybrid last: it runs as one of dtr, swap-lru, hybrid-mix, so it may swap or drop only */
    const char *pols[] = {"hybrid-mix", "capuchin", "autoswap", "hybrid"};
    for (int p = 0; p < 4; p++) {
        uint64_t swapped = 0, dropped = 0;
        for (int k = 0; k < 3; k++) {
            const double ratios[3] = {0.2, 0.35, 0.6};
            sim_result r = run_chain_with(pol_find(pols[p]), t, ratios[k], UINT64_MAX, &c);
            ck_assert_msg(r.status == SIM_OK, "%s at %g", pols[p], ratios[k]);
            ck_assert_uint_le(c.max_memory, c.budget);
            ck_assert_uint_le(r.swap_in_bytes, r.swap_out_bytes);
            ck_assert_uint_eq(r.clock, 1 + bl->compute + r.remat_compute + r.stall_ns);
            ck_assert_uint_eq(c.n[0], r.swaps_out);
            ck_assert_uint_eq(c.n[1], r.swaps_in);
            /* every completed swap-out is reported when its copy ended (SIM_EV_SWAP_DONE) */
            ck_assert_uint_eq(c.done_bytes, r.swap_out_bytes);
            ck_assert_uint_eq(c.done_unmatched, 0);
            for (int e = 0; e < 2; e++)
                for (uint32_t i = 1; i < c.n[e]; i++) {
                    ck_assert_uint_ge(c.start[e][i], c.end[e][i - 1]);
                    ck_assert_uint_eq(c.end[e][i] - c.start[e][i],
                                      sim_link_copy_ns(&l, c.size[e][i]));
                }
            sim_result again = run_chain_with(pol_find(pols[p]), t, ratios[k], UINT64_MAX, NULL);
            again.wall_s = r.wall_s;
            ck_assert_int_eq(memcmp(&again, &r, sizeof r), 0);
            swapped += r.swaps_out;
            dropped += r.evictions;
        }
        /* autoswap never drops: it swaps its fallback victims too */
        ck_assert_msg(p == 3 || (swapped > 0 && (dropped > 0) == (p < 2)), "%s: %llu swapped, %llu dropped",
                      pols[p],
                      (unsigned long long)swapped, (unsigned long long)dropped);
    }
    chain_link = (sim_link){0.5, 3000};
    sim_trace_free(t);
}
END_TEST

START_TEST(test_engines_serve_in_order_and_the_books_balance)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(200, &t, &err), 0);
    const sim_baseline *bl = sim_trace_baseline(t);
    static copies c;
    sim_link l = {0.5, 3000};
    const double ratios[3] = {0.3, 0.5, 0.8};
    for (int k = 0; k < 3; k++) {
        sim_result r = run_chain(t, ratios[k], UINT64_MAX, &c);
        ck_assert_int_eq(r.status, SIM_OK);
        ck_assert_uint_gt(r.swaps_out, 0);
        ck_assert_uint_le(c.max_memory, c.budget);
        for (int e = 0; e < 2; e++) {
            uint64_t busy = 0;
            for (uint32_t i = 0; i < c.n[e]; i++) {
                ck_assert_uint_eq(c.end[e][i] - c.start[e][i], sim_link_copy_ns(&l, c.size[e][i]));
                if (i)
                    ck_assert_uint_ge(c.start[e][i], c.end[e][i - 1]); /* FIFO, one at a time */
                busy += c.end[e][i] - c.start[e][i];
            }
            ck_assert_uint_eq(busy, e ? r.h2d_busy_ns : r.d2h_busy_ns);
        }
        ck_assert_uint_eq(c.n[0], r.swaps_out);
        ck_assert_uint_eq(c.n[1], r.swaps_in);
        /* every completed swap-out is reported when its copy ended (SIM_EV_SWAP_DONE) */
        ck_assert_uint_gt(c.done, 0);
        ck_assert_uint_eq(c.done_bytes, r.swap_out_bytes);
        ck_assert_uint_eq(c.done_unmatched, 0);
        /* every byte swapped in was swapped out first */
        ck_assert_uint_le(r.swap_in_bytes, r.swap_out_bytes);
        ck_assert_uint_gt(r.swap_in_bytes, 0);
        /* the clock is compute, recompute and waiting, nothing else */
        ck_assert_uint_eq(r.clock, 1 + bl->compute + r.remat_compute + r.stall_ns);
        ck_assert_uint_eq(r.evictions, 0);
        /* determinism */
        sim_result again = run_chain(t, ratios[k], UINT64_MAX, NULL);
        again.wall_s = r.wall_s;
        ck_assert_int_eq(memcmp(&again, &r, sizeof r), 0);
    }
    /* a small host memory: some victims are dropped and recomputed, the rest still balances */
    sim_result r = run_chain(t, 0.3, bl->memory / 20, NULL);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_gt(r.swap_fallbacks, 0);
    ck_assert_uint_eq(r.swap_fallbacks, r.evictions);
    ck_assert_uint_le(r.host_peak, bl->memory / 20);
    ck_assert_uint_le(r.swap_in_bytes, r.swap_out_bytes);
    ck_assert_uint_eq(r.clock, 1 + bl->compute + r.remat_compute + r.stall_ns);
    sim_trace_free(t);
}
END_TEST

/* Policies that do not swap ignore the link and host settings and queue nothing. */
START_TEST(test_no_swapping_policy_no_copies)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(100, &t, &err), 0);
    const char *pols[] = {"dtr", "lru", "msps"};
    for (int i = 0; i < 3; i++) {
        sim_config a, b;
        sim_config_init(&a);
        a.policy = pol_find(pols[i]);
        a.budget = sim_budget_for_ratio(t, 0.4);
        b = a;
        b.link_gbps = 1;
        b.host_memory = 1;
        sim_result ra, rb;
        ck_assert_int_eq(sim_run(t, &a, &ra, &err), 0);
        ck_assert_int_eq(sim_run(t, &b, &rb, &err), 0);
        rb.wall_s = ra.wall_s;
        ck_assert_int_eq(memcmp(&ra, &rb, sizeof ra), 0);
        ck_assert_uint_eq(ra.swaps_out + ra.swaps_in + ra.stall_ns + ra.d2h_busy_ns, 0);
    }
    sim_trace_free(t);
}
END_TEST

START_TEST(test_swapping_refuses_bad_configs)
{
    sim_trace *t = one_swap_trace(0, 0);
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = SWAP_LRU;
    cfg.link_gbps = -1;
    sim_result r;
    gms_error err = {0};
    ck_assert_int_ne(sim_run(t, &cfg, &r, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "bandwidth"));
    sim_trace_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("swap");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_link_presets_and_formula);
    tcase_add_test(tc, test_on_demand_swap_stalls_for_both_copies);
    tcase_add_test(tc, test_prefetch_overlap_hides_the_copy_back);
    tcase_add_test(tc, test_full_host_memory_falls_back_to_recomputation);
    tcase_add_test(tc, test_hybrid_mix_swaps_only_what_is_dearer_to_recompute);
    tcase_add_test(tc, test_capuchin_prefetches_in_time);
    tcase_add_test(tc, test_a_swapped_neighbour_adds_no_recompute_cost);
    tcase_add_test(tc, test_autoswap_plans_around_the_peak);
    tcase_add_test(tc, test_baseline_load_peaks_at_the_baseline_memory);
    tcase_add_test(tc, test_engines_serve_in_order_and_the_books_balance);
    tcase_add_test(tc, test_every_swapping_policy_keeps_the_books);
    tcase_add_test(tc, test_no_swapping_policy_no_copies);
    tcase_add_test(tc, test_swapping_refuses_bad_configs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
