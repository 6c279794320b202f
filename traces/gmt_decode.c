/*
 * gmt_decode: turns the records of an event frame's body back into events
 * (docs/trace-format.md, "Event records"). This is the reader's hot loop: no allocation per
 * event (scratch arrays grow to the largest event seen, strings are allocated once when the
 * string table grows), one-byte varints decoded inline, and every count, index and length
 * checked against the format's limits and the bytes left before it is used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmt_format.h"
#include "gmt_varint.h"

void gmt_decoder_init(gmt_decoder *d)
{
    memset(d, 0, sizeof *d);
    d->prev = UINT64_MAX;
}

void gmt_decoder_free(gmt_decoder *d)
{
    for (uint64_t i = 0; i < d->n_strings; i++)
        free(d->strings[i]);
    free(d->strings);
    free(d->inputs);
    free(d->outputs);
    free(d->mutated);
    for (uint64_t i = 0; i < d->n_scope_names; i++)
        free(d->scope_names[i]);
    free(d->scope_names);
    memset(d, 0, sizeof *d);
}

void gmt_decoder_set_body(gmt_decoder *d, const uint8_t *p, size_t len)
{
    d->p = p;
    d->end = p + len;
}

/* Grows a scratch array to hold n elements (n is already capped by the format limits). */
static int grow(void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
    if (n <= *cap)
        return 0;
    uint32_t ncap = *cap ? *cap : 16;
    while (ncap < n)
        ncap *= 2;
    void *na = realloc(*arr, (size_t)ncap * elem);
    if (!na)
        return -1;
    *arr = na;
    *cap = ncap;
    return 0;
}

#define FAIL(...)                                 \
    do {                                          \
        snprintf(what, what_len, __VA_ARGS__);    \
        return GMS_EFORMAT;                       \
    } while (0)
#define GET_UV(var, field)                                                 \
    do {                                                                   \
        if (gmt_get_uv(&p, end, &(var)))                                   \
            FAIL("%s: %s runs past the end of its frame or exceeds 64 bits", \
                 gmt_kind_name(kind), field);                              \
    } while (0)

/* Reads a string's length and bytes (no NUL inside, at most GMT_MAX_STRING) and copies it,
 * NUL-terminated, into dst. Returns 0 or -1. */
static int get_text(const uint8_t **pp, const uint8_t *end, char *dst, const char **why)
{
    uint64_t len;
    if (gmt_get_uv(pp, end, &len)) {
        *why = "length runs past the end of its frame";
        return -1;
    }
    if (len > GMT_MAX_STRING) {
        *why = "is longer than 4095 bytes";
        return -1;
    }
    if (len > (uint64_t)(end - *pp)) {
        *why = "runs past the end of its frame";
        return -1;
    }
    if (memchr(*pp, '\0', (size_t)len)) {
        *why = "contains a NUL byte";
        return -1;
    }
    memcpy(dst, *pp, (size_t)len);
    dst[len] = '\0';
    *pp += len;
    return 0;
}

/* Appends a copy of text to a table of strings (op names, scope names); the copy, or NULL when
 * out of memory (the table is then unchanged). */
static char *table_append(char ***tab, uint64_t *n, uint64_t *cap, const char *text)
{
    if (*n == *cap) {
        uint64_t ncap = *cap ? *cap * 2 : 64;
        char **nt = realloc(*tab, (size_t)ncap * sizeof *nt);
        if (!nt)
            return NULL;
        *tab = nt;
        *cap = ncap;
    }
    size_t len = strlen(text);
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    memcpy(s, text, len + 1);
    (*tab)[(*n)++] = s;
    return s;
}

/* Reads a string-table reference; a reference to the next free index defines the entry. */
static int get_str(gmt_decoder *d, const uint8_t **pp, const uint8_t *end, const char **out,
                   char *what, size_t what_len, gmt_kind kind)
{
    uint64_t k;
    if (gmt_get_uv(pp, end, &k))
        FAIL("%s: string index runs past the end of its frame", gmt_kind_name(kind));
    if (k < d->n_strings) {
        *out = d->strings[k];
        return 0;
    }
    if (k > d->n_strings)
        FAIL("%s: string index %llu but the string table has %llu entries", gmt_kind_name(kind),
             (unsigned long long)k, (unsigned long long)d->n_strings);
    if (d->n_strings >= GMT_MAX_STRINGS)
        FAIL("%s: string table exceeds %llu entries", gmt_kind_name(kind),
             (unsigned long long)GMT_MAX_STRINGS);
    const char *why;
    if (get_text(pp, end, d->text, &why))
        FAIL("%s: new string %llu %s", gmt_kind_name(kind), (unsigned long long)k, why);
    char *s = table_append(&d->strings, &d->n_strings, &d->cap_strings, d->text);
    if (!s) {
        snprintf(what, what_len, "out of memory growing the string table");
        return GMS_ENOMEM;
    }
    d->string_bytes += strlen(s) + 1;
    *out = s;
    return 0;
}

/* Decodes the input count (tag bits or a varint) and the op name, duration and inputs shared
 * by CALL and MUTATE. */
static inline int get_op_head(gmt_decoder *d, const uint8_t **pp, const uint8_t *end, uint8_t tag,
                       gmt_event *ev, char *what, size_t what_len)
{
    const uint8_t *p = *pp;
    gmt_kind kind = ev->kind;
    uint64_t n = tag >> GMT_F_NIN_SHIFT, v;
    if (n == GMT_F_NIN_MAX)
        GET_UV(n, "input count");
    if (n > GMT_MAX_INPUTS)
        FAIL("%s: %llu inputs (at most %u allowed)", gmt_kind_name(kind), (unsigned long long)n,
             GMT_MAX_INPUTS);
    int rc = get_str(d, &p, end, &ev->op, what, what_len, kind);
    if (rc)
        return rc;
    GET_UV(ev->dur_ns, "duration");
    if (n > (uint64_t)(end - p))
        FAIL("%s %s: %llu inputs but only %zu bytes left in the frame", gmt_kind_name(kind),
             ev->op, (unsigned long long)n, (size_t)(end - p));
    if (grow((void **)&d->inputs, &d->cap_inputs, (uint32_t)n, sizeof *d->inputs)) {
        snprintf(what, what_len, "out of memory");
        return GMS_ENOMEM;
    }
    uint64_t prev = d->prev;
    for (uint64_t i = 0; i < n; i++) {
        GET_UV(v, "input id");
        d->inputs[i] = prev - (uint64_t)gmt_unzigzag(v);
    }
    ev->n_inputs = (uint32_t)n;
    ev->inputs = d->inputs;
    *pp = p;
    return 0;
}

/* Reads a scope name reference (an sref against the scope-name table, which is apart from the
 * op-name table so that a 1.0 reader skipping scope records keeps its string indices). */
static int get_scope_name(gmt_decoder *d, const uint8_t **pp, const uint8_t *end,
                          const char **out, char *what, size_t what_len)
{
    uint64_t k;
    if (gmt_get_uv(pp, end, &k))
        FAIL("SCOPE begin: name index runs past the end of its record");
    if (k < d->n_scope_names) {
        *out = d->scope_names[k];
        return 0;
    }
    if (k > d->n_scope_names)
        FAIL("SCOPE begin: name index %llu but the scope-name table has %llu entries",
             (unsigned long long)k, (unsigned long long)d->n_scope_names);
    if (d->n_scope_names >= GMT_MAX_STRINGS)
        FAIL("SCOPE begin: scope-name table exceeds %llu entries",
             (unsigned long long)GMT_MAX_STRINGS);
    const char *why;
    if (get_text(pp, end, d->text, &why))
        FAIL("SCOPE begin: new name %llu %s", (unsigned long long)k, why);
    if (!d->text[0])
        FAIL("SCOPE begin: empty name (a scope needs its module path)");
    char *s = table_append(&d->scope_names, &d->n_scope_names, &d->cap_scope_names, d->text);
    if (!s) {
        snprintf(what, what_len, "out of memory growing the scope-name table");
        return GMS_ENOMEM;
    }
    *out = s;
    return 0;
}

/* Decodes the extension record payload [p, end) when it is a SCOPE record: returns
 * GMT_DECODED_SCOPE with *ev
 * set, 0 for any other extension type (skipped), or an error. Bytes after the fields of a
 * known type are a later minor version's additions and are ignored. */
static int scope_record(gmt_decoder *d, const uint8_t *p, const uint8_t *end, gmt_event *ev,
                        char *what, size_t what_len)
{
    uint64_t type;
    if (gmt_get_uv(&p, end, &type) ||
        (type != GMT_EXT_SCOPE_BEGIN && type != GMT_EXT_SCOPE_END))
        return 0;
    static const gmt_event zero;
    *ev = zero;
    ev->kind = GMT_SCOPE;
    if (type == GMT_EXT_SCOPE_END) {
        if (d->depth == 0)
            FAIL("SCOPE end without an open scope (the trace's scopes are unbalanced: "
                 "regenerate it with a fixed writer)");
        ev->scope_end = 1;
        ev->text = d->open[--d->depth];
        return GMT_DECODED_SCOPE;
    }
    int rc = get_scope_name(d, &p, end, &ev->text, what, what_len);
    if (rc)
        return rc;
    if (d->depth >= GMT_MAX_SCOPE_DEPTH)
        FAIL("SCOPE begin '%s': more than %u scopes open at once (innermost '%s')", ev->text,
             GMT_MAX_SCOPE_DEPTH, d->open[d->depth - 1]);
    d->open[d->depth++] = ev->text;
    return GMT_DECODED_SCOPE;
}

/* Reads an extension record after its tag: GMT_DECODED_SCOPE = a SCOPE event in *ev,
 * 0 = skipped, or an
 * error. *pp moves past the record. */
static int ext_record(gmt_decoder *d, const uint8_t **pp, const uint8_t *end, gmt_event *ev,
                      char *what, size_t what_len)
{
    const uint8_t *p = *pp;
    gmt_kind kind = (gmt_kind)GMT_TAG_EXT;
    uint64_t v;
    GET_UV(v, "extension length");
    if (v > (uint64_t)(end - p))
        FAIL("extension record of %llu bytes runs past the end of its frame",
             (unsigned long long)v);
    *pp = p + v;
    return d->scopes ? scope_record(d, p, p + v, ev, what, what_len) : 0;
}

int gmt_decoder_next(gmt_decoder *d, gmt_event *ev, char *what, size_t what_len)
{
    const uint8_t *p = d->p, *end = d->end;
    uint64_t v;
    uint8_t tag;
    gmt_kind kind;
    for (;;) {
        if (p >= end)
            FAIL("the frame ends before its last event");
        tag = *p++;
        kind = (gmt_kind)GMT_TAG_KIND(tag);
        if (kind != GMT_TAG_EXT)
            break;
        if (tag != GMT_TAG_EXT)
            FAIL("extension record with flags 0x%02x (must be 0)", tag & 0xf0);
        int rc = ext_record(d, &p, end, ev, what, what_len);
        if (rc == GMT_DECODED_SCOPE) {
            d->p = p;
            return 0;
        }
        if (rc)
            return rc;
    }
    /* gmt_event_init, inlined: this is the hot loop, and a struct copy compiles to a few
     * vector moves where memset becomes a slow `rep stos` */
    static const gmt_event zero;
    *ev = zero;
    ev->kind = kind;
    switch (kind) {
    case GMT_CONSTANT:
    case GMT_COPY:
        if (tag & 0xe0)
            FAIL("%s: reserved flag bits 0x%02x set", gmt_kind_name(kind), tag & 0xe0);
        if (tag & GMT_F_NEXT) {
            ev->id = d->prev + 1;
        } else {
            GET_UV(v, "id");
            ev->id = d->prev + 1 + (uint64_t)gmt_unzigzag(v);
        }
        d->prev = ev->id;
        if (kind == GMT_CONSTANT) {
            GET_UV(ev->size, "size");
        } else {
            GET_UV(v, "src");
            ev->src = d->prev - (uint64_t)gmt_unzigzag(v);
        }
        break;
    case GMT_COPY_FROM:
    case GMT_RELEASE:
    case GMT_NAME:
        if (tag & 0xf0)
            FAIL("%s: reserved flag bits 0x%02x set", gmt_kind_name(kind), tag & 0xf0);
        GET_UV(v, "id");
        ev->id = d->prev - (uint64_t)gmt_unzigzag(v);
        if (kind == GMT_COPY_FROM) {
            GET_UV(v, "src");
            ev->src = d->prev - (uint64_t)gmt_unzigzag(v);
        } else if (kind == GMT_NAME) {
            const char *why;
            if (get_text(&p, end, d->text, &why))
                FAIL("NAME: text %s", why);
            ev->text = d->text;
        }
        break;
    case GMT_ANNOTATE: {
        if (tag & 0xe0)
            FAIL("ANNOTATE: reserved flag bits 0x%02x set", tag & 0xe0);
        int rc = get_str(d, &p, end, &ev->text, what, what_len, kind);
        if (rc)
            return rc;
        if (tag & GMT_F_VALUE) {
            GET_UV(v, "value");
            ev->has_value = 1;
            ev->value = gmt_unzigzag(v);
        }
        break;
    }
    case GMT_CALL: {
        int rc = get_op_head(d, &p, end, tag, ev, what, what_len);
        if (rc)
            return rc;
        uint64_t n;
        GET_UV(n, "output count");
        if (n > GMT_MAX_OUTPUTS || n > (uint64_t)(end - p))
            FAIL("CALL %s: %llu outputs (at most %u allowed, %zu bytes left in the frame)", ev->op,
                 (unsigned long long)n, GMT_MAX_OUTPUTS, (size_t)(end - p));
        if (grow((void **)&d->outputs, &d->cap_outputs, (uint32_t)n, sizeof *d->outputs)) {
            snprintf(what, what_len, "out of memory");
            return GMS_ENOMEM;
        }
        int next = tag & GMT_F_NEXT;
        uint64_t prev = d->prev;
        for (uint64_t i = 0; i < n; i++) {
            gmt_output *o = &d->outputs[i];
            if (next) {
                o->id = ++prev;
            } else {
                GET_UV(v, "output id");
                o->id = prev + 1 + (uint64_t)gmt_unzigzag(v);
                prev = o->id;
            }
            GET_UV(v, "output alias");
            if (v > ev->n_inputs)
                FAIL("CALL %s: output %llu: alias_of %lld is not an input index (%u inputs)",
                     ev->op, (unsigned long long)i, (long long)v - 1, ev->n_inputs);
            o->alias_of = (int32_t)v - 1;
            GET_UV(o->size, "output size");
        }
        d->prev = prev;
        ev->n_outputs = (uint32_t)n;
        ev->outputs = d->outputs;
        break;
    }
    case GMT_MUTATE: {
        if (tag & GMT_F_NEXT)
            FAIL("MUTATE: reserved flag bit 0x10 set");
        int rc = get_op_head(d, &p, end, tag, ev, what, what_len);
        if (rc)
            return rc;
        uint64_t n;
        GET_UV(n, "mutated count");
        if (n > GMT_MAX_INPUTS || n > (uint64_t)(end - p))
            FAIL("MUTATE %s: %llu mutated indices (at most %u allowed, %zu bytes left in the "
                 "frame)", ev->op, (unsigned long long)n, GMT_MAX_INPUTS, (size_t)(end - p));
        if (grow((void **)&d->mutated, &d->cap_mutated, (uint32_t)n, sizeof *d->mutated)) {
            snprintf(what, what_len, "out of memory");
            return GMS_ENOMEM;
        }
        for (uint64_t i = 0; i < n; i++) {
            GET_UV(v, "mutated index");
            if (v >= ev->n_inputs)
                FAIL("MUTATE %s: mutated[%llu] = %llu is not an input index (%u inputs)", ev->op,
                     (unsigned long long)i, (unsigned long long)v, ev->n_inputs);
            d->mutated[i] = (uint32_t)v;
        }
        ev->n_mutated = (uint32_t)n;
        ev->mutated = d->mutated;
        break;
    }
    default:
        FAIL("unknown event kind %d (tag byte 0x%02x)", (int)kind, tag);
    }
    d->p = p;
    return 0;
}

/* After a frame's last counted event: hands back the SCOPE records left one at a time, skips
 * other extension records, and fails when anything else is left, so a frame whose event count
 * and body disagree is caught. */
int gmt_decoder_trailing(gmt_decoder *d, gmt_event *ev, char *what, size_t what_len)
{
    const uint8_t *p = d->p, *end = d->end;
    while (p < end) {
        if (*p != GMT_TAG_EXT)
            FAIL("%zu bytes left in the frame after its last event", (size_t)(end - p));
        p++;
        int rc = ext_record(d, &p, end, ev, what, what_len);
        if (rc) {
            if (rc == GMT_DECODED_SCOPE)
                d->p = p;
            return rc;
        }
    }
    d->p = p;
    return 0;
}
