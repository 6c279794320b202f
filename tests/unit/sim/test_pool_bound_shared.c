/*
 * The block bounds of the lru, size, dtr-local and dtr scans (sim_pool_bound.h), msps's block
 * summaries (sim_pool_min.h) and capuchin's bounded pass with the engine's caches
 * (heuristics/cap_swap.h) on the real traces of ../shared: the GPT-2 Large ET (whose pool
 * holds a couple of thousand optimizer states and gradients at each eviction, the case they
 * were made for) and the five DTR logs. Bounded and plain scans must replay alike, event for
 * event, with the same candidates and swaps.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_run.h"
#include "registry.h"
#include "run_hash.h"
#include "sim.h"
#include "sim_pool_bound.h" /* sim_pkb_bounds */
#include "sim_pool_min.h"   /* sim_psc_summaries */

/* Runs each policy at each ratio with the bounds off and on; returns the evictions seen. */
static uint64_t compare(const char *rel, const double *ratios, int n_ratios)
{
    const char *dir = getenv("GMS_SHARED_DIR");
    ck_assert_msg(dir != NULL, "GMS_SHARED_DIR is not set (run the test through ctest)");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    sim_trace *t;
    gms_error err = {0};
    ck_assert_msg(sim_trace_load(path, &t, &err) == 0, "%s: %s", path, err.msg);
    const char *names[6] = {"lru", "size", "dtr-local", "dtr", "msps", "capuchin"};
    char what[4200];
    snprintf(what, sizeof what, "plain and bounded scans of %s", rel);
    uint64_t evictions = 0;
    for (int p = 0; p < 6; p++) {
        paths_case c = {.policy = {pol_find(names[p]), pol_find(names[p])},
                        .flags = (int *const[]){&sim_pkb_bounds, &sim_psc_summaries, NULL},
                        .what = what};
        evictions += paths_agree(&t, 1, ratios, n_ratios, &c).evictions;
    }
    sim_trace_free(t);
    return evictions;
}

START_TEST(test_pool_bounds_choose_like_the_plain_scan_on_gpt2)
{
    const double ratios[3] = {0.7, 0.85, 0.9};
    ck_assert_uint_gt(compare("traces/pytorch-et/hf_gpt2_et.json.gz", ratios, 3), 10000);
}
END_TEST

START_TEST(test_pool_bounds_choose_like_the_plain_scan_on_the_dtr_logs)
{
    const char *logs[5] = {
        "resnet32-56-9000000000.0-2020-10-1-13-3-30-default.log",
        "transformer-10-8000000000.0-2020-10-1-10-56-5-default.log",
        "treelstm-6-8000000000.0-2020-10-1-12-54-1-default.log",
        "tv_densenet121-84-10000000000.0-2020-10-1-13-41-18-default.log",
        "unet-6-8000000000.0-2020-10-1-10-57-18-default.log",
    };
    const double ratios[2] = {0.5, 0.8};
    uint64_t evictions = 0;
    for (int i = 0; i < 5; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "traces/dtr-iclr21/%s", logs[i]);
        evictions += compare(rel, ratios, 2);
    }
    ck_assert_uint_gt(evictions, 1000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pool_bound_shared");
    TCase *tc = tcase_create("shared");
    tcase_add_test(tc, test_pool_bounds_choose_like_the_plain_scan_on_gpt2);
    tcase_add_test(tc, test_pool_bounds_choose_like_the_plain_scan_on_the_dtr_logs);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
