/* synth models: analytic parameter counts, FLOP and cost totals, and well-formed replays. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "synth.h"
#include "test_synth_util.h"

static gmt_synth_params defaults(gmt_synth_model m)
{
    gmt_synth_params p;
    gmt_synth_params_default(&p, m);
    return p;
}

/* Analytic parameter count of the mlp recipe: (layers-1) x Linear(H,H) + Linear(H,C). */
static uint64_t mlp_params(uint64_t layers, uint64_t h, uint64_t c)
{
    return (layers - 1) * (h * h + h) + (h * c + c);
}

START_TEST(test_mlp_constants_are_params_times_dtype_plus_optimizer_state)
{
    static const struct { gmt_synth_dtype dt; gmt_synth_optim opt; unsigned states; } cases[] = {
        {GMT_SYNTH_FP32, GMT_SYNTH_SGD, 1}, {GMT_SYNTH_FP16, GMT_SYNTH_ADAM, 2},
        {GMT_SYNTH_BF16, GMT_SYNTH_NOOPT, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gmt_synth_params p = defaults(GMT_SYNTH_MLP);
        p.layers = 3;
        p.hidden = 96;
        p.classes = 7;
        p.batch = 5;
        p.dtype = cases[i].dt;
        p.optim = cases[i].opt;
        ts_replay r;
        gmt_synth_totals t;
        ts_generate(&p, &r, &t);
        uint64_t n = mlp_params(3, 96, 7), ds = cases[i].dt == GMT_SYNTH_FP32 ? 4 : 2;
        ck_assert_uint_eq(t.param_count, n);
        ck_assert_uint_eq(t.param_bytes, n * ds);
        ck_assert_uint_eq(t.state_bytes, cases[i].states * n * ds);
        ck_assert_uint_eq(r.constant_bytes, (1 + cases[i].states) * n * ds);
        ck_assert_uint_eq(t.constant_bytes, r.constant_bytes);
        /* inputs: x [B, H] in the dtype + int64 targets [B] */
        ck_assert_uint_eq(t.input_bytes, 5 * 96 * ds + 5 * 8);
        ts_replay_free(&r);
    }
}
END_TEST

START_TEST(test_mlp_flops_and_cost_match_the_formulas)
{
    const uint64_t L = 4, H = 256, C = 10, B = 32;
    gmt_synth_params p = defaults(GMT_SYNTH_MLP);
    p.layers = (uint32_t)L;
    p.hidden = (uint32_t)H;
    p.classes = (uint32_t)C;
    p.batch = (uint32_t)B;
    ts_replay r;
    ts_replay_init(&r, &p);
    r.watch_op = "addmm";
    gmt_synth_totals t;
    gms_error err;
    ck_assert_int_eq(gmt_synth_generate(&p, ts_sink, &r, &t, &err), 0);
    ts_replay_finish(&r);
    ck_assert_msg(!r.bad[0], "%s", r.bad);
    /* docs/synth.md: linear fwd 2BHo + Bo, grad_w 2BHo, grad_b Bo, grad_x 2BHo (not for the
     * first layer), relu and threshold_backward 1/element, log_softmax 5 + 4 per element,
     * nll_loss 1 per row each way, SGD 4 per parameter. */
    double want = 0, mm = 0;
    for (uint64_t i = 0; i < L; i++) {
        double o = i + 1 == L ? (double)C : (double)H;
        double f = 2.0 * B * H * o;
        want += f + B * o + f + B * o + (i > 0 ? f : 0);
        mm += f + B * o + f + (i > 0 ? f : 0);
    }
    want += 2.0 * (L - 1) * B * H + 9.0 * B * C + 2.0 * B + 4.0 * mlp_params(L, H, C);
    ck_assert_double_eq_tol(t.flops, want, 1e-6 * want);
    ck_assert_double_eq_tol(r.mm_flops, mm, 1e-6 * mm);
    ck_assert_double_eq(t.flops, r.flops);
    ck_assert_uint_eq(t.dur_ns, r.dur);
    ck_assert_uint_eq(t.ops, r.ops);
    ck_assert_uint_eq(t.events, r.events);
    /* The first addmm by hand: reads bias, x and the weight (through its t() view), writes y;
     * H100 fp32: 67 TFLOP/s, 3.35 TB/s, 2 us launch. */
    ck_assert(r.watch_seen);
    double f1 = 2.0 * B * H * H + B * H, b1 = 4.0 * (H + B * H + H * H + B * H);
    ck_assert_double_eq(r.watch_flops, f1);
    ck_assert_double_eq(r.watch_bytes, b1);
    double ns = fmax(f1 / 67e12, b1 / 3350e9) * 1e9 + 2000.0;
    ck_assert_uint_eq(r.watch_dur, (uint64_t)llround(ns));
    ts_replay_free(&r);
}
END_TEST

START_TEST(test_resnet_parameter_counts_match_torchvision)
{
    gmt_synth_params p = defaults(GMT_SYNTH_RESNET);
    p.batch = 1;
    p.image_h = p.image_w = 32; /* the count does not depend on the image */
    ts_replay r;
    gmt_synth_totals t;
    ts_generate(&p, &r, &t);
    ck_assert_uint_eq(t.param_count, 11689512); /* torchvision resnet18 */
    ts_replay_free(&r);
    p.layers = 34;
    ts_generate(&p, &r, &t);
    ck_assert_uint_eq(t.param_count, 21797672); /* torchvision resnet34 */
    ts_replay_free(&r);
}
END_TEST

START_TEST(test_resnet18_forward_flops_match_the_published_figure)
{
    /* ResNet-18 at 224x224: 1.82 GMACs per image in the convolutions and fc. Forward +
     * backward matmul FLOPs are 3 x 2 x MACs, less the first conv's unneeded input gradient. */
    gmt_synth_params p = defaults(GMT_SYNTH_RESNET);
    p.batch = 1;
    p.optim = GMT_SYNTH_NOOPT;
    ts_replay r;
    gmt_synth_totals t;
    ts_generate(&p, &r, &t);
    double conv1 = 2.0 * 64 * 112 * 112 * 3 * 7 * 7;
    double fwd = (r.mm_flops + conv1) / 3.0;
    ck_assert_msg(fabs(fwd / 2.0 - 1.82e9) < 0.01e9, "forward MACs %.4g", fwd / 2.0);
    ts_replay_free(&r);
}
END_TEST

START_TEST(test_transformer_matches_gpt2_small_parameter_count)
{
    gmt_synth_params p = defaults(GMT_SYNTH_TRANSFORMER);
    p.seq = 1024; /* GPT-2's position table */
    p.batch = 1;
    p.optim = GMT_SYNTH_NOOPT;
    ts_replay r;
    gmt_synth_totals t;
    ts_generate(&p, &r, &t);
    ck_assert_uint_eq(t.param_count, 124439808); /* GPT-2 small, tied embeddings */
    ck_assert_uint_eq(t.buffer_bytes, 1024 * 1024); /* the causal mask, 1 byte per entry */
    ts_replay_free(&r);
}
END_TEST

START_TEST(test_unet_parameter_count_matches_its_formula)
{
    gmt_synth_params p = defaults(GMT_SYNTH_UNET);
    p.layers = 3;
    p.hidden = 8;
    p.classes = 2;
    p.batch = 1;
    p.image_h = p.image_w = 16;
    ts_replay r;
    gmt_synth_totals t;
    ts_generate(&p, &r, &t);
    /* double conv (in->out): 9 in out + 9 out out + 4 out (two BNs) */
    uint64_t want = 0, w = 8;
    for (uint64_t i = 0; i <= 3; i++) {
        uint64_t in = i == 0 ? 3 : w << (i - 1), out = w << i;
        want += 9 * in * out + 9 * out * out + 4 * out;
    }
    for (uint64_t j = 0; j < 3; j++) {
        uint64_t ch = w << j;
        want += 4 * 2 * ch * ch + ch;                   /* up-conv + bias */
        want += 9 * 2 * ch * ch + 9 * ch * ch + 4 * ch; /* double conv 2ch -> ch */
    }
    want += 2 * w + 2; /* 1x1 output conv + bias */
    ck_assert_uint_eq(t.param_count, want);
    ts_replay_free(&r);
}
END_TEST

START_TEST(test_every_model_replays_cleanly_in_every_mode)
{
    for (int m = GMT_SYNTH_MLP; m <= GMT_SYNTH_UNET; m++) {
        for (int mode = 0; mode < 4; mode++) {
            gmt_synth_params p = defaults((gmt_synth_model)m);
            p.batch = 2;
            p.hidden = m == GMT_SYNTH_TRANSFORMER ? 32 : 8;
            p.heads = 4;
            p.vocab = 50;
            p.seq = 16;
            p.layers = m == GMT_SYNTH_RESNET ? 10 : 2;
            p.image_h = p.image_w = 16;
            p.iterations = 3;
            p.update = mode & 1 ? GMT_SYNTH_UPDATE_TRANSIENT : GMT_SYNTH_UPDATE_MUTATE;
            p.optim = mode & 2 ? GMT_SYNTH_ADAM : GMT_SYNTH_SGD;
            p.dtype = mode & 2 ? GMT_SYNTH_BF16 : GMT_SYNTH_FP32;
            if (mode == 3) {
                p.vary_min = 8;
                p.vary_max = 24;
            }
            ts_replay r;
            gmt_synth_totals t;
            ts_generate(&p, &r, &t);
            ck_assert_msg(r.start_first, "START is not the first event");
            ck_assert_uint_eq(r.n_start, 1);
            ck_assert_uint_eq(r.n_iteration, 3);
            ck_assert_uint_eq(r.n_backward, 3);
            /* NAMEs: every parameter and its 1 (sgd) or 2 (adam) state tensors, + the mask */
            uint64_t n_param = (r.names - (m == GMT_SYNTH_TRANSFORMER)) / (mode & 2 ? 3 : 2);
            ck_assert_uint_eq(r.fused_mutates + r.fused_calls, 3 * n_param);
            ck_assert_uint_eq(r.fused_calls, p.update == GMT_SYNTH_UPDATE_MUTATE ? 0 : 3 * n_param);
            ck_assert_uint_gt(r.peak, t.constant_bytes);
            ts_replay_free(&r);
        }
    }
}
END_TEST

START_TEST(test_iteration_annotation_is_the_input_size)
{
    gmt_synth_params p = defaults(GMT_SYNTH_TRANSFORMER);
    p.layers = 1;
    p.hidden = 16;
    p.heads = 2;
    p.vocab = 30;
    p.batch = 3;
    p.iterations = 6;
    p.vary_min = 5;
    p.vary_max = 40;
    p.seed = 7;
    ts_replay r;
    gmt_synth_totals t;
    ts_generate(&p, &r, &t);
    for (uint32_t i = 0; i < 6; i++)
        ck_assert_int_eq(r.iter_value[i], 3 * (int64_t)gmt_synth_input_dim(&p, i));
    ts_replay_free(&r);

    p = defaults(GMT_SYNTH_UNET);
    p.layers = 2;
    p.hidden = 4;
    p.batch = 2;
    p.image_h = 8;
    p.image_w = 12;
    ts_generate(&p, &r, &t);
    ck_assert_int_eq(r.iter_value[0], 2 * 8 * 12); /* pixels */
    ts_replay_free(&r);

    p = defaults(GMT_SYNTH_MLP);
    p.hidden = 8;
    p.iterations = 4;
    p.vary_min = 1;
    p.vary_max = 9;
    ts_generate(&p, &r, &t);
    for (uint32_t i = 0; i < 4; i++)
        ck_assert_int_eq(r.iter_value[i], (int64_t)gmt_synth_input_dim(&p, i)); /* batch */
    ts_replay_free(&r);
}
END_TEST

START_TEST(test_baseline_peak_grows_with_batch)
{
    uint64_t prev = 0;
    for (uint32_t b = 1; b <= 8; b *= 2) {
        gmt_synth_params p = defaults(GMT_SYNTH_RESNET);
        p.layers = 10;
        p.hidden = 8;
        p.batch = b;
        p.classes = 10;
        p.image_h = p.image_w = 64;
        ts_replay r;
        gmt_synth_totals t;
        ts_generate(&p, &r, &t);
        ck_assert_uint_gt(r.peak, prev);
        prev = r.peak;
        ts_replay_free(&r);
    }
}
END_TEST

/* A small instance of model m (every model at a size that generates in milliseconds). */
static gmt_synth_params small(gmt_synth_model m, uint32_t layers)
{
    gmt_synth_params p = defaults(m);
    p.layers = layers;
    p.hidden = 16;
    p.batch = 2;
    p.seq = 8;
    p.vocab = 32;
    p.heads = 2;
    p.classes = 3;
    p.image_h = p.image_w = 32;
    return p;
}

/* The scope events of one iteration of small(m, layers): forward, then backward, where each
 * layer's gradient ops sit in a scope of its name (docs/synth.md, "Layer scopes"). */
static const struct {
    gmt_synth_model m;
    uint32_t layers;
    const char *scopes;
} expected_scopes[] = {
    {GMT_SYNTH_TRANSFORMER, 2,
     "+embeddings -embeddings +h.0 +h.0.attn -h.0.attn +h.0.mlp -h.0.mlp -h.0 "
     "+h.1 +h.1.attn -h.1.attn +h.1.mlp -h.1.mlp -h.1 +head -head +loss -loss "
     "+loss -loss +head -head +h.1 +h.1.mlp -h.1.mlp +h.1.attn -h.1.attn -h.1 "
     "+h.0 +h.0.mlp -h.0.mlp +h.0.attn -h.0.attn -h.0 +embeddings -embeddings"},
    {GMT_SYNTH_MLP, 3,
     "+layers.0 -layers.0 +layers.1 -layers.1 +layers.2 -layers.2 +loss -loss "
     "+loss -loss +layers.2 -layers.2 +layers.1 -layers.1 +layers.0 -layers.0"},
    {GMT_SYNTH_RESNET, 10,
     "+stem -stem +layer1 +layer1.0 -layer1.0 -layer1 +layer2 +layer2.0 -layer2.0 -layer2 "
     "+layer3 +layer3.0 -layer3.0 -layer3 +layer4 +layer4.0 -layer4.0 -layer4 +head -head "
     "+loss -loss +loss -loss +head -head +layer4 +layer4.0 -layer4.0 -layer4 +layer3 "
     "+layer3.0 -layer3.0 -layer3 +layer2 +layer2.0 -layer2.0 -layer2 +layer1 +layer1.0 "
     "-layer1.0 -layer1 +stem -stem"},
    {GMT_SYNTH_UNET, 2,
     "+down0 -down0 +down1 -down1 +down2 -down2 +up1 -up1 +up0 -up0 +outc -outc +loss -loss "
     "+loss -loss +outc -outc +up0 -up0 +up1 -up1 +down2 -down2 +down1 -down1 +down0 -down0"},
};

START_TEST(test_every_model_scopes_its_layers_in_forward_and_backward)
{
    for (size_t k = 0; k < sizeof expected_scopes / sizeof expected_scopes[0]; k++) {
        for (uint32_t iters = 1; iters <= 2; iters++) {
            gmt_synth_params p = small(expected_scopes[k].m, expected_scopes[k].layers);
            p.iterations = iters;
            ts_replay *r = malloc(sizeof *r);
            ck_assert_ptr_nonnull(r);
            ts_generate(&p, r, NULL); /* checks balance and names of every end */
            char want[4096];
            snprintf(want, sizeof want, "%s%s%s", expected_scopes[k].scopes,
                     iters == 2 ? " " : "", iters == 2 ? expected_scopes[k].scopes : "");
            ck_assert_msg(strcmp(r->scope_log, want) == 0, "%s x%u:\n got  %s\n want %s",
                          gmt_synth_model_name(p.model), iters, r->scope_log, want);
            ts_replay_free(r);
            free(r);
        }
    }
}
END_TEST

START_TEST(test_no_scopes_leaves_every_other_event_unchanged)
{
    for (size_t k = 0; k < sizeof expected_scopes / sizeof expected_scopes[0]; k++) {
        gmt_synth_params p = small(expected_scopes[k].m, expected_scopes[k].layers);
        ts_replay *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        ck_assert(a && b);
        gmt_synth_totals ta, tb;
        ts_generate(&p, a, &ta);
        p.scopes = 0;
        ts_generate(&p, b, &tb);
        ck_assert_uint_gt(a->scopes, 0);
        ck_assert_uint_eq(b->scopes, 0);
        ck_assert_str_eq(b->scope_log, "");
        ck_assert_uint_eq(ta.events, tb.events + 2 * a->scopes);
        ck_assert_uint_eq(a->ops, b->ops);
        ck_assert_uint_eq(a->peak, b->peak);
        ck_assert_uint_eq(ta.dur_ns, tb.dur_ns);
        ts_replay_free(a);
        ts_replay_free(b);
        free(a);
        free(b);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("synth_models");
    TCase *tc = tcase_create("models");
    tcase_add_test(tc, test_mlp_constants_are_params_times_dtype_plus_optimizer_state);
    tcase_add_test(tc, test_mlp_flops_and_cost_match_the_formulas);
    tcase_add_test(tc, test_resnet_parameter_counts_match_torchvision);
    tcase_add_test(tc, test_resnet18_forward_flops_match_the_published_figure);
    tcase_add_test(tc, test_transformer_matches_gpt2_small_parameter_count);
    tcase_add_test(tc, test_unet_parameter_count_matches_its_formula);
    tcase_add_test(tc, test_every_model_replays_cleanly_in_every_mode);
    tcase_add_test(tc, test_iteration_annotation_is_the_input_size);
    tcase_add_test(tc, test_baseline_peak_grows_with_batch);
    tcase_add_test(tc, test_every_model_scopes_its_layers_in_forward_and_backward);
    tcase_add_test(tc, test_no_scopes_leaves_every_other_event_unchanged);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
