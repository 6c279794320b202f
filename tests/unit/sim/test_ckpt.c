/* Checkpoint planners in the engine (sim_ckpt.c): a hand-made two-layer trace whose peak,
 * recompute time and event order are worked out by hand; OOM and the remat limit in planner
 * runs; ckpt-all costs exactly one extra forward pass on a synthetic transformer; ckpt-sqrt's
 * segments; --policy-args canonicalization. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "check_run.h"
#include "graph.h"
#include "planner.h"
#include "planners.h"
#include "rotor_trace.h"
#include "sim_layers.h"
#include "sim_plan_report.h"
#include "synth.h"

/* w (constant, 100 B); iteration (input size 8):
 *   x  = input()        5 ns,   10 B   op 1  (outside the layers)
 *   a: a1 = fa1(x, w)  10 ns, 1000 B   op 2  (x released right after)
 *      a2 = fa2(a1)    20 ns,  100 B   op 3
 *   b: b1 = fb(a2)     30 ns,   50 B   op 4
 *   BACKWARD
 *   g1 = gb(b1, a2)    30 ns,    7 B   op 5
 *   g2 = ga(g1, a1)    40 ns,    9 B   op 6
 * Storages: w 0, x 1, a1 2, a2 3, b1 4, g1 5, g2 6. */
static sim_trace *two_layers(void)
{
    sim_trace_builder *b = g_new();
    gmt_event ev;
    g_annotate(b, "START");
    g_constant(b, 1, 100);
    gmt_event_init(&ev, GMT_ANNOTATE);
    ev.text = "iteration";
    ev.has_value = 1;
    ev.value = 8;
    g_add(b, &ev);
    g_call(b, "input", 5, 10, 10, 0);
    gmt_event_scope(&ev, "a", 0);
    g_add(b, &ev);
    g_call(b, "fa1", 10, 11, 1000, 2, (uint64_t)10, (uint64_t)1);
    g_release(b, 10);
    g_call(b, "fa2", 20, 12, 100, 1, (uint64_t)11);
    gmt_event_scope(&ev, NULL, 1);
    g_add(b, &ev);
    gmt_event_scope(&ev, "b", 0);
    g_add(b, &ev);
    g_call(b, "fb", 30, 13, 50, 1, (uint64_t)12);
    gmt_event_scope(&ev, NULL, 1);
    g_add(b, &ev);
    g_annotate(b, "BACKWARD");
    g_call(b, "gb", 30, 14, 7, 2, (uint64_t)13, (uint64_t)12);
    g_call(b, "ga", 40, 15, 9, 2, (uint64_t)14, (uint64_t)11);
    for (uint64_t id = 11; id <= 15; id++)
        g_release(b, id);
    return g_finish(b);
}

/* A planner that checkpoints the layers whose names are in `names` (comma-separated) and
 * keeps what the engine tells it. */
typedef struct test_planner {
    const char *names;
    int with_previous; /* join every checkpointed layer with the one before */
    int no_hold;       /* sim_plan.no_hold */
    sim_plan_request req;
    sim_iteration_outcome out;
    sim_layer_sample samples[8];
    int plans, observes;
} test_planner;

static test_planner tp;

static int tp_plan(void *state, const sim_plan_request *req, sim_plan *out, gms_error *err)
{
    (void)state, (void)err;
    tp.req = *req;
    tp.plans++;
    for (uint32_t i = 0; i < req->n_layers; i++) {
        const char *nm = sim_layers_at(req->layers, req->first_layer + i)->name;
        size_t n = strlen(nm);
        for (const char *p = tp.names; *p;) {
            const char *c = strchr(p, ',');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            if (len == n && strncmp(p, nm, n) == 0) {
                out->checkpoint[i] = 1;
                out->with_previous[i] = (uint8_t)(tp.with_previous && i > 0);
            }
            p += len + (c != NULL);
        }
    }
    out->predicted_peak = 1000;
    out->cache_hit = 0;
    out->no_hold = tp.no_hold;
    return 0;
}

static void tp_observe(void *state, const sim_iteration_outcome *o)
{
    (void)state;
    tp.out = *o;
    for (uint32_t i = 0; i < o->n_layers && i < 8; i++)
        tp.samples[i] = o->layers[i];
    tp.observes++;
}

static const sim_planner test_pl = {.name = "test", .plan = tp_plan, .observe = tp_observe};

static sim_result run_planned(const sim_trace *t, const char *names, uint64_t budget,
                              double remat_limit, g_log *log)
{
    memset(&tp, 0, sizeof tp);
    tp.names = names;
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.planner = &test_pl;
    cfg.budget = budget;
    cfg.remat_limit = remat_limit;
    return g_run_cfg(t, &cfg, log);
}

START_TEST(test_two_layers_one_checkpointed_exact)
{
    sim_trace *t = two_layers();
    /* no checkpoint: 100 +10 +1000 -10 +100 +50 +7 +9 = peak 1266 */
    sim_result plain = g_run(t, "dtr", UINT64_MAX, NULL);
    ck_assert_uint_eq(plain.peak_memory, 1266);
    sim_result none = run_planned(t, "", UINT64_MAX, 2.0, NULL);
    ck_assert_uint_eq(none.peak_memory, 1266);
    ck_assert_uint_eq(none.clock, plain.clock);
    ck_assert_uint_eq(none.remats, 0);

    /* a checkpointed: x is held past its release; at a's end a1 (1000) is freed, a2 kept
     * (fb reads it): 110 -> 1110 -> 1210 -> 210 -> 260 -> 267. ga needs a1: fa1 and fa2 run
     * again: 1267, 1367 (a2's copy) -> 1267; x is let go (1257); ga: 1266. */
    g_log log;
    sim_result r = run_planned(t, "a", UINT64_MAX, 2.0, &log);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.peak_memory, 1367);
    ck_assert_uint_eq(log.max_memory, 1267); /* events come after the copy is dropped */
    ck_assert_uint_eq(r.remat_compute, 30);
    ck_assert_uint_eq(r.remats, 2);
    ck_assert_uint_eq(r.evictions, 0);
    ck_assert_uint_eq(r.clock, plain.clock + 30);
    ck_assert_str_eq(log.text, "C:constant C:input C:fa1 C:fa2 X:2 C:fb C:gb R:fa1 R:fa2 X:1 "
                               "C:ga X:2 X:3 X:4 X:5 X:6 ");
    ck_assert_uint_eq(r.plan_iterations, 1);
    ck_assert_uint_eq(r.checkpoints, 1);
    ck_assert_uint_eq(r.cache_misses, 1);
    /* predicted 1000 against 1367 */
    ck_assert_uint_eq(r.plan_predicted, 1);
    ck_assert(fabs(r.pred_err_max - 367.0 / 1367.0) < 1e-12);

    /* what the planner saw and was told */
    ck_assert_int_eq(tp.plans, 1);
    ck_assert_int_eq(tp.observes, 1);
    ck_assert_int_eq(tp.req.input_size, 8);
    ck_assert_uint_eq(tp.req.n_layers, 2);
    ck_assert_uint_eq(tp.req.start_memory, 100);
    ck_assert_uint_eq(tp.out.start_memory, 100);
    ck_assert_uint_eq(tp.out.peak_memory, 1367);
    ck_assert_uint_eq(tp.out.recompute_ns, 30);
    ck_assert_uint_eq(tp.samples[0].activation_bytes, 1000);
    ck_assert_uint_eq(tp.samples[0].output_bytes, 100);
    ck_assert_uint_eq(tp.samples[0].forward_ns, 30);
    ck_assert_uint_eq(tp.samples[0].checkpointed, 1);
    ck_assert_uint_eq(tp.samples[1].activation_bytes, 50);
    ck_assert_uint_eq(tp.samples[1].output_bytes, 0);
    ck_assert_uint_eq(tp.samples[1].forward_ns, 30);
    ck_assert_uint_eq(tp.samples[1].checkpointed, 0);

    /* b checkpointed too: b1 (50) is freed at b's end and gb re-runs fb first
     * (267 - 50 = 217 before gb; fb again: 267; gb: 274; then as above with a) */
    r = run_planned(t, "a,b", UINT64_MAX, 2.0, &log);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.remat_compute, 60);
    ck_assert_uint_eq(r.remats, 3);
    ck_assert_msg(strstr(log.text, "C:fb X:4 R:fb C:gb R:fa1 R:fa2") != NULL, "events: %s",
                  log.text);
    sim_trace_free(t);
}
END_TEST

/* no_hold (ac-budget): units hold nothing and a freed value comes back alone. a and b
 * checkpointed, nothing saved: x (10) is freed when the trace releases it (1100 after fa1);
 * at a's end a1 goes (200), at b's end b1 (200); gb needs b1: fb alone runs again (250, 257
 * after gb); ga needs a1: fa1 needs x, so input runs first (1267 at fa1), then x is let go
 * (1257), ga: 1266. Recompute 30 + 5 + 10 = 45 ns, three ops, never a whole unit. */
START_TEST(test_no_hold_recomputes_values_alone)
{
    sim_trace *t = two_layers();
    g_log log;
    memset(&tp, 0, sizeof tp);
    tp.names = "a,b";
    tp.no_hold = 1;
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.planner = &test_pl;
    cfg.remat_limit = 2.0;
    sim_result r = g_run_cfg(t, &cfg, &log);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.remat_compute, 45);
    ck_assert_uint_eq(r.remats, 3);
    ck_assert_uint_eq(r.peak_memory, 1267);
    ck_assert_msg(strstr(log.text, "C:fb X:4 R:fb C:gb R:input R:fa1 X:1 C:ga") != NULL,
                  "events: %s", log.text);
    sim_trace_free(t);
}
END_TEST

/* Rotor's chain from the two-layer trace (rotor_trace.h): stage 0 = a (fa1, fa2: 30 ns; a2,
 * 100 B, is read by fb: its output x_1; a1, 1000 B, only by backward: in x-bar_1), stage 1 =
 * b (fb: 30 ns; b1, 50 B, only by backward), the loss stage = input (5 ns) and the backward
 * ops (gb, ga: 70 ns; no backward scopes, so all in the loss stage); x_0 = x (10 B, made in
 * the iteration before layer a and read by it); constant = w (100 B). */
START_TEST(test_rotor_chain_from_two_layers)
{
    sim_trace *t = two_layers();
    sim_layers *L = NULL;
    gms_error err = {0};
    ck_assert_int_eq(sim_layers_build(t, &L, &err), 0);
    rotor_chain *c = NULL;
    uint64_t constant = 0;
    ck_assert_msg(rotor_chain_from_trace(L, 0, &c, &constant, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(c->length, 2);
    ck_assert(c->fw[0] == 30 && c->fw[1] == 30 && c->fw[2] == 5);
    ck_assert(c->bw[0] == 0 && c->bw[1] == 0 && c->bw[2] == 70);
    ck_assert_uint_eq(c->cw[0], 10);
    ck_assert_uint_eq(c->cw[1], 100);
    ck_assert_uint_eq(c->cbw[1], 1100);
    ck_assert_uint_eq(c->cw[2], 0);
    ck_assert_uint_eq(c->cbw[2], 50);
    for (uint32_t i = 0; i <= 2; i++)
        ck_assert(c->fwd_tmp[i] == 0 && c->bwd_tmp[i] == 0);
    ck_assert_uint_eq(constant, 100);
    rotor_chain_free(c);
    ck_assert_int_eq(rotor_chain_from_trace(L, 5, &c, &constant, &err), GMS_EINVAL);
    sim_layers_free(L);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_units_join_layers)
{
    /* a and b as one unit: at b's end a1 and b1 go (a2 is read by nothing outside the unit
     * in the forward pass); gb needs b1: fa1, fa2, fb run again, all three */
    sim_trace *t = two_layers();
    memset(&tp, 0, sizeof tp);
    g_log log;
    tp.names = "a,b";
    tp.with_previous = 1;
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.planner = &test_pl;
    sim_result r = g_run_cfg(t, &cfg, &log);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.remat_compute, 60);
    ck_assert_msg(strstr(log.text, "C:fb X:2 X:3 X:4 R:fa1 R:fa2 R:fb X:1 C:gb C:ga") != NULL,
                  "events: %s", log.text);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_planner_runs_never_evict)
{
    sim_trace *t = two_layers();
    /* 1300 B: fits without checkpoints (peak 1266); with a checkpointed the re-run needs
     * 1367: oom, not an eviction */
    sim_result r = run_planned(t, "", 1300, 2.0, NULL);
    ck_assert_int_eq(r.status, SIM_OK);
    r = run_planned(t, "a", 1300, 2.0, NULL);
    ck_assert_int_eq(r.status, SIM_OOM);
    ck_assert_uint_eq(r.evictions, 0);
    /* DTR at the same budget evicts instead */
    r = g_run(t, "dtr", 1200, NULL);
    ck_assert_uint_gt(r.evictions, 0);
    r = run_planned(t, "", 1200, 2.0, NULL);
    ck_assert_int_eq(r.status, SIM_OOM);
    /* remat limit 1.1: 30 ns recomputed > 0.1 x 135 */
    r = run_planned(t, "a", UINT64_MAX, 1.1, NULL);
    ck_assert_int_eq(r.status, SIM_REMAT_LIMIT);
    sim_trace_free(t);
}
END_TEST

static int sink(void *ctx, const gmt_event *ev, const gmt_synth_opcost *cost, gms_error *err)
{
    (void)cost;
    return sim_trace_builder_add(ctx, ev, err);
}

static sim_trace *synth(gmt_synth_model m, uint32_t iterations)
{
    gmt_synth_params p;
    gmt_synth_params_default(&p, m);
    p.iterations = iterations;
    if (m == GMT_SYNTH_RESNET) {
        p.layers = 10;
        p.image_h = p.image_w = 64;
        p.batch = 4;
    }
    if (m == GMT_SYNTH_TRANSFORMER) {
        p.layers = 3;
        p.seq = 64;
        p.hidden = 128;
        p.heads = 4;
        p.vocab = 1000;
        p.vary_min = 32;
        p.vary_max = 96;
    }
    sim_trace_builder *b = g_new();
    gms_error err = {0};
    ck_assert_msg(gmt_synth_generate(&p, sink, b, NULL, &err) == 0, "%s", err.msg);
    return g_finish(b);
}

/* On a ResNet every layer keeps something backward reads, so ckpt-all re-runs each layer once:
 * exactly one extra forward pass. (On an MLP its linear+relu layers free nothing backward
 * reads, and nothing is re-run: the engine re-runs a unit only when a freed storage is
 * needed, as torch's non-reentrant checkpoint does.) */
START_TEST(test_ckpt_all_costs_one_forward_pass)
{
    sim_trace *t = synth(GMT_SYNTH_RESNET, 2);
    sim_layers *l;
    gms_error err = {0};
    ck_assert_int_eq(sim_layers_build(t, &l, &err), 0);
    ck_assert_int_eq(sim_layers_source(l), SIM_LAYERS_SCOPES);
    uint64_t forward = 0;
    for (uint32_t i = 0; i < sim_layers_count(l); i++)
        forward += sim_layers_at(l, i)->compute;
    ck_assert_uint_gt(forward, 0);
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.planner = planner_find("ckpt-all");
    ck_assert_ptr_nonnull(cfg.planner);
    sim_result r, plain;
    ck_assert_int_eq(sim_run(t, &cfg, &r, &err), 0);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.remat_compute, forward);
    ck_assert_uint_eq(r.checkpoints, sim_layers_count(l));
    ck_assert_uint_eq(r.plan_iterations, 2);
    cfg.planner = NULL;
    cfg.policy = pol_find("dtr");
    ck_assert_int_eq(sim_run(t, &cfg, &plain, &err), 0);
    ck_assert_uint_eq(r.clock, plain.clock + forward);
    /* ckpt-sqrt: less recompute than ckpt-all (its last segment runs once) */
    cfg.planner = planner_find("ckpt-sqrt");
    cfg.policy = NULL;
    ck_assert_int_eq(sim_run(t, &cfg, &r, &err), 0);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_gt(r.remat_compute, 0);
    ck_assert_uint_lt(r.remat_compute, forward);
    sim_layers_free(l);
    sim_trace_free(t);

    /* a transformer's peak is its activations: both planners lower it */
    t = synth(GMT_SYNTH_TRANSFORMER, 2);
    cfg.planner = NULL;
    cfg.policy = pol_find("dtr");
    ck_assert_int_eq(sim_run(t, &cfg, &plain, &err), 0);
    cfg.planner = planner_find("ckpt-all");
    ck_assert_int_eq(sim_run(t, &cfg, &r, &err), 0);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_lt(r.peak_memory, plain.peak_memory);
    cfg.planner = planner_find("ckpt-sqrt");
    ck_assert_int_eq(sim_run(t, &cfg, &r, &err), 0);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_lt(r.peak_memory, plain.peak_memory);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_runner_reuse_gives_same_results)
{
    /* a runner alternates planner and plain runs: each equals a fresh run */
    sim_trace *t = synth(GMT_SYNTH_TRANSFORMER, 2);
    sim_runner *rn;
    gms_error err = {0};
    ck_assert_int_eq(sim_runner_new(t, &rn, &err), 0);
    sim_config a, d;
    sim_config_init(&a);
    a.planner = planner_find("ckpt-all");
    sim_config_init(&d);
    d.policy = pol_find("dtr");
    sim_result ra1, ra2, rd1, rd2, fa, fd;
    ck_assert_int_eq(sim_runner_run(rn, &a, &ra1, &err), 0);
    ck_assert_int_eq(sim_runner_run(rn, &d, &rd1, &err), 0);
    ck_assert_int_eq(sim_runner_run(rn, &a, &ra2, &err), 0);
    ck_assert_int_eq(sim_runner_run(rn, &d, &rd2, &err), 0);
    ck_assert_int_eq(sim_run(t, &a, &fa, &err), 0);
    ck_assert_int_eq(sim_run(t, &d, &fd, &err), 0);
    ck_assert_uint_eq(ra1.clock, fa.clock);
    ck_assert_uint_eq(ra2.clock, fa.clock);
    ck_assert_uint_eq(ra2.peak_memory, fa.peak_memory);
    ck_assert_uint_eq(rd1.clock, fd.clock);
    ck_assert_uint_eq(rd2.peak_memory, fd.peak_memory);
    sim_runner_free(rn);
    sim_trace_free(t);
}
END_TEST

START_TEST(test_ckpt_sqrt_segments)
{
    uint8_t ck[7] = {0}, wp[7] = {0};
    sim_plan_request req = {.n_layers = 7};
    sim_plan plan = {.checkpoint = ck, .with_previous = wp};
    gms_error err = {0};
    ck_assert_int_eq(planner_ckpt_sqrt.plan(NULL, &req, &plan, &err), 0);
    /* k = 3 segments of 3, 2, 2 layers; the first two checkpointed as units */
    static const uint8_t want_ck[7] = {1, 1, 1, 1, 1, 0, 0};
    static const uint8_t want_wp[7] = {0, 1, 1, 0, 1, 0, 0};
    ck_assert_mem_eq(ck, want_ck, 7);
    ck_assert_mem_eq(wp, want_wp, 7);
}
END_TEST

static void canon_ok(const char *in, const char *want)
{
    char *out;
    gms_error err = {0};
    ck_assert_msg(planner_params_canon(in, &out, &err) == 0, "%s: %s", in, err.msg);
    ck_assert_str_eq(out, want);
    free(out);
}

static void canon_bad(const char *in, const char *needle)
{
    char *out = NULL;
    gms_error err = {0};
    ck_assert_msg(planner_params_canon(in, &out, &err) != 0, "'%s' accepted", in);
    ck_assert_ptr_null(out);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "'%s': %s", in, err.msg);
}

START_TEST(test_params_canonical)
{
    canon_ok(NULL, "");
    canon_ok("", "");
    canon_ok(" warmup = 10 , bucket=5.0,reserve=0.50 ", "bucket=5,reserve=0.5,warmup=10");
    canon_ok("b=1e3,a=-0,c=0.1", "a=0,b=1000,c=0.1");
    canon_ok("mode=Fast", "mode=Fast");
    canon_bad("warmup", "not KEY=VALUE");
    canon_bad("a=1,a=2", "given twice");
    canon_bad("a=1,,b=2", "stray comma");
    canon_bad("a=1,", "stray comma");
    canon_bad("=3", "needs a key");
    canon_bad("a=", "non-empty value");
    canon_bad("a b=1", "needs a key");
    gms_error err = {0};
    static const char *const known[] = {"bucket", "warmup", NULL};
    ck_assert_int_eq(planner_params_check("p", "bucket=5,warmup=1", known, &err), 0);
    ck_assert_int_ne(planner_params_check("p", "bucket=5,x=1", known, &err), 0);
    ck_assert_msg(strstr(err.msg, "'x'") && strstr(err.msg, "bucket, warmup"), "%s", err.msg);
    double d = 0;
    ck_assert_int_eq(planner_param_double("p", "bucket=5,warmup=1", "warmup", &d, &err), 1);
    ck_assert(d == 1);
    ck_assert_int_eq(planner_param_double("p", "bucket=5", "warmup", &d, &err), 0);
    ck_assert_int_eq(planner_param_double("p", "mode=fast", "mode", &d, &err), -1);
    /* ckpt-all takes no parameter: its init says so */
    void *st = NULL;
    ck_assert_int_ne(planner_ckpt_all.init(NULL, NULL, "x=1", &st, &err), 0);
    ck_assert_msg(strstr(err.msg, "ckpt-all") && strstr(err.msg, "'x'"), "%s", err.msg);
}
END_TEST

/* A run with a real planner and its parameters (sac, rotor, ...). */
static sim_result run_named(const sim_trace *t, const sim_planner *pl, const char *params,
                            uint64_t budget, g_log *log)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.planner = pl;
    cfg.planner_params = params;
    cfg.budget = budget;
    cfg.remat_limit = 2.0;
    return g_run_cfg(t, &cfg, log);
}

/* Selective checkpointing (sim_plan.save_op) on the two-layer trace, both layers
 * checkpointed by sac. save=fa1: a1 (1000) is held from a's forward (not freed at a's end),
 * so ga needs no re-run of a; only b re-runs (fb, 30 ns): 110 -> 1110 -> 1210 -> 1260 -> 1210
 * (b1 freed) -> 1260 (fb again) -> 1267 -> 1276 (ga). save=fa2: a1 is freed at a's end and
 * the re-run of a runs fa1 only (10 ns), fa2's output (a2) being held: peak 1267, where
 * recomputing fa2 too makes a second copy of a2 (1367 with plain checkpointing). */
START_TEST(test_sac_saved_outputs_are_held_and_not_recomputed)
{
    sim_trace *t = two_layers();
    g_log log;
    sim_result all = run_named(t, &planner_sac, "every=1", UINT64_MAX, NULL);
    ck_assert_int_eq(all.status, SIM_OK);
    ck_assert_uint_eq(all.remat_compute, 60); /* layer SAC: both layers whole */
    sim_result r = run_named(t, &planner_sac, "save=fa1", UINT64_MAX, &log);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.remat_compute, 30);
    ck_assert_uint_eq(r.remats, 1);
    ck_assert_uint_eq(r.peak_memory, 1276);
    ck_assert_msg(strstr(log.text, "C:fb X:4 R:fb C:gb C:ga") != NULL, "events: %s", log.text);
    r = run_named(t, &planner_sac, "save=aten::fa2.default", UINT64_MAX, &log);
    ck_assert_int_eq(r.status, SIM_OK);
    ck_assert_uint_eq(r.remat_compute, 40);
    ck_assert_uint_eq(r.remats, 2);
    ck_assert_uint_eq(r.peak_memory, 1267);
    ck_assert_msg(strstr(log.text, "R:fb C:gb R:fa1 X:1 C:ga") != NULL, "events: %s", log.text);
    /* a budget between the two: saving a1 does not fit, saving a2 does */
    ck_assert_int_eq(run_named(t, &planner_sac, "save=fa1", 1270, NULL).status, SIM_OOM);
    ck_assert_int_eq(run_named(t, &planner_sac, "save=fa2", 1270, NULL).status, SIM_OK);
    sim_trace_free(t);
}
END_TEST

/* torchtitan wraps the transformer blocks, not the embeddings or the head: on layers emb,
 * h.0, h.1, h.2, head the preset checkpoints h.0 .. h.2 and every=2 the 2nd block (h.1);
 * save= (a user's own list) checkpoints every layer; layers that tell no blocks (a, b.1: one
 * indexed name has no sibling) are all wrapped by the preset, as before. */
static sim_trace *named_layers(const char *const *names, int n)
{
    sim_trace_builder *b = g_new();
    gmt_event ev;
    g_annotate(b, "START");
    g_call(b, "input", 5, 10, 10, 0);
    for (int i = 0; i < n; i++) {
        gmt_event_scope(&ev, names[i], 0);
        g_add(b, &ev);
        g_call(b, "mm", 10, (uint64_t)(11 + i), 100, 1, (uint64_t)(10 + i));
        gmt_event_scope(&ev, NULL, 1);
        g_add(b, &ev);
    }
    g_annotate(b, "BACKWARD");
    g_call(b, "g", 10, 99, 10, 1, (uint64_t)(10 + n));
    return g_finish(b);
}

static void sac_flags(const char *const *names, int n, const char *params, const char *want)
{
    sim_trace *t = named_layers(names, n);
    sim_layers *L = NULL;
    gms_error err = {0};
    ck_assert_int_eq(sim_layers_build(t, &L, &err), 0);
    ck_assert_uint_eq(sim_layers_iteration(L, 0)->n_layers, (uint32_t)n);
    void *st = NULL;
    ck_assert_msg(planner_sac.init(NULL, L, params, &st, &err) == 0, "%s", err.msg);
    uint8_t ck[8] = {0}, wp[8] = {0}, save[16] = {0};
    sim_plan_request req = {.layers = L, .first_layer = 0, .n_layers = (uint32_t)n,
                            .iteration = 0, .budget = UINT64_MAX};
    sim_plan plan = {.checkpoint = ck, .with_previous = wp, .save_op = save};
    ck_assert_int_eq(planner_sac.plan(st, &req, &plan, &err), 0);
    char got[9] = {0};
    for (int i = 0; i < n; i++)
        got[i] = (char)('0' + ck[i]);
    ck_assert_msg(strcmp(got, want) == 0, "%s: %s, want %s", params, got, want);
    planner_sac.free(st);
    sim_layers_free(L);
    sim_trace_free(t);
}

START_TEST(test_sac_torchtitan_wraps_blocks)
{
    const char *const tf[] = {"emb", "h.0", "h.1", "h.2", "head"};
    sac_flags(tf, 5, "", "01110");
    sac_flags(tf, 5, "preset=torchtitan", "01110");
    sac_flags(tf, 5, "every=2", "00100");
    sac_flags(tf, 5, "save=mm", "11111");
    const char *const none[] = {"a", "b.1", "c"};
    sac_flags(none, 3, "preset=torchtitan", "111");
    sac_flags(none, 3, "every=2", "010");
}
END_TEST

/* torchtitan's op SAC inside one layer of mm, relu, mm, mm, bmm: the preset saves mm outputs
 * except every second mm of the layer (its "meta[mm_count] % 2 == 0" rule), and bmm is not
 * on its list; save=mm saves every mm. every=2 checkpoints the 2nd, 4th, ... layer only. */
START_TEST(test_sac_torchtitan_saves_every_other_mm)
{
    sim_trace_builder *b = g_new();
    gmt_event ev;
    g_annotate(b, "START");
    g_constant(b, 1, 100);
    g_call(b, "input", 5, 10, 10, 0);
    gmt_event_scope(&ev, "l", 0);
    g_add(b, &ev);
    g_call(b, "aten::mm", 10, 11, 100, 2, (uint64_t)10, (uint64_t)1);
    g_call(b, "aten::relu", 10, 12, 100, 1, (uint64_t)11);
    g_call(b, "aten::mm", 10, 13, 100, 2, (uint64_t)12, (uint64_t)1);
    g_call(b, "aten::mm", 10, 14, 100, 2, (uint64_t)13, (uint64_t)1);
    g_call(b, "aten::bmm", 10, 15, 100, 2, (uint64_t)14, (uint64_t)14);
    gmt_event_scope(&ev, NULL, 1);
    g_add(b, &ev);
    g_annotate(b, "BACKWARD");
    g_call(b, "g", 10, 16, 8, 5, (uint64_t)11, (uint64_t)12, (uint64_t)13, (uint64_t)14,
           (uint64_t)15);
    for (uint64_t id = 10; id <= 16; id++)
        g_release(b, id);
    sim_trace *t = g_finish(b);
    sim_layers *L = NULL;
    gms_error err = {0};
    ck_assert_int_eq(sim_layers_build(t, &L, &err), 0);
    const sim_iteration_span *sp = sim_layers_iteration(L, 0);
    const char *params[] = {"", "preset=torchtitan", "save=mm", "every=2"};
    /* the iteration's forward ops: input, mm, relu, mm, mm, bmm */
    const char *want[] = {"010010", "010010", "010110", "000000"};
    ck_assert_uint_eq(sp->backward_op - sp->first_op, 6);
    for (int k = 0; k < 4; k++) {
        void *st = NULL;
        ck_assert_msg(planner_sac.init(NULL, L, params[k], &st, &err) == 0, "%s", err.msg);
        uint8_t ck[1] = {0}, wp[1] = {0}, save[16] = {0};
        sim_plan_request req = {.layers = L, .first_layer = 0, .n_layers = 1, .iteration = 0,
                                .budget = UINT64_MAX};
        sim_plan plan = {.checkpoint = ck, .with_previous = wp, .save_op = save};
        ck_assert_int_eq(planner_sac.plan(st, &req, &plan, &err), 0);
        ck_assert_int_eq(ck[0], k < 3); /* every=2: the only layer is the 1st */
        char got[7] = {0};
        for (uint32_t o = 0; o < 6; o++)
            got[o] = (char)('0' + save[o]);
        ck_assert_msg(strcmp(got, want[k]) == 0, "%s: %s", params[k], got);
        planner_sac.free(st);
    }
    /* bad input: one clear message each */
    void *st = NULL;
    ck_assert_int_ne(planner_sac.init(NULL, L, "preset=llama", &st, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "preset=llama: unknown"));
    ck_assert_int_ne(planner_sac.init(NULL, L, "every=0", &st, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "every=0"));
    ck_assert_int_ne(planner_sac.init(NULL, L, "save=mm++relu", &st, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "empty op name"));
    ck_assert_int_ne(planner_sac.init(NULL, L, "preset=torchtitan,save=mm", &st, &err), 0);
    sim_layers_free(L);
    sim_trace_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_ckpt");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_two_layers_one_checkpointed_exact);
    tcase_add_test(tc, test_units_join_layers);
    tcase_add_test(tc, test_planner_runs_never_evict);
    tcase_add_test(tc, test_ckpt_all_costs_one_forward_pass);
    tcase_add_test(tc, test_runner_reuse_gives_same_results);
    tcase_add_test(tc, test_ckpt_sqrt_segments);
    tcase_add_test(tc, test_params_canonical);
    tcase_add_test(tc, test_sac_saved_outputs_are_held_and_not_recomputed);
    tcase_add_test(tc, test_no_hold_recomputes_values_alone);
    tcase_add_test(tc, test_rotor_chain_from_two_layers);
    tcase_add_test(tc, test_sac_torchtitan_saves_every_other_mm);
    tcase_add_test(tc, test_sac_torchtitan_wraps_blocks);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
