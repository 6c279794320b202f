/* Lifetimes from a Kineto trace's memory events (import_et_lifetimes.c, docs/import-pytorch.md
 * "Lifetimes from the Kineto memory events") on a hand-made ET (mul -> relu -> sum, then pair
 * -> neg, exp; tests/unit/traces/data/tiny_et_lifetimes.json) and its Kineto trace
 * (tiny_kineto_lifetimes.json): mul's output is freed after sum (a Python variable held it),
 * relu asks for a 4096-byte workspace and frees it inside the call, sum's 4-byte output is a
 * 512-byte block, one free is of a block from before the trace, and pair makes two outputs of
 * one size whose blocks are freed in the other order than the ET lists them (the first freed
 * in neg, which reads the ET's second output). The same Kineto trace with its memory events
 * stripped gives the ET's own rule (release after the last use). */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "gmt.h"
#include "import_et_lifetimes.h"
#include "test_dtrlog_util.h"

#define MAX_EV 32

typedef struct run {
    gmt_kind kind[MAX_EV];
    char op[MAX_EV][32];
    uint64_t id[MAX_EV];               /* RELEASE's id */
    uint64_t out[MAX_EV][4], out_size[MAX_EV][4];
    size_t n_out[MAX_EV], n;
    char releases[160], workspaces[64], matched[16], later[16], early[16];
} run;

static void copy_meta(const gmt_source *s, const char *key, char *to, size_t n)
{
    const char *v = gmt_source_meta(s, key);
    snprintf(to, n, "%s", v ? v : "");
}

static void read_run(const char *kineto, run *r)
{
    memset(r, 0, sizeof *r);
    char *et = tu_data_path("tiny_et_lifetimes.json");
    gmt_source_options opt = {NULL, kineto, 0};
    gmt_source *s;
    gms_error err;
    ck_assert_msg(gmt_source_open_with(et, &opt, &s, &err) == 0, "%s", err.msg);
    gmt_event ev;
    int rc;
    while ((rc = gmt_source_next(s, &ev, &err)) == 1) {
        ck_assert_uint_lt(r->n, MAX_EV);
        size_t i = r->n++;
        r->kind[i] = ev.kind;
        r->id[i] = ev.id;
        if (ev.kind == GMT_CALL) {
            snprintf(r->op[i], sizeof r->op[i], "%s", ev.op);
            ck_assert_uint_le(ev.n_outputs, 4);
            r->n_out[i] = ev.n_outputs;
            for (size_t o = 0; o < ev.n_outputs; o++) {
                r->out[i][o] = ev.outputs[o].id;
                r->out_size[i][o] = ev.outputs[o].size;
            }
        }
    }
    ck_assert_int_eq(rc, 0);
    copy_meta(s, "releases", r->releases, sizeof r->releases);
    copy_meta(s, "kineto_workspaces", r->workspaces, sizeof r->workspaces);
    copy_meta(s, "kineto_allocations_matched", r->matched, sizeof r->matched);
    copy_meta(s, "kineto_frees_after_last_use", r->later, sizeof r->later);
    copy_meta(s, "kineto_frees_before_last_use", r->early, sizeof r->early);
    gmt_source_close(s);
    free(et);
}

static int call_of(const run *r, const char *op)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->kind[i] == GMT_CALL && strcmp(r->op[i], op) == 0)
            return (int)i;
    ck_abort_msg("no CALL %s", op);
    return -1;
}

static int release_of(const run *r, uint64_t id)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->kind[i] == GMT_RELEASE && r->id[i] == id)
            return (int)i;
    ck_abort_msg("no RELEASE of %llu", (unsigned long long)id);
    return -1;
}

START_TEST(test_real_frees_and_workspaces)
{
    char *k = tu_data_path("tiny_kineto_lifetimes.json");
    run r;
    read_run(k, &r);
    int mul = call_of(&r, "aten::mul"), relu = call_of(&r, "aten::relu"),
        sum = call_of(&r, "aten::sum");
    /* mul's output lives until after sum, where its block was freed */
    ck_assert_int_gt(release_of(&r, r.out[mul][0]), sum);
    /* relu: its output, and the workspace of 4096 bytes released right after it */
    ck_assert_uint_eq(r.n_out[relu], 2);
    ck_assert_uint_eq(r.out_size[relu][0], 1024);
    ck_assert_uint_eq(r.out_size[relu][1], 4096);
    ck_assert_int_eq(release_of(&r, r.out[relu][1]), relu + 1);
    ck_assert_int_gt(release_of(&r, r.out[relu][0]), sum); /* its last reader */
    ck_assert_uint_eq(r.n_out[sum], 1);
    ck_assert_uint_eq(r.out_size[sum][0], 4); /* matched to a 512-byte block, its own size */
    /* pair: the block freed in neg goes to the output neg reads (its second), the other one
     * lives to the end */
    int pair = call_of(&r, "aten::pair"), neg = call_of(&r, "aten::neg"),
        exp_ = call_of(&r, "aten::exp");
    ck_assert_int_eq(release_of(&r, r.out[pair][1]), neg + 1);
    ck_assert_int_gt(release_of(&r, r.out[pair][0]), exp_);
    ck_assert_msg(strstr(r.releases, "real frees"), "%s", r.releases);
    ck_assert_str_eq(r.matched, "7");
    ck_assert_str_eq(r.later, "3");
    ck_assert_str_eq(r.early, "0");
    ck_assert_str_eq(r.workspaces, "1 (the largest 4096 B)");
    free(k);
}
END_TEST

START_TEST(test_without_memory_events_the_last_use_rule)
{
    /* the same Kineto trace without its [memory] events */
    char *k = tu_data_path("tiny_kineto_lifetimes.json");
    json_error_t je;
    json_t *root = json_load_file(k, 0, &je);
    ck_assert_ptr_nonnull(root);
    json_t *events = json_object_get(root, "traceEvents"), *kept = json_array();
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *e = json_array_get(events, i);
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!name || strcmp(name, "[memory]") != 0)
            json_array_append(kept, e);
    }
    json_object_set_new(root, "traceEvents", kept);
    char path[] = "/tmp/gms-kineto-nomem-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_int_eq(json_dumpf(root, f, 0), 0);
    fclose(f);
    json_decref(root);
    run r;
    read_run(path, &r);
    remove(path);
    int mul = call_of(&r, "aten::mul"), relu = call_of(&r, "aten::relu"),
        sum = call_of(&r, "aten::sum");
    int rel = release_of(&r, r.out[mul][0]);
    ck_assert_int_gt(rel, relu);
    ck_assert_int_lt(rel, sum); /* after its last reader, relu */
    ck_assert_uint_eq(r.n_out[relu], 1);
    ck_assert_msg(strstr(r.releases, "after last use: a lower bound"), "%s", r.releases);
    ck_assert_str_eq(r.workspaces, "");
    free(k);
}
END_TEST

START_TEST(test_pairing_and_block_sizes)
{
    ck_assert_uint_eq(et_alloc_block(0), 512);
    ck_assert_uint_eq(et_alloc_block(4), 512);
    ck_assert_uint_eq(et_alloc_block(512), 512);
    ck_assert_uint_eq(et_alloc_block(513), 1024);
    /* out of order in the file; a free before any allocation; an address reused; another
     * device; an allocation never freed */
    et_memev ev[] = {
        {30, 1, 0, 3, 0x10, -100, 0}, {10, 1, 0, 1, 0x10, 100, 1}, {5, 1, 0, 0, 0x20, -64, 2},
        {40, 1, 0, 4, 0x10, 200, 3},  {45, 1, 1, 5, 0x30, 8, 4},   {50, 2, 0, 6, 0x40, 512, 5},
    };
    et_alloc *a;
    size_t n;
    ck_assert_int_eq(et_allocs_pair(ev, sizeof ev / sizeof *ev, 0, &a, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert(a[0].ts == 10 && a[0].free_ts == 30 && a[0].bytes == 100);
    ck_assert(a[1].ts == 40 && a[1].free_ts == INT64_MAX && a[1].bytes == 200);
    ck_assert(a[2].ts == 50 && a[2].tid == 2 && a[2].free_ts == INT64_MAX);
    free(a);
    ck_assert_int_eq(et_allocs_pair(ev, sizeof ev / sizeof *ev, 7, &a, &n), 0);
    ck_assert(n == 0 && a == NULL);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("import_et_lifetimes");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_real_frees_and_workspaces);
    tcase_add_test(tc, test_without_memory_events_the_last_use_rule);
    tcase_add_test(tc, test_pairing_and_block_sizes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
