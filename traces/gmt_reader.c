/*
 * gmt_reader: streams a .gmt trace (docs/trace-format.md) one event at a time. Frames are
 * taken one by one from a bounded input buffer, each checked (zstd frame type, declared
 * content size within GMT_MAX_FRAME_RAW, content checksum present and matching) before its
 * events are decoded, so memory is bounded by one frame plus the string table whatever the
 * trace's length. A file that ends early (no end frame, or a partial last frame) yields every
 * event of its complete frames and then a warning; anything malformed is an error naming the
 * event and byte offset.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "gmt_format.h"
#include "gmt_varint.h"

#define IN_START ((size_t)256 << 10)
/* Largest compressed frame accepted: what zstd can need for the largest raw frame. */
#define IN_MAX (ZSTD_COMPRESSBOUND(GMT_MAX_FRAME_RAW) + 64)

enum { R_OK, R_DONE, R_FAILED };
enum { FR_FRAME = 1, FR_EOF = 0, FR_TRUNCATED = 2 };

struct gmt_reader {
    char *name;
    FILE *f;
    int eof;
    uint8_t *in;
    size_t in_cap, in_pos, in_len;
    uint64_t in_off; /* file offset of in[0] */
    uint8_t *raw;
    size_t raw_cap;
    ZSTD_DCtx *dctx;
    gmt_decoder dec;
    char **keys, **vals;
    size_t n_meta;
    uint64_t events;     /* counted events returned so far (what frames count) */
    uint64_t scopes;     /* SCOPE events returned so far (not counted by frames) */
    uint64_t frame_left; /* events left in the current event frame */
    int in_frame;        /* an event frame is being decoded */
    uint64_t frame_off;  /* file offset of the current frame */
    int state;
    gms_error failure; /* the sticky error once state == R_FAILED */
    char warning[GMS_ERROR_MSG_MAX];
    int has_warning;
    char what[512]; /* the decoder's description of a bad event */
};

/* Moves unread bytes to the front and reads more, growing the buffer (up to IN_MAX) when it
 * is full. Returns 0 (r->eof set at end of file) or GMS_EIO. */
static int fill(gmt_reader *r, gms_error *err)
{
    if (r->in_pos > 0) {
        memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
        r->in_len -= r->in_pos;
        r->in_off += r->in_pos;
        r->in_pos = 0;
    }
    if (r->in_len == r->in_cap) {
        size_t ncap = r->in_cap * 2 > IN_MAX ? IN_MAX : r->in_cap * 2;
        if (ncap <= r->in_cap)
            return 0; /* caller sees a full buffer and reports the frame as too large */
        uint8_t *nb = realloc(r->in, ncap);
        if (!nb)
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", r->name);
        r->in = nb;
        r->in_cap = ncap;
    }
    size_t got = fread(r->in + r->in_len, 1, r->in_cap - r->in_len, r->f);
    r->in_len += got;
    if (got == 0) {
        if (ferror(r->f)) {
            int e = errno;
            return gms_error_set(err, GMS_EIO, "%s: read failed: %s", r->name, strerror(e));
        }
        r->eof = 1;
    }
    return 0;
}

/* Takes the next zstd frame from the file, checks it and decompresses it into r->raw.
 * Returns FR_FRAME (*len = content bytes), FR_EOF (the file ends exactly here),
 * FR_TRUNCATED (the file ends inside a frame) or a GMS_E* code < 0 (negated). `event` names
 * the next event in messages. */
static int next_frame(gmt_reader *r, size_t *len, gms_error *err)
{
    size_t csize;
    uint64_t ev = r->events + r->scopes + 1;
    for (;;) {
        size_t avail = r->in_len - r->in_pos;
        if (avail == 0 && r->eof)
            return FR_EOF;
        if (avail > 0) {
            size_t n = ZSTD_findFrameCompressedSize(r->in + r->in_pos, avail);
            if (!ZSTD_isError(n)) {
                csize = n;
                break;
            }
            if (ZSTD_getErrorCode(n) != ZSTD_error_srcSize_wrong)
                return -gms_error_set(err, GMS_EFORMAT,
                                      "%s: event %llu: byte %llu: not a valid zstd frame (%s)",
                                      r->name, (unsigned long long)ev,
                                      (unsigned long long)(r->in_off + r->in_pos),
                                      ZSTD_getErrorName(n));
            if (r->eof)
                return FR_TRUNCATED;
            if (avail >= IN_MAX)
                return -gms_error_set(err, GMS_EFORMAT,
                                      "%s: event %llu: byte %llu: frame larger than %zu bytes",
                                      r->name, (unsigned long long)ev,
                                      (unsigned long long)(r->in_off + r->in_pos),
                                      (size_t)IN_MAX);
        }
        int rc = fill(r, err);
        if (rc)
            return -rc;
    }
    const uint8_t *src = r->in + r->in_pos;
    uint64_t off = r->in_off + r->in_pos;
    /* csize >= 5 here: a complete zstd frame has its magic and descriptor byte */
    static const uint8_t zstd_magic[4] = {0x28, 0xb5, 0x2f, 0xfd};
    unsigned long long fcs = ZSTD_getFrameContentSize(src, csize);
    const char *bad = NULL;
    if (csize < 5 || memcmp(src, zstd_magic, 4) != 0)
        bad = "zstd skippable frame (not allowed in .gmt)";
    else if (fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == ZSTD_CONTENTSIZE_ERROR)
        bad = "zstd frame without its content size";
    else if (fcs > GMT_MAX_FRAME_RAW)
        bad = "frame content larger than 4 MiB";
    else if (!(src[4] & 0x04)) /* Frame_Header_Descriptor: Content_Checksum_flag */
        bad = "zstd frame without a content checksum";
    else if (ZSTD_getDictID_fromFrame(src, csize) != 0 || (src[4] & 0x03))
        bad = "zstd frame needs a dictionary";
    if (bad)
        return -gms_error_set(err, GMS_EFORMAT, "%s: event %llu: byte %llu: %s", r->name,
                              (unsigned long long)ev, (unsigned long long)off, bad);
    size_t want = (size_t)fcs;
    if (want > r->raw_cap || !r->raw) {
        size_t ncap = r->raw_cap ? r->raw_cap : 4096;
        while (ncap < want)
            ncap *= 2;
        uint8_t *nb = realloc(r->raw, ncap);
        if (!nb)
            return -gms_error_set(err, GMS_ENOMEM, "%s: out of memory", r->name);
        r->raw = nb;
        r->raw_cap = ncap;
    }
    size_t got = ZSTD_decompressDCtx(r->dctx, r->raw, r->raw_cap, src, csize);
    if (ZSTD_isError(got))
        return -gms_error_set(err, GMS_EFORMAT, "%s: event %llu: byte %llu: corrupt frame (zstd: %s)",
                              r->name, (unsigned long long)ev, (unsigned long long)off,
                              ZSTD_getErrorName(got));
    if (got != want)
        return -gms_error_set(err, GMS_EFORMAT,
                              "%s: event %llu: byte %llu: frame holds %zu bytes, declares %zu",
                              r->name, (unsigned long long)ev, (unsigned long long)off, got,
                              want);
    r->frame_off = off;
    r->in_pos += csize;
    *len = got;
    return FR_FRAME;
}

/* One spare decompression context shared by the process: creating one costs more than
 * reading a small trace, and sweeps open the same small traces over and over. Taken and given
 * back atomically, so concurrent readers in threads are safe (the loser creates its own). */
static _Atomic(ZSTD_DCtx *) spare_dctx;

static ZSTD_DCtx *dctx_take(void)
{
    ZSTD_DCtx *d = atomic_exchange(&spare_dctx, NULL);
    return d ? d : ZSTD_createDCtx();
}

static void dctx_give_back(ZSTD_DCtx *d)
{
    ZSTD_DCtx *expected = NULL;
    if (d && !atomic_compare_exchange_strong(&spare_dctx, &expected, d))
        ZSTD_freeDCtx(d);
}

static void reader_free(gmt_reader *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    free(r->in);
    free(r->raw);
    dctx_give_back(r->dctx);
    gmt_decoder_free(&r->dec);
    for (size_t i = 0; i < r->n_meta; i++) {
        free(r->keys[i]);
        free(r->vals[i]);
    }
    free(r->keys);
    free(r->vals);
    free(r->name);
    free(r);
}

/* Reads a header string into a fresh allocation; NULL with *why set when malformed. */
static char *get_header_string(const uint8_t **pp, const uint8_t *end, const char **why)
{
    uint64_t len;
    if (gmt_get_uv(pp, end, &len) || len > GMT_MAX_STRING || len > (uint64_t)(end - *pp) ||
        memchr(*pp, '\0', (size_t)len)) {
        *why = "malformed metadata string";
        return NULL;
    }
    char *s = malloc((size_t)len + 1);
    if (!s) {
        *why = "out of memory";
        return NULL;
    }
    memcpy(s, *pp, (size_t)len);
    s[len] = '\0';
    *pp += len;
    return s;
}

/* Reads and checks the header frame: magic, version (refusing another major), metadata.
 * Bytes after the metadata are a newer minor version's additions and are ignored. */
static int read_header(gmt_reader *r, gms_error *err)
{
    static const uint8_t zstd_magic[4] = {0x28, 0xb5, 0x2f, 0xfd};
    while (r->in_len < 4 && !r->eof) {
        int rc = fill(r, err);
        if (rc)
            return rc;
    }
    if (r->in_len > 0 && memcmp(r->in, zstd_magic, r->in_len < 4 ? r->in_len : 4) != 0)
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: not a .gmt trace (it does not start with a zstd frame)",
                             r->name);
    size_t len = 0;
    int fr = next_frame(r, &len, err);
    if (fr < 0)
        return -fr;
    if (fr == FR_EOF)
        return gms_error_set(err, GMS_EFORMAT, "%s: empty file, not a .gmt trace", r->name);
    if (fr == FR_TRUNCATED)
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: truncated inside the header frame (no events can be read)",
                             r->name);
    const uint8_t *p = r->raw, *end = r->raw + len;
    if (len < GMT_MAGIC_LEN || memcmp(p, GMT_MAGIC, GMT_MAGIC_LEN) != 0)
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: not a .gmt trace (zstd data without the .gmt magic)", r->name);
    p += GMT_MAGIC_LEN;
    uint64_t major, minor, n;
    if (gmt_get_uv(&p, end, &major) || gmt_get_uv(&p, end, &minor))
        return gms_error_set(err, GMS_EFORMAT, "%s: header: malformed format version", r->name);
    if (major != GMT_VERSION_MAJOR)
        return gms_error_set(err, GMS_EVERSION,
                             "%s: .gmt format version %llu.%llu is not readable by this "
                             "gpumemsim (it reads version %d.x, up to %d.%d)%s",
                             r->name, (unsigned long long)major, (unsigned long long)minor,
                             GMT_VERSION_MAJOR, GMT_VERSION_MAJOR, GMT_VERSION_MINOR,
                             major > GMT_VERSION_MAJOR ? "; upgrade gpumemsim to read it" : "");
    r->dec.scopes = minor >= 1; /* 1.0 files: extension records stay opaque, as 1.0 said */
    if (gmt_get_uv(&p, end, &n) || n > GMT_MAX_META || n > (uint64_t)(end - p))
        return gms_error_set(err, GMS_EFORMAT, "%s: header: malformed metadata count", r->name);
    r->keys = calloc(n ? n : 1, sizeof *r->keys);
    r->vals = calloc(n ? n : 1, sizeof *r->vals);
    if (!r->keys || !r->vals)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", r->name);
    for (uint64_t i = 0; i < n; i++) {
        const char *why = NULL;
        char *k = get_header_string(&p, end, &why);
        char *v = k ? get_header_string(&p, end, &why) : NULL;
        if (!v) {
            free(k);
            return gms_error_set(err, strcmp(why, "out of memory") ? GMS_EFORMAT : GMS_ENOMEM,
                                 "%s: header: metadata entry %llu: %s", r->name,
                                 (unsigned long long)i + 1, why);
        }
        r->keys[r->n_meta] = k;
        r->vals[r->n_meta] = v;
        r->n_meta++;
    }
    return 0;
}

int gmt_reader_open_stream(FILE *f, const char *name, gmt_reader **out, gms_error *err)
{
    *out = NULL;
    gmt_reader *r = calloc(1, sizeof *r);
    size_t nlen = strlen(name) + 1;
    /* a small file gets a small buffer: opening many small traces stays cheap */
    size_t in_cap = IN_START;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size < IN_START)
        in_cap = (size_t)st.st_size + 64;
    if (!r || !(r->name = malloc(nlen)) || !(r->in = malloc(in_cap)) ||
        !(r->dctx = dctx_take())) {
        if (r)
            r->f = f;
        else
            fclose(f);
        reader_free(r);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", name);
    }
    memcpy(r->name, name, nlen);
    r->f = f;
    r->in_cap = in_cap;
    gmt_decoder_init(&r->dec);
    gms_error local;
    int rc = read_header(r, err ? err : &local);
    if (rc) {
        reader_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

int gmt_reader_open(const char *path, gmt_reader **out, gms_error *err)
{
    *out = NULL;
    if (!path)
        return gms_error_set(err, GMS_EINVAL, "gmt reader: NULL path");
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        return gms_error_set(err, GMS_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    return gmt_reader_open_stream(f, path, out, err);
}

/* Records a sticky failure: this and every later call report err's message. */
static int fail(gmt_reader *r, gms_error *err)
{
    r->state = R_FAILED;
    r->failure = *err;
    if (!r->failure.code)
        r->failure.code = GMS_EFORMAT;
    return -r->failure.code;
}

static int truncated(gmt_reader *r)
{
    snprintf(r->warning, sizeof r->warning, "%s: truncated after event %llu", r->name,
             (unsigned long long)(r->events + r->scopes));
    r->has_warning = 1;
    r->state = R_DONE;
    return 0;
}

/* Checks the end frame: its count matches and nothing follows it. */
static int end_frame(gmt_reader *r, const uint8_t *p, const uint8_t *end, gms_error *err)
{
    uint64_t total;
    if (gmt_get_uv(&p, end, &total) || total != r->events) {
        gms_error_set(err, GMS_EFORMAT,
                      "%s: byte %llu: end frame does not match the %llu events read", r->name,
                      (unsigned long long)r->frame_off, (unsigned long long)r->events);
        return fail(r, err);
    }
    if (r->dec.depth > 0) {
        gms_error_set(err, GMS_EFORMAT,
                      "%s: event %llu: the trace ends with scope '%s' still open (%u open): its "
                      "SCOPE end is missing; regenerate the trace with a fixed writer", r->name,
                      (unsigned long long)(r->events + r->scopes + 1),
                      r->dec.open[r->dec.depth - 1], r->dec.depth);
        return fail(r, err);
    }
    while (r->in_pos == r->in_len && !r->eof) {
        int rc = fill(r, err);
        if (rc)
            return fail(r, err);
    }
    if (r->in_pos != r->in_len) {
        gms_error_set(err, GMS_EFORMAT, "%s: byte %llu: data after the end frame", r->name,
                      (unsigned long long)(r->in_off + r->in_pos));
        return fail(r, err);
    }
    r->state = R_DONE;
    return 0;
}

/* Moves to the next event frame (skipping frames of unknown kind). Returns 1 when one is
 * ready (frame_left may be 0: a frame of SCOPE records only), 0 at the end of the trace
 * (clean or truncated), < 0 on error. */
static int advance_frame(gmt_reader *r, gms_error *err)
{
    for (;;) {
        size_t len = 0;
        int fr = next_frame(r, &len, err);
        if (fr < 0)
            return fail(r, err);
        if (fr == FR_EOF || fr == FR_TRUNCATED)
            return truncated(r);
        const uint8_t *p = r->raw, *end = r->raw + len;
        uint64_t next_ev = r->events + r->scopes + 1;
        if (len == 0) {
            gms_error_set(err, GMS_EFORMAT, "%s: event %llu: byte %llu: empty frame", r->name,
                          (unsigned long long)next_ev, (unsigned long long)r->frame_off);
            return fail(r, err);
        }
        uint8_t kind = *p++;
        if (kind == GMT_FRAME_END)
            return end_frame(r, p, end, err);
        if (kind == GMT_FRAME_HEADER || kind == GMT_MAGIC[0]) {
            gms_error_set(err, GMS_EFORMAT, "%s: event %llu: byte %llu: a second header frame",
                          r->name, (unsigned long long)next_ev,
                          (unsigned long long)r->frame_off);
            return fail(r, err);
        }
        if (kind != GMT_FRAME_EVENTS)
            continue; /* a newer minor version's frame: skip it */
        uint64_t first, n;
        if (gmt_get_uv(&p, end, &first) || gmt_get_uv(&p, end, &n) || first != r->events ||
            n > (uint64_t)(end - p)) {
            gms_error_set(err, GMS_EFORMAT,
                          "%s: event %llu: byte %llu: event frame header is malformed or out "
                          "of order (expected first event %llu)",
                          r->name, (unsigned long long)next_ev,
                          (unsigned long long)r->frame_off, (unsigned long long)r->events);
            return fail(r, err);
        }
        gmt_decoder_set_body(&r->dec, p, (size_t)(end - p));
        r->in_frame = 1;
        r->frame_left = n;
        return 1;
    }
}

/* A bad event: the sticky error "FILE: event N: what". */
static int decode_failed(gmt_reader *r, int rc, gms_error *err)
{
    gms_error local;
    if (!err)
        err = &local; /* the sticky failure needs the message even when the caller does not */
    gms_error_set(err, rc, "%s: event %llu: %s", r->name,
                  (unsigned long long)(r->events + r->scopes + 1), r->what);
    r->frame_left = 0;
    return fail(r, err);
}

/* Counts the event just decoded: SCOPEs apart, since frames count only the others. */
static inline int count_event(gmt_reader *r, const gmt_event *ev)
{
    if (ev->kind == GMT_SCOPE) {
        r->scopes++;
    } else {
        r->frame_left--;
        r->events++;
    }
    return 1;
}

/* Past the last counted event of a frame: hands back the SCOPE records that end the frame,
 * reports the end or the sticky error, or moves on to the next event frame and decodes its
 * first event. */
static int next_frame_event(gmt_reader *r, gmt_event *ev, gms_error *err)
{
    gms_error local;
    if (!err)
        err = &local;
    for (;;) {
        if (r->state == R_DONE)
            return 0;
        if (r->state == R_FAILED) {
            *err = r->failure;
            return -r->failure.code;
        }
        if (r->in_frame) {
            int rc = gmt_decoder_trailing(&r->dec, ev, r->what, sizeof r->what);
            if (rc == GMT_DECODED_SCOPE) {
                r->scopes++;
                return 1;
            }
            if (rc) {
                gms_error_set(err, rc, "%s: event %llu: frame at byte %llu: %s", r->name,
                              (unsigned long long)(r->events + r->scopes + 1),
                              (unsigned long long)r->frame_off, r->what);
                return fail(r, err);
            }
            r->in_frame = 0;
        }
        int rc = advance_frame(r, err);
        if (rc <= 0)
            return rc;
        if (r->frame_left == 0)
            continue; /* its SCOPE records, if any, come back through the trailing path */
        if ((rc = gmt_decoder_next(&r->dec, ev, r->what, sizeof r->what)))
            return decode_failed(r, rc, err);
        return count_event(r, ev);
    }
}

int gmt_reader_next(gmt_reader *r, gmt_event *ev, gms_error *err)
{
    if (r->frame_left == 0)
        return next_frame_event(r, ev, err);
    int rc = gmt_decoder_next(&r->dec, ev, r->what, sizeof r->what);
    if (rc)
        return decode_failed(r, rc, err);
    return count_event(r, ev);
}

const char *gmt_reader_meta(const gmt_reader *r, const char *key)
{
    for (size_t i = 0; i < r->n_meta; i++)
        if (strcmp(r->keys[i], key) == 0)
            return r->vals[i];
    return NULL;
}

size_t gmt_reader_meta_count(const gmt_reader *r)
{
    return r->n_meta;
}

void gmt_reader_meta_at(const gmt_reader *r, size_t i, const char **key, const char **value)
{
    if (i >= r->n_meta) {
        *key = *value = NULL;
        return;
    }
    *key = r->keys[i];
    *value = r->vals[i];
}

const char *gmt_reader_warning(const gmt_reader *r)
{
    return r->has_warning ? r->warning : NULL;
}

uint64_t gmt_reader_events_read(const gmt_reader *r)
{
    return r->events + r->scopes;
}

void gmt_reader_close(gmt_reader *r)
{
    reader_free(r);
}
