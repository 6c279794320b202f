/* .gmt robustness: truncated, corrupted, hand-crafted and future-version files give a prefix
 * of the events plus a warning, or a clean error; never a crash. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "check_run.h"
#include "gmt.h"
#include "gmt_format.h"
#include "gmt_varint.h"
#include "test_gmt_gen.h"

#define MAX_FRAMES 4096

/* A file of n random events in small frames, its bytes and its frame table. */
typedef struct fixture {
    tg_list l;
    uint8_t *bytes;
    size_t len, nf;
    size_t start[MAX_FRAMES + 1], raw[MAX_FRAMES];
    uint64_t events[MAX_FRAMES];
} fixture;

static void fixture_make(fixture *fx, size_t n, uint64_t seed, size_t batch)
{
    memset(fx, 0, sizeof *fx);
    tg_generate(&fx->l, n, seed);
    char *path = tg_path("orig.gmt");
    gms_error err;
    ck_assert_msg(tg_write(path, &fx->l, batch, NULL, &err) == 0, "%s", err.msg);
    fx->bytes = tg_slurp(path, &fx->len);
    ck_assert_ptr_nonnull(fx->bytes);
    fx->nf = tg_frames(fx->bytes, fx->len, fx->start, fx->raw, fx->events, MAX_FRAMES);
    ck_assert_uint_lt(fx->nf, MAX_FRAMES);
    free(path);
}

static void fixture_free(fixture *fx)
{
    tg_free(&fx->l);
    free(fx->bytes);
}

/* Events in the frames that end at or before byte cut. */
static uint64_t events_before(const fixture *fx, size_t cut)
{
    uint64_t n = 0;
    for (size_t i = 0; i < fx->nf && fx->start[i + 1] <= cut; i++)
        n += fx->events[i];
    return n;
}

/* Reads the first cut bytes of the fixture's file and checks: a header cut is a clean
 * GMS_EFORMAT error at open; anything else yields exactly the events of the complete frames
 * and the truncation warning. */
static void check_cut(const fixture *fx, size_t cut)
{
    char *path = tg_path("cut.gmt");
    ck_assert_int_eq(tg_spit(path, fx->bytes, cut), 0);
    tg_result res;
    tg_read(path, &fx->l, &res);
    if (cut < fx->start[1]) {
        ck_assert_msg(res.open_rc == GMS_EFORMAT, "cut %zu: open gave %d", cut, res.open_rc);
        ck_assert_ptr_nonnull(strstr(res.err.msg, path));
        ck_assert_msg(strstr(res.err.msg, "truncated") || strstr(res.err.msg, "empty"),
                      "cut %zu: %s", cut, res.err.msg);
    } else {
        ck_assert_msg(res.open_rc == 0, "cut %zu: %s", cut, res.err.msg);
        ck_assert_msg(res.rc == 0, "cut %zu: %s", cut, res.err.msg);
        ck_assert_msg(res.prefix_ok, "cut %zu: %s", cut, res.why);
        ck_assert_uint_eq(res.n, events_before(fx, cut));
        char want[600];
        snprintf(want, sizeof want, "%s: truncated after event %llu", path,
                 (unsigned long long)res.n);
        ck_assert_str_eq(res.warning, want);
    }
    free(path);
}

START_TEST(test_truncation_at_every_frame_boundary_yields_prefix_and_warning)
{
    fixture fx;
    fixture_make(&fx, 3000, 11, 512);
    ck_assert_uint_gt(fx.nf, 20);
    for (size_t i = 0; i < fx.nf; i++) /* every boundary except the full length */
        check_cut(&fx, fx.start[i]);
    check_cut(&fx, 0);
    fixture_free(&fx);
}
END_TEST

START_TEST(test_truncation_at_random_offsets_loses_at_most_the_cut_frame)
{
    fixture fx;
    fixture_make(&fx, 3000, 12, 512);
    uint64_t s = 77;
    for (int i = 0; i < 300; i++)
        check_cut(&fx, (size_t)(tg_rand(&s) % fx.len));
    for (size_t cut = 1; cut < fx.start[1] + 3; cut++) /* every cut in and just after the header */
        check_cut(&fx, cut);
    check_cut(&fx, fx.len - 1);
    fixture_free(&fx);
}
END_TEST

START_TEST(test_random_byte_flips_give_an_error_or_a_valid_prefix)
{
    fixture fx;
    fixture_make(&fx, 2000, 13, 1024);
    char *path = tg_path("flip.gmt");
    uint8_t *copy = malloc(fx.len);
    uint64_t s = 99;
    int errors = 0;
    for (int t = 0; t < 400; t++) {
        memcpy(copy, fx.bytes, fx.len);
        int flips = 1 + (int)(tg_rand(&s) % 3);
        for (int k = 0; k < flips; k++)
            copy[tg_rand(&s) % fx.len] ^= (uint8_t)(1 + tg_rand(&s) % 255);
        ck_assert_int_eq(tg_spit(path, copy, fx.len), 0);
        tg_result res;
        tg_read(path, &fx.l, &res);
        if (res.open_rc) {
            ck_assert_msg(res.open_rc == GMS_EFORMAT || res.open_rc == GMS_EVERSION,
                          "open code %d: %s", res.open_rc, res.err.msg);
            errors++;
            continue;
        }
        ck_assert_msg(res.prefix_ok, "trial %d: %s", t, res.why);
        if (res.rc < 0) {
            ck_assert_int_eq(res.err.code, GMS_EFORMAT);
            ck_assert_int_eq(res.rc, -GMS_EFORMAT);
            ck_assert_ptr_nonnull(strstr(res.err.msg, ": event "));
            errors++;
        } else if (res.warning[0] == '\0') {
            ck_assert_msg(res.n == fx.l.n, "trial %d: clean end after %llu of %zu events", t,
                          (unsigned long long)res.n, fx.l.n);
        }
    }
    ck_assert_int_gt(errors, 300); /* checksums catch nearly every flip */
    free(copy);
    free(path);
    fixture_free(&fx);
}
END_TEST

/* ------------------------------------------------------------------------------------------
 * Hand-crafted files
 */
typedef struct craft {
    uint8_t buf[1 << 16];
    size_t len;
} craft;

static void craft_frame(craft *c, const uint8_t *content, size_t len, int checksum)
{
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksum);
    size_t n = ZSTD_compress2(cc, c->buf + c->len, sizeof c->buf - c->len, content, len);
    ck_assert(!ZSTD_isError(n));
    c->len += n;
    ZSTD_freeCCtx(cc);
}

static void craft_header(craft *c, uint64_t major, uint64_t minor, const char *trailing)
{
    uint8_t h[256];
    size_t n = 0;
    memcpy(h, GMT_MAGIC, GMT_MAGIC_LEN);
    n += GMT_MAGIC_LEN;
    n += gmt_put_uv(h + n, major);
    n += gmt_put_uv(h + n, minor);
    n += gmt_put_uv(h + n, 1);
    n += gmt_put_uv(h + n, 5);
    memcpy(h + n, "model", 5);
    n += 5;
    n += gmt_put_uv(h + n, 2);
    memcpy(h + n, "m1", 2);
    n += 2;
    memcpy(h + n, trailing, strlen(trailing));
    n += strlen(trailing);
    craft_frame(c, h, n, 1);
}

/* An event frame: 'E', first, count, then the given record bytes. */
static void craft_events(craft *c, uint64_t first, uint64_t count, const uint8_t *rec,
                         size_t len)
{
    uint8_t f[1024];
    size_t n = 0;
    f[n++] = GMT_FRAME_EVENTS;
    n += gmt_put_uv(f + n, first);
    n += gmt_put_uv(f + n, count);
    memcpy(f + n, rec, len);
    craft_frame(c, f, n + len, 1);
}

static void craft_end(craft *c, uint64_t total)
{
    uint8_t f[16];
    f[0] = GMT_FRAME_END;
    craft_frame(c, f, 1 + gmt_put_uv(f + 1, total), 1);
}

/* Writes the crafted file and reads it; returns the result (events compared with l). */
static void craft_read(const craft *c, const tg_list *l, tg_result *res, char **path_out)
{
    char *path = tg_path("craft.gmt");
    ck_assert_int_eq(tg_spit(path, c->buf, c->len), 0);
    tg_read(path, l, res);
    *path_out = path;
}

START_TEST(test_newer_major_version_is_refused_naming_both_versions)
{
    craft c = {.len = 0};
    craft_header(&c, 2, 3, "");
    craft_end(&c, 0);
    tg_list l = {0};
    tg_result res;
    char *path;
    craft_read(&c, &l, &res, &path);
    ck_assert_int_eq(res.open_rc, GMS_EVERSION);
    ck_assert_ptr_nonnull(strstr(res.err.msg, path));
    ck_assert_ptr_nonnull(strstr(res.err.msg, "2.3"));
    char ours[32];
    snprintf(ours, sizeof ours, "%d.%d", GMT_VERSION_MAJOR, GMT_VERSION_MINOR);
    ck_assert_ptr_nonnull(strstr(res.err.msg, ours));
    ck_assert_ptr_nonnull(strstr(res.err.msg, "upgrade"));
    free(path);
}
END_TEST

START_TEST(test_newer_minor_version_additions_are_skipped)
{
    /* header with extra trailing fields, an unknown frame kind, an extension record: a 1.x
     * reader reads the events it knows */
    craft c = {.len = 0};
    craft_header(&c, GMT_VERSION_MAJOR, GMT_VERSION_MINOR + 5, "\x03xyz");
    uint8_t rec[32];
    size_t n = 0;
    rec[n++] = GMT_TAG_EXT;
    n += gmt_put_uv(rec + n, 3);
    memcpy(rec + n, "abc", 3);
    n += 3;
    rec[n++] = GMT_RELEASE;
    n += gmt_put_uv(rec + n, gmt_zigzag((int64_t)(UINT64_MAX - 5))); /* id 5 */
    rec[n++] = GMT_TAG_EXT;
    n += gmt_put_uv(rec + n, 0);
    craft_events(&c, 0, 1, rec, n);
    const uint8_t unknown[] = {'X', 1, 2, 3};
    craft_frame(&c, unknown, sizeof unknown, 1);
    craft_end(&c, 1);
    tg_list l = {0};
    gmt_event ev;
    gmt_event_init(&ev, GMT_RELEASE);
    ev.id = 5;
    tg_push(&l, &ev);
    tg_result res;
    char *path;
    craft_read(&c, &l, &res, &path);
    ck_assert_msg(res.open_rc == 0 && res.rc == 0, "%s", res.err.msg);
    ck_assert_msg(res.prefix_ok, "%s", res.why);
    ck_assert_uint_eq(res.n, 1);
    ck_assert_str_eq(res.warning, "");
    tg_free(&l);
    free(path);
}
END_TEST

/* Reads a crafted file whose second event is bad and checks the message names the file,
 * event 2 and the problem. */
static void assert_bad_second_event(const uint8_t *bad, size_t bad_len, const char *what)
{
    craft c = {.len = 0};
    craft_header(&c, 1, 0, "");
    uint8_t rec[256];
    size_t n = 0;
    rec[n++] = GMT_CONSTANT | GMT_F_NEXT; /* event 1: CONSTANT 0, size 64 */
    rec[n++] = 64;
    if (bad_len)
        memcpy(rec + n, bad, bad_len);
    n += bad_len;
    craft_events(&c, 0, 2, rec, n);
    craft_end(&c, 2);
    tg_list l = {0};
    gmt_event ev;
    gmt_event_init(&ev, GMT_CONSTANT);
    ev.size = 64;
    tg_push(&l, &ev);
    tg_result res;
    char *path;
    craft_read(&c, &l, &res, &path);
    ck_assert_int_eq(res.open_rc, 0);
    ck_assert_uint_eq(res.n, 1);
    ck_assert(res.prefix_ok);
    ck_assert_int_eq(res.rc, -GMS_EFORMAT);
    ck_assert_int_eq(res.err.code, GMS_EFORMAT);
    char want[600];
    snprintf(want, sizeof want, "%s: event 2: ", path);
    ck_assert_msg(strncmp(res.err.msg, want, strlen(want)) == 0, "%s", res.err.msg);
    ck_assert_msg(strstr(res.err.msg, what), "'%s' lacks '%s'", res.err.msg, what);
    tg_free(&l);
    free(path);
}

START_TEST(test_corrupt_fields_name_the_event_and_the_problem)
{
    /* CALL op "mm" (new string 0), dur 1, 1 input, 1 output with alias_of 1 (of 1 input) */
    const uint8_t alias[] = {GMT_CALL | (1 << GMT_F_NIN_SHIFT) | GMT_F_NEXT, 0, 2, 'm', 'm', 1, 0,
                             1, 2, 8};
    assert_bad_second_event(alias, sizeof alias, "alias_of 1");
    /* MUTATE with mutated index 3 of 1 input */
    const uint8_t mut[] = {GMT_MUTATE | (1 << GMT_F_NIN_SHIFT), 0, 1, 'a', 1, 0, 1, 3};
    assert_bad_second_event(mut, sizeof mut, "mutated[0] = 3");
    /* string index 5 while the table is empty */
    const uint8_t str[] = {GMT_ANNOTATE, 5};
    assert_bad_second_event(str, sizeof str, "string index 5");
    /* unknown kind 11 */
    const uint8_t kind[] = {11};
    assert_bad_second_event(kind, sizeof kind, "unknown event kind 11");
    /* a varint running past the frame */
    const uint8_t run[] = {GMT_RELEASE, 0x80, 0x80};
    assert_bad_second_event(run, sizeof run, "runs past the end");
    /* 100000 inputs */
    const uint8_t many[] = {GMT_CALL | (7 << GMT_F_NIN_SHIFT), 0xa0, 0x8d, 0x06, 0};
    assert_bad_second_event(many, sizeof many, "100000 inputs");
    /* a NAME whose text holds a NUL byte */
    const uint8_t nul[] = {GMT_NAME, 0, 3, 'a', 0, 'b'};
    assert_bad_second_event(nul, sizeof nul, "NUL");
    /* reserved flag bits */
    const uint8_t flags[] = {GMT_RELEASE | 0x40, 0};
    assert_bad_second_event(flags, sizeof flags, "reserved flag");
    /* an event frame that declares 2 events but holds 1 */
    assert_bad_second_event(NULL, 0, "ends before its last event");
}
END_TEST

START_TEST(test_frame_level_problems_are_clean_errors)
{
    tg_list l = {0};
    tg_result res;
    char *path;
    /* frames without a checksum are refused */
    craft c = {.len = 0};
    craft_header(&c, 1, 0, "");
    uint8_t end[2] = {GMT_FRAME_END, 0};
    craft_frame(&c, end, 2, 0);
    craft_read(&c, &l, &res, &path);
    ck_assert_int_eq(res.open_rc, 0);
    ck_assert_int_eq(res.rc, -GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(res.err.msg, "checksum"));
    free(path);
    /* an out-of-order event frame */
    c.len = 0;
    craft_header(&c, 1, 0, "");
    const uint8_t rel[] = {GMT_RELEASE, 0};
    craft_events(&c, 7, 1, rel, sizeof rel);
    craft_read(&c, &l, &res, &path);
    ck_assert_int_eq(res.rc, -GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(res.err.msg, "out of order"));
    free(path);
    /* an end frame with the wrong count, and bytes after a correct one */
    c.len = 0;
    craft_header(&c, 1, 0, "");
    craft_end(&c, 3);
    craft_read(&c, &l, &res, &path);
    ck_assert_int_eq(res.rc, -GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(res.err.msg, "end frame"));
    free(path);
    c.len = 0;
    craft_header(&c, 1, 0, "");
    craft_end(&c, 0);
    c.buf[c.len++] = 0x28;
    craft_read(&c, &l, &res, &path);
    ck_assert_int_eq(res.rc, -GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(res.err.msg, "after the end frame"));
    free(path);
    /* empty frames: as the header, and after it */
    c.len = 0;
    craft_frame(&c, (const uint8_t *)"", 0, 1);
    craft_read(&c, &l, &res, &path);
    ck_assert_int_eq(res.open_rc, GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(res.err.msg, "magic"));
    free(path);
    c.len = 0;
    craft_header(&c, 1, 0, "");
    craft_frame(&c, (const uint8_t *)"", 0, 1);
    craft_read(&c, &l, &res, &path);
    ck_assert_int_eq(res.rc, -GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(res.err.msg, "empty frame"));
    free(path);
    /* not a .gmt at all: a DTR log, and zstd data of something else */
    c.len = 0;
    memcpy(c.buf, "{\"INSTRUCTION\":\"ANNOTATE\"}\n", 27);
    c.len = 27;
    craft_read(&c, &l, &res, &path);
    ck_assert_int_eq(res.open_rc, GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(res.err.msg, "not a .gmt trace"));
    free(path);
    c.len = 0;
    craft_frame(&c, (const uint8_t *)"hello world", 11, 1);
    craft_read(&c, &l, &res, &path);
    ck_assert_int_eq(res.open_rc, GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(res.err.msg, "magic"));
    free(path);
}
END_TEST

START_TEST(test_errors_are_sticky)
{
    craft c = {.len = 0};
    craft_header(&c, 1, 0, "");
    const uint8_t bad[] = {GMT_RELEASE, 0, 11};
    craft_events(&c, 0, 2, bad, sizeof bad);
    char *path = tg_path("sticky.gmt");
    ck_assert_int_eq(tg_spit(path, c.buf, c.len), 0);
    gmt_reader *r;
    gms_error err, err2;
    ck_assert_int_eq(gmt_reader_open(path, &r, &err), 0);
    gmt_event ev;
    ck_assert_int_eq(gmt_reader_next(r, &ev, &err), 1);
    ck_assert_int_eq(gmt_reader_next(r, &ev, NULL), -GMS_EFORMAT);
    ck_assert_int_eq(gmt_reader_next(r, &ev, &err2), -GMS_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err2.msg, "event 2"));
    gmt_reader_close(r);
    free(path);
}
END_TEST

START_TEST(test_decoder_survives_random_bytes)
{
    /* the checksums keep random damage away from the decoder, so feed it directly */
    uint64_t s = 5;
    uint8_t buf[96];
    char what[512];
    for (int t = 0; t < 50000; t++) {
        size_t len = (size_t)(tg_rand(&s) % sizeof buf);
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)(tg_rand(&s) % 4 ? tg_rand(&s) % 24 : tg_rand(&s));
        gmt_decoder d;
        gmt_decoder_init(&d);
        d.scopes = t & 1; /* half the time as a 1.1 file: extension records may be scopes */
        gmt_decoder_set_body(&d, buf, len);
        gmt_event ev;
        while (d.p < d.end && gmt_decoder_next(&d, &ev, what, sizeof what) == 0) {
            ck_assert_int_eq(gmt_event_validate(&ev, NULL), 0);
            ck_assert(d.p <= d.end);
        }
        while (gmt_decoder_trailing(&d, &ev, what, sizeof what) == GMT_DECODED_SCOPE) {
            ck_assert_int_eq(ev.kind, GMT_SCOPE);
            ck_assert_ptr_nonnull(ev.text);
            ck_assert(d.p <= d.end);
        }
        gmt_decoder_free(&d);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gmt_corrupt");
    TCase *tc = tcase_create("corrupt");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_truncation_at_every_frame_boundary_yields_prefix_and_warning);
    tcase_add_test(tc, test_truncation_at_random_offsets_loses_at_most_the_cut_frame);
    tcase_add_test(tc, test_random_byte_flips_give_an_error_or_a_valid_prefix);
    tcase_add_test(tc, test_newer_major_version_is_refused_naming_both_versions);
    tcase_add_test(tc, test_newer_minor_version_additions_are_skipped);
    tcase_add_test(tc, test_corrupt_fields_name_the_event_and_the_problem);
    tcase_add_test(tc, test_frame_level_problems_are_clean_errors);
    tcase_add_test(tc, test_errors_are_sticky);
    tcase_add_test(tc, test_decoder_survives_random_bytes);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
