/* The engine carries out Rotor's whole persistent schedule (issue 29): the checkpoints Rotor
 * nests inside a re-run (sim_plan.nested, sim/sim_ckpt_nest.h) are replayed, so on a chain
 * the replayed compute equals the dynamic program's predicted time; and the nested intervals'
 * rules (laminar, strictly inside a checkpointed unit). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "graph.h"
#include "planners.h"
#include "rotor_trace.h"
#include "sim_ckpt_nest.h"
#include "sim_layers.h"

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void scope(sim_trace_builder *b, const char *name)
{
    gmt_event ev;
    gmt_event_scope(&ev, name, name == NULL);
    g_add(b, &ev);
}

/* A chain of L layers (random costs and sizes), one iteration:
 *   x0 = input()                                        outside the layers
 *   layer i (scope li): t_i = fa(x_i), x_{i+1} = fb(t_i)  t_i only read by backward
 *   loss = floss(x_L)
 *   BACKWARD: d_L = gloss(loss); for i = L-1..0, scope li: d_i = g(d_{i+1}, t_i, x_i)
 * Ids: x_i 100 + i, t_i 200 + i, loss 300, d_i 400 + i. *total gets the ops' compute. */
static sim_trace *chain_trace(uint32_t L, uint32_t *seed, uint64_t *total)
{
    sim_trace_builder *b = g_new();
    gmt_event ev;
    char name[16];
    *total = 0;
    g_annotate(b, "START");
    gmt_event_init(&ev, GMT_ANNOTATE);
    ev.text = "iteration";
    ev.has_value = 1;
    ev.value = 8;
    g_add(b, &ev);
#define COST() (*total += c = 10 + rnd(seed) % 90, c)
    uint64_t c, xs[16];
    xs[0] = 100 + rnd(seed) % 400;
    g_call(b, "input", COST(), 100, xs[0], 0);
    for (uint32_t i = 0; i < L; i++) {
        snprintf(name, sizeof name, "l%u", i);
        scope(b, name);
        g_call(b, "fa", COST(), 200 + i, 100 + rnd(seed) % 900, 1, (uint64_t)(100 + i));
        xs[i + 1] = 100 + rnd(seed) % 400;
        g_call(b, "fb", COST(), 101 + i, xs[i + 1], 1, (uint64_t)(200 + i));
        scope(b, NULL);
    }
    g_call(b, "floss", COST(), 300, 8, 1, (uint64_t)(100 + L));
    g_release(b, 100 + L);
    g_annotate(b, "BACKWARD");
    g_call(b, "gloss", COST(), 400 + L, xs[L], 1, (uint64_t)300);
    g_release(b, 300);
    for (uint32_t i = L; i-- > 0;) {
        snprintf(name, sizeof name, "l%u", i);
        scope(b, name);
        g_call(b, "g", COST(), 400 + i, xs[i], 3, (uint64_t)(401 + i),
               (uint64_t)(200 + i), (uint64_t)(100 + i));
        scope(b, NULL);
        g_release(b, 401 + i);
        g_release(b, 200 + i);
        g_release(b, 100 + i);
    }
#undef COST
    g_release(b, 400);
    return g_finish(b);
}

static sim_result run_rotor(const sim_trace *t, uint64_t budget)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.planner = &planner_rotor;
    cfg.planner_params = "slots=500";
    cfg.budget = budget;
    cfg.remat_limit = 1e9;
    sim_result r;
    gms_error err = {0};
    ck_assert_msg(sim_run(t, &cfg, &r, &err) == 0, "%s", err.msg);
    return r;
}

/* Forward ops Rotor runs inside a re-run: ForwardCheck ops after the loss. */
static uint32_t nested_checks(const rotor_sequence *q)
{
    uint32_t n = 0;
    int after = 0;
    for (size_t k = 0; k < q->n; k++) {
        after |= q->ops[k].kind == ROTOR_LOSS;
        n += after && q->ops[k].kind == ROTOR_FWD_CHECK;
    }
    return n;
}

/* On random chains of 2 to 7 layers (gradients the size of the activations, as Rotor's model
 * has them) and budgets from 30% to 100% of the unplanned peak: wherever Rotor finds a
 * schedule, the replay fits the budget (units free layer by layer, sim_plan.by_layer, as
 * ForwardNograd does) and its compute (the trace's ops plus every re-run) equals the
 * program's makespan exactly (integer ns in doubles); schedules that nest checkpoints inside
 * re-runs are among them (the engine before the nesting re-ran each unit whole: fewer
 * forward runs than the makespan counts, and held more than Rotor planned). */
START_TEST(test_replayed_cost_equals_rotor_makespan)
{
    uint32_t seed = 29, compared = 0, nested = 0, oom = 0;
    for (uint32_t trial = 0; trial < 40; trial++) {
        uint32_t L = 2 + trial % 6;
        uint64_t total = 0;
        sim_trace *t = chain_trace(L, &seed, &total);
        sim_layers *ly = NULL;
        gms_error err = {0};
        ck_assert_int_eq(sim_layers_build(t, &ly, &err), 0);
        uint64_t peak = run_rotor(t, UINT64_MAX).peak_memory;
        for (uint32_t pct = 30; pct <= 100; pct += 5) {
            uint64_t budget = peak * pct / 100;
            rotor_sequence q;
            int fits = 0;
            ck_assert_msg(rotor_trace_sequence(ly, 0, budget, 500, NULL, &q, &fits, &err) == 0,
                          "%s", err.msg);
            if (!fits) {
                rotor_sequence_clear(&q);
                continue;
            }
            sim_result r = run_rotor(t, budget);
            if (r.status != SIM_OK) {
                oom++;
                rotor_sequence_clear(&q);
                continue;
            }
            ck_assert_msg(q.makespan == (double)(total + r.remat_compute),
                          "L=%u budget %u%%: makespan %.0f, replayed %llu + %llu", L, pct,
                          q.makespan, (unsigned long long)total,
                          (unsigned long long)r.remat_compute);
            compared++;
            nested += nested_checks(&q) > 0;
            rotor_sequence_clear(&q);
        }
        sim_layers_free(ly);
        sim_trace_free(t);
    }
    fprintf(stderr, "rotor replay: %u runs compared (%u with nested checkpoints), %u oom\n",
            compared, nested, oom);
    ck_assert_uint_eq(oom, 0); /* Rotor's model over-counts the replay: its schedules fit */
    ck_assert_uint_ge(compared, 100);
    ck_assert_uint_ge(nested, 20);
}
END_TEST

START_TEST(test_nest_rules)
{
    /* 6 layers; units: 0..3 (layers 0-3 joined) and 5 alone; layer 4 not checkpointed */
    uint8_t flags[6] = {1, 1, 1, 1, 0, 1};
    uint32_t uf[6] = {0, 0, 0, 0, 0, 5}, ul[6] = {3, 0, 0, 0, 0, 5};
    sim_nest *t = sim_nest_new(6);
    ck_assert_ptr_nonnull(t);
    gms_error err = {0};
    uint32_t n;
    /* (1..3) inside unit 0..3, (1..1) and (2..3) inside it: a tree; ids in (first, larger
     * first) order from base 100: (1..3) 100, (1..1) 101, (2..3) 102 */
    uint32_t ok[] = {2, 3, 1, 1, 1, 3};
    ck_assert_int_eq(sim_nest_set(t, 0, 6, flags, uf, ul, ok, 3, 100, &err), 0);
    ck_assert_uint_eq(sim_nest_count(t), 3);
    const uint32_t *ch = sim_nest_children(t, 0, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(ch[0], 100);
    ch = sim_nest_children(t, 100, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert(ch[0] == 101 && ch[1] == 102);
    ck_assert_uint_eq(sim_nest_children(t, 5, &n) == NULL || n == 0, 1);
    uint32_t f, l;
    sim_nest_layers(t, 102, &f, &l);
    ck_assert(f == 2 && l == 3);
    /* the rules, one clear message each */
    uint32_t equal[] = {0, 3};
    ck_assert_int_eq(sim_nest_set(t, 0, 6, flags, uf, ul, equal, 1, 100, &err), GMS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "equals"));
    uint32_t cross[] = {0, 1, 1, 2};
    ck_assert_int_eq(sim_nest_set(t, 0, 6, flags, uf, ul, cross, 2, 100, &err), GMS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "crosses"));
    uint32_t outside[] = {3, 5};
    ck_assert_int_eq(sim_nest_set(t, 0, 6, flags, uf, ul, outside, 1, 100, &err), GMS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "not inside one checkpointed unit"));
    uint32_t twice[] = {1, 2, 1, 2};
    ck_assert_int_eq(sim_nest_set(t, 0, 6, flags, uf, ul, twice, 2, 100, &err), GMS_EINVAL);
    uint32_t past[] = {2, 7};
    ck_assert_int_eq(sim_nest_set(t, 0, 6, flags, uf, ul, past, 1, 100, &err), GMS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "past the iteration"));
    sim_nest_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_rotor_replay");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_replayed_cost_equals_rotor_makespan);
    tcase_add_test(tc, test_nest_rules);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
