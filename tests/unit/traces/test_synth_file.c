/* synth files: read back event for event, deterministic bytes, metadata, no partial output. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "gmt.h"
#include "synth.h"
#include "test_synth_util.h"

static gmt_synth_params small(gmt_synth_model m)
{
    gmt_synth_params p;
    gmt_synth_params_default(&p, m);
    p.batch = 2;
    p.hidden = m == GMT_SYNTH_TRANSFORMER ? 32 : 8;
    p.heads = 2;
    p.vocab = 40;
    p.seq = 12;
    p.layers = m == GMT_SYNTH_RESNET ? 10 : 2;
    p.image_h = p.image_w = 16;
    p.iterations = 2;
    return p;
}

/* Whole file into a malloc'd buffer. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* A generated event, deep-copied for comparison with what the reader returns. */
typedef struct saved {
    gmt_event ev;
    uint64_t ins[16];
    gmt_output outs[8];
    uint32_t mut[8];
    char text[128];
} saved;

typedef struct saved_list {
    saved *v;
    size_t n, cap;
} saved_list;

static int save_sink(void *ctx, const gmt_event *ev, const gmt_synth_opcost *c, gms_error *err)
{
    (void)c;
    (void)err;
    saved_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        ck_assert_ptr_nonnull(l->v);
    }
    saved *s = &l->v[l->n++];
    memset(s, 0, sizeof *s);
    s->ev = *ev;
    ck_assert_uint_le(ev->n_inputs, 16);
    ck_assert_uint_le(ev->n_outputs, 8);
    ck_assert_uint_le(ev->n_mutated, 8);
    if (ev->n_inputs)
        memcpy(s->ins, ev->inputs, ev->n_inputs * sizeof *ev->inputs);
    if (ev->n_outputs)
        memcpy(s->outs, ev->outputs, ev->n_outputs * sizeof *ev->outputs);
    if (ev->n_mutated)
        memcpy(s->mut, ev->mutated, ev->n_mutated * sizeof *ev->mutated);
    const char *t = ev->op ? ev->op : ev->text;
    if (t)
        snprintf(s->text, sizeof s->text, "%s", t);
    return 0;
}

START_TEST(test_written_trace_reads_back_event_for_event)
{
    for (int m = GMT_SYNTH_MLP; m <= GMT_SYNTH_UNET; m++) {
        gmt_synth_params p = small((gmt_synth_model)m);
        char path[256];
        ts_path(path, sizeof path, "readback.gmt");
        gms_error err;
        gmt_synth_totals t;
        ck_assert_msg(gmt_synth_write(&p, path, &t, &err) == 0, "%s", err.msg);
        saved_list l = {0};
        ck_assert_int_eq(gmt_synth_generate(&p, save_sink, &l, NULL, &err), 0);
        ck_assert_uint_eq(l.n, t.events);
        gmt_reader *r;
        ck_assert_msg(gmt_reader_open(path, &r, &err) == 0, "%s", err.msg);
        ck_assert_str_eq(gmt_reader_meta(r, "model"), gmt_synth_model_name(p.model));
        ck_assert_str_eq(gmt_reader_meta(r, "synth.gpu"), "h100");
        ck_assert_str_eq(gmt_reader_meta(r, "synth.dtype"), "fp32");
        ck_assert(strncmp(gmt_reader_meta(r, "producer"), "gpumemsim synth ", 16) == 0);
        char num[32];
        snprintf(num, sizeof num, "%llu", (unsigned long long)t.param_count);
        ck_assert_str_eq(gmt_reader_meta(r, "synth.param_count"), num);
        snprintf(num, sizeof num, "%llu", (unsigned long long)t.dur_ns);
        ck_assert_str_eq(gmt_reader_meta(r, "synth.total_dur_ns"), num);
        gmt_event ev;
        size_t i = 0;
        int rc;
        while ((rc = gmt_reader_next(r, &ev, &err)) == 1) {
            ck_assert_uint_lt(i, l.n);
            const saved *s = &l.v[i];
            ck_assert_int_eq(ev.kind, s->ev.kind);
            ck_assert_int_eq(gmt_event_validate(&ev, &err), 0);
            switch (ev.kind) {
            case GMT_CONSTANT:
                ck_assert_uint_eq(ev.size, s->ev.size);
                /* fall through */
            case GMT_RELEASE:
                ck_assert_uint_eq(ev.id, s->ev.id);
                break;
            case GMT_SCOPE:
                ck_assert_int_eq(ev.scope_end, s->ev.scope_end);
                ck_assert_str_eq(ev.text, s->text);
                break;
            case GMT_NAME:
            case GMT_ANNOTATE:
                ck_assert_str_eq(ev.text, s->text);
                ck_assert_int_eq(ev.has_value, s->ev.has_value);
                if (ev.has_value)
                    ck_assert_int_eq(ev.value, s->ev.value);
                break;
            case GMT_CALL:
            case GMT_MUTATE:
                ck_assert_str_eq(ev.op, s->text);
                ck_assert_uint_eq(ev.dur_ns, s->ev.dur_ns);
                ck_assert_uint_eq(ev.n_inputs, s->ev.n_inputs);
                for (uint32_t k = 0; k < ev.n_inputs; k++)
                    ck_assert_uint_eq(ev.inputs[k], s->ins[k]);
                ck_assert_uint_eq(ev.n_outputs, s->ev.n_outputs);
                for (uint32_t k = 0; k < ev.n_outputs; k++) {
                    ck_assert_uint_eq(ev.outputs[k].id, s->outs[k].id);
                    ck_assert_uint_eq(ev.outputs[k].size, s->outs[k].size);
                    ck_assert_int_eq(ev.outputs[k].alias_of, s->outs[k].alias_of);
                }
                ck_assert_uint_eq(ev.n_mutated, s->ev.n_mutated);
                for (uint32_t k = 0; k < ev.n_mutated; k++)
                    ck_assert_uint_eq(ev.mutated[k], s->mut[k]);
                break;
            default:
                ck_abort_msg("unexpected kind %d", ev.kind);
            }
            i++;
        }
        ck_assert_msg(rc == 0, "%s", err.msg);
        ck_assert_uint_eq(i, l.n);
        ck_assert_ptr_null(gmt_reader_warning(r));
        gmt_reader_close(r);
        free(l.v);
        unlink(path);
    }
}
END_TEST

START_TEST(test_same_parameters_and_seed_give_identical_bytes)
{
    gmt_synth_params p = small(GMT_SYNTH_TRANSFORMER);
    p.vary_min = 4;
    p.vary_max = 30;
    p.iterations = 5;
    p.seed = 42;
    char a[256], b[256], c[256];
    ts_path(a, sizeof a, "det-a.gmt");
    ts_path(b, sizeof b, "det-b.gmt");
    ts_path(c, sizeof c, "det-c.gmt");
    gms_error err;
    ck_assert_int_eq(gmt_synth_write(&p, a, NULL, &err), 0);
    ck_assert_int_eq(gmt_synth_write(&p, b, NULL, &err), 0);
    p.seed = 43;
    ck_assert_int_eq(gmt_synth_write(&p, c, NULL, &err), 0);
    size_t na, nb, nc;
    char *da = slurp(a, &na), *db = slurp(b, &nb), *dc = slurp(c, &nc);
    ck_assert_uint_eq(na, nb);
    ck_assert(memcmp(da, db, na) == 0);
    ck_assert(na != nc || memcmp(da, dc, na) != 0); /* another seed, another trace */
    free(da);
    free(db);
    free(dc);
    unlink(a);
    unlink(b);
    unlink(c);
}
END_TEST

START_TEST(test_vary_input_draws_stay_in_range_and_depend_on_the_seed)
{
    gmt_synth_params p = small(GMT_SYNTH_TRANSFORMER);
    p.vary_min = 10;
    p.vary_max = 20;
    int seen[21] = {0};
    uint32_t first[2];
    for (uint64_t seed = 0; seed < 2; seed++) {
        p.seed = seed;
        for (uint32_t i = 0; i < 500; i++) {
            uint32_t d = gmt_synth_input_dim(&p, i);
            ck_assert_uint_ge(d, 10);
            ck_assert_uint_le(d, 20);
            ck_assert_uint_eq(d, gmt_synth_input_dim(&p, i)); /* a pure function */
            seen[d]++;
        }
        first[seed] = gmt_synth_input_dim(&p, 0) * 100 + gmt_synth_input_dim(&p, 1);
    }
    for (int d = 10; d <= 20; d++)
        ck_assert_msg(seen[d] > 40, "side %d drawn %d times of 1000", d, seen[d]);
    ck_assert_uint_ne(first[0], first[1]);
    /* unet: only sides divisible by 2^levels */
    p = small(GMT_SYNTH_UNET);
    p.layers = 3;
    p.vary_min = 9;
    p.vary_max = 41;
    for (uint32_t i = 0; i < 200; i++) {
        uint32_t d = gmt_synth_input_dim(&p, i);
        ck_assert_uint_eq(d % 8, 0);
        ck_assert_uint_ge(d, 16);
        ck_assert_uint_le(d, 40);
    }
}
END_TEST

/* How many entries of the current folder have names starting with prefix. */
static int entries_starting_with(const char *prefix)
{
    DIR *d = opendir(".");
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

START_TEST(test_failed_write_leaves_no_file)
{
    gmt_synth_params p = small(GMT_SYNTH_MLP);
    gms_error err;
    ck_assert_int_ne(gmt_synth_write(&p, "no-such-dir-synth/x.gmt", NULL, &err), 0);
    ck_assert(strlen(err.msg) > 0);
    struct stat st;
    ck_assert_int_ne(stat("no-such-dir-synth", &st), 0);
    /* invalid parameters: nothing is created either */
    char path[256];
    ts_path(path, sizeof path, "invalid.gmt");
    p.layers = 0;
    ck_assert_int_eq(gmt_synth_write(&p, path, NULL, &err), GMS_EINVAL);
    ck_assert_int_ne(stat(path, &st), 0);
    ck_assert_int_eq(entries_starting_with(path), 0); /* nor a temporary PATH.tmp-<pid> */
    /* a failure after the whole trace is written (PATH is a folder, so the final rename fails):
     * the temporary file is removed, and only the folder remains */
    p.layers = 4;
    ts_path(path, sizeof path, "a-folder");
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_ne(gmt_synth_write(&p, path, NULL, &err), 0);
    ck_assert_int_eq(entries_starting_with(path), 1);
    ck_assert_int_eq(rmdir(path), 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("synth_file");
    TCase *tc = tcase_create("file");
    tcase_add_test(tc, test_written_trace_reads_back_event_for_event);
    tcase_add_test(tc, test_same_parameters_and_seed_give_identical_bytes);
    tcase_add_test(tc, test_vary_input_draws_stay_in_range_and_depend_on_the_seed);
    tcase_add_test(tc, test_failed_write_leaves_no_file);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return gms_check_run(suite());
}
