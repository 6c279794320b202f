/* synth parameters: defaults are valid, bad values are refused by name; GPUs and roofline. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "synth.h"

START_TEST(test_defaults_of_every_model_validate)
{
    for (int m = GMT_SYNTH_MLP; m <= GMT_SYNTH_UNET; m++) {
        gmt_synth_params p;
        gmt_synth_params_default(&p, (gmt_synth_model)m);
        gms_error err;
        ck_assert_msg(gmt_synth_params_validate(&p, &err) == 0, "%s", err.msg);
        ck_assert_str_eq(p.gpu->key, "h100");
    }
}
END_TEST

/* validate(p) must fail with GMS_EINVAL and a message containing phrase. */
static void refused(const gmt_synth_params *p, const char *phrase)
{
    gms_error err;
    gms_error_clear(&err);
    ck_assert_int_eq(gmt_synth_params_validate(p, &err), GMS_EINVAL);
    ck_assert_msg(strstr(err.msg, phrase), "'%s' does not mention '%s'", err.msg, phrase);
}

START_TEST(test_bad_parameters_are_refused_by_name)
{
    gmt_synth_params p;
    gmt_synth_params_default(&p, GMT_SYNTH_RESNET);
    p.layers = 50;
    refused(&p, "10, 18 or 34");
    gmt_synth_params_default(&p, GMT_SYNTH_RESNET);
    p.batch = 0;
    refused(&p, "--batch");
    gmt_synth_params_default(&p, GMT_SYNTH_RESNET);
    p.image_h = 0;
    refused(&p, "--image");
    gmt_synth_params_default(&p, GMT_SYNTH_UNET);
    p.image_w = 100; /* not divisible by 16 */
    refused(&p, "divisible by 16");
    gmt_synth_params_default(&p, GMT_SYNTH_UNET);
    p.vary_min = 17;
    p.vary_max = 31;
    refused(&p, "no image side divisible by 16");
    gmt_synth_params_default(&p, GMT_SYNTH_TRANSFORMER);
    p.heads = 7;
    refused(&p, "multiple of --heads");
    gmt_synth_params_default(&p, GMT_SYNTH_TRANSFORMER);
    p.vary_min = 9;
    p.vary_max = 3;
    refused(&p, "--vary-input");
    gmt_synth_params_default(&p, GMT_SYNTH_MLP);
    p.gpu = gmt_synth_gpu_find("v100");
    p.dtype = GMT_SYNTH_BF16;
    refused(&p, "not supported on v100");
    gmt_synth_params_default(&p, GMT_SYNTH_MLP);
    p.iterations = 0;
    refused(&p, "--iterations");
    gmt_synth_params_default(&p, GMT_SYNTH_MLP);
    p.gpu = NULL;
    refused(&p, "--gpu");
}
END_TEST

START_TEST(test_huge_shapes_fail_cleanly)
{
    gmt_synth_params p;
    gmt_synth_params_default(&p, GMT_SYNTH_TRANSFORMER);
    p.batch = 1u << 20;
    p.seq = 1u << 20; /* attention scores alone would be 2^40 x heads elements */
    gms_error err;
    ck_assert_int_eq(gmt_synth_generate(&p, NULL, NULL, NULL, &err), GMS_EINVAL);
    ck_assert(strstr(err.msg, "2^48"));
}
END_TEST

START_TEST(test_gpu_table_and_roofline)
{
    ck_assert_uint_eq(gmt_synth_gpu_count(), 5);
    ck_assert_ptr_null(gmt_synth_gpu_find("b200"));
    /* the H200: the H100's compute, 4.8 TB/s of HBM3e: 4.8 GB take 1 ms */
    const gmt_synth_gpu *h2 = gmt_synth_gpu_find("h200");
    ck_assert_ptr_nonnull(h2);
    ck_assert_uint_eq(gmt_synth_cost_ns(h2, GMT_SYNTH_FP32, 1.0, 4.8e9), 1002000ull);
    const gmt_synth_gpu *h = gmt_synth_gpu_find("h100");
    ck_assert_ptr_nonnull(h);
    /* compute bound: 989.4 TFLOP in fp16 take one second + 2 us */
    ck_assert_uint_eq(gmt_synth_cost_ns(h, GMT_SYNTH_FP16, 989.4e12, 1.0), 1000002000ull);
    /* memory bound: 3.35 GB at 3.35 TB/s is 1 ms */
    ck_assert_uint_eq(gmt_synth_cost_ns(h, GMT_SYNTH_FP32, 1.0, 3.35e9), 1002000ull);
    /* fp32 uses the CUDA-core rate: 67 TFLOP/s */
    ck_assert_uint_eq(gmt_synth_cost_ns(h, GMT_SYNTH_FP32, 67e12, 0), 1000002000ull);
    /* nothing to do still costs the launch */
    ck_assert_uint_eq(gmt_synth_cost_ns(h, GMT_SYNTH_FP32, 0, 0), 2000ull);
    /* host copies: PCIe 5.0 x16 at 63 GB/s */
    ck_assert_uint_eq(gmt_synth_h2d_cost_ns(h, 63e6), 1002000ull);
    const gmt_synth_gpu *v = gmt_synth_gpu_find("v100");
    ck_assert_double_eq(gmt_synth_peak_flops(v, GMT_SYNTH_BF16), 0);
    ck_assert_double_eq(gmt_synth_peak_flops(v, GMT_SYNTH_FP16), 125e12);
    for (size_t i = 0; i < gmt_synth_gpu_count(); i++) {
        const gmt_synth_gpu *g = gmt_synth_gpu_at(i);
        ck_assert_ptr_eq(gmt_synth_gpu_find(g->key), g);
        ck_assert(g->flops_fp16 > g->flops_fp32 && g->bandwidth > g->host_bandwidth);
    }
}
END_TEST

START_TEST(test_names_parse_both_ways)
{
    gmt_synth_model m;
    gmt_synth_dtype d;
    gmt_synth_optim o;
    gmt_synth_update u;
    for (int i = GMT_SYNTH_MLP; i <= GMT_SYNTH_UNET; i++) {
        ck_assert_int_eq(gmt_synth_model_parse(gmt_synth_model_name((gmt_synth_model)i), &m), 0);
        ck_assert_int_eq(m, i);
    }
    ck_assert_int_eq(gmt_synth_model_parse("vgg", &m), -1);
    ck_assert_int_eq(gmt_synth_dtype_parse("bf16", &d), 0);
    ck_assert_int_eq(d, GMT_SYNTH_BF16);
    ck_assert_int_eq(gmt_synth_dtype_parse("fp8", &d), -1);
    ck_assert_int_eq(gmt_synth_optim_parse("none", &o), 0);
    ck_assert_int_eq(o, GMT_SYNTH_NOOPT);
    ck_assert_int_eq(gmt_synth_update_parse("transient", &u), 0);
    ck_assert_int_eq(u, GMT_SYNTH_UPDATE_TRANSIENT);
    ck_assert_int_eq(gmt_synth_update_parse("inplace", &u), -1);
}
END_TEST

/* Values outside the enums name as "?" (never read past a table); NULL parses as unknown. */
START_TEST(test_out_of_range_names_and_null_text)
{
    ck_assert_str_eq(gmt_synth_model_name((gmt_synth_model)(GMT_SYNTH_UNET + 1)), "?");
    ck_assert_str_eq(gmt_synth_model_name((gmt_synth_model)-1), "?");
    ck_assert_str_eq(gmt_synth_dtype_name((gmt_synth_dtype)(GMT_SYNTH_BF16 + 1)), "?");
    ck_assert_str_eq(gmt_synth_optim_name((gmt_synth_optim)(GMT_SYNTH_NOOPT + 1)), "?");
    ck_assert_str_eq(gmt_synth_update_name((gmt_synth_update)(GMT_SYNTH_UPDATE_TRANSIENT + 1)),
                     "?");
    ck_assert_str_eq(gmt_synth_update_name(GMT_SYNTH_UPDATE_MUTATE), "mutate");
    gmt_synth_model m = GMT_SYNTH_RESNET;
    ck_assert_int_eq(gmt_synth_model_parse(NULL, &m), -1);
    ck_assert_int_eq(m, GMT_SYNTH_RESNET);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("synth_params");
    TCase *tc = tcase_create("params");
    tcase_add_test(tc, test_defaults_of_every_model_validate);
    tcase_add_test(tc, test_bad_parameters_are_refused_by_name);
    tcase_add_test(tc, test_huge_shapes_fail_cleanly);
    tcase_add_test(tc, test_gpu_table_and_roofline);
    tcase_add_test(tc, test_names_parse_both_ways);
    tcase_add_test(tc, test_out_of_range_names_and_null_text);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
