/*
 * gmt_source: one reader over every trace format gpumemsim understands. The format is sniffed
 * from the first byte (a zstd frame -> .gmt; '{' or whitespace -> DTR JSON log), never from
 * the file name; a JSON object naming a "schema" is a PyTorch Execution Trace (import_et.h); reading is delegated to gmt_reader or dtrlog_reader. The file is opened once
 * (the sniffed byte is pushed back), so pipes work as inputs too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dtrlog.h"
#include "gmt.h"
#include "gmt_format.h"
#include "import_et.h"
#include "kineto_mem.h"
#include "pickle.h"

#define SOURCE_META_MAX 12

struct gmt_source {
    gmt_format format;
    gmt_reader *gmt;
    dtrlog_reader *log;
    kmem_iter *kmem;
    et_source *et;
    char *gunzipped; /* a gzip-compressed file's contents, which the reader's FILE reads */
    /* metadata of a DTR log (a .gmt has its own header) */
    const char *keys[SOURCE_META_MAX];
    char *values[SOURCE_META_MAX];
    size_t n_meta;
};

/* First byte of a zstd frame (magic 28 b5 2f fd); the .gmt reader checks the rest. */
#define ZSTD_MAGIC_FIRST 0x28
/* First byte of a gzip member (1f 8b); zlib checks the rest. */
#define GZIP_MAGIC_FIRST 0x1f

/* Guesses the model from a DTR log's file name: the part before the first '-' (the DTR paper's
 * logs are "<model>-<batch>-<budget>-<date>-default.log"), without a torchvision "tv_" prefix
 * and, when there is no '-', without the extension. "unet-6-8000000000.0-...log" -> "unet". */
static char *guess_model(const char *base)
{
    size_t n = strcspn(base, "-");
    if (base[n] == '\0') {
        const char *dot = strrchr(base, '.');
        if (dot && dot != base)
            n = (size_t)(dot - base);
    }
    if (n > 3 && strncmp(base, "tv_", 3) == 0) {
        base += 3;
        n -= 3;
    }
    return strndup(base, n);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int add_meta(gmt_source *s, const char *key, char *value)
{
    if (!value)
        return -1;
    s->keys[s->n_meta] = key;
    s->values[s->n_meta++] = value;
    return 0;
}

/* Opens path and decides its format from its first byte, which is pushed back so that the
 * chosen reader sees the whole stream: the file is opened once, so pipes and other
 * non-seekable inputs (/dev/stdin, <(zstdcat ...)) work too. 0x28 starts a zstd frame
 * (.gmt); '{' or whitespace a DTR log. */
static int sniff(const char *path, FILE **out, gmt_format *fmt, char **gunzipped,
                 gms_error *err)
{
    *out = NULL;
    *gunzipped = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gms_error_set(err, GMS_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return gms_error_set(err, GMS_EIO,
                             "%s: is a directory (expected a .gmt trace or a DTR log file)",
                             path);
    }
    int c = getc(f);
    if (c == EOF) {
        int failed = ferror(f);
        int e = errno;
        fclose(f);
        if (failed)
            return gms_error_set(err, GMS_EIO, "%s: read failed: %s", path, strerror(e));
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: empty file (expected a .gmt trace or a DTR log)", path);
    }
    if (ungetc(c, f) == EOF) {
        fclose(f);
        return gms_error_set(err, GMS_EIO, "%s: read failed", path);
    }
    if (c == GZIP_MAGIC_FIRST) { /* a .gmt.gz or .log.gz: read it through its contents */
        fclose(f);
        size_t len;
        int rc = kmem_read_file(path, gunzipped, &len, err);
        if (rc)
            return rc;
        if (len == 0 || !(f = fmemopen(*gunzipped, len, "rb"))) {
            free(*gunzipped);
            *gunzipped = NULL;
            return gms_error_set(err, GMS_EFORMAT, "%s: an empty gzip-compressed file", path);
        }
        c = (unsigned char)(*gunzipped)[0];
    }
    if (c == ZSTD_MAGIC_FIRST) {
        *fmt = GMT_FORMAT_GMT;
    } else if (c == '{' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        *fmt = GMT_FORMAT_DTR_LOG;
    } else {
        fclose(f);
        free(*gunzipped);
        *gunzipped = NULL;
        if (c == 0x80 && pk_sniff(path)) /* a pickle: most likely a memory snapshot */
            return gms_error_set(err, GMS_EFORMAT,
                                 "%s: a pickle (a PyTorch memory snapshot?): it holds the "
                                 "allocator's events, not ops to replay; 'gpumemsim info' and "
                                 "'gpumemsim memcheck' read it (docs/memory.md)", path);
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: not a .gmt trace, DTR JSON log or Kineto trace (first byte "
                             "0x%02x); "
                             "expected a zstd-compressed .gmt or one JSON object per line",
                             path, (unsigned)c);
    }
    *out = f;
    return 0;
}

static char *u64_text(uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    return strdup(b);
}

/* A Kineto trace's memory events (kineto_mem.h), with what the header should tell. */
static int open_kineto_memory(const char *path, gmt_source *s, gms_error *err)
{
    kmem_trace *k;
    int rc = kmem_load(path, &k, err);
    if (rc)
        return rc;
    char *dev = strdup(k->device_name[0] ? k->device_name : "cuda");
    if (add_meta(s, "source", strdup(base_name(path))) ||
        add_meta(s, "producer", strdup("kineto-memory")) || add_meta(s, "device", dev) ||
        add_meta(s, "time_unit", strdup("ns")) ||
        add_meta(s, "kineto_memory_events", u64_text(k->n)) ||
        add_meta(s, "kineto_priming_ops", u64_text(kmem_priming_ops(k))) ||
        add_meta(s, "recorded_initial_allocated", u64_text(k->initial_allocated)) ||
        add_meta(s, "recorded_initial_reserved", u64_text(k->initial_reserved)) ||
        add_meta(s, "recorded_peak_allocated", u64_text(k->peak_allocated)) ||
        add_meta(s, "recorded_peak_reserved", u64_text(k->peak_reserved)) ||
        add_meta(s, "kineto_other_events", u64_text(k->other_events))) {
        kmem_free(k);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    }
    return kmem_iter_new(k, &s->kmem, err);
}

int gmt_source_open(const char *path, gmt_source **out, gms_error *err)
{
    return gmt_source_open_with(path, NULL, out, err);
}

int gmt_source_open_with(const char *path, const gmt_source_options *opt, gmt_source **out,
                         gms_error *err)
{
    *out = NULL;
    if (strcmp(path, "-") == 0) /* standard input: read once, like any pipe */
        path = "/dev/stdin";
    if (et_sniff(path)) { /* a PyTorch Execution Trace (import_et.h) */
        gmt_source *s = calloc(1, sizeof *s);
        if (!s)
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
        s->format = GMT_FORMAT_PYTORCH_ET;
        int rc = et_source_open(path, opt ? opt->gpu : NULL, opt ? opt->kineto : NULL,
                                opt ? opt->kineto_force : 0, &s->et, err);
        if (rc) {
            gmt_source_close(s);
            return rc;
        }
        *out = s;
        return 0;
    }
    if (kmem_sniff(path)) {
        gmt_source *s = calloc(1, sizeof *s);
        if (!s)
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
        s->format = GMT_FORMAT_KINETO_MEMORY;
        int rc = open_kineto_memory(path, s, err);
        if (rc) {
            gmt_source_close(s);
            return rc;
        }
        *out = s;
        return 0;
    }
    gmt_format fmt = GMT_FORMAT_GMT;
    FILE *f;
    char *gunzipped;
    int rc = sniff(path, &f, &fmt, &gunzipped, err);
    if (rc != 0)
        return rc;
    gmt_source *s = calloc(1, sizeof *s);
    if (!s) {
        fclose(f);
        free(gunzipped);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    }
    s->format = fmt;
    s->gunzipped = gunzipped;
    if (fmt == GMT_FORMAT_GMT) {
        rc = gmt_reader_open_stream(f, path, &s->gmt, err); /* closes f on failure */
    } else {
        const char *base = base_name(path);
        if (add_meta(s, "source", strdup(base)) || add_meta(s, "producer", strdup("dtr-log")) ||
            add_meta(s, "model", guess_model(base)) || add_meta(s, "time_unit", strdup("ns"))) {
            fclose(f);
            rc = gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
        } else {
            rc = dtrlog_reader_open_stream(f, path, 1, &s->log, err); /* closes f on failure */
        }
    }
    if (rc != 0) {
        gmt_source_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

int gmt_source_next(gmt_source *s, gmt_event *ev, gms_error *err)
{
    if (s->kmem)
        return kmem_iter_next(s->kmem, ev, err);
    if (s->et)
        return et_source_next(s->et, ev);
    return s->gmt ? gmt_reader_next(s->gmt, ev, err) : dtrlog_reader_next(s->log, ev, err);
}

gmt_format gmt_source_format(const gmt_source *s)
{
    return s->format;
}

const char *gmt_source_meta(const gmt_source *s, const char *key)
{
    if (s->gmt)
        return gmt_reader_meta(s->gmt, key);
    for (size_t i = 0; s->et && i < et_source_meta_count(s->et); i++) {
        const char *k, *v;
        et_source_meta_at(s->et, i, &k, &v);
        if (strcmp(k, key) == 0)
            return v;
    }
    for (size_t i = 0; i < s->n_meta; i++)
        if (strcmp(s->keys[i], key) == 0)
            return s->values[i];
    return NULL;
}

size_t gmt_source_meta_count(const gmt_source *s)
{
    if (s->et)
        return et_source_meta_count(s->et);
    return s->gmt ? gmt_reader_meta_count(s->gmt) : s->n_meta;
}

void gmt_source_meta_at(const gmt_source *s, size_t i, const char **key, const char **value)
{
    if (s->gmt) {
        gmt_reader_meta_at(s->gmt, i, key, value);
        return;
    }
    if (s->et) {
        et_source_meta_at(s->et, i, key, value);
        return;
    }
    *key = s->keys[i];
    *value = s->values[i];
}

const char *gmt_source_warning(const gmt_source *s)
{
    return s->gmt ? gmt_reader_warning(s->gmt) : NULL;
}

void gmt_source_close(gmt_source *s)
{
    if (!s)
        return;
    if (s->gmt)
        gmt_reader_close(s->gmt);
    dtrlog_reader_close(s->log);
    kmem_iter_free(s->kmem);
    et_source_close(s->et);
    free(s->gunzipped);
    for (size_t i = 0; i < s->n_meta; i++)
        free(s->values[i]);
    free(s);
}
