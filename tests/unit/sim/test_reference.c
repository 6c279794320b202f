/*
 * The simulator against the DTR paper's simulator: every row of
 * $GMS_SHARED_DIR/reference/simrd-pareto.csv (5 logs x 7 policies x 10 budgets, random x 10
 * seeds) is replayed and must agree exactly: status, policy evictions, eager evictions,
 * remat compute, peak memory and the overhead double (the random policy included: its
 * generator reproduces Python's random.seed(trial) choices). Each log is loaded once; every
 * mismatch is printed as a diff of the fields.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "registry.h"
#include "sim.h"
#include "sim_internal.h" /* sim_region_bitset_max */
#include "sim_ref.h"

static sim_ref_row *rows;
static size_t n_rows;

static const char *shared_dir(void)
{
    const char *d = getenv("GMS_SHARED_DIR");
    return d && *d ? d : "/work/shared";
}

static void load_csv(void)
{
    if (n_rows)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/reference/simrd-pareto.csv", shared_dir());
    gms_error err = {0};
    ck_assert_msg(sim_ref_load(path, &rows, &n_rows, &err) == 0,
                  "%s (set GMS_SHARED_DIR to the shared data)", err.msg);
    ck_assert_uint_eq(n_rows, 800);
}

/* Runs every row of one log (only policy `only` when not NULL); returns the number of
 * mismatching rows. */
static int check_log_policy(const char *log_prefix, const char *only)
{
    load_csv();
    const char *log = NULL;
    for (size_t i = 0; i < n_rows && !log; i++)
        if (strncmp(rows[i].log, log_prefix, strlen(log_prefix)) == 0)
            log = rows[i].log;
    ck_assert_msg(log, "no rows for %s in the reference table", log_prefix);
    char path[1024];
    snprintf(path, sizeof path, "%.500s/traces/dtr-iclr21/%.255s", shared_dir(), log);
    sim_trace *t;
    gms_error err = {0};
    ck_assert_msg(sim_trace_load(path, &t, &err) == 0, "%s", err.msg);
    const sim_baseline *bl = sim_trace_baseline(t);
    sim_runner *run;
    ck_assert(sim_runner_new(t, &run, &err) == 0);
    int bad = 0, checked = 0;
    for (size_t i = 0; i < n_rows; i++) {
        const sim_ref_row *r = &rows[i];
        if (strcmp(r->log, log) != 0 || (only && strcmp(r->policy, only) != 0))
            continue;
        checked++;
        ck_assert_msg(bl->memory == r->base_mem && bl->compute == r->base_compute,
                      "%s: baseline memory/compute %llu/%llu, reference %llu/%llu", log,
                      (unsigned long long)bl->memory, (unsigned long long)bl->compute,
                      (unsigned long long)r->base_mem, (unsigned long long)r->base_compute);
        uint64_t budget = sim_budget_for_ratio(t, r->ratio);
        ck_assert_msg(budget == r->budget, "%s ratio %g: budget %llu, reference %llu", log,
                      r->ratio, (unsigned long long)budget, (unsigned long long)r->budget);
        sim_config cfg;
        sim_config_init(&cfg);
        cfg.policy = pol_find(r->policy);
        ck_assert_msg(cfg.policy, "unknown policy %s", r->policy);
        cfg.budget = budget;
        cfg.seed = (uint64_t)r->trial;
        sim_result res;
        ck_assert_msg(sim_runner_run(run, &cfg, &res, &err) == 0, "%s", err.msg);
        const char *st = sim_status_name(res.status);
        int ok = strcmp(st, r->status) == 0 && res.evictions == r->evictions &&
                 res.eager_evictions == r->eager && res.remat_compute == r->remat &&
                 res.peak_memory == r->peak;
        if (res.status == SIM_OK && r->has_overhead && res.overhead != r->overhead)
            ok = 0;
        if (!ok) {
            bad++;
            fprintf(stderr,
                    "MISMATCH %s %s trial %d ratio %.1f:\n"
                    "  status    %-12s ref %s\n"
                    "  overhead  %-22.17g ref %.17g\n"
                    "  evictions %-12llu ref %llu\n"
                    "  eager     %-12llu ref %llu\n"
                    "  remat     %-12llu ref %llu\n"
                    "  peak      %-12llu ref %llu\n",
                    log_prefix, r->policy, r->trial, r->ratio, st, r->status,
                    res.status == SIM_OK ? res.overhead : -1.0, r->overhead,
                    (unsigned long long)res.evictions, (unsigned long long)r->evictions,
                    (unsigned long long)res.eager_evictions, (unsigned long long)r->eager,
                    (unsigned long long)res.remat_compute, (unsigned long long)r->remat,
                    (unsigned long long)res.peak_memory, (unsigned long long)r->peak);
        }
    }
    sim_runner_free(run);
    sim_trace_free(t);
    ck_assert_int_eq(checked, only ? (strcmp(only, "random") == 0 ? 100 : 10) : 160);
    fprintf(stderr, "%s%s%s: %d/%d rows agree\n", log_prefix, only ? " " : "", only ? only : "",
            checked - bad, checked);
    return bad;
}

static int check_log(const char *log_prefix)
{
    return check_log_policy(log_prefix, NULL);
}

/* Traces with more than SIM_REGION_BITSET_MAX storages keep regions in windowed bitsets: the same
 * rows through that representation. */
START_TEST(test_reference_dtr_msps_rows_match_with_windowed_regions)
{
    uint32_t saved = sim_region_bitset_max;
    sim_region_bitset_max = 0;
    int bad = 0;
    static const char *const logs[] = {"unet-", "resnet32-"};
    for (int i = 0; i < 2; i++) {
        bad += check_log_policy(logs[i], "dtr");
        bad += check_log_policy(logs[i], "msps");
    }
    sim_region_bitset_max = saved;
    ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(test_reference_unet_every_row_matches_simrd)
{
    ck_assert_int_eq(check_log("unet-"), 0);
}
END_TEST

START_TEST(test_reference_resnet32_every_row_matches_simrd)
{
    ck_assert_int_eq(check_log("resnet32-"), 0);
}
END_TEST

START_TEST(test_reference_densenet121_every_row_matches_simrd)
{
    ck_assert_int_eq(check_log("tv_densenet121-"), 0);
}
END_TEST

START_TEST(test_reference_transformer_every_row_matches_simrd)
{
    ck_assert_int_eq(check_log("transformer-"), 0);
}
END_TEST

START_TEST(test_reference_treelstm_every_row_matches_simrd)
{
    ck_assert_int_eq(check_log("treelstm-"), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_reference");
    TCase *tc = tcase_create("simrd-pareto");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_reference_unet_every_row_matches_simrd);
    tcase_add_test(tc, test_reference_resnet32_every_row_matches_simrd);
    tcase_add_test(tc, test_reference_densenet121_every_row_matches_simrd);
    tcase_add_test(tc, test_reference_transformer_every_row_matches_simrd);
    tcase_add_test(tc, test_reference_treelstm_every_row_matches_simrd);
    tcase_add_test(tc, test_reference_dtr_msps_rows_match_with_windowed_regions);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
