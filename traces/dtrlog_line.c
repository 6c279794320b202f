/* dtrlog_line: flat-record parsing of DTR log lines (see dtrlog_line.h). */
#include "dtrlog_line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dl_record_init(dl_record *rec)
{
    memset(rec, 0, sizeof *rec);
}

void dl_record_clear(dl_record *rec)
{
    json_decref(rec->json);
    rec->json = NULL;
    rec->n_fields = 0;
    rec->n_items = 0;
}

void dl_record_free(dl_record *rec)
{
    dl_record_clear(rec);
    free(rec->items);
    rec->items = NULL;
    rec->cap_items = 0;
}

/* Appends an item; returns it, or NULL when out of memory. */
static dl_item *push_item(dl_record *rec)
{
    if (rec->n_items == rec->cap_items) {
        size_t cap = rec->cap_items ? rec->cap_items * 2 : 16;
        dl_item *p = realloc(rec->items, cap * sizeof *p);
        if (!p)
            return NULL;
        rec->items = p;
        rec->cap_items = cap;
    }
    dl_item *it = &rec->items[rec->n_items++];
    memset(it, 0, sizeof *it);
    return it;
}

const dl_field *dl_get(const dl_record *rec, const char *key)
{
    for (size_t i = 0; i < rec->n_fields; i++)
        if (strcmp(rec->fields[i].key, key) == 0)
            return &rec->fields[i];
    return NULL;
}

/* ------------------------------------------------------------------------------------------
 * Fast path. Returns 1 when the line was fully parsed, 0 to fall back to jansson (the record
 * is then reset), -2 when out of memory.
 */
typedef struct cursor {
    char *p, *end;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
        c->p++;
}

/* A string without escapes made of printable ASCII; (*s, *len) = its content (the closing quote
 * is at s[len], to be NUL-terminated on success). */
static int fast_string(cursor *c, char **s, size_t *len)
{
    if (c->p >= c->end || *c->p != '"')
        return 0;
    char *start = ++c->p;
    while (c->p < c->end) {
        unsigned char ch = (unsigned char)*c->p;
        if (ch == '"') {
            *s = start;
            *len = (size_t)(c->p - start);
            c->p++;
            return 1;
        }
        if (ch < 0x20 || ch > 0x7e || ch == '\\')
            return 0;
        c->p++;
    }
    return 0;
}

/* A JSON integer of at most 18 digits (so it fits int64 without checks). */
static int fast_int(cursor *c, int64_t *out)
{
    int neg = 0;
    if (c->p < c->end && *c->p == '-') {
        neg = 1;
        c->p++;
    }
    char *start = c->p;
    int64_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && c->p - start < 18)
        v = v * 10 + (*c->p++ - '0');
    size_t n = (size_t)(c->p - start); /* a 19th digit is caught just below */
    if (n == 0 || n > 18 || (start[0] == '0' && n > 1))
        return 0;
    if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E' ||
                          (*c->p >= '0' && *c->p <= '9')))
        return 0;
    *out = neg ? -v : v;
    return 1;
}

static int fast_parse(dl_record *rec, char *line, size_t len)
{
    cursor c = {line, line + len};
    /* closing quotes to NUL-terminate once the whole line is known to be good */
    char *ends[DL_MAX_FIELDS * 2];
    size_t n_ends = 0;
    skip_ws(&c);
    if (c.p >= c.end || *c.p++ != '{')
        return 0;
    skip_ws(&c);
    if (c.p < c.end && *c.p == '}') {
        c.p++;
    } else {
        for (;;) {
            if (rec->n_fields == DL_MAX_FIELDS)
                return 0;
            dl_field *f = &rec->fields[rec->n_fields];
            char *k;
            if (!fast_string(&c, &k, &f->key_len))
                return 0;
            for (size_t i = 0; i < rec->n_fields; i++)
                if (rec->fields[i].key_len == f->key_len &&
                    memcmp(rec->fields[i].key, k, f->key_len) == 0)
                    return 0; /* duplicate key: jansson reports it */
            f->key = k;
            ends[n_ends++] = k + f->key_len;
            skip_ws(&c);
            if (c.p >= c.end || *c.p++ != ':')
                return 0;
            skip_ws(&c);
            if (c.p < c.end && *c.p == '"') {
                char *s;
                if (!fast_string(&c, &s, &f->len))
                    return 0;
                f->type = DL_STRING;
                f->s = s;
                ends[n_ends++] = s + f->len;
            } else if (c.p < c.end && *c.p == '[') {
                c.p++;
                f->type = DL_ARRAY;
                f->first = rec->n_items;
                f->n = 0;
                skip_ws(&c);
                if (c.p < c.end && *c.p == ']') {
                    c.p++;
                } else {
                    for (;;) {
                        dl_item *it = push_item(rec);
                        if (!it)
                            return -2;
                        if (c.p < c.end && *c.p == '"') {
                            char *s;
                            if (!fast_string(&c, &s, &it->len))
                                return 0;
                            it->kind = DL_ITEM_STRING;
                            it->s = s;
                            /* NUL-terminated below through the item itself */
                        } else {
                            if (!fast_int(&c, &it->i))
                                return 0;
                            it->kind = DL_ITEM_INT;
                        }
                        f->n++;
                        skip_ws(&c);
                        if (c.p < c.end && *c.p == ',') {
                            c.p++;
                            skip_ws(&c);
                            continue;
                        }
                        if (c.p < c.end && *c.p == ']') {
                            c.p++;
                            break;
                        }
                        return 0;
                    }
                }
            } else {
                return 0; /* numbers, objects, true/false/null: leave them to jansson */
            }
            rec->n_fields++;
            skip_ws(&c);
            if (c.p < c.end && *c.p == ',') {
                c.p++;
                skip_ws(&c);
                continue;
            }
            if (c.p < c.end && *c.p == '}') {
                c.p++;
                break;
            }
            return 0;
        }
    }
    skip_ws(&c);
    if (c.p != c.end)
        return 0;
    for (size_t i = 0; i < n_ends; i++)
        *ends[i] = '\0';
    for (size_t i = 0; i < rec->n_items; i++)
        if (rec->items[i].kind == DL_ITEM_STRING)
            ((char *)rec->items[i].s)[rec->items[i].len] = '\0';
    return 1;
}

/* ------------------------------------------------------------------------------------------
 * Slow path: jansson, then the same flat record with pointers into the JSON values.
 */
static int slow_parse(dl_record *rec, const char *line, size_t len, char *what, size_t what_len)
{
    json_error_t jerr;
    json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!o) {
        snprintf(what, what_len, "not valid JSON: %s (column %d)", jerr.text, jerr.column);
        return -1;
    }
    rec->json = o;
    if (!json_is_object(o)) {
        snprintf(what, what_len, "not a JSON object");
        return -1;
    }
    if (json_object_size(o) > DL_MAX_FIELDS) {
        snprintf(what, what_len, "%zu keys in one line (at most %d expected)",
                 json_object_size(o), DL_MAX_FIELDS);
        return -1;
    }
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        dl_field *f = &rec->fields[rec->n_fields++];
        memset(f, 0, sizeof *f);
        f->key = key;
        f->key_len = strlen(key);
        if (json_is_string(v)) {
            f->type = DL_STRING;
            f->s = json_string_value(v);
            f->len = json_string_length(v);
        } else if (json_is_array(v)) {
            f->type = DL_ARRAY;
            f->first = rec->n_items;
            f->n = json_array_size(v);
            for (size_t i = 0; i < f->n; i++) {
                json_t *x = json_array_get(v, i);
                dl_item *it = push_item(rec);
                if (!it)
                    return -2;
                if (json_is_string(x)) {
                    it->kind = DL_ITEM_STRING;
                    it->s = json_string_value(x);
                    it->len = json_string_length(x);
                } else if (json_is_integer(x)) {
                    it->kind = DL_ITEM_INT;
                    it->i = (int64_t)json_integer_value(x);
                } else {
                    it->kind = DL_ITEM_OTHER;
                }
            }
        } else {
            f->type = DL_OTHER;
        }
    }
    return 0;
}

int dl_parse(dl_record *rec, char *line, size_t len, int fast, char *what, size_t what_len)
{
    dl_record_clear(rec);
    if (fast) {
        int rc = fast_parse(rec, line, len);
        if (rc == 1)
            return 0;
        if (rc == -2)
            return -2;
        rec->n_fields = 0;
        rec->n_items = 0;
    }
    return slow_parse(rec, line, len, what, what_len);
}
