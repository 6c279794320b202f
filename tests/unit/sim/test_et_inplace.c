/* In-place writes of an imported PyTorch Execution Trace (docs/import-pytorch.md, "In-place
 * writes") replayed by the engine, on tests/unit/traces/data/tiny_et_inplace.json: one step
 * with a batch copied in (X, 32 B), parameters W (64 B) and W2 (16 B), an `out=` op writing a
 * buffer B (32 B) made by aten::empty, a `copy_` into a view of B, a read of B after that
 * copy, a temporary Z (128 B) and an Adam-like step whose state M (64 B) is made in the step
 * and written by `_foreach_lerp_`, then W written by `_foreach_add_` (with M2 and W2 made
 * by W2's gradient G2: two-element lists); the backward mm's output G is W's gradient.
 *
 * Rules pinned here: with no budget the resident bytes after every op are what the job
 * allocated (in-place ops add nothing, constants written in place stay one copy); under a
 * budget, a written storage that was evicted comes back by recomputing its producer and every
 * write after it, in order. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "registry.h"
#include "sim.h"
#include "sim_peak.h"

#define MAX_EV 256

typedef struct seen {
    sim_event ev[MAX_EV];
    char op[MAX_EV][48];
    size_t n;
} seen;

static void observe(void *ctx, const sim_event *ev)
{
    seen *s = ctx;
    ck_assert_uint_lt(s->n, MAX_EV);
    s->ev[s->n] = *ev;
    snprintf(s->op[s->n], sizeof s->op[0], "%s", ev->op ? ev->op : "");
    s->n++;
}

static sim_trace *load(void)
{
    const char *dir = getenv("GMS_SOURCE_DIR");
    ck_assert_msg(dir != NULL, "GMS_SOURCE_DIR is not set (run the test through ctest)");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/unit/traces/data/tiny_et_inplace.json", dir);
    sim_trace *t;
    gms_error err;
    ck_assert_msg(sim_trace_load(path, &t, &err) == 0, "%s", err.msg);
    return t;
}

static void run(const sim_trace *t, const char *policy, uint64_t budget, seen *s,
                sim_result *res)
{
    memset(s, 0, sizeof *s);
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find(policy);
    ck_assert_ptr_nonnull(cfg.policy);
    cfg.budget = budget;
    cfg.observer = observe;
    cfg.observer_ctx = s;
    gms_error err;
    ck_assert_msg(sim_run(t, &cfg, res, &err) == 0, "%s", err.msg);
}

START_TEST(test_in_place_ops_allocate_nothing_without_a_budget)
{
    sim_trace *t = load();
    /* after each op (the releases of the previous op's last uses done): W and W2 (80) are
     * resident throughout; X, Y, B (empty), S, L, Z, L2, G, G2, M and M2 are the only
     * allocations; the two-element foreach ops run as one op per element; the gradients G
     * and G2 live to the end of the step (param.grad), past their last read by lerp_ */
    static const struct {
        const char *op;
        uint64_t memory;
    } expect[] = {
        {"aten::to", 112},      {"aten::mm", 144},     {"aten::empty", 176},
        {"aten::add", 176},     {"aten::select", 144}, {"aten::ones", 160},
        {"aten::copy_", 160},   {"aten::sum", 148},    {"aten::mul", 272},
        {"aten::sum", 276},     {"aten::mm", 208},     {"aten::sum", 192},
        {"aten::zeros_like", 224}, {"aten::zeros_like", 240},
        {"aten::_foreach_lerp_", 240}, {"aten::_foreach_lerp_", 240},
        {"aten::_foreach_add_", 240},  {"aten::_foreach_add_", 240},
    };
    seen s;
    sim_result res;
    run(t, "dtr", UINT64_MAX, &s, &res);
    ck_assert_int_eq(res.status, SIM_OK);
    size_t k = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (s.ev[i].kind != SIM_EV_COMPUTE || strcmp(s.op[i], "constant") == 0)
            continue;
        ck_assert_uint_lt(k, sizeof expect / sizeof *expect);
        ck_assert_msg(strcmp(s.op[i], expect[k].op) == 0, "op %zu: %s, expected %s", k, s.op[i],
                      expect[k].op);
        ck_assert_msg(s.ev[i].memory == expect[k].memory, "after %s (op %zu): %llu B, not %llu",
                      s.op[i], k, (unsigned long long)s.ev[i].memory,
                      (unsigned long long)expect[k].memory);
        k++;
    }
    ck_assert_uint_eq(k, sizeof expect / sizeof *expect);
    ck_assert_uint_eq(sim_trace_baseline(t)->memory, 276);
    ck_assert_uint_eq(res.peak_memory, 276);
    ck_assert_uint_eq(res.evictions + res.remats, 0);
    sim_trace_free(t);
}
END_TEST

/* Budget 240: the temporary Z (128 B) evicts B, the least recently used (LRU), after its
 * copy_. The backward mm reads B again: B's last version comes back by recomputing aten::empty,
 * the `out=` add (and the mm that made its input Y, released by then), the select view and the
 * copy_ that wrote it, in that order; the run stays within the budget. */
START_TEST(test_an_evicted_written_storage_is_recomputed_with_its_writes)
{
    sim_trace *t = load();
    seen s;
    sim_result res;
    run(t, "lru", 240, &s, &res);
    ck_assert_msg(res.status == SIM_OK, "status %s", sim_status_name(res.status));
    ck_assert_uint_le(res.peak_memory, 240);
    int evicted_b = 0;
    char remat[512] = "";
    for (size_t i = 0; i < s.n; i++) {
        if (s.ev[i].kind == SIM_EV_EVICT && s.ev[i].size == 32 && remat[0] == '\0')
            evicted_b = 1;
        if (s.ev[i].kind == SIM_EV_REMAT) {
            strcat(remat, s.op[i]);
            strcat(remat, " ");
        }
    }
    ck_assert(evicted_b);
    /* the chain in order; the batch X (evicted for L2) comes back first */
    const char *chain[] = {"aten::empty", "aten::add", "aten::select", "aten::copy_"};
    const char *p = remat;
    for (size_t i = 0; i < 4; i++) {
        const char *q = strstr(p, chain[i]);
        ck_assert_msg(q != NULL, "remats \"%s\": no %s after the earlier writes", remat, chain[i]);
        p = q + strlen(chain[i]);
    }
    ck_assert_ptr_nonnull(strstr(remat, "aten::mm")); /* Y, the add's input */
    ck_assert_uint_ge(res.remat_compute, 1);
    sim_trace_free(t);
}
END_TEST

/* Writes never reach a constant's bytes twice: at every budget from the baseline down to the
 * constant plus the largest op, every policy ends ok or oom, never over its budget. */
START_TEST(test_every_budget_stays_within_itself)
{
    sim_trace *t = load();
    const char *pols[] = {"dtr", "dtr-eq", "msps", "lru", "size", "dtr-local"};
    for (size_t p = 0; p < sizeof pols / sizeof *pols; p++)
        for (uint64_t b = 276; b >= 160; b -= 4) {
            seen s;
            sim_result res;
            run(t, pols[p], b, &s, &res);
            if (res.status == SIM_OK)
                ck_assert_msg(res.peak_memory <= b, "%s at %llu: peak %llu", pols[p],
                              (unsigned long long)b, (unsigned long long)res.peak_memory);
        }
    sim_trace_free(t);
}
END_TEST

/* Where the baseline peaks (sim_peak.h): at the second aten::sum in the forward pass, 276 B:
 * W and W2 (pre-existing, 80), X and B (made in the forward, read by the backward: saved
 * activations, 64), Z and L2 (read only in the forward: temporaries, 132). The backward's
 * outputs read by the optimizer step are gradients, the state the step makes and writes with
 * them optimizer state. A run with no budget peaks at the same place with the same bytes. */
START_TEST(test_the_peak_its_phase_and_what_is_resident_there)
{
    sim_trace *t = load();
    sim_categories *c;
    gms_error err;
    ck_assert_msg(sim_categories_build(t, &c, &err) == 0, "%s", err.msg);
    sim_peak p;
    sim_peak_baseline(t, c, &p);
    ck_assert_uint_eq(p.memory, 276);
    ck_assert_str_eq(p.op, "aten::sum");
    ck_assert_int_eq(p.phase, SIM_PHASE_FORWARD);
    ck_assert_uint_eq(p.by_category[SIM_CAT_PREEXISTING], 80);
    ck_assert_uint_eq(p.by_category[SIM_CAT_ACTIVATIONS], 64);
    ck_assert_uint_eq(p.by_category[SIM_CAT_TEMPORARIES], 132);
    ck_assert_uint_eq(p.by_category[SIM_CAT_GRADIENTS] + p.by_category[SIM_CAT_OPT_STATE] +
                          p.by_category[SIM_CAT_UNKNOWN],
                      0);
    /* the largest op: mul(X, X) makes Z (128) from X (32) */
    ck_assert_uint_eq(p.largest_op_bytes, 160);
    ck_assert_str_eq(p.largest_op, "aten::mul");
    ck_assert_uint_eq(p.largest_op_bytes, sim_trace_baseline(t)->bottleneck);
    /* a run, followed through its events */
    sim_peak_tracker *k;
    ck_assert_int_eq(sim_peak_tracker_new(t, c, &k, &err), 0);
    seen s;
    sim_result res;
    memset(&s, 0, sizeof s);
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find("dtr");
    cfg.observer = sim_peak_observe;
    cfg.observer_ctx = k;
    ck_assert_int_eq(sim_run(t, &cfg, &res, &err), 0);
    sim_peak q;
    sim_peak_tracker_result(k, &q);
    ck_assert_uint_eq(q.memory, p.memory);
    ck_assert_str_eq(q.op, p.op);
    for (int i = 0; i < SIM_CAT_COUNT; i++)
        ck_assert_uint_eq(q.by_category[i], p.by_category[i]);
    sim_peak_tracker_free(k);
    /* the phases and categories of the step's storages, by the op that made them */
    run(t, "dtr", UINT64_MAX, &s, &res);
    int grads = 0, states = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (s.ev[i].kind != SIM_EV_COMPUTE)
            continue;
        sim_phase ph = sim_categories_phase(c, (uint32_t)s.ev[i].op_index);
        sim_category cat = sim_categories_of(c, (uint32_t)s.ev[i].storage);
        if (strcmp(s.op[i], "aten::zeros_like") == 0) {
            ck_assert_int_eq(ph, SIM_PHASE_OPTIMIZER);
            ck_assert_int_eq(cat, SIM_CAT_OPT_STATE);
            states++;
        }
        if (ph == SIM_PHASE_BACKWARD) { /* mm -> G, sum -> G2 */
            ck_assert_int_eq(cat, SIM_CAT_GRADIENTS);
            grads++;
        }
    }
    ck_assert_int_eq(grads, 2);
    ck_assert_int_eq(states, 2);
    sim_categories_free(c);
    sim_trace_free(t);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("et_inplace");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_in_place_ops_allocate_nothing_without_a_budget);
    tcase_add_test(tc, test_an_evicted_written_storage_is_recomputed_with_its_writes);
    tcase_add_test(tc, test_every_budget_stays_within_itself);
    tcase_add_test(tc, test_the_peak_its_phase_and_what_is_resident_there);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
