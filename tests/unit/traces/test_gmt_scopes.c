/* .gmt layer scopes (format 1.1, docs/trace-format.md section 2.4): round trips, what a 1.0
 * file and a 1.0 reader see, and the clear refusal of unbalanced scopes by reader and writer. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "check_run.h"
#include "gmt_format.h"
#include "gmt_varint.h"
#include "test_gmt_gen.h"

/* Counts the SCOPE events of a list. */
static size_t scopes_in(const tg_list *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->ev[i].kind == GMT_SCOPE;
    return n;
}

START_TEST(test_scoped_stream_round_trips_at_every_batch_size)
{
    /* batch 1: every record closes a frame, so frames holding only SCOPE records (n_events 0)
     * and SCOPE records after a frame's last counted event are both exercised */
    static const size_t batches[] = {0, 1, 7, 200, 4096};
    for (uint64_t seed = 1; seed <= 3; seed++) {
        tg_list l = {0};
        tg_generate_scoped(&l, 400, seed);
        ck_assert_uint_gt(scopes_in(&l), 100);
        for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
            char *path = tg_path("scoped.gmt");
            gms_error err;
            ck_assert_msg(tg_write(path, &l, batches[b], NULL, &err) == 0, "%s", err.msg);
            tg_result res;
            tg_read(path, &l, &res);
            ck_assert_int_eq(res.open_rc, 0);
            ck_assert_msg(res.rc == 0, "batch %zu: %s", batches[b], res.err.msg);
            ck_assert_msg(res.prefix_ok, "batch %zu: %s", batches[b], res.why);
            ck_assert_uint_eq(res.n, l.n);
            ck_assert_str_eq(res.warning, "");
            free(path);
        }
        tg_free(&l);
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------
 * Hand-made files: header of a given minor, one event frame of given records, end frame.
 */
typedef struct craft {
    uint8_t buf[1 << 14];
    size_t len;
} craft;

static void craft_frame(craft *c, const uint8_t *content, size_t len)
{
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    size_t n = ZSTD_compress2(cc, c->buf + c->len, sizeof c->buf - c->len, content, len);
    ck_assert(!ZSTD_isError(n));
    c->len += n;
    ZSTD_freeCCtx(cc);
}

static void craft_file(craft *c, uint64_t minor, uint64_t counted, const uint8_t *rec,
                       size_t len)
{
    uint8_t f[1024];
    size_t n = 0;
    c->len = 0;
    memcpy(f, GMT_MAGIC, GMT_MAGIC_LEN);
    n = GMT_MAGIC_LEN;
    n += gmt_put_uv(f + n, GMT_VERSION_MAJOR);
    n += gmt_put_uv(f + n, minor);
    n += gmt_put_uv(f + n, 0);
    craft_frame(c, f, n);
    n = 0;
    f[n++] = GMT_FRAME_EVENTS;
    n += gmt_put_uv(f + n, 0);
    n += gmt_put_uv(f + n, counted);
    memcpy(f + n, rec, len);
    craft_frame(c, f, n + len);
    f[0] = GMT_FRAME_END;
    craft_frame(c, f, 1 + gmt_put_uv(f + 1, counted));
}

/* Reads a crafted file: every event's kind (and scope name) into kinds, a string such as
 * "S+a C S-a"; returns gmt_reader_next's last code, err filled. */
static int craft_read(const craft *c, char *kinds, size_t cap, gms_error *err)
{
    char *path = tg_path("craft.gmt");
    ck_assert_int_eq(tg_spit(path, c->buf, c->len), 0);
    gmt_reader *r;
    ck_assert_int_eq(gmt_reader_open(path, &r, err), 0);
    gmt_event ev;
    int rc;
    kinds[0] = '\0';
    while ((rc = gmt_reader_next(r, &ev, err)) == 1) {
        size_t at = strlen(kinds);
        if (ev.kind == GMT_SCOPE)
            snprintf(kinds + at, cap - at, "%sS%c%s", at ? " " : "", ev.scope_end ? '-' : '+',
                     ev.text);
        else
            snprintf(kinds + at, cap - at, "%s%c", at ? " " : "", gmt_kind_name(ev.kind)[0]);
    }
    gmt_reader_close(r);
    free(path);
    return rc;
}

START_TEST(test_scope_records_are_read_in_1_1_and_skipped_in_1_0_files)
{
    /* SCOPE begin "a" (payload: type 1, new name 0, length 1, 'a'), a CONSTANT (next id,
     * 8 bytes), SCOPE end: one counted event */
    const uint8_t rec[] = {GMT_TAG_EXT, 4, GMT_EXT_SCOPE_BEGIN, 0, 1, 'a',
                           GMT_CONSTANT | GMT_F_NEXT, 8,
                           GMT_TAG_EXT, 1, GMT_EXT_SCOPE_END};
    size_t n = sizeof rec;
    craft c;
    char kinds[256];
    gms_error err;
    craft_file(&c, 1, 1, rec, n);
    ck_assert_int_eq(craft_read(&c, kinds, sizeof kinds, &err), 0);
    ck_assert_str_eq(kinds, "S+a C S-a");
    /* the same records in a 1.0 file are opaque extension records, as 1.0 said: a reader of
     * 1.1 reads exactly what a 1.0 reader reads */
    craft_file(&c, 0, 1, rec, n);
    ck_assert_int_eq(craft_read(&c, kinds, sizeof kinds, &err), 0);
    ck_assert_str_eq(kinds, "C");
}
END_TEST

START_TEST(test_unknown_extension_types_are_still_skipped)
{
    uint8_t rec[] = {GMT_TAG_EXT, 3, 77, 1, 2, GMT_CONSTANT | GMT_F_NEXT, 8, GMT_TAG_EXT, 0};
    craft c;
    char kinds[64];
    gms_error err;
    craft_file(&c, 1, 1, rec, sizeof rec);
    ck_assert_int_eq(craft_read(&c, kinds, sizeof kinds, &err), 0);
    ck_assert_str_eq(kinds, "C");
}
END_TEST

START_TEST(test_unbalanced_scope_end_is_refused_naming_the_event)
{
    uint8_t rec[] = {GMT_CONSTANT | GMT_F_NEXT, 8, GMT_TAG_EXT, 1, GMT_EXT_SCOPE_END};
    craft c;
    char kinds[64];
    gms_error err;
    craft_file(&c, 1, 1, rec, sizeof rec);
    ck_assert_int_eq(craft_read(&c, kinds, sizeof kinds, &err), -GMS_EFORMAT);
    ck_assert_str_eq(kinds, "C");
    ck_assert_msg(strstr(err.msg, "event 2: "), "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "SCOPE end without an open scope"), "%s", err.msg);
    ck_assert_ptr_nonnull(strstr(err.msg, "regenerate"));
}
END_TEST

START_TEST(test_scope_left_open_at_the_end_is_refused)
{
    uint8_t rec[] = {GMT_TAG_EXT, 4, GMT_EXT_SCOPE_BEGIN, 0, 1, 'x', GMT_CONSTANT | GMT_F_NEXT,
                     8};
    craft c;
    char kinds[64];
    gms_error err;
    craft_file(&c, 1, 1, rec, sizeof rec);
    ck_assert_int_eq(craft_read(&c, kinds, sizeof kinds, &err), -GMS_EFORMAT);
    ck_assert_msg(strstr(err.msg, "scope 'x' still open"), "%s", err.msg);
    ck_assert_ptr_nonnull(strstr(err.msg, "event 3"));
}
END_TEST

START_TEST(test_bad_scope_name_references_are_refused)
{
    /* index 3 with an empty table; an empty new name */
    uint8_t far[] = {GMT_TAG_EXT, 2, GMT_EXT_SCOPE_BEGIN, 3, GMT_CONSTANT | GMT_F_NEXT, 8};
    uint8_t empty[] = {GMT_TAG_EXT, 3, GMT_EXT_SCOPE_BEGIN, 0, 0, GMT_CONSTANT | GMT_F_NEXT, 8};
    craft c;
    char kinds[64];
    gms_error err;
    craft_file(&c, 1, 1, far, sizeof far);
    ck_assert_int_eq(craft_read(&c, kinds, sizeof kinds, &err), -GMS_EFORMAT);
    ck_assert_msg(strstr(err.msg, "event 1: SCOPE begin: name index 3"), "%s", err.msg);
    craft_file(&c, 1, 1, empty, sizeof empty);
    ck_assert_int_eq(craft_read(&c, kinds, sizeof kinds, &err), -GMS_EFORMAT);
    ck_assert_msg(strstr(err.msg, "empty name"), "%s", err.msg);
}
END_TEST

START_TEST(test_committed_1_0_samples_still_read)
{
    const char *src = getenv("GMS_SOURCE_DIR");
    ck_assert_ptr_nonnull(src);
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/samples/mlp-small.gmt", src);
    size_t len;
    uint8_t *buf = tg_slurp(path, &len);
    ck_assert_ptr_nonnull(buf);
    /* it is a 1.0 file: the header frame says minor 0 */
    size_t first = ZSTD_findFrameCompressedSize(buf, len);
    ck_assert(!ZSTD_isError(first));
    unsigned long long raw = ZSTD_getFrameContentSize(buf, first);
    ck_assert(raw < (1u << 20));
    uint8_t *head = malloc((size_t)raw + 1);
    ck_assert_ptr_nonnull(head);
    size_t got = ZSTD_decompress(head, (size_t)raw + 1, buf, first);
    ck_assert(!ZSTD_isError(got) && got > GMT_MAGIC_LEN + 2);
    ck_assert_int_eq(head[GMT_MAGIC_LEN], 1);
    ck_assert_int_eq(head[GMT_MAGIC_LEN + 1], 0);
    free(head);
    free(buf);
    gmt_reader *r;
    gms_error err;
    ck_assert_int_eq(gmt_reader_open(path, &r, &err), 0);
    gmt_event ev;
    int rc;
    uint64_t n = 0, scopes = 0;
    while ((rc = gmt_reader_next(r, &ev, &err)) == 1) {
        n++;
        scopes += ev.kind == GMT_SCOPE;
    }
    ck_assert_msg(rc == 0, "%s", err.msg);
    ck_assert_ptr_null(gmt_reader_warning(r));
    ck_assert_uint_gt(n, 1000);
    ck_assert_uint_eq(scopes, 0);
    gmt_reader_close(r);
}
END_TEST

/* Writes ev to a fresh writer after a begin of "a"; returns the write's code. */
static int write_after_begin(const gmt_event *ev, gms_error *err, char **path)
{
    *path = tg_path("w.gmt");
    gmt_writer *w;
    ck_assert_int_eq(gmt_writer_open(*path, &w, err), 0);
    gmt_event b;
    gmt_event_scope(&b, "a", 0);
    ck_assert_int_eq(gmt_writer_write(w, &b, err), 0);
    int rc = gmt_writer_write(w, ev, err);
    gmt_writer_abort(w);
    return rc;
}

START_TEST(test_writer_refuses_unbalanced_and_mismatched_scopes)
{
    gms_error err;
    char *path;
    gmt_event ev;
    gmt_event_scope(&ev, "b", 1);
    ck_assert_int_eq(write_after_begin(&ev, &err, &path), GMS_EINVAL);
    ck_assert_msg(strstr(err.msg, "event 2: SCOPE end 'b' does not match the innermost open "
                                  "scope 'a'"), "%s", err.msg);
    free(path);
    gmt_event_scope(&ev, NULL, 0);
    ck_assert_int_eq(write_after_begin(&ev, &err, &path), GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.msg, "without a name"));
    free(path);

    /* an end with nothing open; then a close with a scope open leaves no file */
    path = tg_path("w2.gmt");
    gmt_writer *w;
    ck_assert_int_eq(gmt_writer_open(path, &w, &err), 0);
    gmt_event_scope(&ev, NULL, 1);
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), GMS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "without an open scope"));
    gmt_event_scope(&ev, "layer1", 0);
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), 0);
    ck_assert_int_eq(gmt_writer_close(w, &err), GMS_EINVAL);
    ck_assert_msg(strstr(err.msg, "scope 'layer1' is still open"), "%s", err.msg);
    ck_assert_int_ne(access(path, F_OK), 0);
    free(path);
}
END_TEST

START_TEST(test_nesting_deeper_than_the_limit_is_refused)
{
    char *path = tg_path("deep.gmt");
    gmt_writer *w;
    gms_error err;
    ck_assert_int_eq(gmt_writer_open(path, &w, &err), 0);
    gmt_event ev;
    gmt_event_scope(&ev, "d", 0);
    for (uint32_t i = 0; i < GMT_MAX_SCOPE_DEPTH; i++)
        ck_assert_int_eq(gmt_writer_write(w, &ev, &err), 0);
    ck_assert_int_eq(gmt_writer_write(w, &ev, &err), GMS_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "scopes open at once"));
    gmt_event_scope(&ev, NULL, 1);
    for (uint32_t i = 0; i < GMT_MAX_SCOPE_DEPTH; i++)
        ck_assert_int_eq(gmt_writer_write(w, &ev, &err), 0);
    ck_assert_msg(gmt_writer_close(w, &err) == 0, "%s", err.msg);
    tg_list l = {0};
    gmt_event_scope(&ev, "d", 0);
    for (uint32_t i = 0; i < GMT_MAX_SCOPE_DEPTH; i++)
        tg_push(&l, &ev);
    gmt_event_scope(&ev, "d", 1);
    for (uint32_t i = 0; i < GMT_MAX_SCOPE_DEPTH; i++)
        tg_push(&l, &ev);
    tg_result res;
    tg_read(path, &l, &res);
    ck_assert_msg(res.rc == 0 && res.prefix_ok, "%s %s", res.err.msg, res.why);
    ck_assert_uint_eq(res.n, 2 * GMT_MAX_SCOPE_DEPTH);
    tg_free(&l);
    free(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gmt_scopes");
    TCase *tc = tcase_create("scopes");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_scoped_stream_round_trips_at_every_batch_size);
    tcase_add_test(tc, test_scope_records_are_read_in_1_1_and_skipped_in_1_0_files);
    tcase_add_test(tc, test_unknown_extension_types_are_still_skipped);
    tcase_add_test(tc, test_unbalanced_scope_end_is_refused_naming_the_event);
    tcase_add_test(tc, test_scope_left_open_at_the_end_is_refused);
    tcase_add_test(tc, test_bad_scope_name_references_are_refused);
    tcase_add_test(tc, test_committed_1_0_samples_still_read);
    tcase_add_test(tc, test_writer_refuses_unbalanced_and_mismatched_scopes);
    tcase_add_test(tc, test_nesting_deeper_than_the_limit_is_refused);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
