/*
 * gmt_writer: writes a .gmt trace (docs/trace-format.md): a header frame, event frames of
 * about GMT_BATCH_BYTES raw bytes each, and an end frame, each one independent zstd frame
 * with its content size and checksum. Everything goes to PATH.tmp-<pid>, renamed onto PATH
 * only by a successful gmt_writer_close, so readers never see a partial PATH.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "gmt_format.h"
#include "gmt_outfile.h"
#include "gms_tmpfile.h"
#include "gmt_varint.h"

#ifndef GMS_VERSION
#define GMS_VERSION "unknown"
#endif

/* Room kept before an event frame's body for its kind byte, first event and event count, so
 * the frame is compressed from one contiguous buffer. */
#define PREFIX_ROOM (1 + 2 * GMT_VARINT_MAX)

struct gmt_writer {
    char *path, *tmp;
    FILE *f;
    ZSTD_CCtx *cctx;
    uint8_t *zbuf;
    size_t zcap;
    gmt_encoder enc;
    char **keys, **vals;
    size_t n_meta, cap_meta;
    int header_written;
    int failed; /* an earlier write failed: the file is unusable */
    uint64_t events;     /* events given to gmt_writer_write (SCOPEs included) */
    uint64_t first_event; /* index of the first event in enc's batch */
    size_t batch_bytes;
};

static void writer_free(gmt_writer *w)
{
    if (!w)
        return;
    if (w->f)
        fclose(w->f);
    ZSTD_freeCCtx(w->cctx);
    free(w->zbuf);
    gmt_encoder_free(&w->enc);
    for (size_t i = 0; i < w->n_meta; i++) {
        free(w->keys[i]);
        free(w->vals[i]);
    }
    free(w->keys);
    free(w->vals);
    free(w->path);
    if (w->tmp)
        gms_tmp_done(w->tmp); /* renamed into place or removed by now */
    free(w->tmp);
    free(w);
}

int gmt_writer_open(const char *path, gmt_writer **out, gms_error *err)
{
    *out = NULL;
    gmt_writer *w = calloc(1, sizeof *w);
    if (!w)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path ? path : "gmt writer");
    int rc = gmt_outfile_create(path, &w->f, &w->tmp, err);
    if (rc) {
        writer_free(w);
        return rc;
    }
    /* from here on, gmt_writer_abort also removes the temporary file */
    w->path = strdup(path);
    w->cctx = ZSTD_createCCtx();
    if (!w->path || !w->cctx || gmt_encoder_init(&w->enc)) {
        gmt_writer_abort(w);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    }
    if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, GMT_ZSTD_LEVEL)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1))) {
        gmt_writer_abort(w);
        return gms_error_set(err, GMS_EINVAL, "%s: zstd refused the compression settings", path);
    }
    w->batch_bytes = GMT_BATCH_BYTES;
    w->enc.len = PREFIX_ROOM;
    *out = w;
    return 0;
}

void gmt_writer_set_batch_bytes(gmt_writer *w, size_t bytes)
{
    if (w && bytes)
        w->batch_bytes = bytes;
}

int gmt_writer_meta(gmt_writer *w, const char *key, const char *value, gms_error *err)
{
    if (!w || !key || !value)
        return gms_error_set(err, GMS_EINVAL, "gmt writer: NULL metadata key or value");
    if (w->header_written)
        return gms_error_set(err, GMS_ESTATE,
                             "%s: metadata '%s' given after the first event; set all metadata "
                             "before writing events", w->path, key);
    if (!*key || strlen(key) > GMT_MAX_STRING || strlen(value) > GMT_MAX_STRING)
        return gms_error_set(err, GMS_EINVAL,
                             "%s: metadata key must be 1..%u bytes and its value at most %u",
                             w->path, GMT_MAX_STRING, GMT_MAX_STRING);
    for (size_t i = 0; i < w->n_meta; i++)
        if (strcmp(w->keys[i], key) == 0) {
            char *v = strdup(value);
            if (!v)
                return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
            free(w->vals[i]);
            w->vals[i] = v;
            return 0;
        }
    if (w->n_meta >= GMT_MAX_META)
        return gms_error_set(err, GMS_EINVAL, "%s: more than %u metadata entries", w->path,
                             GMT_MAX_META);
    if (w->n_meta == w->cap_meta) {
        size_t ncap = w->cap_meta ? w->cap_meta * 2 : 8;
        char **nk = realloc(w->keys, ncap * sizeof *nk);
        if (!nk)
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
        w->keys = nk;
        char **nv = realloc(w->vals, ncap * sizeof *nv);
        if (!nv)
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
        w->vals = nv;
        w->cap_meta = ncap;
    }
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
    }
    w->keys[w->n_meta] = k;
    w->vals[w->n_meta] = v;
    w->n_meta++;
    return 0;
}

/* Compresses one frame's content into its own zstd frame and appends it to the file. */
static int write_frame(gmt_writer *w, const uint8_t *content, size_t len, gms_error *err)
{
    size_t bound = ZSTD_compressBound(len);
    if (bound > w->zcap) {
        uint8_t *nb = realloc(w->zbuf, bound);
        if (!nb)
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
        w->zbuf = nb;
        w->zcap = bound;
    }
    size_t n = ZSTD_compress2(w->cctx, w->zbuf, w->zcap, content, len);
    if (ZSTD_isError(n))
        return gms_error_set(err, GMS_EIO, "%s: zstd: %s", w->path, ZSTD_getErrorName(n));
    if (fwrite(w->zbuf, 1, n, w->f) != n) {
        int e = errno;
        return gms_error_set(err, GMS_EIO, "%s: write to %s failed: %s", w->path, w->tmp,
                             strerror(e));
    }
    return 0;
}

/* Appends a varint-length string to a growing header buffer (capacity checked by caller). */
static size_t put_string(uint8_t *p, const char *s)
{
    size_t len = strlen(s), n = gmt_put_uv(p, len);
    memcpy(p + n, s, len);
    return n + len;
}

static int has_key(const gmt_writer *w, const char *key)
{
    for (size_t i = 0; i < w->n_meta; i++)
        if (strcmp(w->keys[i], key) == 0)
            return 1;
    return 0;
}

/* Writes the header frame: magic, version, metadata (adding the default producer and
 * time_unit when the caller gave none). */
static int write_header(gmt_writer *w, gms_error *err)
{
    int rc;
    if (!has_key(w, "producer") &&
        (rc = gmt_writer_meta(w, "producer", "gpumemsim " GMS_VERSION, err)))
        return rc;
    if (!has_key(w, "time_unit") &&
        (rc = gmt_writer_meta(w, "time_unit", "ns", err)))
        return rc;
    size_t cap = GMT_MAGIC_LEN + 3 * GMT_VARINT_MAX;
    for (size_t i = 0; i < w->n_meta; i++)
        cap += 2 * GMT_VARINT_MAX + strlen(w->keys[i]) + strlen(w->vals[i]);
    uint8_t *buf = malloc(cap);
    if (!buf)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
    size_t n = 0;
    memcpy(buf, GMT_MAGIC, GMT_MAGIC_LEN);
    n += GMT_MAGIC_LEN;
    n += gmt_put_uv(buf + n, GMT_VERSION_MAJOR);
    n += gmt_put_uv(buf + n, GMT_VERSION_MINOR);
    n += gmt_put_uv(buf + n, w->n_meta);
    for (size_t i = 0; i < w->n_meta; i++) {
        n += put_string(buf + n, w->keys[i]);
        n += put_string(buf + n, w->vals[i]);
    }
    rc = write_frame(w, buf, n, err);
    free(buf);
    if (rc)
        return rc;
    w->header_written = 1;
    return 0;
}

/* Writes the pending events as one event frame: kind, first event index, count, records. */
static int flush_batch(gmt_writer *w, gms_error *err)
{
    if (w->enc.len == PREFIX_ROOM)
        return 0; /* nothing pending (a batch of only SCOPE records is written: n_events 0) */
    uint8_t prefix[PREFIX_ROOM];
    size_t n = 0;
    prefix[n++] = GMT_FRAME_EVENTS;
    n += gmt_put_uv(prefix + n, w->first_event);
    n += gmt_put_uv(prefix + n, w->enc.n_events);
    uint8_t *start = w->enc.buf + PREFIX_ROOM - n;
    memcpy(start, prefix, n);
    int rc = write_frame(w, start, w->enc.len - (PREFIX_ROOM - n), err);
    if (rc)
        return rc;
    w->first_event += w->enc.n_events;
    gmt_encoder_reset_batch(&w->enc);
    w->enc.len = PREFIX_ROOM;
    return 0;
}

int gmt_writer_write(gmt_writer *w, const gmt_event *ev, gms_error *err)
{
    if (!w)
        return gms_error_set(err, GMS_EINVAL, "gmt writer: NULL writer");
    if (w->failed)
        return gms_error_set(err, GMS_ESTATE, "%s: an earlier write failed", w->path);
    int rc;
    if (!w->header_written && (rc = write_header(w, err))) {
        w->failed = 1;
        return rc;
    }
    if ((rc = gmt_encoder_add(&w->enc, ev, err))) {
        if (rc == GMS_ENOMEM)
            w->failed = 1;
        /* an invalid event leaves the batch untouched: the writer stays usable */
        char msg[GMS_ERROR_MSG_MAX];
        if (err) {
            snprintf(msg, sizeof msg, "%s", err->msg);
            gms_error_set(err, rc, "%s: event %llu: %s", w->path,
                          (unsigned long long)(w->events + 1), msg);
        }
        return rc;
    }
    w->events++;
    if (w->enc.len - PREFIX_ROOM >= w->batch_bytes && (rc = flush_batch(w, err))) {
        w->failed = 1;
        return rc;
    }
    return 0;
}

int gmt_writer_close(gmt_writer *w, gms_error *err)
{
    if (!w)
        return gms_error_set(err, GMS_EINVAL, "gmt writer: NULL writer");
    int rc = 0;
    if (w->failed)
        rc = gms_error_set(err, GMS_ESTATE, "%s: an earlier write failed; nothing written",
                           w->path);
    if (!rc && w->enc.depth > 0)
        rc = gms_error_set(err, GMS_EINVAL,
                           "%s: scope '%s' is still open at the end of the trace (%u open): "
                           "write a SCOPE end for every begin before closing; nothing written",
                           w->path, w->enc.open[w->enc.depth - 1], w->enc.depth);
    if (!rc && !w->header_written)
        rc = write_header(w, err);
    if (!rc)
        rc = flush_batch(w, err);
    if (!rc) {
        uint8_t end[1 + GMT_VARINT_MAX];
        end[0] = GMT_FRAME_END;
        size_t n = 1 + gmt_put_uv(end + 1, w->first_event);
        rc = write_frame(w, end, n, err);
    }
    if (!rc && (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0)) {
        int e = errno;
        rc = gms_error_set(err, GMS_EIO, "%s: write to %s failed: %s", w->path, w->tmp,
                           strerror(e));
    }
    FILE *f = w->f;
    w->f = NULL;
    if (fclose(f) != 0 && !rc) {
        int e = errno;
        rc = gms_error_set(err, GMS_EIO, "%s: closing %s failed: %s", w->path, w->tmp,
                           strerror(e));
    }
    if (!rc && rename(w->tmp, w->path) != 0) {
        int e = errno;
        rc = gms_error_set(err, GMS_EIO, "%s: cannot rename %s onto it: %s", w->path, w->tmp,
                           strerror(e));
    }
    if (rc)
        remove(w->tmp);
    writer_free(w);
    return rc;
}

void gmt_writer_abort(gmt_writer *w)
{
    if (!w)
        return;
    if (w->f) {
        fclose(w->f);
        w->f = NULL;
    }
    remove(w->tmp);
    writer_free(w);
}
