/*
 * dtrlog_writer: writes gmt events as DTR JSON log lines (see dtrlog.h), in the exact form of
 * the DTR paper's logs: compact JSON with sorted keys, one object per line.
 */
#include "dtrlog.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gmt_namemap.h"

struct dtrlog_writer {
    char *path, *tmp;
    FILE *f;
    uint64_t events;
    gmt_namemap *by_name; /* display name -> id */
    gmt_namemap *by_id;   /* id (8 raw bytes) -> entry index in by_name */
    char *buf;            /* serialized line */
    size_t cap;
    char xname[32];       /* "x<id>" scratch */
    char xname2[32];
};

/* Fails the current event: "PATH: event N (KIND): ...". */
static int bad_event(dtrlog_writer *w, gms_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad_event(dtrlog_writer *w, gms_error *err, const char *fmt, ...)
{
    char what[GMS_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gms_error_set(err, GMS_EINVAL, "%s: event %" PRIu64 ": %s", w->path, w->events + 1,
                         what);
}

int dtrlog_writer_open(const char *path, dtrlog_writer **out, gms_error *err)
{
    *out = NULL;
    dtrlog_writer *w = calloc(1, sizeof *w);
    size_t n = strlen(path) + 32;
    if (w) {
        w->path = strdup(path);
        w->tmp = malloc(n);
        w->by_name = gmt_namemap_new();
        w->by_id = gmt_namemap_new();
        w->cap = 4096;
        w->buf = malloc(w->cap);
    }
    if (!w || !w->path || !w->tmp || !w->by_name || !w->by_id || !w->buf) {
        if (w) {
            free(w->path);
            free(w->tmp);
            gmt_namemap_free(w->by_name);
            gmt_namemap_free(w->by_id);
            free(w->buf);
            free(w);
        }
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    }
    snprintf(w->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    w->f = fopen(w->tmp, "wb");
    if (!w->f) {
        int e = errno;
        gms_error_set(err, GMS_EIO, "%s: cannot create: %s", w->tmp, strerror(e));
        w->f = NULL;
        dtrlog_writer_abort(w);
        return GMS_EIO;
    }
    setvbuf(w->f, NULL, _IOFBF, 1 << 16);
    *out = w;
    return 0;
}

/* The text written for tensor id: its NAME, else "x<id>" (in scratch, one of two buffers so
 * that two names can be live at once). */
static const char *name_of(dtrlog_writer *w, uint64_t id, int scratch)
{
    uint64_t idx;
    if (gmt_namemap_count(w->by_id) > 0 && gmt_namemap_find(w->by_id, &id, sizeof id, &idx) >= 0)
        return gmt_namemap_key(w->by_name, (size_t)idx, NULL);
    char *b = scratch ? w->xname2 : w->xname;
    snprintf(b, sizeof w->xname, "x%" PRIu64, id);
    return b;
}

/* A JSON string for a name or op; NULL when text is not valid UTF-8 (or out of memory). */
static json_t *str(const char *text)
{
    return json_string(text);
}

static json_t *u64_str(uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, v);
    return json_string(b);
}

static json_t *i64_str(int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRId64, v);
    return json_string(b);
}

/* Sets o[key] = v, taking v; returns -1 when v is NULL or the set fails. */
static int set(json_t *o, const char *key, json_t *v)
{
    if (!v)
        return -1;
    return json_object_set_new_nocheck(o, key, v);
}

/* Serializes o as one line and frees it. */
static int emit(dtrlog_writer *w, json_t *o, gms_error *err)
{
    const size_t flags = JSON_COMPACT | JSON_SORT_KEYS;
    size_t n = json_dumpb(o, w->buf, w->cap, flags);
    if (n > w->cap) {
        size_t cap = w->cap;
        while (cap < n)
            cap *= 2;
        char *b = realloc(w->buf, cap);
        if (!b) {
            json_decref(o);
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
        }
        w->buf = b;
        w->cap = cap;
        n = json_dumpb(o, w->buf, w->cap, flags);
    }
    json_decref(o);
    if (n == 0)
        return gms_error_set(err, GMS_ENOMEM, "%s: cannot serialize a line", w->path);
    if (fwrite(w->buf, 1, n, w->f) != n || putc('\n', w->f) == EOF)
        return gms_error_set(err, GMS_EIO, "%s: write failed: %s", w->tmp, strerror(errno));
    return 0;
}

static json_t *line(const char *instr)
{
    json_t *o = json_object();
    if (o && set(o, "INSTRUCTION", json_string(instr)) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A list of the names of ids. */
static json_t *name_list(dtrlog_writer *w, const uint64_t *ids, uint32_t n)
{
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < n; i++) {
        json_t *s = str(name_of(w, ids[i], 0));
        if (!s || json_array_append_new(a, s) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* Records NAME id text after checking it can be read back as the same tensor. */
static int bind_name(dtrlog_writer *w, const gmt_event *ev, gms_error *err)
{
    uint64_t xid, other;
    size_t len = strlen(ev->text);
    if (len == 0)
        return bad_event(w, err, "NAME: empty name for tensor %" PRIu64, ev->id);
    if (dtrlog_name_to_id(ev->text, len, &xid)) {
        if (xid != ev->id)
            return bad_event(w, err,
                             "NAME: tensor %" PRIu64 " cannot be called \"%s\" (that is the "
                             "name of tensor %" PRIu64 ")",
                             ev->id, ev->text, xid);
        return 0; /* its default name anyway */
    }
    if (gmt_namemap_find(w->by_name, ev->text, len, &other) >= 0) {
        if (other == ev->id)
            return 0;
        return bad_event(w, err,
                         "NAME: \"%.60s\" is already the name of tensor %" PRIu64
                         ", cannot also name tensor %" PRIu64,
                         ev->text, other, ev->id);
    }
    if (gmt_namemap_find(w->by_id, &ev->id, sizeof ev->id, NULL) >= 0)
        return bad_event(w, err, "NAME: tensor %" PRIu64 " already has a name", ev->id);
    json_t *probe = json_string(ev->text); /* NULL unless valid UTF-8, i.e. writable */
    if (!probe)
        return bad_event(w, err, "NAME: name of tensor %" PRIu64 " is not valid UTF-8", ev->id);
    json_decref(probe);
    long i = gmt_namemap_put(w->by_name, ev->text, len, ev->id);
    if (i < 0 || gmt_namemap_put(w->by_id, &ev->id, sizeof ev->id, (uint64_t)i) < 0)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
    return 0;
}

static int write_call(dtrlog_writer *w, const gmt_event *ev, gms_error *err)
{
    for (uint32_t i = 0; i < ev->n_outputs; i++)
        if (ev->outputs[i].alias_of < -1 ||
            ev->outputs[i].alias_of >= (int64_t)ev->n_inputs)
            return bad_event(w, err, "CALL %s: output %" PRIu32 " is a view of input %" PRId32
                             " of %" PRIu32, ev->op, i, ev->outputs[i].alias_of, ev->n_inputs);
    json_t *o = line("CALL");
    json_t *res = json_array();
    if (!o || !res)
        goto nomem;
    for (uint32_t i = 0; i < ev->n_outputs; i++)
        if (json_array_append_new(res, str(name_of(w, ev->outputs[i].id, 0))) != 0)
            goto nomem;
    int bad = set(o, "RESULT", res); /* takes res even on failure */
    res = NULL;
    if (bad || set(o, "ARGS", name_list(w, ev->inputs, ev->n_inputs)) ||
        set(o, "NAME", str(ev->op)) || set(o, "TIME", u64_str(ev->dur_ns)))
        goto nomem;
    if (emit(w, o, err) != 0)
        return err ? err->code : GMS_EIO;
    for (uint32_t i = 0; i < ev->n_outputs; i++) {
        const char *name = name_of(w, ev->outputs[i].id, 0);
        json_t *m = line("MEMORY");
        if (!m || set(m, "MEMORY", u64_str(ev->outputs[i].size)) || set(m, "NAME", str(name))) {
            json_decref(m);
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
        }
        if (emit(w, m, err) != 0)
            return err ? err->code : GMS_EIO;
        json_t *a = line("ALIAS");
        if (!a || set(a, "ALIAS", i64_str(ev->outputs[i].alias_of)) ||
            set(a, "NAME", str(name))) {
            json_decref(a);
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
        }
        if (emit(w, a, err) != 0)
            return err ? err->code : GMS_EIO;
    }
    return 0;
nomem:
    json_decref(o);
    json_decref(res);
    return gms_error_set(err, GMS_ENOMEM, "%s: out of memory or op name not UTF-8", w->path);
}

static int write_mutate(dtrlog_writer *w, const gmt_event *ev, gms_error *err)
{
    json_t *o = line("MUTATE");
    json_t *mut = json_array();
    if (!o || !mut)
        goto nomem;
    for (uint32_t i = 0; i < ev->n_mutated; i++) {
        if (ev->mutated[i] >= ev->n_inputs) {
            json_decref(o);
            json_decref(mut);
            return bad_event(w, err, "MUTATE %s: mutated index %" PRIu32 " of %" PRIu32
                             " inputs", ev->op, ev->mutated[i], ev->n_inputs);
        }
        if (json_array_append_new(mut, json_integer(ev->mutated[i])) != 0)
            goto nomem;
    }
    int bad = set(o, "MUTATE", mut); /* takes mut even on failure */
    mut = NULL;
    if (bad || set(o, "ARGS", name_list(w, ev->inputs, ev->n_inputs)) ||
        set(o, "NAME", str(ev->op)) || set(o, "TIME", u64_str(ev->dur_ns)))
        goto nomem;
    return emit(w, o, err);
nomem:
    json_decref(o);
    json_decref(mut);
    return gms_error_set(err, GMS_ENOMEM, "%s: out of memory or op name not UTF-8", w->path);
}

/* Builds and writes the single line of a CONSTANT (+ MEMORY), COPY, COPY_FROM, RELEASE or
 * ANNOTATE event. */
static int write_simple(dtrlog_writer *w, const gmt_event *ev, gms_error *err)
{
    json_t *o = NULL;
    switch (ev->kind) {
    case GMT_CONSTANT: {
        const char *name = name_of(w, ev->id, 0);
        o = line("CONSTANT");
        if (!o || set(o, "NAME", str(name)))
            break;
        if (emit(w, o, err) != 0)
            return -1;
        o = line("MEMORY");
        if (!o || set(o, "MEMORY", u64_str(ev->size)) || set(o, "NAME", str(name)))
            break;
        return emit(w, o, err);
    }
    case GMT_COPY:
    case GMT_COPY_FROM:
        o = line(ev->kind == GMT_COPY ? "COPY" : "COPY_FROM");
        if (!o || set(o, "DST", str(name_of(w, ev->id, 0))) ||
            set(o, "SRC", str(name_of(w, ev->src, 1))))
            break;
        return emit(w, o, err);
    case GMT_RELEASE:
        o = line("RELEASE");
        if (!o || set(o, "NAME", str(name_of(w, ev->id, 0))))
            break;
        return emit(w, o, err);
    case GMT_ANNOTATE:
        o = line("ANNOTATE");
        if (!o || set(o, "ANNOTATION", str(ev->text)))
            break;
        if (ev->has_value && set(o, "VALUE", i64_str(ev->value)))
            break;
        return emit(w, o, err);
    default:
        return bad_event(w, err, "unknown event kind %d", (int)ev->kind);
    }
    json_decref(o);
    return gms_error_set(err, GMS_ENOMEM, "%s: out of memory or text not UTF-8", w->path);
}

int dtrlog_writer_write(dtrlog_writer *w, const gmt_event *ev, gms_error *err)
{
    int rc;
    switch (ev->kind) {
    case GMT_NAME:
        rc = ev->text ? bind_name(w, ev, err) : bad_event(w, err, "NAME without text");
        break;
    case GMT_CALL:
    case GMT_MUTATE:
        if (!ev->op)
            return bad_event(w, err, "%s without an op name", ev->kind == GMT_CALL ? "CALL" : "MUTATE");
        if ((ev->n_inputs && !ev->inputs) || (ev->kind == GMT_CALL && ev->n_outputs && !ev->outputs) ||
            (ev->kind == GMT_MUTATE && ev->n_mutated && !ev->mutated))
            return bad_event(w, err, "missing input/output arrays");
        rc = ev->kind == GMT_CALL ? write_call(w, ev, err) : write_mutate(w, ev, err);
        break;
    case GMT_ANNOTATE:
        if (!ev->text)
            return bad_event(w, err, "ANNOTATE without text");
        rc = write_simple(w, ev, err);
        break;
    default:
        rc = write_simple(w, ev, err);
        break;
    }
    if (rc != 0)
        return err && err->code ? err->code : GMS_EIO;
    w->events++;
    return 0;
}

uint64_t dtrlog_writer_events_written(const dtrlog_writer *w)
{
    return w->events;
}

static void free_writer(dtrlog_writer *w)
{
    gmt_namemap_free(w->by_name);
    gmt_namemap_free(w->by_id);
    free(w->buf);
    free(w->path);
    free(w->tmp);
    free(w);
}

int dtrlog_writer_close(dtrlog_writer *w, gms_error *err)
{
    if (!w)
        return 0;
    int rc = 0;
    int bad = ferror(w->f) || fflush(w->f) != 0;
    int e = errno;
    if (fclose(w->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad)
        rc = gms_error_set(err, GMS_EIO, "%s: write failed: %s", w->tmp, strerror(e));
    else if (rename(w->tmp, w->path) != 0)
        rc = gms_error_set(err, GMS_EIO, "%s: cannot rename %s into place: %s", w->path,
                           w->tmp, strerror(errno));
    if (rc != 0)
        remove(w->tmp);
    free_writer(w);
    return rc;
}

void dtrlog_writer_abort(dtrlog_writer *w)
{
    if (!w)
        return;
    if (w->f)
        fclose(w->f);
    remove(w->tmp);
    free_writer(w);
}
