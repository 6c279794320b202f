/*
 * The replay engine on small hand-made graphs whose outcome was traced by hand from the spec
 * (../shared/spec/dtr-semantics.md). Storages are numbered in creation order (constants too);
 * the observer log reads "C:op" compute, "R:op" rematerialization, "E:s" policy eviction,
 * "X:s" eager eviction.
 */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "check_run.h"
#include "graph.h"

/* x(8, const) -> a=f(x) 100 -> b=g(a) 100 -> c=h(b) 100, a and b released after use. */
static sim_trace *chain_trace(void)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 8);
    g_call(b, "f", 10, 2, 100, 1, (uint64_t)1);
    g_call(b, "g", 20, 3, 100, 1, (uint64_t)2);
    g_release(b, 2);
    g_call(b, "h", 30, 4, 100, 1, (uint64_t)3);
    g_release(b, 3);
    return g_finish(b);
}

START_TEST(test_chain_without_budget_costs_clock_one_plus_compute)
{
    sim_trace *t = chain_trace();
    g_log log;
    sim_result r = g_run(t, "dtr", UINT64_MAX, &log);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.clock, 61); /* the clock starts at 1 */
    ck_assert(r.overhead == 61.0 / 60.0);
    ck_assert_uint_eq(r.evictions, 0);
    ck_assert_uint_eq(r.eager_evictions, 2);
    ck_assert_uint_eq(r.remats, 0);
    ck_assert_uint_eq(r.peak_memory, 208);
    ck_assert_str_eq(log.text, "C:constant C:f C:g X:1 C:h X:2 ");
    sim_trace_free(t);
}
END_TEST

START_TEST(test_baseline_counts_peak_compute_constants_bottleneck_and_ops)
{
    sim_trace *t = chain_trace();
    const sim_baseline *bl = sim_trace_baseline(t);
    ck_assert_uint_eq(bl->memory, 208);
    ck_assert_uint_eq(bl->compute, 60);
    ck_assert_uint_eq(bl->constants, 8);
    ck_assert_uint_eq(bl->bottleneck, 200); /* g: 100 out + 100 in */
    ck_assert_uint_eq(bl->ops, 4);
    ck_assert_uint_eq(sim_budget_for_ratio(t, 0.4), 83); /* int(208 * 0.4) */
    sim_trace_free(t);
}
END_TEST

START_TEST(test_start_annotation_discards_everything_before_it)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 50, 1000);
    g_call(b, "warmup", 999, 51, 5000, 1, (uint64_t)50);
    g_annotate(b, "START");
    g_constant(b, 1, 8);
    g_release(b, 51); /* bound before START: ignored */
    g_call(b, "f", 10, 2, 100, 1, (uint64_t)1);
    g_annotate(b, "START"); /* only the first START counts */
    g_call(b, "g", 20, 3, 100, 1, (uint64_t)2);
    g_release(b, 2);
    g_call(b, "h", 30, 4, 100, 1, (uint64_t)3);
    g_release(b, 3);
    sim_trace *t = g_finish(b);
    const sim_baseline *bl = sim_trace_baseline(t);
    ck_assert_uint_eq(bl->memory, 208);
    ck_assert_uint_eq(bl->compute, 60);
    ck_assert_uint_eq(bl->ops, 4);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_builder_rejects_unknown_input_and_double_release)
{
    sim_trace_builder *b = g_new();
    gmt_event ev;
    uint64_t in = 77;
    gmt_output o = {.id = 2, .size = 1, .alias_of = -1};
    gmt_event_init(&ev, GMT_CALL);
    ev.op = "f";
    ev.inputs = &in;
    ev.n_inputs = 1;
    ev.outputs = &o;
    ev.n_outputs = 1;
    gms_error err = {0};
    ck_assert_int_ne(sim_trace_builder_add(b, &ev, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "event 1"));
    ck_assert_ptr_nonnull(strstr(err.msg, "77"));
    sim_trace_builder_free(b);

    b = g_new();
    g_constant(b, 1, 8);
    g_release(b, 1);
    gmt_event_init(&ev, GMT_RELEASE);
    ev.id = 1;
    ck_assert_int_ne(sim_trace_builder_add(b, &ev, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "no reference left"));
    sim_trace_builder_free(b);
}
END_TEST

/* x -> a=f -> b=g(a) -> c=h(b) -> d=k(a, c); under 25 bytes a is evicted for c, and d must
 * recompute a (evicting b to make room) before it runs. */
START_TEST(test_remat_recomputes_evicted_parent_first)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 0);
    g_call(b, "f", 10, 2, 10, 1, (uint64_t)1);
    g_call(b, "g", 20, 3, 10, 1, (uint64_t)2);
    g_call(b, "h", 30, 4, 10, 1, (uint64_t)3);
    g_call(b, "k", 40, 5, 0, 2, (uint64_t)2, (uint64_t)4);
    g_release(b, 3);
    g_release(b, 2);
    g_release(b, 4);
    sim_trace *t = g_finish(b);
    g_log log;
    sim_result r = g_run(t, "lru", 25, &log);
    ck_assert_str_eq(log.text, "C:constant C:f C:g E:1 C:h E:2 R:f C:k X:1 X:3 ");
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.clock, 111);
    ck_assert(r.overhead == 1.11);
    ck_assert_uint_eq(r.evictions, 2);
    ck_assert_uint_eq(r.eager_evictions, 2);
    ck_assert_uint_eq(r.remats, 1);
    ck_assert_uint_eq(r.remat_compute, 10);
    ck_assert_uint_eq(r.peak_memory, 20);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_remat_limit_stops_after_the_remat_that_passes_it)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 0);
    g_call(b, "f", 10, 2, 10, 1, (uint64_t)1);
    g_call(b, "g", 20, 3, 10, 1, (uint64_t)2);
    g_call(b, "h", 30, 4, 10, 1, (uint64_t)3);
    g_call(b, "k", 40, 5, 0, 2, (uint64_t)2, (uint64_t)4);
    g_release(b, 3);
    g_release(b, 2);
    g_release(b, 4);
    sim_trace *t = g_finish(b);
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find("lru");
    cfg.budget = 25;
    cfg.remat_limit = 1.0; /* no recomputation allowed at all */
    sim_result r;
    gms_error err = {0};
    ck_assert_int_eq(sim_run(t, &cfg, &r, &err), 0);
    ck_assert_int_eq(r.status, SIM_REMAT_LIMIT);
    ck_assert_uint_eq(r.remats, 1);
    ck_assert_uint_eq(r.remat_compute, 10);
    ck_assert_uint_eq(r.clock, 71);
    /* 100 x (1.1 - 1) is a float a hair above 10: remat compute 10 is not above it */
    cfg.remat_limit = 1.1;
    ck_assert_int_eq(sim_run(t, &cfg, &r, &err), 0);
    ck_assert_int_eq(r.status, SIM_OK);
    cfg.remat_limit = 0.5;
    ck_assert_int_ne(sim_run(t, &cfg, &r, &err), 0);
    sim_trace_free(t);
}
END_TEST

/* x -> a -> {b, c} diamond, then e needs room: LRU sees a and b with the same last access
 * and evicts a, the one later in pool order. */
START_TEST(test_lru_tie_picks_last_minimum_in_pool_order)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 0);
    g_call(b, "f", 5, 2, 10, 1, (uint64_t)1);
    g_call(b, "g", 7, 3, 10, 1, (uint64_t)2);
    g_call(b, "h", 11, 4, 10, 1, (uint64_t)2);
    g_call(b, "m", 3, 5, 15, 1, (uint64_t)1);
    g_call(b, "k", 13, 6, 10, 2, (uint64_t)3, (uint64_t)4);
    g_release(b, 2);
    g_release(b, 3);
    g_release(b, 4);
    g_release(b, 5);
    sim_trace *t = g_finish(b);
    g_log log;
    sim_result r = g_run(t, "lru", 35, &log);
    ck_assert_str_eq(log.text, "C:constant C:f C:g C:h E:1 C:m E:4 C:k X:2 X:3 ");
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.clock, 40);
    ck_assert_uint_eq(r.evictions, 2);
    ck_assert_uint_eq(r.remats, 0);
    ck_assert_uint_eq(r.peak_memory, 35);
    sim_trace_free(t);
}
END_TEST

/* Same diamond, the root released early: b is evicted for c, then d must recompute b, whose
 * parent a was freed on release, while a and c are locked: nothing left to evict. */
START_TEST(test_diamond_oom_when_everything_resident_is_locked)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 0);
    g_call(b, "f", 5, 2, 10, 1, (uint64_t)1);
    g_call(b, "g", 7, 3, 10, 1, (uint64_t)2);
    g_call(b, "h", 11, 4, 10, 1, (uint64_t)2);
    g_release(b, 2);
    g_call(b, "k", 13, 5, 10, 2, (uint64_t)3, (uint64_t)4);
    sim_trace *t = g_finish(b);
    g_log log;
    sim_result r = g_run(t, "dtr", 25, &log);
    ck_assert_str_eq(log.text, "C:constant C:f C:g E:2 C:h X:1 R:f ");
    ck_assert_int_eq(r.status, SIM_OOM);
    ck_assert_uint_eq(r.evictions, 1);
    ck_assert_uint_eq(r.eager_evictions, 1);
    ck_assert_uint_eq(r.remats, 1);
    ck_assert_uint_eq(r.remat_compute, 5);
    ck_assert_uint_eq(r.peak_memory, 20);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_budget_below_one_op_is_oom_not_an_error)
{
    sim_trace *t = chain_trace();
    sim_result r = g_run(t, "dtr", 50, NULL);
    ck_assert_int_eq(r.status, SIM_OOM);
    ck_assert_uint_eq(r.evictions, 0);
    ck_assert_uint_eq(r.peak_memory, 8);
    r = g_run(t, "lru", 4, NULL); /* even the constant does not fit */
    ck_assert_int_eq(r.status, SIM_OOM);
    ck_assert_uint_eq(r.peak_memory, 0);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_pinned_constants_are_never_evicted)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 40);
    g_constant(b, 2, 40);
    g_call(b, "f", 1, 3, 30, 2, (uint64_t)1, (uint64_t)2);
    sim_trace *t = g_finish(b);
    static const char *const pols[] = {"dtr", "dtr-eq", "dtr-local", "lru", "size", "msps",
                                       "random"};
    for (size_t i = 0; i < sizeof pols / sizeof pols[0]; i++) {
        g_log log;
        sim_result r = g_run(t, pols[i], 100, &log);
        ck_assert_int_eq(r.status, SIM_OOM);
        ck_assert_uint_eq(r.evictions, 0);
        ck_assert_str_eq(log.text, "C:constant C:constant ");
    }
    sim_trace_free(t);
}
END_TEST

/* A two-output op: the remat asked for o1 also brings back o2, so the later use of o2 needs
 * no second recomputation. Pool order after the split is [o2, o1] (siblings first, then the
 * tensor asked for), so the size tie evicts o1 (storage 1) first. */
START_TEST(test_remat_of_multi_output_op_rematerializes_siblings)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 0);
    uint64_t in = 1;
    gmt_output outs[2] = {{.id = 2, .size = 10, .alias_of = -1},
                          {.id = 3, .size = 10, .alias_of = -1}};
    g_call_multi(b, "split", 10, &in, 1, outs, 2);
    g_call(b, "f", 1, 4, 30, 1, (uint64_t)1);
    g_release(b, 4);
    g_call(b, "g", 2, 5, 0, 2, (uint64_t)2, (uint64_t)3);
    sim_trace *t = g_finish(b);
    g_log log;
    sim_result r = g_run(t, "size", 30, &log);
    ck_assert_str_eq(log.text, "C:constant C:split E:1 E:2 C:f X:3 R:split C:g ");
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.remats, 1);
    ck_assert_uint_eq(r.remat_compute, 10);
    ck_assert_uint_eq(r.clock, 24);
    sim_trace_free(t);
}
END_TEST

/* A view shares its base's storage and costs no memory; evicting the base undefines the
 * view; recomputing the view needs the base first. */
START_TEST(test_view_remat_recomputes_its_base_first)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 0);
    g_call(b, "f", 10, 2, 100, 1, (uint64_t)1);
    g_view(b, "view", 5, 3, 2);
    g_release(b, 2); /* the view still holds the storage */
    g_call(b, "g", 1, 4, 100, 1, (uint64_t)1);
    g_call(b, "h", 2, 5, 10, 1, (uint64_t)3);
    g_release(b, 4);
    g_release(b, 5);
    sim_trace *t = g_finish(b);
    ck_assert_uint_eq(sim_trace_storages(t), 4);
    ck_assert_uint_eq(sim_trace_baseline(t)->memory, 210);
    g_log log;
    sim_result r = g_run(t, "lru", 150, &log);
    ck_assert_str_eq(log.text,
                     "C:constant C:f C:view E:1 C:g E:2 R:f R:view C:h X:3 ");
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.remats, 2);
    ck_assert_uint_eq(r.remat_compute, 15);
    ck_assert_uint_eq(r.clock, 34);
    ck_assert_uint_eq(r.peak_memory, 110);
    sim_trace_free(t);
}
END_TEST

/* MUTATE of a view: a new storage as big as the view's root storage, the name is rebound and
 * the old tensor released; the base is freed when its own name is released. */
START_TEST(test_mutation_allocates_root_storage_size_and_releases_old_tensor)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 8);
    g_call(b, "f", 10, 2, 100, 1, (uint64_t)1);
    g_view(b, "view", 5, 3, 2);
    uint64_t in[2] = {3, 1};
    uint32_t mut = 0;
    g_mutate(b, "add_", 7, in, 2, &mut, 1);
    g_release(b, 2);
    sim_trace *t = g_finish(b);
    const sim_baseline *bl = sim_trace_baseline(t);
    ck_assert_uint_eq(bl->memory, 208);
    ck_assert_uint_eq(bl->compute, 22);
    ck_assert_uint_eq(bl->bottleneck, 108);
    ck_assert_uint_eq(sim_trace_storages(t), 3);
    g_log log;
    sim_result r = g_run(t, "dtr", UINT64_MAX, &log);
    ck_assert_str_eq(log.text, "C:constant C:f C:view C:add_ X:1 ");
    ck_assert_uint_eq(r.peak_memory, 208);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_copy_keeps_storage_alive_until_last_release)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 0);
    g_call(b, "f", 10, 2, 100, 1, (uint64_t)1);
    g_simple(b, GMT_COPY, 9, 2);
    g_release(b, 2);
    g_call(b, "g", 1, 3, 1, 1, (uint64_t)1);
    g_release(b, 9);
    g_release(b, 3);
    sim_trace *t = g_finish(b);
    g_log log;
    sim_result r = g_run(t, "dtr", UINT64_MAX, &log);
    ck_assert_str_eq(log.text, "C:constant C:f C:g X:1 X:2 ");
    ck_assert_uint_eq(r.eager_evictions, 2);
    ck_assert_uint_eq(r.peak_memory, 101);
    sim_trace_free(t);
}
END_TEST

/* dtr-local with two free-to-recompute storages (cost-0 ops) first in the pool: the first
 * zero score ends the scan, although the tie rule alone would pick the second. */
START_TEST(test_first_zero_score_ends_the_scan)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 0);
    g_call(b, "z1", 0, 2, 10, 1, (uint64_t)1);
    g_call(b, "z2", 0, 3, 10, 1, (uint64_t)1);
    g_call(b, "w", 5, 4, 10, 1, (uint64_t)1);
    g_call(b, "y", 1, 5, 10, 1, (uint64_t)1);
    g_release(b, 2);
    g_release(b, 3);
    g_release(b, 4);
    g_release(b, 5);
    sim_trace *t = g_finish(b);
    g_log log;
    g_run(t, "dtr-local", 35, &log);
    ck_assert_str_eq(log.text, "C:constant C:z1 C:z2 C:w E:1 C:y X:2 X:3 X:4 ");
    sim_trace_free(t);
}
END_TEST

/* The same graph under msps, whose exact scan reads cached scores in pool order: z1 and z2
 * cost 0 and border no evicted storage, so both score 0 and the first ends the scan. The
 * candidates counted are those the scan visited: the one search stops at the first pool
 * member, so it counts 1 (a scan that ran on would count every member, 3 or more). */
START_TEST(test_msps_cached_scan_stops_at_the_first_zero)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 0);
    g_call(b, "z1", 0, 2, 10, 1, (uint64_t)1);
    g_call(b, "z2", 0, 3, 10, 1, (uint64_t)1);
    g_call(b, "w", 5, 4, 10, 1, (uint64_t)1);
    g_call(b, "y", 1, 5, 10, 1, (uint64_t)1);
    g_release(b, 2);
    g_release(b, 3);
    g_release(b, 4);
    g_release(b, 5);
    sim_trace *t = g_finish(b);
    g_log log;
    sim_result r = g_run(t, "msps", 35, &log);
    ck_assert_str_eq(log.text, "C:constant C:z1 C:z2 C:w E:1 C:y X:2 X:3 X:4 ");
    ck_assert_uint_eq(r.evictions, 1);
    ck_assert_uint_eq(r.candidates, 1);
    sim_trace_free(t);
}
END_TEST

/* size policy on zero-size storages: every score is +inf, so the last pool element goes
 * first; freeing nothing, the run ends in OOM once the pool is empty. */
START_TEST(test_all_infinite_scores_evict_the_last_pool_element)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 0);
    g_call(b, "z1", 1, 2, 0, 1, (uint64_t)1);
    g_call(b, "z2", 1, 3, 0, 1, (uint64_t)1);
    g_call(b, "a", 1, 4, 10, 1, (uint64_t)1);
    sim_trace *t = g_finish(b);
    g_log log;
    sim_result r = g_run(t, "size", 5, &log);
    ck_assert_str_eq(log.text, "C:constant C:z1 C:z2 E:2 E:1 ");
    ck_assert_int_eq(r.status, SIM_OOM);
    ck_assert_uint_eq(r.evictions, 2);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_runner_reuse_gives_identical_results)
{
    sim_trace *t = chain_trace();
    sim_runner *run;
    gms_error err = {0};
    ck_assert_int_eq(sim_runner_new(t, &run, &err), 0);
    sim_config cfg;
    sim_config_init(&cfg);
    sim_result first[3], again;
    const char *pols[3] = {"dtr", "dtr-eq", "random"};
    for (int rep = 0; rep < 2; rep++)
        for (int i = 0; i < 3; i++) {
            cfg.policy = pol_find(pols[i]);
            cfg.budget = 150;
            ck_assert_int_eq(sim_runner_run(run, &cfg, rep ? &again : &first[i], &err), 0);
            if (rep) {
                ck_assert_int_eq(again.status, first[i].status);
                ck_assert_uint_eq(again.clock, first[i].clock);
                ck_assert_uint_eq(again.evictions, first[i].evictions);
                ck_assert_uint_eq(again.peak_memory, first[i].peak_memory);
            }
        }
    sim_runner_free(run);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_run_without_policy_is_a_caller_error)
{
    sim_trace *t = chain_trace();
    sim_config cfg;
    sim_config_init(&cfg);
    sim_result r;
    gms_error err = {0};
    ck_assert_int_ne(sim_run(t, &cfg, &r, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "policy"));
    sim_trace_free(t);
}
END_TEST

START_TEST(test_synthetic_chain_replays_with_remats_under_budget)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(200, &t, &err), 0);
    ck_assert_uint_eq(sim_trace_baseline(t)->ops, 2 * 200 + 4);
    sim_result r = g_run(t, "dtr", sim_budget_for_ratio(t, 0.3), NULL);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_gt(r.remats, 0);
    ck_assert(r.overhead > 1.0);
    sim_trace_free(t);
}
END_TEST

/* --sample: a sample at least as large as the pool is the exact full scan; a smaller one is
 * reproducible for a seed and still replays the whole trace. */
START_TEST(test_sampled_choice_is_exact_when_sample_covers_pool_and_reproducible)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(300, &t, &err), 0);
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find("dtr-local");
    cfg.budget = sim_budget_for_ratio(t, 0.3);
    sim_result exact, big, s1, s2;
    ck_assert_int_eq(sim_run(t, &cfg, &exact, &err), 0);
    cfg.sample = 1000000;
    ck_assert_int_eq(sim_run(t, &cfg, &big, &err), 0);
    ck_assert_uint_eq(big.clock, exact.clock);
    ck_assert_uint_eq(big.evictions, exact.evictions);
    cfg.sample = 4;
    cfg.seed = 7;
    ck_assert_int_eq(sim_run(t, &cfg, &s1, &err), 0);
    ck_assert_int_eq(sim_run(t, &cfg, &s2, &err), 0);
    ck_assert_int_eq(s1.status, SIM_OK);
    ck_assert_uint_eq(s1.clock, s2.clock);
    ck_assert_uint_eq(s1.evictions, s2.evictions);
    ck_assert_uint_ne(s1.clock, exact.clock); /* 4 of ~100 candidates: another schedule */
    cfg.sample = SIM_SAMPLE_SQRT;
    ck_assert_int_eq(sim_run(t, &cfg, &s1, &err), 0);
    ck_assert_int_eq(s1.status, SIM_OK);
    sim_trace_free(t);
}
END_TEST

/* An op without outputs (a synchronisation, an in-place kernel recorded without results)
 * still needs its inputs resident and costs its time. */
START_TEST(test_op_without_outputs_rematerializes_inputs_and_costs_time)
{
    sim_trace_builder *b = g_new();
    g_constant(b, 1, 0);
    g_call(b, "f", 10, 2, 10, 1, (uint64_t)1);
    g_call(b, "g", 1, 3, 10, 1, (uint64_t)1);
    g_release(b, 3);
    uint64_t in = 2;
    g_call_multi(b, "sync", 5, &in, 1, NULL, 0);
    g_release(b, 2);
    sim_trace *t = g_finish(b);
    g_log log;
    sim_result r = g_run(t, "lru", 15, &log);
    ck_assert_str_eq(log.text, "C:constant C:f E:1 C:g X:2 R:f C:sync X:1 ");
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.clock, 27);
    ck_assert_uint_eq(sim_trace_baseline(t)->compute, 16);
    sim_trace_free(t);
}
END_TEST

typedef struct thread_job {
    const sim_trace *t;
    const char *policy;
    sim_result res[8];
    int ok;
} thread_job;

static void *run_job(void *arg)
{
    thread_job *j = arg;
    sim_runner *run;
    gms_error err = {0};
    if (sim_runner_new(j->t, &run, &err) != 0)
        return NULL;
    j->ok = 1;
    for (int i = 0; i < 8; i++) {
        sim_config cfg;
        sim_config_init(&cfg);
        cfg.policy = pol_find(j->policy);
        cfg.budget = sim_budget_for_ratio(j->t, 0.2 + 0.1 * i);
        cfg.seed = (uint64_t)i;
        if (sim_runner_run(run, &cfg, &j->res[i], &err) != 0)
            j->ok = 0;
    }
    sim_runner_free(run);
    return NULL;
}

/* One loaded trace, runs on four threads at once: the same results as one after another. */
START_TEST(test_concurrent_runs_on_one_trace_match_sequential_ones)
{
    sim_trace *t;
    gms_error err = {0};
    ck_assert_int_eq(sim_trace_chain(400, &t, &err), 0);
    const char *pols[4] = {"dtr", "dtr-eq", "random", "msps"};
    thread_job seq[4], par[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        seq[i] = (thread_job){.t = t, .policy = pols[i]};
        par[i] = seq[i];
        run_job(&seq[i]);
    }
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, run_job, &par[i]), 0);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < 4; i++) {
        ck_assert(seq[i].ok && par[i].ok);
        for (int k = 0; k < 8; k++) {
            ck_assert_uint_eq(par[i].res[k].clock, seq[i].res[k].clock);
            ck_assert_uint_eq(par[i].res[k].evictions, seq[i].res[k].evictions);
            ck_assert_uint_eq(par[i].res[k].peak_memory, seq[i].res[k].peak_memory);
        }
    }
    sim_trace_free(t);
}
END_TEST

/* Region sets as full bitsets (small traces) and as windowed ones (large ones) give the same runs. */

int main(void)
{
    Suite *s = suite_create("sim");
    TCase *tc = tcase_create("engine");
    tcase_add_test(tc, test_chain_without_budget_costs_clock_one_plus_compute);
    tcase_add_test(tc, test_baseline_counts_peak_compute_constants_bottleneck_and_ops);
    tcase_add_test(tc, test_start_annotation_discards_everything_before_it);
    tcase_add_test(tc, test_builder_rejects_unknown_input_and_double_release);
    tcase_add_test(tc, test_remat_recomputes_evicted_parent_first);
    tcase_add_test(tc, test_remat_limit_stops_after_the_remat_that_passes_it);
    tcase_add_test(tc, test_lru_tie_picks_last_minimum_in_pool_order);
    tcase_add_test(tc, test_diamond_oom_when_everything_resident_is_locked);
    tcase_add_test(tc, test_budget_below_one_op_is_oom_not_an_error);
    tcase_add_test(tc, test_pinned_constants_are_never_evicted);
    tcase_add_test(tc, test_remat_of_multi_output_op_rematerializes_siblings);
    tcase_add_test(tc, test_view_remat_recomputes_its_base_first);
    tcase_add_test(tc, test_mutation_allocates_root_storage_size_and_releases_old_tensor);
    tcase_add_test(tc, test_copy_keeps_storage_alive_until_last_release);
    tcase_add_test(tc, test_first_zero_score_ends_the_scan);
    tcase_add_test(tc, test_msps_cached_scan_stops_at_the_first_zero);
    tcase_add_test(tc, test_all_infinite_scores_evict_the_last_pool_element);
    tcase_add_test(tc, test_runner_reuse_gives_identical_results);
    tcase_add_test(tc, test_run_without_policy_is_a_caller_error);
    tcase_add_test(tc, test_synthetic_chain_replays_with_remats_under_budget);
    tcase_add_test(tc, test_sampled_choice_is_exact_when_sample_covers_pool_and_reproducible);
    tcase_add_test(tc, test_op_without_outputs_rematerializes_inputs_and_costs_time);
    tcase_add_test(tc, test_concurrent_runs_on_one_trace_match_sequential_ones);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
