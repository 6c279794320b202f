/*
 * dtrlog_reader: streams a DTR JSON log (see dtrlog.h) into gmt events.
 *
 * Each call to dtrlog_reader_next either hands out a queued event or reads one "record": a
 * CONSTANT line and its MEMORY line, a CALL line and its MEMORY/ALIAS pairs, or any other
 * single line. A record becomes one event, preceded by a GMT_NAME event for every tensor name
 * it uses for the first time that is not "x<digits>".
 */
#include "dtrlog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dtrlog_line.h"
#include "gmt_namemap.h"

#define READ_CHUNK (64 * 1024)

typedef struct pending_name {
    uint64_t id;
    const char *text; /* owned by the name map */
} pending_name;

typedef struct line_buf {
    char *buf; /* NUL-terminated */
    size_t len, cap;
} line_buf;

struct dtrlog_reader {
    FILE *f;
    int owns;
    char *name;
    int fast; /* use the fast line parser (dtrlog_line.h) */

    char *rbuf; /* raw read buffer */
    size_t rpos, rlen;
    int in_eof;
    uint64_t lineno;
    /* a record's first line, and its MEMORY/ALIAS follow-up lines */
    line_buf main_line, aux_line;
    dl_record main_rec, aux_rec; /* ev.op/text point into main_rec/main_line */

    int failed;
    uint64_t events;
    gmt_namemap *names; /* non-"x<digits>" name -> fresh id */

    gmt_event main;
    int have_main;
    pending_name *pend;
    size_t npend, pend_pos, pend_cap;
    uint64_t *inputs;
    size_t inputs_cap;
    gmt_output *outputs;
    size_t outputs_cap;
    uint32_t *mutated;
    size_t mutated_cap;
};

/* ------------------------------------------------------------------------------------------
 * Numbers and names
 */

/* Parses canonical unsigned decimal text (digits, no sign, no leading zero except "0"). */
static int parse_u64(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 20 || (s[0] == '0' && len > 1))
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* 1 when s is canonical decimal digits (what parse_u64 takes, however large): a refused
 * value is then "too large", not "not an integer". */
static int all_digits(const char *s, size_t len)
{
    if (len == 0 || (s[0] == '0' && len > 1))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* Parses canonical signed decimal text that fits int64 ("-0" is not canonical). */
static int parse_i64(const char *s, size_t len, int64_t *out)
{
    uint64_t v;
    if (len > 0 && s[0] == '-') {
        if (parse_u64(s + 1, len - 1, &v) != 0 || v == 0 || v > (uint64_t)INT64_MAX + 1)
            return -1;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
        return 0;
    }
    if (parse_u64(s, len, &v) != 0 || v > (uint64_t)INT64_MAX)
        return -1;
    *out = (int64_t)v;
    return 0;
}

int dtrlog_name_to_id(const char *name, size_t len, uint64_t *id)
{
    uint64_t v;
    if (len < 2 || name[0] != 'x' || parse_u64(name + 1, len - 1, &v) != 0 ||
        v >= DTRLOG_FRESH_ID_BASE)
        return 0;
    *id = v;
    return 1;
}

/* ------------------------------------------------------------------------------------------
 * Errors: every message is "FILE:LINE: ...".
 */
static int fail_at(dtrlog_reader *r, gms_error *err, int code, uint64_t line, const char *fmt,
                   ...) __attribute__((format(printf, 5, 6)));

static int fail_at(dtrlog_reader *r, gms_error *err, int code, uint64_t line, const char *fmt,
                   ...)
{
    char what[GMS_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->failed = 1;
    gms_error_set(err, code, "%s:%" PRIu64 ": %s", r->name, line, what);
    return -1;
}

/* ------------------------------------------------------------------------------------------
 * Lines
 */

/* Reads the next line (without its '\n') into lb. Returns 1, 0 at the end of the file, or -1
 * on a read error or an over-long line. Embedded NUL bytes are kept (and later make the line
 * invalid JSON) instead of silently cutting it short. */
static int read_line(dtrlog_reader *r, line_buf *lb, gms_error *err)
{
    size_t len = 0;
    int got = 0;
    for (;;) {
        if (r->rpos == r->rlen) {
            if (r->in_eof)
                break;
            r->rlen = fread(r->rbuf, 1, READ_CHUNK, r->f);
            r->rpos = 0;
            if (r->rlen == 0) {
                if (ferror(r->f))
                    return fail_at(r, err, GMS_EIO, r->lineno + 1, "read failed: %s",
                                   strerror(errno));
                r->in_eof = 1;
                break;
            }
        }
        got = 1;
        char *start = r->rbuf + r->rpos;
        size_t avail = r->rlen - r->rpos;
        char *nl = memchr(start, '\n', avail);
        size_t take = nl ? (size_t)(nl - start) : avail;
        if (len + take > DTRLOG_MAX_LINE)
            return fail_at(r, err, GMS_EFORMAT, r->lineno + 1,
                           "line longer than %zu bytes (is this a DTR log?)", DTRLOG_MAX_LINE);
        if (len + take + 1 > lb->cap) {
            size_t cap = lb->cap ? lb->cap : 256;
            while (cap < len + take + 1)
                cap *= 2;
            char *p = realloc(lb->buf, cap);
            if (!p)
                return fail_at(r, err, GMS_ENOMEM, r->lineno + 1, "out of memory");
            lb->buf = p;
            lb->cap = cap;
        }
        memcpy(lb->buf + len, start, take);
        len += take;
        r->rpos += take + (nl ? 1 : 0);
        if (nl)
            break;
    }
    if (!got && len == 0)
        return 0;
    lb->buf[len] = '\0';
    lb->len = len;
    r->lineno++;
    return 1;
}

/* Parses the line in lb into rec and returns its INSTRUCTION (-1 and an error otherwise). */
static int parse_line(dtrlog_reader *r, line_buf *lb, dl_record *rec, const char **instr,
                      gms_error *err)
{
    if (lb->len == 0)
        return fail_at(r, err, GMS_EFORMAT, r->lineno,
                       "empty line (a DTR log has one JSON object per line)");
    char what[512];
    int rc = dl_parse(rec, lb->buf, lb->len, r->fast, what, sizeof what);
    if (rc == -2)
        return fail_at(r, err, GMS_ENOMEM, r->lineno, "out of memory");
    if (rc != 0)
        return fail_at(r, err, GMS_EFORMAT, r->lineno, "%s", what);
    const dl_field *in = dl_get(rec, "INSTRUCTION");
    if (!in || in->type != DL_STRING)
        return fail_at(r, err, GMS_EFORMAT, r->lineno, "%s \"INSTRUCTION\"",
                       in ? "non-string" : "missing");
    *instr = in->s;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Fields
 */

/* Fails unless rec's keys are exactly INSTRUCTION, the required keys and some optional
 * ones. */
static int check_keys(dtrlog_reader *r, const dl_record *rec, const char *instr,
                      const char *const *req, const char *const *opt, gms_error *err)
{
    for (const char *const *k = req; *k; k++)
        if (!dl_get(rec, *k))
            return fail_at(r, err, GMS_EFORMAT, r->lineno, "%s: missing \"%s\"", instr, *k);
    for (size_t i = 0; i < rec->n_fields; i++) {
        const char *key = rec->fields[i].key;
        int known = strcmp(key, "INSTRUCTION") == 0;
        for (const char *const *k = req; *k && !known; k++)
            known = strcmp(key, *k) == 0;
        for (const char *const *k = opt; k && *k && !known; k++)
            known = strcmp(key, *k) == 0;
        if (!known)
            return fail_at(r, err, GMS_EFORMAT, r->lineno, "%s: unexpected key \"%.60s\"",
                           instr, key);
    }
    return 0;
}

static int get_string(dtrlog_reader *r, const dl_record *rec, const char *instr,
                      const char *key, const char **s, size_t *len, gms_error *err)
{
    const dl_field *f = dl_get(rec, key);
    if (!f || f->type != DL_STRING)
        return fail_at(r, err, GMS_EFORMAT, r->lineno, "%s: \"%s\" must be a string", instr,
                       key);
    *s = f->s;
    *len = f->len;
    return 0;
}

/* A field holding a non-negative decimal integer as a JSON string ("920906"). */
static int get_u64_string(dtrlog_reader *r, const dl_record *rec, const char *instr,
                          const char *key, uint64_t *out, gms_error *err)
{
    const char *s = NULL;
    size_t len = 0;
    if (get_string(r, rec, instr, key, &s, &len, err) != 0)
        return -1;
    if (parse_u64(s, len, out) != 0 && all_digits(s, len))
        return fail_at(r, err, GMS_EFORMAT, r->lineno,
                       "%s: \"%s\" is %.*s, too large (at most %" PRIu64 ")", instr, key,
                       (int)(len < 40 ? len : 40), s, UINT64_MAX);
    if (parse_u64(s, len, out) != 0)
        return fail_at(r, err, GMS_EFORMAT, r->lineno,
                       "%s: \"%s\" is \"%.40s\", not a non-negative decimal integer", instr, key,
                       s);
    return 0;
}

/* Maps a tensor name to its id; a new non-"x<digits>" name gets a fresh id and is queued for a
 * GMT_NAME event. */
static int resolve(dtrlog_reader *r, const char *name, size_t len, uint64_t *id, gms_error *err)
{
    if (dtrlog_name_to_id(name, len, id))
        return 0;
    if (len == 0)
        return fail_at(r, err, GMS_EFORMAT, r->lineno, "empty tensor name");
    if (gmt_namemap_find(r->names, name, len, id) >= 0)
        return 0;
    size_t n = gmt_namemap_count(r->names);
    *id = DTRLOG_FRESH_ID_BASE + n;
    long i = gmt_namemap_put(r->names, name, len, *id);
    if (i < 0)
        return fail_at(r, err, GMS_ENOMEM, r->lineno, "out of memory");
    if (r->npend == r->pend_cap) {
        size_t cap = r->pend_cap ? r->pend_cap * 2 : 8;
        pending_name *p = realloc(r->pend, cap * sizeof *p);
        if (!p)
            return fail_at(r, err, GMS_ENOMEM, r->lineno, "out of memory");
        r->pend = p;
        r->pend_cap = cap;
    }
    r->pend[r->npend++] = (pending_name){*id, gmt_namemap_key(r->names, (size_t)i, NULL)};
    return 0;
}

/* A field holding one tensor name. */
static int get_name(dtrlog_reader *r, const dl_record *rec, const char *instr, const char *key,
                    uint64_t *id, gms_error *err)
{
    const char *s = NULL;
    size_t len = 0;
    if (get_string(r, rec, instr, key, &s, &len, err) != 0)
        return -1;
    return resolve(r, s, len, id, err);
}

/* Grows *arr (elements of size elem) to hold n; returns 0 or -1. */
static int reserve(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n <= *cap)
        return 0;
    size_t c = *cap ? *cap : 8;
    while (c < n)
        c *= 2;
    void *p = realloc(*arr, c * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = c;
    return 0;
}

/* A field holding a list of tensor names; ids go to r->inputs (ARGS) or, for RESULT, to the
 * ids of r->outputs. */
static int get_name_list(dtrlog_reader *r, const dl_record *rec, const char *instr,
                         const char *key, int into_outputs, uint32_t *count, gms_error *err)
{
    const dl_field *f = dl_get(rec, key);
    if (!f || f->type != DL_ARRAY)
        return fail_at(r, err, GMS_EFORMAT, r->lineno, "%s: \"%s\" must be a list of names",
                       instr, key);
    size_t n = f->n;
    if (n > UINT32_MAX / 2)
        return fail_at(r, err, GMS_EFORMAT, r->lineno, "%s: \"%s\" is too long", instr, key);
    int rc = into_outputs ? reserve((void **)&r->outputs, &r->outputs_cap, n, sizeof(gmt_output))
                          : reserve((void **)&r->inputs, &r->inputs_cap, n, sizeof(uint64_t));
    if (rc != 0)
        return fail_at(r, err, GMS_ENOMEM, r->lineno, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const dl_item *it = &rec->items[f->first + i];
        if (it->kind != DL_ITEM_STRING)
            return fail_at(r, err, GMS_EFORMAT, r->lineno,
                           "%s: \"%s\" item %zu must be a string", instr, key, i);
        uint64_t id;
        if (resolve(r, it->s, it->len, &id, err) != 0)
            return -1;
        if (into_outputs)
            r->outputs[i] = (gmt_output){id, 0, -1};
        else
            r->inputs[i] = id;
    }
    *count = (uint32_t)n;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Records
 */
static const char *const K_NAME[] = {"NAME", NULL};
static const char *const K_MEMORY[] = {"MEMORY", "NAME", NULL};
static const char *const K_ALIAS[] = {"ALIAS", "NAME", NULL};
static const char *const K_CALL[] = {"ARGS", "NAME", "RESULT", "TIME", NULL};
static const char *const K_MUTATE[] = {"ARGS", "MUTATE", "NAME", "TIME", NULL};
static const char *const K_COPY[] = {"DST", "SRC", NULL};
static const char *const K_ANNOTATE[] = {"ANNOTATION", NULL};
static const char *const K_ANNOTATE_OPT[] = {"VALUE", NULL};

/* Reads the follow-up line `want` ("MEMORY" or "ALIAS") for tensor `name` of the record that
 * started on line `first` (an `owner` line) and returns its integer field. */
static int read_follow_up(dtrlog_reader *r, const char *want, const char *owner, uint64_t first,
                          const char *name, size_t name_len, int64_t *out, gms_error *err)
{
    int rc = read_line(r, &r->aux_line, err);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return fail_at(r, err, GMS_EFORMAT, first,
                       "%s \"%s\": the file ends before its %s line (truncated log?)", owner,
                       name, want);
    const char *instr;
    dl_record *rec = &r->aux_rec;
    if (parse_line(r, &r->aux_line, rec, &instr, err) != 0)
        return -1;
    if (strcmp(instr, want) != 0)
        return fail_at(r, err, GMS_EFORMAT, r->lineno,
                       "expected the %s line of %s \"%s\" (line %" PRIu64 "), got %.40s", want,
                       owner, name, first, instr);
    int is_memory = strcmp(want, "MEMORY") == 0;
    const char *n = NULL, *s = NULL;
    size_t nlen = 0, slen = 0;
    if (check_keys(r, rec, want, is_memory ? K_MEMORY : K_ALIAS, NULL, err) ||
        get_string(r, rec, want, "NAME", &n, &nlen, err))
        return -1;
    if (nlen != name_len || memcmp(n, name, nlen) != 0)
        return fail_at(r, err, GMS_EFORMAT, r->lineno,
                       "%s names \"%.60s\" but %s on line %" PRIu64 " expects \"%s\"", want, n,
                       owner, first, name);
    if (get_string(r, rec, want, want, &s, &slen, err) != 0)
        return -1;
    if (is_memory) {
        uint64_t v;
        if (all_digits(s, slen) && (parse_u64(s, slen, &v) != 0 || v > INT64_MAX))
            return fail_at(r, err, GMS_EFORMAT, r->lineno,
                           "MEMORY is %.*s bytes, too large (a size is at most %" PRId64
                           " bytes)", (int)(slen < 40 ? slen : 40), s, INT64_MAX);
        if (parse_u64(s, slen, &v) != 0)
            return fail_at(r, err, GMS_EFORMAT, r->lineno,
                           "MEMORY is \"%.40s\", not a non-negative decimal integer", s);
        *out = (int64_t)v;
    } else {
        int64_t v;
        if (parse_i64(s, slen, &v) != 0 || v < -1 || v > INT32_MAX)
            return fail_at(r, err, GMS_EFORMAT, r->lineno,
                           "ALIAS is \"%.40s\", not -1 or an argument index", s);
        *out = v;
    }
    return 0;
}

static int read_constant(dtrlog_reader *r, const dl_record *rec, gms_error *err)
{
    gmt_event *ev = &r->main;
    const char *name = NULL;
    size_t len = 0;
    int64_t size;
    uint64_t first = r->lineno;
    if (check_keys(r, rec, "CONSTANT", K_NAME, NULL, err) ||
        get_string(r, rec, "CONSTANT", "NAME", &name, &len, err) ||
        resolve(r, name, len, &ev->id, err) ||
        read_follow_up(r, "MEMORY", "CONSTANT", first, name, len, &size, err))
        return -1;
    ev->size = (uint64_t)size;
    return 0;
}

static int read_call(dtrlog_reader *r, const dl_record *rec, gms_error *err)
{
    gmt_event *ev = &r->main;
    uint64_t first = r->lineno;
    size_t oplen;
    if (check_keys(r, rec, "CALL", K_CALL, NULL, err) ||
        get_string(r, rec, "CALL", "NAME", &ev->op, &oplen, err) ||
        get_u64_string(r, rec, "CALL", "TIME", &ev->dur_ns, err) ||
        get_name_list(r, rec, "CALL", "ARGS", 0, &ev->n_inputs, err) ||
        get_name_list(r, rec, "CALL", "RESULT", 1, &ev->n_outputs, err))
        return -1;
    const dl_field *res = dl_get(rec, "RESULT");
    for (uint32_t i = 0; i < ev->n_outputs; i++) {
        const dl_item *it = &rec->items[res->first + i];
        int64_t size, alias;
        if (read_follow_up(r, "MEMORY", "CALL result", first, it->s, it->len, &size, err) ||
            read_follow_up(r, "ALIAS", "CALL result", first, it->s, it->len, &alias, err))
            return -1;
        if (alias >= (int64_t)ev->n_inputs)
            return fail_at(r, err, GMS_EFORMAT, r->lineno,
                           "ALIAS %" PRId64 " is out of range: the CALL on line %" PRIu64
                           " has %" PRIu32 " argument%s",
                           alias, first, ev->n_inputs, ev->n_inputs == 1 ? "" : "s");
        r->outputs[i].size = (uint64_t)size;
        r->outputs[i].alias_of = (int32_t)alias;
    }
    ev->inputs = r->inputs;
    ev->outputs = r->outputs;
    return 0;
}

static int read_mutate(dtrlog_reader *r, const dl_record *rec, gms_error *err)
{
    gmt_event *ev = &r->main;
    size_t oplen;
    if (check_keys(r, rec, "MUTATE", K_MUTATE, NULL, err) ||
        get_string(r, rec, "MUTATE", "NAME", &ev->op, &oplen, err) ||
        get_u64_string(r, rec, "MUTATE", "TIME", &ev->dur_ns, err) ||
        get_name_list(r, rec, "MUTATE", "ARGS", 0, &ev->n_inputs, err))
        return -1;
    const dl_field *f = dl_get(rec, "MUTATE");
    if (f->type != DL_ARRAY)
        return fail_at(r, err, GMS_EFORMAT, r->lineno,
                       "MUTATE: \"MUTATE\" must be a list of argument indices");
    if (reserve((void **)&r->mutated, &r->mutated_cap, f->n, sizeof(uint32_t)) != 0)
        return fail_at(r, err, GMS_ENOMEM, r->lineno, "out of memory");
    for (size_t i = 0; i < f->n; i++) {
        const dl_item *it = &rec->items[f->first + i];
        if (it->kind != DL_ITEM_INT)
            return fail_at(r, err, GMS_EFORMAT, r->lineno,
                           "MUTATE: \"MUTATE\" item %zu must be an integer", i);
        if (it->i < 0 || it->i >= (int64_t)ev->n_inputs)
            return fail_at(r, err, GMS_EFORMAT, r->lineno,
                           "MUTATE: index %" PRId64 " is out of range: the op has %" PRIu32
                           " argument%s",
                           it->i, ev->n_inputs, ev->n_inputs == 1 ? "" : "s");
        r->mutated[i] = (uint32_t)it->i;
    }
    ev->n_mutated = (uint32_t)f->n;
    ev->inputs = r->inputs;
    ev->mutated = r->mutated;
    return 0;
}

static int read_annotate(dtrlog_reader *r, const dl_record *rec, gms_error *err)
{
    gmt_event *ev = &r->main;
    size_t len;
    if (check_keys(r, rec, "ANNOTATE", K_ANNOTATE, K_ANNOTATE_OPT, err) ||
        get_string(r, rec, "ANNOTATE", "ANNOTATION", &ev->text, &len, err))
        return -1;
    if (dl_get(rec, "VALUE")) {
        const char *s = NULL;
        size_t slen = 0;
        if (get_string(r, rec, "ANNOTATE", "VALUE", &s, &slen, err) != 0)
            return -1;
        if (parse_i64(s, slen, &ev->value) != 0)
            return fail_at(r, err, GMS_EFORMAT, r->lineno,
                           "ANNOTATE: \"VALUE\" is \"%.40s\", not a decimal integer", s);
        ev->has_value = 1;
    }
    return 0;
}

/* Reads one record into r->main (and queued NAME events). Returns 1, 0 at the end, -1. */
static int read_record(dtrlog_reader *r, gms_error *err)
{
    int rc = read_line(r, &r->main_line, err);
    if (rc <= 0)
        return rc;
    const char *instr;
    const dl_record *rec = &r->main_rec;
    if (parse_line(r, &r->main_line, &r->main_rec, &instr, err) != 0)
        return -1;
    gmt_event *ev = &r->main;
    memset(ev, 0, sizeof *ev);
    if (strcmp(instr, "CONSTANT") == 0) {
        ev->kind = GMT_CONSTANT;
        rc = read_constant(r, rec, err);
    } else if (strcmp(instr, "CALL") == 0) {
        ev->kind = GMT_CALL;
        rc = read_call(r, rec, err);
    } else if (strcmp(instr, "MUTATE") == 0) {
        ev->kind = GMT_MUTATE;
        rc = read_mutate(r, rec, err);
    } else if (strcmp(instr, "COPY") == 0 || strcmp(instr, "COPY_FROM") == 0) {
        ev->kind = instr[4] ? GMT_COPY_FROM : GMT_COPY;
        rc = check_keys(r, rec, instr, K_COPY, NULL, err) ||
             get_name(r, rec, instr, "DST", &ev->id, err) ||
             get_name(r, rec, instr, "SRC", &ev->src, err);
    } else if (strcmp(instr, "RELEASE") == 0) {
        ev->kind = GMT_RELEASE;
        rc = check_keys(r, rec, instr, K_NAME, NULL, err) ||
             get_name(r, rec, instr, "NAME", &ev->id, err);
    } else if (strcmp(instr, "ANNOTATE") == 0) {
        ev->kind = GMT_ANNOTATE;
        rc = read_annotate(r, rec, err);
    } else if (strcmp(instr, "MEMORY") == 0 || strcmp(instr, "ALIAS") == 0) {
        return fail_at(r, err, GMS_EFORMAT, r->lineno,
                       "stray %s line (it must follow a %s line)", instr,
                       instr[0] == 'M' ? "CONSTANT or CALL" : "CALL result's MEMORY");
    } else {
        return fail_at(r, err, GMS_EFORMAT, r->lineno, "unknown INSTRUCTION \"%.40s\"", instr);
    }
    if (rc != 0)
        return -1;
    r->have_main = 1;
    return 1;
}

/* ------------------------------------------------------------------------------------------
 * Public API
 */
int dtrlog_reader_open_stream(FILE *f, const char *name, int owns, dtrlog_reader **out,
                              gms_error *err)
{
    *out = NULL;
    dtrlog_reader *r = calloc(1, sizeof *r);
    if (r) {
        r->name = strdup(name ? name : "(stream)");
        r->rbuf = malloc(READ_CHUNK);
        r->names = gmt_namemap_new();
    }
    if (!r || !r->name || !r->rbuf || !r->names) {
        if (r) {
            free(r->name);
            free(r->rbuf);
            gmt_namemap_free(r->names);
            free(r);
        }
        if (owns)
            fclose(f);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", name ? name : "(stream)");
    }
    r->f = f;
    r->owns = owns;
    r->fast = 1;
    dl_record_init(&r->main_rec);
    dl_record_init(&r->aux_rec);
    *out = r;
    return 0;
}

int dtrlog_reader_open(const char *path, dtrlog_reader **out, gms_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gms_error_set(err, GMS_EIO, "%s: cannot open: %s", path, strerror(errno));
    return dtrlog_reader_open_stream(f, path, 1, out, err);
}

int dtrlog_reader_next(dtrlog_reader *r, gmt_event *ev, gms_error *err)
{
    if (r->failed)
    {
        gms_error_set(err, GMS_ESTATE, "%s:%" PRIu64 ": reading stopped at an earlier error",
                      r->name, r->lineno);
        return -1;
    }
    if (r->pend_pos == r->npend && !r->have_main) {
        r->npend = r->pend_pos = 0;
        int rc = read_record(r, err);
        if (rc <= 0)
            return rc;
    }
    if (r->pend_pos < r->npend) {
        memset(ev, 0, sizeof *ev);
        ev->kind = GMT_NAME;
        ev->id = r->pend[r->pend_pos].id;
        ev->text = r->pend[r->pend_pos].text;
        r->pend_pos++;
    } else {
        *ev = r->main;
        r->have_main = 0;
    }
    r->events++;
    return 1;
}

uint64_t dtrlog_reader_events_read(const dtrlog_reader *r)
{
    return r->events;
}

uint64_t dtrlog_reader_line(const dtrlog_reader *r)
{
    return r->lineno;
}

void dtrlog_reader_set_fast(dtrlog_reader *r, int fast)
{
    r->fast = fast != 0;
}

void dtrlog_reader_close(dtrlog_reader *r)
{
    if (!r)
        return;
    if (r->owns && r->f)
        fclose(r->f);
    dl_record_free(&r->main_rec);
    dl_record_free(&r->aux_rec);
    gmt_namemap_free(r->names);
    free(r->name);
    free(r->rbuf);
    free(r->main_line.buf);
    free(r->aux_line.buf);
    free(r->pend);
    free(r->inputs);
    free(r->outputs);
    free(r->mutated);
    free(r);
}
