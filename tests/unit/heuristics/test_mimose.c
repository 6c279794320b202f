/*
 * The Mimose planner's pure pieces (heuristics/mimose.h): the quadratic fit, the samples and
 * fits, the authors' greedy choice, the plan cache, the bucket rule and the parameter string.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "mimose.h"

/* ---- quadratic fit ---------------------------------------------------------------------- */

START_TEST(test_fit_recovers_an_exactly_quadratic_layer_at_pixel_scale)
{
    /* bytes = 3e-3 x^2 + 40 x + 1e6 over resnet-like pixel counts (batch 32, sides 64..224):
     * x^2 ~ 2.6e12, where the raw normal equations' x^4 sums would lose every digit. */
    double x[10], y[10];
    for (int i = 0; i < 10; i++) {
        double side = 64 + 16 * i;
        x[i] = 32 * side * side;
        y[i] = 3e-3 * x[i] * x[i] + 40 * x[i] + 1e6;
    }
    pol_qfit f;
    ck_assert_int_eq(pol_qfit_solve(x, y, 10, &f, NULL), 0);
    ck_assert_int_eq(f.degree, 2);
    for (double s = 64; s <= 240; s += 7) {
        double xx = 32 * s * s, want = 3e-3 * xx * xx + 40 * xx + 1e6;
        ck_assert_msg(fabs(pol_qfit_eval(&f, xx) - want) <= 1e-9 * want, "side %g: %.17g vs %.17g",
                      s, pol_qfit_eval(&f, xx), want);
    }
}
END_TEST

START_TEST(test_fit_is_least_squares_on_noisy_points)
{
    /* y = x^2 with +-1 alternating noise on 4 points: the least-squares quadratic through
     * x = 0,1,2,3 with residuals that must sum to zero and be orthogonal to 1, x, x^2. */
    double x[4] = {0, 1, 2, 3}, y[4] = {0 + 1, 1 - 1, 4 + 1, 9 - 1};
    pol_qfit f;
    ck_assert_int_eq(pol_qfit_solve(x, y, 4, &f, NULL), 0);
    double r[4], s0 = 0, s1 = 0, s2 = 0;
    for (int i = 0; i < 4; i++) {
        r[i] = y[i] - pol_qfit_eval(&f, x[i]);
        s0 += r[i];
        s1 += r[i] * x[i];
        s2 += r[i] * x[i] * x[i];
    }
    ck_assert(fabs(s0) < 1e-9 && fabs(s1) < 1e-9 && fabs(s2) < 1e-9);
    ck_assert(fabs(r[0]) > 0.1); /* it did not interpolate: 4 points, 3 unknowns */
}
END_TEST

START_TEST(test_fit_drops_the_degree_with_fewer_than_three_distinct_inputs)
{
    pol_qfit f;
    double x1[3] = {5, 5, 5}, y1[3] = {10, 20, 30};
    ck_assert_int_eq(pol_qfit_solve(x1, y1, 3, &f, NULL), 0);
    ck_assert_int_eq(f.degree, 0);
    ck_assert(fabs(pol_qfit_eval(&f, 1000) - 20) < 1e-9);

    double x2[4] = {2, 2, 4, 4}, y2[4] = {10, 12, 20, 22};
    ck_assert_int_eq(pol_qfit_solve(x2, y2, 4, &f, NULL), 0);
    ck_assert_int_eq(f.degree, 1);
    ck_assert(fabs(pol_qfit_eval(&f, 3) - 16) < 1e-9);
    ck_assert(fabs(pol_qfit_eval(&f, 6) - 31) < 1e-9);

    ck_assert_int_eq(pol_qfit_solve(x2, y2, 0, &f, NULL), 0);
    ck_assert_int_eq(f.degree, -1);
    ck_assert(pol_qfit_eval(&f, 3) == 0.0);

    double bad[2] = {1, NAN};
    gms_error err;
    ck_assert_int_eq(pol_qfit_solve(x2, bad, 2, &f, &err), GMS_EINVAL);
    ck_assert(strstr(err.msg, "sample 1"));
}
END_TEST

/* ---- samples and fits ------------------------------------------------------------------- */

START_TEST(test_fits_are_made_per_layer_and_for_the_whole_model)
{
    pol_mimose_samples *s = pol_mimose_samples_new(2);
    ck_assert_ptr_nonnull(s);
    for (int i = 0; i < 6; i++) {
        double x = 1000 + 300 * i;
        double bytes[2] = {2 * x * x, 50 * x + 7}, ns[2] = {100 + i, 10};
        ck_assert_int_eq(pol_mimose_samples_add_layers(s, x, bytes, ns, NULL), 0);
        if (i > 0) /* the authors skip the first warm-up iteration's model sample */
            ck_assert_int_eq(pol_mimose_samples_add_model(s, x, 3 * x * x + 1, NULL), 0);
    }
    ck_assert_uint_eq(pol_mimose_samples_count(s), 6);
    ck_assert_uint_eq(pol_mimose_samples_model_count(s), 5);
    pol_mimose_fits f;
    ck_assert_int_eq(pol_mimose_fits_make(s, &f, NULL), 0);
    double x = 2222;
    ck_assert(fabs(pol_mimose_layer_bytes(&f, 0, x) - 2 * x * x) < 1e-6 * x * x);
    ck_assert(fabs(pol_mimose_layer_bytes(&f, 1, x) - (50 * x + 7)) < 1e-6 * x);
    ck_assert(fabs(pol_mimose_model_bytes(&f, x) - (3 * x * x + 1)) < 1e-6 * x * x);
    ck_assert(fabs(f.forward_ns[0] - 102.5) < 1e-9);
    ck_assert(pol_mimose_layer_bytes(&f, 2, x) == 0.0); /* no such layer */
    pol_mimose_fits_free(&f);
    pol_mimose_samples_free(s);
}
END_TEST

START_TEST(test_predictions_never_go_negative)
{
    /* a falling line through zero: the fit predicts negative bytes beyond it */
    pol_mimose_samples *s = pol_mimose_samples_new(1);
    double b0 = 100, b1 = 0, ns = 1;
    ck_assert_int_eq(pol_mimose_samples_add_layers(s, 1, &b0, &ns, NULL), 0);
    ck_assert_int_eq(pol_mimose_samples_add_layers(s, 2, &b1, &ns, NULL), 0);
    ck_assert_int_eq(pol_mimose_samples_add_model(s, 1, 100, NULL), 0);
    ck_assert_int_eq(pol_mimose_samples_add_model(s, 2, 0, NULL), 0);
    pol_mimose_fits f;
    ck_assert_int_eq(pol_mimose_fits_make(s, &f, NULL), 0);
    ck_assert(fabs(pol_mimose_layer_bytes(&f, 0, 1.5) - 50) < 1e-9);
    ck_assert(pol_mimose_layer_bytes(&f, 0, 3) == 0.0);
    ck_assert(pol_mimose_model_bytes(&f, 3) == 0.0);
    pol_mimose_fits_free(&f);
    pol_mimose_samples_free(s);
}
END_TEST

START_TEST(test_sequential_peak_is_the_most_backward_holds_at_one_layer)
{
    /* at layer L backward holds 2 b[L] (activations and their gradients) and the earlier
     * layers that were not checkpointed */
    double b[4] = {10, 40, 5, 20};
    uint8_t none[4] = {0, 0, 0, 0}, all[4] = {1, 1, 1, 1}, mid[4] = {0, 1, 1, 0};
    uint8_t last[4] = {0, 0, 0, 1};
    /* nothing checkpointed: at layer 3, 2 x 20 + 55 (at layer 1 only 80 + 10) */
    ck_assert(pol_mimose_sequential_peak(b, none, 4) == 95);
    ck_assert(pol_mimose_sequential_peak(b, NULL, 4) == 95);
    /* all: the largest layer alone, recomputed */
    ck_assert(pol_mimose_sequential_peak(b, all, 4) == 80);
    /* layers 1 and 2: at layer 1, 10 + 80; at layer 3 only 10 + 40 */
    ck_assert(pol_mimose_sequential_peak(b, mid, 4) == 90);
    /* checkpointing the last layer saves nothing: backward recomputes it at once */
    ck_assert(pol_mimose_sequential_peak(b, last, 4) == 95);
    ck_assert(pol_mimose_sequential_peak(b, none, 0) == 0);
}
END_TEST

/* ---- greedy ----------------------------------------------------------------------------- */

/* Each expected set below is what the authors' GreedyStrategy.get_checkpoint_module returns,
 * obtained by exec'ing their class (manager.py at fc042a29, lines "class BaseStrategy" up to
 * "class DoubleLevelGreedyStrategy", unchanged) on modules "0-0".."0-(n-1)" with constant
 * predicted bytes. */
typedef struct greedy_case {
    double bytes[9];
    uint32_t n;
    double deficit;
    const char *want; /* picked layer positions, e.g. "0,3" */
} greedy_case;

static const greedy_case greedy_cases[] = {
    /* hand-made: near-equal layers are one group, the earliest covering layer of the smallest
     * covering group wins, else the earliest layer of the smallest group is taken */
    {{100, 100, 100, 100}, 4, 150, "0,1"},
    {{10, 50, 30, 95, 100}, 5, 90, "3"},   /* 95 and 100 are one group: the earlier covers */
    {{10, 50, 30, 95, 100}, 5, 96, "4"},   /* only 100 covers */
    {{10, 50, 30, 95, 100}, 5, 101, "0,3"}, /* none covers: smallest (10), then 95 covers 91 */
    {{10, 50, 30, 95, 100}, 5, 20, "2"},
    {{10, 50, 30, 95, 100}, 5, 1000, "0,1,2,3,4"},
    {{5, 5, 5, 5, 5, 5}, 6, 12, "0,1,2"},
    {{40, 10, 40, 10}, 4, 45, "0,1"},
    {{0, 0, 0}, 3, 5, "0,1,2"},
    {{7, 3, 9}, 3, 0, ""},
    /* random cases (seeded), same source of truth */
    {{97, 66, 98, 81, 97, 19, 96, 84}, 8, 628, "0,1,2,3,4,5,6,7"},
    {{68}, 1, -6, ""},
    {{31, 97, 57, 93}, 4, 245, "0,1,2,3"},
    {{91}, 1, 73, "0"},
    {{53, 94, 93, 4, 91}, 5, 187, "0,1,2,3"},
    {{3, 28}, 2, 20, "1"},
    {{96, 10, 100, 91, 90, 98, 32}, 7, 51, "0"},
    {{63, 58, 92, 83, 51, 94, 3, 51}, 8, 33, "4"},
    {{97, 99, 38}, 3, 28, "2"},
    {{27, 99}, 2, 85, "1"},
    {{99, 92, 24, 40, 93, 95, 96, 91}, 8, 38, "3"},
    {{90, 96}, 2, 97, "0,1"},
};

START_TEST(test_greedy_picks_what_the_authors_code_picks)
{
    const greedy_case *c = &greedy_cases[_i];
    uint8_t pick[9];
    uint32_t scratch[18];
    uint32_t n = pol_mimose_greedy(c->bytes, c->n, c->deficit, pick, scratch);
    char got[64] = "";
    uint32_t count = 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (pick[i]) {
            size_t len = strlen(got);
            snprintf(got + len, sizeof got - len, "%s%u", count++ ? "," : "", i);
        }
    ck_assert_uint_eq(n, count);
    ck_assert_msg(strcmp(got, c->want) == 0, "case %d: picked {%s}, the authors' code {%s}", _i,
                  got, c->want);
}
END_TEST

/* ---- cache and buckets ------------------------------------------------------------------ */

START_TEST(test_repeated_buckets_hit_the_cache)
{
    pol_mimose_cache *c = pol_mimose_cache_new(3);
    ck_assert_ptr_nonnull(c);
    static const int64_t inputs[] = {1030, 4000, 1024, 2500, 1035, 3990, 2501};
    uint8_t flags[3];
    int hits = 0;
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        int64_t b = pol_mimose_bucket(inputs[i], 61);
        const uint8_t *got = pol_mimose_cache_get(c, b);
        if (got) {
            hits++;
            ck_assert_uint_eq(got[0], (uint8_t)(b & 1));
            ck_assert_uint_eq(got[2], (uint8_t)((b >> 1) & 1));
            continue;
        }
        flags[0] = (uint8_t)(b & 1), flags[1] = 7, flags[2] = (uint8_t)((b >> 1) & 1);
        ck_assert_int_eq(pol_mimose_cache_put(c, b, flags, NULL), 0);
    }
    /* buckets: 1037, 4026, 1037, 2501, 1037, 4026, 2501 -> 3 misses, 4 hits */
    ck_assert_int_eq(hits, 4);
    ck_assert_uint_eq(pol_mimose_cache_size(c), 3);
    ck_assert_ptr_null(pol_mimose_cache_get(c, 1036));
    /* an empty plan is a plan: cached, not recomputed (the authors cache it too) */
    uint8_t none[3] = {0, 0, 0};
    ck_assert_int_eq(pol_mimose_cache_put(c, 5, none, NULL), 0);
    const uint8_t *got = pol_mimose_cache_get(c, 5);
    ck_assert_ptr_nonnull(got);
    ck_assert(got[0] == 0 && got[1] == 0 && got[2] == 0);
    ck_assert_uint_eq(pol_mimose_cache_size(c), 4);
    pol_mimose_cache_free(c);
}
END_TEST

START_TEST(test_cache_keeps_many_buckets_apart)
{
    pol_mimose_cache *c = pol_mimose_cache_new(1);
    for (int64_t i = 0; i < 1000; i++) {
        int64_t k = (i * 7919) % 1000; /* every key once, out of order */
        uint8_t f = (uint8_t)(k % 251);
        ck_assert_int_eq(pol_mimose_cache_put(c, k, &f, NULL), 0);
    }
    ck_assert_uint_eq(pol_mimose_cache_size(c), 1000);
    for (int64_t k = 0; k < 1000; k++)
        ck_assert_uint_eq(*pol_mimose_cache_get(c, k), (uint8_t)(k % 251));
    pol_mimose_cache_free(c);
}
END_TEST

START_TEST(test_bucket_rounds_up_to_a_multiple_of_the_width)
{
    ck_assert_int_eq(pol_mimose_bucket(128, 5), 130);
    ck_assert_int_eq(pol_mimose_bucket(130, 5), 130);
    ck_assert_int_eq(pol_mimose_bucket(131, 5), 135);
    ck_assert_int_eq(pol_mimose_bucket(0, 5), 0);
    ck_assert_int_eq(pol_mimose_bucket(-3, 5), 0);
    ck_assert_int_eq(pol_mimose_bucket(77, 1), 77);
    ck_assert_int_eq(pol_mimose_bucket(INT64_MAX - 1, 1000), INT64_MAX);
}
END_TEST

/* ---- parameters ------------------------------------------------------------------------- */

START_TEST(test_params_default_and_parse)
{
    pol_mimose_params p;
    ck_assert_int_eq(pol_mimose_params_parse("mimose", "", &p, NULL), 0);
    ck_assert_uint_eq(p.warmup, 10);
    ck_assert_int_eq(p.bucket, POL_MIMOSE_BUCKET_AUTO);
    ck_assert_uint_eq(p.reserve, 0);
    ck_assert_int_eq(p.max_input, -1);
    ck_assert_int_eq(pol_mimose_params_parse("mimose", NULL, &p, NULL), 0);
    ck_assert_int_eq(
        pol_mimose_params_parse("mimose", "bucket=40,reserve=1048576,warmup=5", &p, NULL), 0);
    ck_assert_int_eq(p.bucket, 40);
    ck_assert_uint_eq(p.reserve, 1048576);
    ck_assert_uint_eq(p.warmup, 5);
    ck_assert_int_eq(pol_mimose_params_parse("mimose", "bucket=auto", &p, NULL), 0);
    ck_assert_int_eq(p.bucket, POL_MIMOSE_BUCKET_AUTO);
    ck_assert_int_eq(pol_mimose_params_parse("mimose-static", "max_input=4096", &p, NULL), 0);
    ck_assert_int_eq(p.max_input, 4096);
    ck_assert_int_eq(p.predict_authors, 0);
    ck_assert_int_eq(pol_mimose_params_parse("mimose", "predict=authors", &p, NULL), 0);
    ck_assert_int_eq(p.predict_authors, 1);
    ck_assert_int_eq(pol_mimose_params_parse("mimose", "predict=sequential", &p, NULL), 0);
    ck_assert_int_eq(p.predict_authors, 0);
}
END_TEST

typedef struct bad_params {
    const char *who, *s, *msg;
} bad_params;

static const bad_params bad[] = {
    {"mimose", "buckets=5", "unknown parameter 'buckets' (known: warmup, bucket, reserve, predict)"},
    {"mimose", "predict=exact", "predict='exact': expected 'sequential' or 'authors'"},
    {"mimose", "max_input=5", "unknown parameter 'max_input'"},
    {"mimose", "warmup=1", "warmup='1': expected an integer >= 2"},
    {"mimose", "warmup=", "warmup='': expected"},
    {"mimose", "warmup=10x", "warmup='10x'"},
    {"mimose", "bucket=0", "bucket='0': expected 'auto' or an integer >= 1"},
    {"mimose", "bucket=-5", "bucket='-5'"},
    {"mimose", "reserve=1e9", "reserve='1e9': expected an integer (bytes)"},
    {"mimose", "reserve=99999999999999999999999", "reserve="},
    {"mimose", "reserve", "'reserve' is not KEY=VALUE"},
    {"mimose", "warmup=3,warmup=4", "'warmup' given twice"},
    {"mimose", "warmup=3,", "ends with ','"},
    {"mimose", ",warmup=3", "'' is not KEY=VALUE"},
    {"mimose-static", "max_input=x", "max_input='x'"},
};

START_TEST(test_params_errors_name_the_parameter)
{
    const bad_params *b = &bad[_i];
    pol_mimose_params p;
    gms_error err;
    ck_assert_int_eq(pol_mimose_params_parse(b->who, b->s, &p, &err), GMS_EINVAL);
    ck_assert_msg(strstr(err.msg, b->msg), "'%s': got '%s', want '%s'", b->s, err.msg, b->msg);
    ck_assert_msg(strncmp(err.msg, b->who, strlen(b->who)) == 0, "%s", err.msg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mimose");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_fit_recovers_an_exactly_quadratic_layer_at_pixel_scale);
    tcase_add_test(tc, test_fit_is_least_squares_on_noisy_points);
    tcase_add_test(tc, test_fit_drops_the_degree_with_fewer_than_three_distinct_inputs);
    tcase_add_test(tc, test_fits_are_made_per_layer_and_for_the_whole_model);
    tcase_add_test(tc, test_predictions_never_go_negative);
    tcase_add_test(tc, test_sequential_peak_is_the_most_backward_holds_at_one_layer);
    tcase_add_loop_test(tc, test_greedy_picks_what_the_authors_code_picks, 0,
                        (int)(sizeof greedy_cases / sizeof greedy_cases[0]));
    tcase_add_test(tc, test_repeated_buckets_hit_the_cache);
    tcase_add_test(tc, test_cache_keeps_many_buckets_apart);
    tcase_add_test(tc, test_bucket_rounds_up_to_a_multiple_of_the_width);
    tcase_add_test(tc, test_params_default_and_parse);
    tcase_add_loop_test(tc, test_params_errors_name_the_parameter, 0,
                        (int)(sizeof bad / sizeof bad[0]));
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
