/*
 * gmt_encode: turns events into the records of an event frame's body
 * (docs/trace-format.md, "Event records"). Keeps the id state (ids are written as deltas
 * against the last new id) and the string table (each distinct op name or annotation kind is
 * written once, then referenced by its index).
 */
#include <stdlib.h>
#include <string.h>

#include "gmt_format.h"
#include "gmt_varint.h"

/* ------------------------------------------------------------------------------------------
 * String table: open addressing over (string, index). Only grows.
 */
typedef struct strtab_slot {
    char *s; /* NULL: empty slot */
    size_t len;
    uint64_t hash;
    uint64_t index;
} strtab_slot;

struct gmt_strtab {
    strtab_slot *slots;
    size_t cap; /* power of two */
    uint64_t count;
};

static uint64_t str_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (uint8_t)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static strtab_slot *strtab_slot_for(strtab_slot *slots, size_t cap, const char *s, size_t len,
                                    uint64_t h)
{
    size_t i = (size_t)h & (cap - 1);
    while (slots[i].s && !(slots[i].hash == h && slots[i].len == len &&
                           memcmp(slots[i].s, s, len) == 0))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

/* Finds s; when absent adds it with the next index (*added = 1). Returns the index, or -1
 * when out of memory (the table is then unchanged). */
static int64_t strtab_intern(gmt_strtab *t, const char *s, size_t len, int *added)
{
    uint64_t h = str_hash(s, len);
    *added = 0;
    if (t->cap) {
        strtab_slot *slot = strtab_slot_for(t->slots, t->cap, s, len, h);
        if (slot->s)
            return (int64_t)slot->index;
    }
    if ((t->count + 1) * 2 > t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 64;
        strtab_slot *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return -1;
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].s)
                *strtab_slot_for(ns, ncap, t->slots[i].s, t->slots[i].len, t->slots[i].hash) =
                    t->slots[i];
        free(t->slots);
        t->slots = ns;
        t->cap = ncap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, len);
    copy[len] = '\0';
    strtab_slot *slot = strtab_slot_for(t->slots, t->cap, s, len, h);
    slot->s = copy;
    slot->len = len;
    slot->hash = h;
    slot->index = t->count++;
    *added = 1;
    return (int64_t)slot->index;
}

static void strtab_free(gmt_strtab *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].s);
    free(t->slots);
    free(t);
}

/* ------------------------------------------------------------------------------------------
 * Encoder
 */
int gmt_encoder_init(gmt_encoder *e)
{
    memset(e, 0, sizeof *e);
    e->prev = UINT64_MAX; /* so the first new id 0 costs one byte */
    e->strings = calloc(1, sizeof *e->strings);
    e->scope_names = calloc(1, sizeof *e->scope_names);
    return e->strings && e->scope_names ? 0 : GMS_ENOMEM;
}

void gmt_encoder_free(gmt_encoder *e)
{
    strtab_free(e->strings);
    strtab_free(e->scope_names);
    for (uint32_t i = 0; i < e->depth; i++)
        free(e->open[i]);
    free(e->buf);
    memset(e, 0, sizeof *e);
}

void gmt_encoder_reset_batch(gmt_encoder *e)
{
    e->len = 0;
    e->n_events = 0;
}

static int reserve(gmt_encoder *e, size_t more)
{
    if (e->len + more <= e->cap)
        return 0;
    size_t ncap = e->cap ? e->cap : 4096;
    while (ncap < e->len + more)
        ncap *= 2;
    uint8_t *nb = realloc(e->buf, ncap);
    if (!nb)
        return GMS_ENOMEM;
    e->buf = nb;
    e->cap = ncap;
    return 0;
}

static inline void put_uv(gmt_encoder *e, uint64_t v)
{
    e->len += gmt_put_uv(e->buf + e->len, v);
}

/* An id in a "new id" position: delta against prev + 1, then it becomes prev. */
static inline void put_new_id(gmt_encoder *e, uint64_t id)
{
    put_uv(e, gmt_zigzag((int64_t)(id - (e->prev + 1))));
    e->prev = id;
}

/* The tag of an event that makes one new id, then the id: prev + 1 (the common case) costs
 * only the GMT_F_NEXT flag, any other id follows as a delta. */
static inline void put_tag_new_id(gmt_encoder *e, uint8_t tag, uint64_t id)
{
    if (id == e->prev + 1) {
        e->buf[e->len++] = tag | GMT_F_NEXT;
        e->prev = id;
    } else {
        e->buf[e->len++] = tag;
        put_new_id(e, id);
    }
}

/* An id in a "reference" position: prev - id, zigzag (recent ids are small). */
static inline void put_ref_id(gmt_encoder *e, uint64_t id)
{
    put_uv(e, gmt_zigzag((int64_t)(e->prev - id)));
}

static void put_bytes(gmt_encoder *e, const char *s, size_t len)
{
    put_uv(e, len);
    memcpy(e->buf + e->len, s, len);
    e->len += len;
}

/* A string-table reference: its index, or (first use) the next index plus the bytes. */
static void put_str(gmt_encoder *e, const char *s, size_t len, int64_t index, int added)
{
    put_uv(e, (uint64_t)index);
    if (added)
        put_bytes(e, s, len);
}

static int check_string(const char *what, const char *s, size_t *len, gms_error *err)
{
    *len = strlen(s);
    if (*len > GMT_MAX_STRING)
        return gms_error_set(err, GMS_EINVAL, "%s is %zu bytes long; .gmt allows at most %u",
                             what, *len, GMT_MAX_STRING);
    return 0;
}

/* A SCOPE as an extension record (docs/trace-format.md section 2.4): tag 15, uv length, then
 * uv GMT_EXT_SCOPE_BEGIN + sref name (scope-name table) or uv GMT_EXT_SCOPE_END. A 1.0
 * reader skips it whole; frames do not count it. Checked against the open scopes first, so a
 * refused scope changes nothing. */
static int add_scope(gmt_encoder *e, const gmt_event *ev, gms_error *err)
{
    if (ev->scope_end) {
        if (e->depth == 0)
            return gms_error_set(err, GMS_EINVAL,
                                 "SCOPE end%s%s%s without an open scope: every end needs an "
                                 "earlier begin", ev->text ? " '" : "", ev->text ? ev->text : "",
                                 ev->text ? "'" : "");
        const char *open = e->open[e->depth - 1];
        if (ev->text && strcmp(ev->text, open) != 0)
            return gms_error_set(err, GMS_EINVAL,
                                 "SCOPE end '%s' does not match the innermost open scope '%s': "
                                 "close scopes in the reverse order of their begins", ev->text,
                                 open);
        if (reserve(e, 3))
            return gms_error_set(err, GMS_ENOMEM, "out of memory encoding an event");
        e->buf[e->len++] = GMT_TAG_EXT;
        e->buf[e->len++] = 1;
        e->buf[e->len++] = GMT_EXT_SCOPE_END;
        free(e->open[--e->depth]);
        return 0;
    }
    size_t len;
    int rc = check_string("scope name", ev->text, &len, err);
    if (rc)
        return rc;
    if (e->depth >= GMT_MAX_SCOPE_DEPTH)
        return gms_error_set(err, GMS_EINVAL,
                             "SCOPE begin '%s': more than %u scopes open at once; .gmt allows at "
                             "most %u (is a SCOPE end missing?)", ev->text, GMT_MAX_SCOPE_DEPTH,
                             GMT_MAX_SCOPE_DEPTH);
    if (e->scope_names->count >= GMT_MAX_STRINGS)
        return gms_error_set(err, GMS_EINVAL, "more than %llu distinct scope names",
                             (unsigned long long)GMT_MAX_STRINGS);
    char *copy = malloc(len + 1);
    if (!copy || reserve(e, 1 + 4 * GMT_VARINT_MAX + len)) {
        free(copy);
        return gms_error_set(err, GMS_ENOMEM, "out of memory encoding an event");
    }
    int added;
    int64_t index = strtab_intern(e->scope_names, ev->text, len, &added);
    if (index < 0) {
        free(copy);
        return gms_error_set(err, GMS_ENOMEM, "out of memory adding a scope name");
    }
    memcpy(copy, ev->text, len + 1);
    e->open[e->depth++] = copy;
    uint8_t payload[3 * GMT_VARINT_MAX];
    size_t n = gmt_put_uv(payload, GMT_EXT_SCOPE_BEGIN);
    n += gmt_put_uv(payload + n, (uint64_t)index);
    size_t total = n + (added ? gmt_put_uv(payload + n, len) + len : 0);
    e->buf[e->len++] = GMT_TAG_EXT;
    put_uv(e, total);
    memcpy(e->buf + e->len, payload, n);
    e->len += n;
    if (added)
        put_bytes(e, ev->text, len);
    return 0;
}

/* Validates ev against the model and the format's limits, then appends its record. Space is
 * reserved and the string interned before the first byte is written, so a failure leaves the
 * batch and the id state untouched. */
int gmt_encoder_add(gmt_encoder *e, const gmt_event *ev, gms_error *err)
{
    int rc = gmt_event_validate(ev, err);
    if (rc)
        return rc;
    if (ev->kind == GMT_SCOPE)
        return add_scope(e, ev, err);
    const char *str = NULL; /* the string-table string of this event, if any */
    size_t str_len = 0, text_len = 0;
    if (ev->kind == GMT_CALL || ev->kind == GMT_MUTATE) {
        if (ev->n_inputs > GMT_MAX_INPUTS)
            return gms_error_set(err, GMS_EINVAL, "%s %s: %u inputs; .gmt allows at most %u",
                                 gmt_kind_name(ev->kind), ev->op, ev->n_inputs, GMT_MAX_INPUTS);
        if (ev->kind == GMT_CALL && ev->n_outputs > GMT_MAX_OUTPUTS)
            return gms_error_set(err, GMS_EINVAL, "CALL %s: %u outputs; .gmt allows at most %u",
                                 ev->op, ev->n_outputs, GMT_MAX_OUTPUTS);
        if (ev->kind == GMT_MUTATE && ev->n_mutated > GMT_MAX_INPUTS)
            return gms_error_set(err, GMS_EINVAL, "MUTATE %s: %u mutated; .gmt allows at most %u",
                                 ev->op, ev->n_mutated, GMT_MAX_INPUTS);
        str = ev->op;
        if ((rc = check_string("op name", str, &str_len, err)))
            return rc;
    } else if (ev->kind == GMT_ANNOTATE) {
        str = ev->text;
        if ((rc = check_string("annotation", str, &str_len, err)))
            return rc;
    } else if (ev->kind == GMT_NAME) {
        if ((rc = check_string("tensor name", ev->text, &text_len, err)))
            return rc;
    }
    size_t worst = 4 * GMT_VARINT_MAX + str_len + text_len + 2 * GMT_VARINT_MAX;
    if (ev->kind == GMT_CALL || ev->kind == GMT_MUTATE)
        worst += (size_t)GMT_VARINT_MAX *
                 (3 + ev->n_inputs + ev->n_mutated + 3 * (size_t)(ev->kind == GMT_CALL
                                                                       ? ev->n_outputs : 0));
    if (reserve(e, worst))
        return gms_error_set(err, GMS_ENOMEM, "out of memory encoding an event");
    int64_t index = 0;
    int added = 0;
    if (str) {
        if (e->strings->count >= GMT_MAX_STRINGS)
            return gms_error_set(err, GMS_EINVAL,
                                 "more than %llu distinct op names and annotation kinds",
                                 (unsigned long long)GMT_MAX_STRINGS);
        index = strtab_intern(e->strings, str, str_len, &added);
        if (index < 0)
            return gms_error_set(err, GMS_ENOMEM, "out of memory adding a string");
    }

    uint8_t tag = (uint8_t)ev->kind;
    switch (ev->kind) {
    case GMT_CONSTANT:
        put_tag_new_id(e, tag, ev->id);
        put_uv(e, ev->size);
        break;
    case GMT_COPY:
        put_tag_new_id(e, tag, ev->id);
        put_ref_id(e, ev->src);
        break;
    case GMT_COPY_FROM:
        e->buf[e->len++] = tag;
        put_ref_id(e, ev->id);
        put_ref_id(e, ev->src);
        break;
    case GMT_RELEASE:
        e->buf[e->len++] = tag;
        put_ref_id(e, ev->id);
        break;
    case GMT_NAME:
        e->buf[e->len++] = tag;
        put_ref_id(e, ev->id);
        put_bytes(e, ev->text, text_len);
        break;
    case GMT_ANNOTATE:
        e->buf[e->len++] = tag | (ev->has_value ? GMT_F_VALUE : 0);
        put_str(e, str, str_len, index, added);
        if (ev->has_value)
            put_uv(e, gmt_zigzag(ev->value));
        break;
    case GMT_SCOPE:
        break; /* add_scope */
    case GMT_CALL:
    case GMT_MUTATE: {
        int next = 0;
        if (ev->kind == GMT_CALL) {
            next = 1;
            for (uint32_t i = 0; i < ev->n_outputs && next; i++)
                next = ev->outputs[i].id == e->prev + 1 + i;
        }
        uint32_t nin = ev->n_inputs < GMT_F_NIN_MAX ? ev->n_inputs : GMT_F_NIN_MAX;
        e->buf[e->len++] = tag | (next ? GMT_F_NEXT : 0) | (uint8_t)(nin << GMT_F_NIN_SHIFT);
        if (nin == GMT_F_NIN_MAX)
            put_uv(e, ev->n_inputs);
        put_str(e, str, str_len, index, added);
        put_uv(e, ev->dur_ns);
        for (uint32_t i = 0; i < ev->n_inputs; i++)
            put_ref_id(e, ev->inputs[i]);
        if (ev->kind == GMT_CALL) {
            put_uv(e, ev->n_outputs);
            for (uint32_t i = 0; i < ev->n_outputs; i++) {
                const gmt_output *o = &ev->outputs[i];
                if (next)
                    e->prev = o->id;
                else
                    put_new_id(e, o->id);
                put_uv(e, (uint64_t)((int64_t)o->alias_of + 1));
                put_uv(e, o->size);
            }
        } else {
            put_uv(e, ev->n_mutated);
            for (uint32_t i = 0; i < ev->n_mutated; i++)
                put_uv(e, ev->mutated[i]);
        }
        break;
    }
    }
    e->n_events++;
    return 0;
}
