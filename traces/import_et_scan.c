/* import_et_scan: the top level of an Execution Trace's JSON text (import_et_scan.h). */
#include "import_et_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void et_scan_where(const et_scan *s, const char *p, char *out, size_t n)
{
    size_t line = 1;
    const char *bol = s->buf;
    for (const char *q = s->buf; q < p; q++)
        if (*q == '\n') {
            line++;
            bol = q + 1;
        }
    snprintf(out, n, "line %zu column %zu", line, (size_t)(p - bol) + 1);
}

static int bad(const et_scan *s, const char *p, const char *what, gms_error *err)
{
    char where[64];
    et_scan_where(s, p, where, sizeof where);
    return gms_error_set(err, GMS_EFORMAT, "%s: not valid JSON at %s (%s); is the file complete?",
                         s->name, where, p >= s->end ? "unexpected end of file" : what);
}

static const char *ws(const et_scan *s, const char *p)
{
    while (p < s->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* p at '"': returns the position after the closing quote, or NULL. */
static const char *skip_string(const et_scan *s, const char *p)
{
    for (p++; p < s->end; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

/* Skips one value (string, number, literal, or a balanced object or array); NULL on an error.
 * Nesting is bounded only by the text: the depth is a counter, not recursion. */
static const char *skip_value(const et_scan *s, const char *p)
{
    if (p >= s->end)
        return NULL;
    if (*p == '"')
        return skip_string(s, p);
    if (*p != '{' && *p != '[') {
        const char *q = p;
        while (q < s->end && !strchr(",}] \n\r\t", *q))
            q++;
        return q > p ? q : NULL;
    }
    size_t depth = 0;
    for (; p < s->end; p++) {
        char c = *p;
        if (c == '"') {
            p = skip_string(s, p);
            if (!p)
                return NULL;
            p--;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth == 0)
                return p + 1;
        }
    }
    return NULL;
}

static int key_is(const char *k, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(k, want, n) == 0;
}

int et_scan_top(et_scan *s, const char *buf, size_t len, const char *name, gms_error *err)
{
    memset(s, 0, sizeof *s);
    s->pid = -1;
    s->buf = buf;
    s->end = buf + len;
    s->name = name;
    const char *p = ws(s, buf);
    if (p >= s->end || *p != '{')
        return p < s->end && *p == '['
                   ? gms_error_set(err, GMS_EFORMAT,
                                   "%s: not a PyTorch Execution Trace: the JSON is not an object",
                                   name)
                   : bad(s, p, "expected '{'", err);
    p = ws(s, p + 1);
    if (p < s->end && *p == '}')
        return 0;
    for (;;) {
        if (p >= s->end || *p != '"')
            return bad(s, p, "expected a key", err);
        const char *k = p + 1, *ke = skip_string(s, p);
        if (!ke)
            return bad(s, s->end, "", err);
        p = ws(s, ke);
        if (p >= s->end || *p != ':')
            return bad(s, p, "expected ':'", err);
        p = ws(s, p + 1);
        size_t kn = (size_t)(ke - 1 - k);
        const char *v = p;
        p = skip_value(s, p);
        if (!p) /* an unclosed string, object or array runs to the end of the text */
            return bad(s, v < s->end && !strchr("\"{[", *v) ? v : s->end, "bad value", err);
        if (key_is(k, kn, "schema") && *v == '"' && (size_t)(p - v - 2) < sizeof s->schema) {
            memcpy(s->schema, v + 1, (size_t)(p - v - 2));
            s->schema[p - v - 2] = '\0';
            s->have_schema = !memchr(s->schema, '\\', strlen(s->schema));
        } else if (key_is(k, kn, "pid") && p - v < 20 && *v >= '0' && *v <= '9') {
            char num[24];
            memcpy(num, v, (size_t)(p - v));
            num[p - v] = '\0';
            s->pid = strtoll(num, NULL, 10);
        } else if (key_is(k, kn, "nodes")) {
            s->nodes = *v == '[' ? v + 1 : NULL;
            s->nodes_not_array = *v != '[';
        }
        p = ws(s, p);
        if (p < s->end && *p == ',') {
            p = ws(s, p + 1);
            continue;
        }
        if (p < s->end && *p == '}')
            break;
        return bad(s, p, "expected ',' or '}'", err);
    }
    p = ws(s, p + 1);
    if (p < s->end)
        return bad(s, p, "text after the top-level object", err);
    s->p = s->nodes;
    return 0;
}

int et_scan_node(et_scan *s, const char **elem, size_t *len, gms_error *err)
{
    if (!s->p)
        return 0;
    const char *p = ws(s, s->p);
    if (p < s->end && *p == ']') {
        s->p = NULL;
        return 0;
    }
    if (p > ws(s, s->nodes) && (p >= s->end || *p != ','))
        return bad(s, p, "expected ',' or ']' between nodes", err);
    if (p > ws(s, s->nodes))
        p = ws(s, p + 1);
    const char *e = skip_value(s, p);
    if (!e)
        return bad(s, p >= s->end ? s->end : p, "bad node", err);
    *elem = p;
    *len = (size_t)(e - p);
    s->p = e;
    return 1;
}
