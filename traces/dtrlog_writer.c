/*
 * dtrlog_writer: writes gmt events as DTR JSON log lines (see dtrlog.h), in the exact form of
 * the DTR paper's logs: compact JSON with sorted keys, one object per line.
 *
 * Lines are formatted directly (the keys of each instruction are fixed and written in sorted
 * order); a string that is not plain printable ASCII without '"' or '\' is escaped by jansson
 * itself, so the output is byte for byte what json_dumps(JSON_COMPACT | JSON_SORT_KEYS) would
 * give, and text that is not valid UTF-8 is refused.
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
#include "gmt_outfile.h"
#include "gms_tmpfile.h"

struct dtrlog_writer {
    char *path, *tmp;
    FILE *f;
    uint64_t events;
    gmt_namemap *by_name; /* display name -> id */
    gmt_namemap *by_id;   /* id (8 raw bytes) -> entry index in by_name */
    char *buf;            /* the current event's lines */
    size_t len, cap;
    int oom;              /* an append failed: the event is dropped */
    int bad_text;         /* a string was not valid UTF-8 */
    /* ids written so far (a NAME after an id's first use cannot rename it any more) */
    uint64_t *used;       /* open addressing, key + 1 (0 = empty) */
    size_t used_count, used_slots;
    uint64_t late_names;  /* NAME events ignored for that reason */
    uint64_t dropped_scopes; /* SCOPE events: the log format has no scopes */
};

/* ------------------------------------------------------------------------------------------
 * The set of ids written so far: a NAME may only rename an id the log has not shown yet, or
 * the log would call one tensor by two names. Keys are stored as id + 1 (UINT64_MAX cannot be
 * stored and is simply never remembered: harmless, a NAME for it is then always honoured).
 */
static size_t id_slot(uint64_t key, size_t mask)
{
    return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & mask;
}

/* Remembers id; sets w->oom when out of memory. */
static void used_add(dtrlog_writer *w, uint64_t id)
{
    uint64_t key = id + 1;
    if (key == 0)
        return;
    if ((w->used_count + 1) * 2 > w->used_slots) {
        size_t n = w->used_slots ? w->used_slots * 2 : 1024;
        uint64_t *t = calloc(n, sizeof *t);
        if (!t) {
            w->oom = 1;
            return;
        }
        for (size_t i = 0; i < w->used_slots; i++) {
            if (!w->used[i])
                continue;
            size_t j = id_slot(w->used[i], n - 1);
            while (t[j])
                j = (j + 1) & (n - 1);
            t[j] = w->used[i];
        }
        free(w->used);
        w->used = t;
        w->used_slots = n;
    }
    size_t mask = w->used_slots - 1;
    size_t j = id_slot(key, mask);
    while (w->used[j] && w->used[j] != key)
        j = (j + 1) & mask;
    if (!w->used[j]) {
        w->used[j] = key;
        w->used_count++;
    }
}

static int used_has(const dtrlog_writer *w, uint64_t id)
{
    uint64_t key = id + 1;
    if (key == 0 || !w->used_slots)
        return 0;
    size_t mask = w->used_slots - 1;
    for (size_t j = id_slot(key, mask); w->used[j]; j = (j + 1) & mask)
        if (w->used[j] == key)
            return 1;
    return 0;
}

/* Fails the current event: "PATH: event N: ...". */
static int bad_event(dtrlog_writer *w, gms_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad_event(dtrlog_writer *w, gms_error *err, const char *fmt, ...)
{
    char what[GMS_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gms_error_set(err, GMS_EINVAL, "%s: event %" PRIu64 ": %s", w->path,
                         w->events + w->dropped_scopes + 1, what);
}

static void free_writer(dtrlog_writer *w);

int dtrlog_writer_open(const char *path, dtrlog_writer **out, gms_error *err)
{
    *out = NULL;
    dtrlog_writer *w = calloc(1, sizeof *w);
    if (!w)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory",
                             path ? path : "dtr-log writer");
    int rc = gmt_outfile_create(path, &w->f, &w->tmp, err);
    if (rc) {
        free_writer(w);
        return rc;
    }
    /* from here on, dtrlog_writer_abort also removes the temporary file */
    w->path = strdup(path);
    w->by_name = gmt_namemap_new();
    w->by_id = gmt_namemap_new();
    w->cap = 4096;
    w->buf = malloc(w->cap);
    if (!w->path || !w->by_name || !w->by_id || !w->buf) {
        dtrlog_writer_abort(w);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    }
    setvbuf(w->f, NULL, _IOFBF, 1 << 16);
    *out = w;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Line building
 */
static void put(dtrlog_writer *w, const char *s, size_t n)
{
    if (w->len + n > w->cap) {
        size_t cap = w->cap;
        while (cap < w->len + n)
            cap *= 2;
        char *b = realloc(w->buf, cap);
        if (!b) {
            w->oom = 1;
            return;
        }
        w->buf = b;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

#define PUT_LIT(w, lit) put((w), (lit), sizeof(lit) - 1)

/* A JSON string, escaped exactly as jansson escapes it. */
static void put_str(dtrlog_writer *w, const char *s)
{
    size_t n = 0;
    int plain = 1;
    for (; s[n]; n++) {
        unsigned char c = (unsigned char)s[n];
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
            plain = 0;
    }
    if (plain) {
        PUT_LIT(w, "\"");
        put(w, s, n);
        PUT_LIT(w, "\"");
        return;
    }
    json_t *j = json_string(s); /* NULL when not valid UTF-8 */
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    if (!text) {
        w->bad_text = 1;
        return;
    }
    put(w, text, strlen(text));
    free(text);
}

/* Decimal digits of v (no snprintf: integers are most of what a log holds). */
static void put_u64(dtrlog_writer *w, uint64_t v)
{
    char b[20];
    size_t n = sizeof b;
    do {
        b[--n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(w, b + n, sizeof b - n);
}

/* A decimal integer as a JSON string ("-1"), as the logs write ALIAS and VALUE. */
static void put_i64_str(dtrlog_writer *w, int64_t v)
{
    PUT_LIT(w, "\"");
    if (v < 0) {
        PUT_LIT(w, "-");
        put_u64(w, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u64(w, (uint64_t)v);
    }
    PUT_LIT(w, "\"");
}

static void put_u64_str(dtrlog_writer *w, uint64_t v)
{
    PUT_LIT(w, "\"");
    put_u64(w, v);
    PUT_LIT(w, "\"");
}

/* The name of tensor id: its NAME text, else "x<id>". */
static void put_name(dtrlog_writer *w, uint64_t id)
{
    used_add(w, id);
    uint64_t idx;
    if (gmt_namemap_count(w->by_id) > 0 && gmt_namemap_find(w->by_id, &id, sizeof id, &idx) >= 0) {
        put_str(w, gmt_namemap_key(w->by_name, (size_t)idx, NULL));
        return;
    }
    PUT_LIT(w, "\"x");
    put_u64(w, id);
    PUT_LIT(w, "\"");
}

static void put_name_list(dtrlog_writer *w, const uint64_t *ids, uint32_t n)
{
    PUT_LIT(w, "[");
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            PUT_LIT(w, ",");
        put_name(w, ids[i]);
    }
    PUT_LIT(w, "]");
}

/* ------------------------------------------------------------------------------------------
 * Events
 */

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
    if (used_has(w, ev->id)) {
        w->late_names++; /* already written as x<id>: keep that name, consistently */
        return 0;
    }
    json_t *probe = json_string(ev->text); /* NULL unless valid UTF-8, i.e. writable */
    if (!probe)
        return bad_event(w, err, "NAME: name of tensor %" PRIu64 " is not valid UTF-8", ev->id);
    json_decref(probe);
    long i = gmt_namemap_put(w->by_name, ev->text, len, ev->id);
    if (i < 0 || gmt_namemap_put(w->by_id, &ev->id, sizeof ev->id, (uint64_t)i) < 0)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
    return 0;
}

/* Checks what the log format needs of an event before anything is written. */
static int check_event(dtrlog_writer *w, const gmt_event *ev, gms_error *err)
{
    switch (ev->kind) {
    case GMT_CALL:
    case GMT_MUTATE: {
        const char *kind = ev->kind == GMT_CALL ? "CALL" : "MUTATE";
        if (!ev->op)
            return bad_event(w, err, "%s without an op name", kind);
        if ((ev->n_inputs && !ev->inputs) ||
            (ev->kind == GMT_CALL && ev->n_outputs && !ev->outputs) ||
            (ev->kind == GMT_MUTATE && ev->n_mutated && !ev->mutated))
            return bad_event(w, err, "%s %s: missing input/output arrays", kind, ev->op);
        if (ev->kind == GMT_CALL) {
            for (uint32_t i = 0; i < ev->n_outputs; i++)
                if (ev->outputs[i].alias_of < -1 ||
                    ev->outputs[i].alias_of >= (int64_t)ev->n_inputs)
                    return bad_event(w, err,
                                     "CALL %s: output %" PRIu32 " is a view of input %" PRId32
                                     " of %" PRIu32,
                                     ev->op, i, ev->outputs[i].alias_of, ev->n_inputs);
        } else {
            for (uint32_t i = 0; i < ev->n_mutated; i++)
                if (ev->mutated[i] >= ev->n_inputs)
                    return bad_event(w, err, "MUTATE %s: mutated index %" PRIu32 " of %" PRIu32
                                     " inputs", ev->op, ev->mutated[i], ev->n_inputs);
        }
        return 0;
    }
    case GMT_ANNOTATE:
        return ev->text ? 0 : bad_event(w, err, "ANNOTATE without text");
    case GMT_SCOPE:
        return 0; /* dropped by dtrlog_writer_write */
    case GMT_NAME:
        return ev->text ? 0 : bad_event(w, err, "NAME without text");
    case GMT_CONSTANT:
    case GMT_COPY:
    case GMT_COPY_FROM:
    case GMT_RELEASE:
        return 0;
    }
    return bad_event(w, err, "unknown event kind %d", (int)ev->kind);
}

/* The MEMORY line that follows a CONSTANT and each CALL output. */
static void put_memory_line(dtrlog_writer *w, uint64_t id, uint64_t size)
{
    PUT_LIT(w, "{\"INSTRUCTION\":\"MEMORY\",\"MEMORY\":");
    put_u64_str(w, size);
    PUT_LIT(w, ",\"NAME\":");
    put_name(w, id);
    PUT_LIT(w, "}\n");
}

/* Appends the event's line(s) to the buffer (keys in sorted order, as the logs have them). */
static void format_event(dtrlog_writer *w, const gmt_event *ev)
{
    switch (ev->kind) {
    case GMT_CONSTANT:
        PUT_LIT(w, "{\"INSTRUCTION\":\"CONSTANT\",\"NAME\":");
        put_name(w, ev->id);
        PUT_LIT(w, "}\n");
        put_memory_line(w, ev->id, ev->size);
        break;
    case GMT_CALL:
        PUT_LIT(w, "{\"ARGS\":");
        put_name_list(w, ev->inputs, ev->n_inputs);
        PUT_LIT(w, ",\"INSTRUCTION\":\"CALL\",\"NAME\":");
        put_str(w, ev->op);
        PUT_LIT(w, ",\"RESULT\":[");
        for (uint32_t i = 0; i < ev->n_outputs; i++) {
            if (i)
                PUT_LIT(w, ",");
            put_name(w, ev->outputs[i].id);
        }
        PUT_LIT(w, "],\"TIME\":");
        put_u64_str(w, ev->dur_ns);
        PUT_LIT(w, "}\n");
        for (uint32_t i = 0; i < ev->n_outputs; i++) {
            put_memory_line(w, ev->outputs[i].id, ev->outputs[i].size);
            PUT_LIT(w, "{\"ALIAS\":");
            put_i64_str(w, ev->outputs[i].alias_of);
            PUT_LIT(w, ",\"INSTRUCTION\":\"ALIAS\",\"NAME\":");
            put_name(w, ev->outputs[i].id);
            PUT_LIT(w, "}\n");
        }
        break;
    case GMT_MUTATE:
        PUT_LIT(w, "{\"ARGS\":");
        put_name_list(w, ev->inputs, ev->n_inputs);
        PUT_LIT(w, ",\"INSTRUCTION\":\"MUTATE\",\"MUTATE\":[");
        for (uint32_t i = 0; i < ev->n_mutated; i++) {
            if (i)
                PUT_LIT(w, ",");
            put_u64(w, ev->mutated[i]);
        }
        PUT_LIT(w, "],\"NAME\":");
        put_str(w, ev->op);
        PUT_LIT(w, ",\"TIME\":");
        put_u64_str(w, ev->dur_ns);
        PUT_LIT(w, "}\n");
        break;
    case GMT_COPY:
    case GMT_COPY_FROM:
        PUT_LIT(w, "{\"DST\":");
        put_name(w, ev->id);
        if (ev->kind == GMT_COPY)
            PUT_LIT(w, ",\"INSTRUCTION\":\"COPY\",\"SRC\":");
        else
            PUT_LIT(w, ",\"INSTRUCTION\":\"COPY_FROM\",\"SRC\":");
        put_name(w, ev->src);
        PUT_LIT(w, "}\n");
        break;
    case GMT_RELEASE:
        PUT_LIT(w, "{\"INSTRUCTION\":\"RELEASE\",\"NAME\":");
        put_name(w, ev->id);
        PUT_LIT(w, "}\n");
        break;
    case GMT_ANNOTATE:
        PUT_LIT(w, "{\"ANNOTATION\":");
        put_str(w, ev->text);
        PUT_LIT(w, ",\"INSTRUCTION\":\"ANNOTATE\"");
        if (ev->has_value) {
            PUT_LIT(w, ",\"VALUE\":");
            put_i64_str(w, ev->value);
        }
        PUT_LIT(w, "}\n");
        break;
    case GMT_NAME:
    case GMT_SCOPE:
        break;
    }
}

int dtrlog_writer_write(dtrlog_writer *w, const gmt_event *ev, gms_error *err)
{
    if (ev && ev->kind == GMT_SCOPE) {
        w->dropped_scopes++; /* no log line can say it; the caller reports the count */
        return 0;
    }
    int rc = check_event(w, ev, err);
    if (rc != 0)
        return rc;
    if (ev->kind == GMT_NAME) {
        if ((rc = bind_name(w, ev, err)) != 0)
            return rc;
    } else {
        w->len = 0;
        w->oom = w->bad_text = 0;
        format_event(w, ev);
        if (w->oom)
            return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", w->path);
        if (w->bad_text)
            return bad_event(w, err, "%s %s: text is not valid UTF-8", gmt_kind_name(ev->kind),
                             ev->op ? ev->op : "");
        if (fwrite(w->buf, 1, w->len, w->f) != w->len)
            return gms_error_set(err, GMS_EIO, "%s: write failed: %s", w->tmp, strerror(errno));
    }
    w->events++;
    return 0;
}

uint64_t dtrlog_writer_events_written(const dtrlog_writer *w)
{
    return w->events;
}

uint64_t dtrlog_writer_late_names(const dtrlog_writer *w)
{
    return w->late_names;
}

uint64_t dtrlog_writer_dropped_scopes(const dtrlog_writer *w)
{
    return w->dropped_scopes;
}

static void free_writer(dtrlog_writer *w)
{
    free(w->used);
    gmt_namemap_free(w->by_name);
    gmt_namemap_free(w->by_id);
    free(w->buf);
    free(w->path);
    if (w->tmp)
        gms_tmp_done(w->tmp); /* renamed into place or removed by now */
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
