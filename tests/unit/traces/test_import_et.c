/* The PyTorch Execution Trace importer's rules (import_et.h, docs/import-pytorch.md) on a tiny
 * hand-made ET (tests/unit/traces/data/tiny_et.json, and the same calls written in the
 * 1.1.x-chakra family in tiny_et_chakra.json): two steps of linear -> view -> relu_ with a
 * backward op on the autograd thread, a _foreach_add_ optimizer step, a CPU-only op, nested
 * calls (one makes a tensor the backward op reads), a batch that existed before the trace and
 * a batch copied in by aten::to. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "gmt.h"
#include "import_et.h"
#include "import_et_kineto.h"
#include "synth.h"
#include "test_dtrlog_util.h"

#define MAX_EV 64

typedef struct seen {
    gmt_event ev[MAX_EV];
    char *text[MAX_EV]; /* tu_event_text of each */
    gmt_output out[MAX_EV][4];
    uint64_t in[MAX_EV][8];
    size_t n;
    gmt_source *src;
} seen;

/* Reads every event of an ET through gmt_source, copying what the tests look at. */
static void read_all(const char *name, seen *s)
{
    memset(s, 0, sizeof *s);
    char *path = tu_data_path(name);
    gms_error err;
    ck_assert_msg(gmt_source_open(path, &s->src, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(gmt_source_format(s->src), GMT_FORMAT_PYTORCH_ET);
    gmt_event ev;
    int rc;
    while ((rc = gmt_source_next(s->src, &ev, &err)) == 1) {
        ck_assert_uint_lt(s->n, MAX_EV);
        ck_assert_int_eq(gmt_event_validate(&ev, &err), 0);
        ck_assert_uint_le(ev.n_outputs, 4);
        ck_assert_uint_le(ev.n_inputs, 8);
        char buf[256];
        tu_event_text(&ev, buf, sizeof buf);
        if (ev.kind == GMT_SCOPE) /* its name lives only until the next event */
            snprintf(buf, sizeof buf, "SCOPE %s", ev.scope_end ? "end" : ev.text);
        s->text[s->n] = strdup(buf);
        if (ev.n_outputs) /* empty lists are NULL */
            memcpy(s->out[s->n], ev.outputs, ev.n_outputs * sizeof *ev.outputs);
        if (ev.n_inputs)
            memcpy(s->in[s->n], ev.inputs, ev.n_inputs * sizeof *ev.inputs);
        s->ev[s->n] = ev;
        s->n++;
    }
    ck_assert_int_eq(rc, 0);
    free(path);
}

static void seen_free(seen *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->text[i]);
    gmt_source_close(s->src);
}

/* Index of the n-th (0-based) event of kind whose op (or annotation text) is name, or -1. */
static int find(const seen *s, gmt_kind kind, const char *name, int nth)
{
    for (size_t i = 0; i < s->n; i++) {
        const gmt_event *e = &s->ev[i];
        const char *n = kind == GMT_ANNOTATE ? e->text : e->op;
        if (e->kind == kind && (!name || (n && strcmp(n, name) == 0)) && nth-- == 0)
            return (int)i;
    }
    return -1;
}

START_TEST(test_both_schema_families_give_the_same_events)
{
    seen a, b;
    read_all("tiny_et.json", &a);
    read_all("tiny_et_chakra.json", &b);
    ck_assert_uint_eq(a.n, b.n);
    for (size_t i = 0; i < a.n; i++)
        ck_assert_msg(strcmp(a.text[i], b.text[i]) == 0, "event %zu: %s vs %s", i, a.text[i],
                      b.text[i]);
    ck_assert_str_eq(gmt_source_meta(a.src, "et_schema"), "1.0.1");
    ck_assert_str_eq(gmt_source_meta(b.src, "et_schema"), "1.1.0-chakra.0.0.4");
    seen_free(&a);
    seen_free(&b);
}
END_TEST

START_TEST(test_outermost_ops_in_start_order_without_wrappers_nested_or_cpu_only_calls)
{
    seen s;
    read_all("tiny_et.json", &s);
    const char *expect[] = {"et::step_input", "aten::linear", "aten::view",
                            "aten::relu_",    "aten::threshold_backward",
                            "aten::_foreach_add_", "aten::to", "aten::linear"};
    size_t k = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (s.ev[i].kind != GMT_CALL && s.ev[i].kind != GMT_MUTATE)
            continue;
        ck_assert_uint_lt(k, sizeof expect / sizeof *expect);
        ck_assert_str_eq(s.ev[i].op, expect[k]);
        k++;
    }
    ck_assert_uint_eq(k, sizeof expect / sizeof *expect);
    ck_assert_int_lt(find(&s, GMT_CALL, "aten::addmm", 0), 0);    /* nested in linear */
    ck_assert_int_lt(find(&s, GMT_CALL, "aten::_to_copy", 0), 0); /* nested in to */
    ck_assert_str_eq(gmt_source_meta(s.src, "et_cpu_only_ops_skipped"), "1"); /* aten::item */
    ck_assert_str_eq(gmt_source_meta(s.src, "et_nested_ops_skipped"), "3");
    seen_free(&s);
}
END_TEST

START_TEST(test_storages_views_and_in_place_writes)
{
    seen s;
    read_all("tiny_et.json", &s);
    int lin = find(&s, GMT_CALL, "aten::linear", 0), view = find(&s, GMT_CALL, "aten::view", 0);
    int relu = find(&s, GMT_CALL, "aten::relu_", 0);
    ck_assert_int_ge(lin, 0);
    ck_assert_int_ge(view, 0);
    ck_assert_int_ge(relu, 0);
    /* linear: a new storage of numel * itemsize = 8 * 4 bytes, and the 4 floats its nested
     * aten::empty made (its nested addmm's output is linear's own: not a second one) */
    ck_assert_uint_eq(s.ev[lin].n_outputs, 2);
    ck_assert_int_eq(s.out[lin][0].alias_of, -1);
    ck_assert_uint_eq(s.out[lin][0].size, 32);
    ck_assert_int_eq(s.out[lin][1].alias_of, -1);
    ck_assert_uint_eq(s.out[lin][1].size, 16);
    ck_assert_str_eq(gmt_source_meta(s.src, "et_nested_outputs"), "1");
    /* the view shares linear's storage: an alias of its only input, linear's output */
    ck_assert_uint_eq(s.ev[view].n_inputs, 1);
    ck_assert_uint_eq(s.in[view][0], s.out[lin][0].id);
    ck_assert_int_eq(s.out[view][0].alias_of, 0);
    /* relu_ (Tensor(a!) self) writes the view in place and returns it: no new bytes, a new
     * version of the storage, a view of the tensor it wrote */
    ck_assert_uint_eq(s.ev[relu].n_mutated, 0);
    ck_assert_uint_eq(s.ev[relu].n_inputs, 1);
    ck_assert_uint_eq(s.in[relu][0], s.out[view][0].id);
    ck_assert_uint_eq(s.ev[relu].n_outputs, 1);
    ck_assert_int_eq(s.out[relu][0].alias_of, 0);
    ck_assert_uint_eq(s.out[relu][0].size, 0);
    ck_assert_int_lt(find(&s, GMT_MUTATE, NULL, 0), 0); /* no MUTATE: that copies */
    /* threshold_backward reads the written view twice (one input: its latest version) and what
     * linear's nested call saved for it, which is therefore no step input or constant */
    int tb = find(&s, GMT_CALL, "aten::threshold_backward", 0);
    ck_assert_uint_eq(s.ev[tb].n_inputs, 2);
    ck_assert_uint_eq(s.in[tb][0], s.out[relu][0].id);
    ck_assert_uint_eq(s.in[tb][1], s.out[lin][1].id);
    seen_free(&s);
}
END_TEST

START_TEST(test_constants_step_inputs_and_writes_to_constants)
{
    seen s;
    read_all("tiny_et.json", &s);
    /* weight (16 floats) and bias (4) existed before the trace: pinned constants */
    int c0 = find(&s, GMT_CONSTANT, NULL, 0), c1 = find(&s, GMT_CONSTANT, NULL, 1);
    ck_assert_int_ge(c0, 0);
    ck_assert_int_ge(c1, 0);
    ck_assert_int_lt(find(&s, GMT_CONSTANT, NULL, 2), 0);
    ck_assert_uint_eq(s.ev[c0].size + s.ev[c1].size, 80);
    ck_assert_str_eq(gmt_source_meta(s.src, "et_constant_bytes"), "80");
    /* the first batch existed too, but its storage id came back as step 2's aten::to output:
     * it was freed, so it is a zero-input copy op, never a constant */
    int in = find(&s, GMT_CALL, "et::step_input", 0);
    ck_assert_int_ge(in, 0);
    ck_assert_uint_eq(s.ev[in].n_inputs, 0);
    ck_assert_uint_eq(s.out[in][0].size, 32);
    ck_assert_int_lt(in, find(&s, GMT_CALL, "aten::linear", 0));
    int to = find(&s, GMT_CALL, "aten::to", 0);
    ck_assert_uint_eq(s.ev[to].n_inputs, 0); /* its CPU source is left out */
    /* the optimizer writes the weight in place: a new version of the constant (a view of
     * it, no bytes) that step 2's linear reads; the constant stays the one pinned copy */
    int opt = find(&s, GMT_CALL, "aten::_foreach_add_", 0);
    ck_assert_uint_eq(s.ev[opt].n_outputs, 1);
    ck_assert_uint_eq(s.out[opt][0].size, 0);
    ck_assert_int_eq(s.out[opt][0].alias_of, 0);
    ck_assert_uint_eq(s.in[opt][0], s.ev[c0].id);
    int lin2 = find(&s, GMT_CALL, "aten::linear", 1);
    ck_assert_uint_eq(s.in[lin2][1], s.out[opt][0].id);
    ck_assert_str_eq(gmt_source_meta(s.src, "et_constant_writes"), "1");
    ck_assert_str_eq(gmt_source_meta(s.src, "et_in_place_writes"), "2");
    seen_free(&s);
}
END_TEST

START_TEST(test_every_non_constant_is_released_once_after_its_last_use)
{
    seen s;
    read_all("tiny_et.json", &s);
    for (size_t i = 0; i < s.n; i++) {
        const gmt_event *e = &s.ev[i];
        for (uint32_t o = 0; o < e->n_outputs; o++) {
            uint64_t id = s.out[i][o].id;
            size_t rel = 0, last_use = i;
            for (size_t j = i + 1; j < s.n; j++) {
                if (s.ev[j].kind == GMT_RELEASE && s.ev[j].id == id) {
                    rel++;
                    ck_assert_msg(j > last_use, "x%llu released before its last use",
                                  (unsigned long long)id);
                }
                for (uint32_t k = 0; k < s.ev[j].n_inputs; k++)
                    if (s.in[j][k] == id) {
                        ck_assert_msg(rel == 0, "x%llu used after its release",
                                      (unsigned long long)id);
                        last_use = j;
                    }
            }
            ck_assert_msg(rel == 1, "x%llu released %zu times", (unsigned long long)id, rel);
        }
        if (e->kind == GMT_CONSTANT)
            for (size_t j = 0; j < s.n; j++)
                ck_assert(!(s.ev[j].kind == GMT_RELEASE && s.ev[j].id == e->id));
    }
    seen_free(&s);
}
END_TEST

START_TEST(test_iterations_backward_and_estimated_costs)
{
    seen s;
    read_all("tiny_et.json", &s);
    ck_assert_int_eq(s.ev[0].kind, GMT_ANNOTATE);
    ck_assert_str_eq(s.ev[0].text, "START");
    int it0 = find(&s, GMT_ANNOTATE, "iteration", 0), it1 = find(&s, GMT_ANNOTATE, "iteration", 1);
    ck_assert_int_ge(it1, 0);
    ck_assert_int_lt(find(&s, GMT_ANNOTATE, "iteration", 2), 0);
    ck_assert_int_lt(it0, find(&s, GMT_CALL, "aten::linear", 0));
    ck_assert_int_lt(it1, find(&s, GMT_CALL, "aten::to", 0));
    ck_assert_int_gt(it1, find(&s, GMT_CALL, "aten::_foreach_add_", 0));
    /* BACKWARD once, right before the first op under the autograd engine */
    int bwd = find(&s, GMT_ANNOTATE, "BACKWARD", 0);
    ck_assert_int_eq(bwd + 1, find(&s, GMT_CALL, "aten::threshold_backward", 0));
    ck_assert_int_lt(find(&s, GMT_ANNOTATE, "BACKWARD", 1), 0);
    ck_assert_str_eq(gmt_source_meta(s.src, "iterations"), "2");
    /* linear [2,4] x [4,4]: 2 * 8 * 4 FLOPs, 36 floats moved, on the default GPU */
    const gmt_synth_gpu *gpu = gmt_synth_gpu_find(ET_DEFAULT_GPU);
    int lin = find(&s, GMT_CALL, "aten::linear", 0);
    ck_assert_uint_eq(s.ev[lin].dur_ns, gmt_synth_cost_ns(gpu, GMT_SYNTH_FP32, 64, 36 * 4));
    ck_assert_uint_eq(s.ev[find(&s, GMT_CALL, "aten::view", 0)].dur_ns, 0); /* no kernel */
    ck_assert_ptr_nonnull(strstr(gmt_source_meta(s.src, "cost_source"), "estimated"));
    ck_assert_str_eq(gmt_source_meta(s.src, "et_ops_without_cost"), "0");
    seen_free(&s);
}
END_TEST

/* tiny_et_inplace.json (tests/unit/sim/test_et_inplace.c replays it): an `out=` op, a `copy_`
 * into a view, a read of the written storage through a tensor older than the write, and
 * `_foreach_*_` writes to optimizer state made in the step and to a parameter. */
START_TEST(test_in_place_writes_are_versions_read_by_later_ops)
{
    seen s;
    read_all("tiny_et_inplace.json", &s);
    ck_assert_int_lt(find(&s, GMT_MUTATE, NULL, 0), 0);
    int empty = find(&s, GMT_CALL, "aten::empty", 0), add = find(&s, GMT_CALL, "aten::add", 0);
    int sel = find(&s, GMT_CALL, "aten::select", 0), copy = find(&s, GMT_CALL, "aten::copy_", 0);
    int sum = find(&s, GMT_CALL, "aten::sum", 0), bwd = find(&s, GMT_CALL, "aten::mm", 1);
    uint64_t b = s.out[empty][0].id;
    /* add(Y, X, out=B): reads B, writes it (a view of input 2, no bytes), returns it */
    ck_assert_uint_eq(s.ev[add].n_inputs, 3);
    ck_assert_uint_eq(s.in[add][2], b);
    ck_assert_uint_eq(s.ev[add].n_outputs, 1);
    ck_assert_int_eq(s.out[add][0].alias_of, 2);
    ck_assert_uint_eq(s.out[add][0].size, 0);
    uint64_t b1 = s.out[add][0].id;
    /* select views B's written version; copy_ writes the view: version 2 */
    ck_assert_uint_eq(s.in[sel][0], b1);
    ck_assert_uint_eq(s.in[copy][0], s.out[sel][0].id);
    ck_assert_int_eq(s.out[copy][0].alias_of, 0);
    uint64_t b2 = s.out[copy][0].id;
    /* sum(B) names B's tensor, last bound to version 1: it reads version 2 as well, so that
     * recomputing it replays the copy_; so does the backward mm */
    ck_assert_uint_eq(s.ev[sum].n_inputs, 2);
    ck_assert_uint_eq(s.in[sum][0], b1);
    ck_assert_uint_eq(s.in[sum][1], b2);
    ck_assert_uint_eq(s.ev[bwd].n_inputs, 3);
    ck_assert_uint_eq(s.in[bwd][2], b2);
    ck_assert_str_eq(gmt_source_meta(s.src, "et_stale_view_reads"), "2");
    /* the two-element foreach ops run as one op per element, each writing (nothing
     * allocated) the state made in the step (zeros_like) and then the parameter */
    int zl = find(&s, GMT_CALL, "aten::zeros_like", 0);
    int zl2 = find(&s, GMT_CALL, "aten::zeros_like", 1);
    int lerp = find(&s, GMT_CALL, "aten::_foreach_lerp_", 0);
    int lerp2 = find(&s, GMT_CALL, "aten::_foreach_lerp_", 1);
    int upd = find(&s, GMT_CALL, "aten::_foreach_add_", 0);
    ck_assert_int_lt(find(&s, GMT_CALL, "aten::_foreach_lerp_", 2), 0);
    ck_assert_uint_eq(s.ev[lerp].n_inputs, 2); /* M and G */
    ck_assert_uint_eq(s.in[lerp][0], s.out[zl][0].id);
    ck_assert_uint_eq(s.in[lerp2][0], s.out[zl2][0].id);
    ck_assert_uint_eq(s.ev[lerp].n_outputs, 1);
    ck_assert_uint_eq(s.out[lerp][0].size, 0);
    ck_assert_uint_eq(s.in[upd][1], s.out[lerp][0].id); /* reads the state's new version */
    ck_assert_uint_eq(s.ev[upd].n_outputs, 1);
    ck_assert_int_eq(s.out[upd][0].alias_of, 0);
    /* the parts share the op's estimated cost */
    ck_assert_uint_gt(s.ev[lerp].dur_ns, 0);
    ck_assert_uint_gt(s.ev[lerp].dur_ns, s.ev[lerp2].dur_ns); /* 64 B lists vs 16 B */
    ck_assert_str_eq(gmt_source_meta(s.src, "et_foreach_split"), "2 ops into 4");
    ck_assert_str_eq(gmt_source_meta(s.src, "et_in_place_ops"), "6");
    ck_assert_str_eq(gmt_source_meta(s.src, "et_in_place_writes"), "6");
    ck_assert_str_eq(gmt_source_meta(s.src, "et_constant_writes"), "2");
    ck_assert_str_eq(gmt_source_meta(s.src, "et_mutations_in_calls"), "0");
    /* G and G2 (made in backward, read by the step) and M, M2 (made in the step, written
     * with a gradient) are held to the step's end: released after the last op */
    ck_assert_str_eq(gmt_source_meta(s.src, "et_gradients_held"), "2");
    ck_assert_str_eq(gmt_source_meta(s.src, "et_optimizer_state_held"), "2");
    int last = find(&s, GMT_CALL, "aten::_foreach_add_", 1);
    for (int i = last + 1; i < (int)s.n; i++)
        ck_assert_int_eq(s.ev[i].kind, GMT_RELEASE);
    int g_rel = 0;
    for (int i = last + 1; i < (int)s.n; i++)
        g_rel |= s.ev[i].id == s.in[lerp][1];
    ck_assert(g_rel); /* G's last read was lerp_, its release is after the step */
    seen_free(&s);
}
END_TEST

/* The Kineto pairing checks (import_et_pairing.c) on what each file says about its job: a
 * value only one side states is not compared; a mismatch is refused with both values, or
 * reported as FORCED with force. tiny_et.json: pid 1, cuda:0, ProfilerStep#1..2. */
START_TEST(test_kineto_pairing_compares_what_both_files_state)
{
    et_trace *t;
    gms_error err;
    char *path = tu_data_path("tiny_et.json");
    ck_assert_msg(et_load(path, &t, &err) == 0, "%s", err.msg);
    free(path);
    ck_assert_int_eq(t->pid, 1);
    ck_assert_int_eq(t->cuda_device, 0);
    ck_assert_int_eq(t->step_first, 1);
    ck_assert_int_eq(t->step_last, 2);
    char sum[512];
    kt_job same = {1, 0, 8, 0, 0, 5};
    ck_assert_int_eq(et_kineto_pairing(t, &same, "et", "k", 0, sum, sizeof sum, &err), 0);
    ck_assert_str_eq(sum, "pid 1, device cuda:0, ProfilerStep#1..2; Kineto: rank 0 of 8 (the ET "
                          "records no rank)");
    kt_job unknown = {-1, -1, -1, -1, -1, -1};
    ck_assert_int_eq(et_kineto_pairing(t, &unknown, "et", "k", 0, sum, sizeof sum, &err), 0);
    ck_assert_str_eq(sum, "pid not compared, device not compared, steps not compared");
    const struct {
        kt_job job;
        const char *says;
    } bad[] = {
        {{7, -1, -1, 0, -1, -1},
         "the ET was recorded by process 1, the Kineto trace by process 7"},
        {{1, -1, -1, 3, -1, -1}, "the ET's tensors are on cuda:0, the Kineto trace's kernels ran "
                                 "on GPU 3"},
        {{1, -1, -1, 0, 5, 9}, "the ET holds ProfilerStep#1..2, the Kineto trace "
                               "ProfilerStep#5..9"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_eq(et_kineto_pairing(t, &bad[i].job, "et.json", "k.json", 0, sum,
                                           sizeof sum, &err),
                         GMS_EFORMAT);
        ck_assert_msg(strstr(err.msg, bad[i].says) && strstr(err.msg, "--kineto-force") &&
                          strstr(err.msg, "k.json"), "%s", err.msg);
        ck_assert_int_eq(et_kineto_pairing(t, &bad[i].job, "et.json", "k.json", 1, sum,
                                           sizeof sum, &err),
                         0);
        ck_assert_msg(strncmp(sum, "FORCED (--kineto-force): ", 25) == 0 &&
                          strstr(sum, bad[i].says),
                      "%s", sum);
    }
    et_trace_free(t);
}
END_TEST

/* tiny_et_modules.json is tiny_et.json with step 1's linear inside "nn.Module: Net_0" ->
 * "nn.Module: Linear_0", its view directly in Net_0 and its relu_ in Net_0 ->
 * "nn.Module: ReLU.inner_0": nested scopes around exactly those ops, a dot in a module's name
 * kept out of the path, every scope closed before BACKWARD, the events otherwise unchanged. */
START_TEST(test_module_record_functions_become_layer_scopes)
{
    seen plain, s;
    read_all("tiny_et.json", &plain);
    read_all("tiny_et_modules.json", &s);
    char seq[512] = "";
    size_t others = 0;
    for (size_t i = 0; i < s.n; i++) {
        const gmt_event *ev = &s.ev[i];
        char item[128] = "";
        if (ev->kind == GMT_SCOPE && !ev->scope_end)
            snprintf(item, sizeof item, "<%s ", s.text[i] + strlen("SCOPE "));
        else if (ev->kind == GMT_SCOPE)
            snprintf(item, sizeof item, "> ");
        else if (ev->kind == GMT_ANNOTATE && strcmp(ev->text, "BACKWARD") == 0)
            snprintf(item, sizeof item, "BACKWARD ");
        else if (ev->kind == GMT_CALL || ev->kind == GMT_MUTATE)
            snprintf(item, sizeof item, "%s ", ev->op);
        if (ev->kind != GMT_SCOPE) { /* everything else as without modules */
            ck_assert_uint_lt(others, plain.n);
            ck_assert_str_eq(s.text[i], plain.text[others]);
            others++;
        }
        strcat(seq, item);
    }
    ck_assert_uint_eq(others, plain.n);
    ck_assert_str_eq(seq, "et::step_input <Net_0 <Net_0.Linear_0 aten::linear > aten::view "
                          "<Net_0.ReLU_inner_0 aten::relu_ > > BACKWARD "
                          "aten::threshold_backward aten::_foreach_add_ aten::to aten::linear ");
    ck_assert_ptr_nonnull(strstr(gmt_source_meta(s.src, "layer_scopes"), "nn.Module"));
    ck_assert_ptr_nonnull(strstr(gmt_source_meta(plain.src, "layer_scopes"), "none"));
    seen_free(&plain);
    seen_free(&s);
}
END_TEST

/* et_load_buffer on text; returns the error code and copies the message. */
static int load_text(const char *text, char *msg)
{
    et_trace *t;
    gms_error err = {0};
    int rc = et_load_buffer(text, strlen(text), "bad.json", &t, &err);
    if (rc == 0)
        et_trace_free(t);
    strcpy(msg, err.msg);
    return rc;
}

START_TEST(test_bad_input_is_refused_with_the_file_and_what_to_do)
{
    char msg[GMS_ERROR_MSG_MAX];
    ck_assert_int_eq(load_text("{\"schema\": \"2.0.0\", \"nodes\": []}", msg), GMS_EVERSION);
    ck_assert_ptr_nonnull(strstr(msg, "bad.json"));
    ck_assert_ptr_nonnull(strstr(msg, "2.0.0"));
    ck_assert_int_eq(load_text("{\"pid\": 1, \"nodes\": []}", msg), GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(msg, "not a PyTorch Execution Trace"));
    ck_assert_int_eq(load_text("[1, 2]", msg), GMS_EFORMAT);
    ck_assert_int_eq(load_text("{\"schema\": \"1.0.1\", \"nodes\": [{\"id\": 1", msg),
                     GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(msg, "not valid JSON"));
    ck_assert_int_eq(load_text("{\"schema\": \"1.0.1\", \"nodes\": {}}", msg), GMS_EFORMAT);
    ck_assert_int_eq(load_text("{\"schema\": \"1.0.1\", \"nodes\": [{\"name\": \"x\"}]}", msg),
                     GMS_EFORMAT);
    ck_assert_int_eq(load_text("{\"schema\": \"1.0.1\", \"nodes\": []}", msg), GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(msg, "no operator calls"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("import_et");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, test_both_schema_families_give_the_same_events);
    tcase_add_test(tc, test_outermost_ops_in_start_order_without_wrappers_nested_or_cpu_only_calls);
    tcase_add_test(tc, test_storages_views_and_in_place_writes);
    tcase_add_test(tc, test_in_place_writes_are_versions_read_by_later_ops);
    tcase_add_test(tc, test_kineto_pairing_compares_what_both_files_state);
    tcase_add_test(tc, test_constants_step_inputs_and_writes_to_constants);
    tcase_add_test(tc, test_every_non_constant_is_released_once_after_its_last_use);
    tcase_add_test(tc, test_iterations_backward_and_estimated_costs);
    tcase_add_test(tc, test_module_record_functions_become_layer_scopes);
    tcase_add_test(tc, test_bad_input_is_refused_with_the_file_and_what_to_do);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
