#include "test_gmt_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "gmt_format.h"
#include "gmt_varint.h"

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "test: out of memory\n");
        abort();
    }
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xmalloc(n);
    memcpy(d, s, n);
    return d;
}

uint64_t tg_rand(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

void tg_push(tg_list *l, const gmt_event *ev)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        gmt_event *nv = realloc(l->ev, l->cap * sizeof *nv);
        if (!nv)
            abort();
        l->ev = nv;
    }
    gmt_event *d = &l->ev[l->n++];
    *d = *ev;
    if (ev->op)
        d->op = xstrdup(ev->op);
    if (ev->text)
        d->text = xstrdup(ev->text);
    if (ev->n_inputs) {
        uint64_t *in = xmalloc(ev->n_inputs * sizeof *in);
        memcpy(in, ev->inputs, ev->n_inputs * sizeof *in);
        d->inputs = in;
    } else {
        d->inputs = NULL;
    }
    if (ev->n_outputs) {
        gmt_output *o = xmalloc(ev->n_outputs * sizeof *o);
        memcpy(o, ev->outputs, ev->n_outputs * sizeof *o);
        d->outputs = o;
    } else {
        d->outputs = NULL;
    }
    if (ev->n_mutated) {
        uint32_t *m = xmalloc(ev->n_mutated * sizeof *m);
        memcpy(m, ev->mutated, ev->n_mutated * sizeof *m);
        d->mutated = m;
    } else {
        d->mutated = NULL;
    }
}

void tg_free(tg_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free((void *)l->ev[i].op);
        free((void *)l->ev[i].text);
        free((void *)l->ev[i].inputs);
        free((void *)l->ev[i].outputs);
        free((void *)l->ev[i].mutated);
    }
    free(l->ev);
    memset(l, 0, sizeof *l);
}

/* A value spanning every varint length, with the edge cases overrepresented. */
static uint64_t wild(uint64_t *s)
{
    switch (tg_rand(s) % 6) {
    case 0: return 0;
    case 1: return UINT64_MAX;
    case 2: return tg_rand(s) % 128;
    case 3: return tg_rand(s) >> (tg_rand(s) % 64);
    default: return tg_rand(s) % 100000000;
    }
}

/* Random text of 0..max bytes, never NUL, high bytes included. */
static void rand_text(uint64_t *s, char *buf, size_t max)
{
    size_t n = max ? (size_t)(tg_rand(s) % (max + 1)) : 0;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)(1 + tg_rand(s) % 255);
    buf[n] = '\0';
}

void tg_generate(tg_list *l, size_t n, uint64_t seed)
{
    static const char *ops[] = {"mm", "add", "relu", "view", "conv2d", "batch_norm", "t",
                                "split", "add_", "mul_", "cat", ""};
    static const char *notes[] = {"START", "BACKWARD", "iteration", "x"};
    uint64_t s = seed * 2654435761u + 1, next = 5000;
    uint64_t in[200];
    gmt_output out[8];
    uint32_t mut[16];
    char op[GMT_MAX_STRING + 1], text[GMT_MAX_STRING + 1];
    for (size_t i = 0; i < n; i++) {
        gmt_event ev;
        gmt_kind kind = (gmt_kind)(1 + tg_rand(&s) % 8);
        gmt_event_init(&ev, kind);
        int fresh = tg_rand(&s) % 10 != 0; /* mostly the next new id, as in real logs */
        uint64_t new_id = fresh ? next : wild(&s);
        uint64_t ref = tg_rand(&s) % 8 ? next - 1 - tg_rand(&s) % 40 : wild(&s);
        switch (kind) {
        case GMT_SCOPE:
            break; /* not drawn here: tg_generate_scoped adds balanced scopes */
        case GMT_CONSTANT:
            ev.id = new_id;
            ev.size = wild(&s);
            break;
        case GMT_COPY:
        case GMT_COPY_FROM:
            ev.id = kind == GMT_COPY ? new_id : ref;
            ev.src = tg_rand(&s) % 4 ? next - 1 - tg_rand(&s) % 10 : wild(&s);
            break;
        case GMT_RELEASE:
            ev.id = ref;
            break;
        case GMT_NAME:
            ev.id = ref;
            rand_text(&s, text, tg_rand(&s) % 50 ? 30 : GMT_MAX_STRING);
            ev.text = text;
            break;
        case GMT_ANNOTATE:
            if (tg_rand(&s) % 4) {
                strcpy(text, notes[tg_rand(&s) % 4]);
            } else {
                rand_text(&s, text, 20);
            }
            ev.text = text;
            ev.has_value = (int)(tg_rand(&s) % 2);
            if (ev.has_value) {
                uint64_t k = tg_rand(&s) % 4;
                ev.value = k == 0 ? INT64_MIN : k == 1 ? INT64_MAX : (int64_t)wild(&s);
            }
            break;
        case GMT_CALL:
        case GMT_MUTATE: {
            uint64_t r = tg_rand(&s) % 20;
            ev.n_inputs = r == 0 ? 0 : r == 1 ? 7 + (uint32_t)(tg_rand(&s) % 190)
                                              : (uint32_t)(1 + tg_rand(&s) % 8);
            for (uint32_t k = 0; k < ev.n_inputs; k++)
                in[k] = tg_rand(&s) % 8 ? next - 1 - tg_rand(&s) % 100 : wild(&s);
            ev.inputs = in;
            if (tg_rand(&s) % 8) {
                strcpy(op, ops[tg_rand(&s) % 12]);
            } else {
                rand_text(&s, op, tg_rand(&s) % 50 ? 24 : GMT_MAX_STRING);
            }
            ev.op = op;
            ev.dur_ns = wild(&s);
            if (kind == GMT_CALL) {
                ev.n_outputs = (uint32_t)(tg_rand(&s) % 6);
                uint64_t id = fresh ? next : wild(&s);
                for (uint32_t k = 0; k < ev.n_outputs; k++) {
                    out[k].id = tg_rand(&s) % 10 ? id + k : wild(&s);
                    out[k].size = wild(&s);
                    out[k].alias_of = ev.n_inputs && tg_rand(&s) % 3 == 0
                                          ? (int32_t)(tg_rand(&s) % ev.n_inputs) : -1;
                }
                ev.outputs = out;
                if (fresh)
                    next += ev.n_outputs;
            } else if (ev.n_inputs) {
                ev.n_mutated = (uint32_t)(tg_rand(&s) % (ev.n_inputs < 16 ? ev.n_inputs + 1 : 16));
                for (uint32_t k = 0; k < ev.n_mutated; k++)
                    mut[k] = (uint32_t)(tg_rand(&s) % ev.n_inputs);
                ev.mutated = mut;
            }
            break;
        }
        }
        if ((kind == GMT_CONSTANT || kind == GMT_COPY) && fresh)
            next++;
        tg_push(l, &ev);
    }
}

void tg_generate_scoped(tg_list *l, size_t n, uint64_t seed)
{
    static const char *names[] = {"h.0", "h.0.attn", "h.0.mlp", "embeddings", "layer1.0", "head"};
    tg_list core = {0};
    tg_generate(&core, n, seed);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 7;
    char open[64][GMT_MAX_STRING + 1];
    uint32_t depth = 0;
    for (size_t i = 0; i <= core.n; i++) {
        /* a few scope records before each event: runs of begins and ends, empty scopes,
         * nesting up to 64, repeated and fresh names (some 4095 bytes long) */
        while (tg_rand(&s) % 3 == 0) {
            gmt_event ev;
            if (depth > 0 && (depth == 64 || tg_rand(&s) % 2)) {
                gmt_event_scope(&ev, open[depth - 1], 1);
                tg_push(l, &ev);
                depth--;
            } else {
                if (tg_rand(&s) % 5) {
                    strcpy(open[depth], names[tg_rand(&s) % 6]);
                } else {
                    rand_text(&s, open[depth], tg_rand(&s) % 20 ? 30 : GMT_MAX_STRING);
                    if (!open[depth][0])
                        strcpy(open[depth], "x");
                }
                gmt_event_scope(&ev, open[depth], 0);
                tg_push(l, &ev);
                depth++;
            }
        }
        if (i < core.n)
            tg_push(l, &core.ev[i]);
    }
    while (depth > 0) {
        gmt_event ev;
        gmt_event_scope(&ev, open[--depth], 1);
        tg_push(l, &ev);
    }
    tg_free(&core);
}

int tg_equal(const gmt_event *a, const gmt_event *b, char *why, size_t len)
{
#define DIFF(...)                          \
    do {                                   \
        snprintf(why, len, __VA_ARGS__);   \
        return 0;                          \
    } while (0)
    if (a->kind != b->kind)
        DIFF("kind %d vs %d", (int)a->kind, (int)b->kind);
    switch (a->kind) {
    case GMT_SCOPE:
        if (a->scope_end != b->scope_end || !a->text || !b->text || strcmp(a->text, b->text) != 0)
            DIFF("SCOPE %s '%s' vs %s '%s'", a->scope_end ? "end" : "begin",
                 a->text ? a->text : "(null)", b->scope_end ? "end" : "begin",
                 b->text ? b->text : "(null)");
        return 1;
    case GMT_CONSTANT:
        if (a->id != b->id || a->size != b->size)
            DIFF("CONSTANT id/size differ");
        return 1;
    case GMT_COPY:
    case GMT_COPY_FROM:
        if (a->id != b->id || a->src != b->src)
            DIFF("%s dst/src differ", gmt_kind_name(a->kind));
        return 1;
    case GMT_RELEASE:
        if (a->id != b->id)
            DIFF("RELEASE id %llu vs %llu", (unsigned long long)a->id,
                 (unsigned long long)b->id);
        return 1;
    case GMT_NAME:
        if (a->id != b->id || strcmp(a->text, b->text) != 0)
            DIFF("NAME differs");
        return 1;
    case GMT_ANNOTATE:
        if (strcmp(a->text, b->text) != 0 || a->has_value != b->has_value ||
            (a->has_value && a->value != b->value))
            DIFF("ANNOTATE differs");
        return 1;
    case GMT_CALL:
    case GMT_MUTATE:
        if (strcmp(a->op, b->op) != 0 || a->dur_ns != b->dur_ns || a->n_inputs != b->n_inputs)
            DIFF("%s op/dur/n_inputs differ", gmt_kind_name(a->kind));
        for (uint32_t i = 0; i < a->n_inputs; i++)
            if (a->inputs[i] != b->inputs[i])
                DIFF("input %u differs", i);
        if (a->kind == GMT_CALL) {
            if (a->n_outputs != b->n_outputs)
                DIFF("n_outputs %u vs %u", a->n_outputs, b->n_outputs);
            for (uint32_t i = 0; i < a->n_outputs; i++)
                if (a->outputs[i].id != b->outputs[i].id ||
                    a->outputs[i].size != b->outputs[i].size ||
                    a->outputs[i].alias_of != b->outputs[i].alias_of)
                    DIFF("output %u differs", i);
        } else {
            if (a->n_mutated != b->n_mutated)
                DIFF("n_mutated %u vs %u", a->n_mutated, b->n_mutated);
            for (uint32_t i = 0; i < a->n_mutated; i++)
                if (a->mutated[i] != b->mutated[i])
                    DIFF("mutated %u differs", i);
        }
        return 1;
    }
    DIFF("unknown kind %d", (int)a->kind);
#undef DIFF
}

int tg_write(const char *path, const tg_list *l, size_t batch_bytes, const char *const *meta,
             gms_error *err)
{
    gmt_writer *w;
    int rc = gmt_writer_open(path, &w, err);
    if (rc)
        return rc;
    if (batch_bytes)
        gmt_writer_set_batch_bytes(w, batch_bytes);
    for (size_t i = 0; meta && meta[i]; i += 2)
        if ((rc = gmt_writer_meta(w, meta[i], meta[i + 1], err))) {
            gmt_writer_abort(w);
            return rc;
        }
    for (size_t i = 0; i < l->n; i++)
        if ((rc = gmt_writer_write(w, &l->ev[i], err))) {
            gmt_writer_abort(w);
            return rc;
        }
    return gmt_writer_close(w, err);
}

void tg_read(const char *path, const tg_list *l, tg_result *res)
{
    memset(res, 0, sizeof *res);
    res->prefix_ok = 1;
    gmt_reader *r;
    res->open_rc = gmt_reader_open(path, &r, &res->err);
    if (res->open_rc)
        return;
    gmt_event ev;
    while ((res->rc = gmt_reader_next(r, &ev, &res->err)) > 0) {
        if (gmt_event_validate(&ev, NULL) != 0 && res->prefix_ok) {
            res->prefix_ok = 0;
            snprintf(res->why, sizeof res->why, "event %llu fails validation",
                     (unsigned long long)res->n);
        }
        char why[200];
        if (res->prefix_ok && (res->n >= l->n || !tg_equal(&l->ev[res->n], &ev, why, sizeof why))) {
            res->prefix_ok = 0;
            snprintf(res->why, sizeof res->why, "event index %llu: %s", (unsigned long long)res->n,
                     res->n >= l->n ? "more events than written" : why);
        }
        res->n++;
    }
    if (res->n != gmt_reader_events_read(r)) {
        res->prefix_ok = 0;
        snprintf(res->why, sizeof res->why, "events_read disagrees");
    }
    const char *w = gmt_reader_warning(r);
    snprintf(res->warning, sizeof res->warning, "%s", w ? w : "");
    gmt_reader_close(r);
}

static char tmp_dir[64];

/* Removes the temporary folder and what the test left in it. */
static void remove_tmp_dir(void)
{
    DIR *d = opendir(tmp_dir);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
            if (remove(path) != 0)
                rmdir(path);
        }
    closedir(d);
    rmdir(tmp_dir);
}

char *tg_path(const char *name)
{
    const char *dir = tmp_dir;
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gmt-test-%ld-XXXXXX", (long)getpid());
        if (!mkdtemp(tmp_dir))
            abort();
        atexit(remove_tmp_dir);
    }
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

uint8_t *tg_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = xmalloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, f);
    fclose(f);
    return b;
}

int tg_spit(const char *path, const uint8_t *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = len ? fwrite(buf, 1, len, f) : 0;
    return fclose(f) == 0 && n == len ? 0 : -1;
}

size_t tg_frames(const uint8_t *buf, size_t len, size_t *start, size_t *raw, uint64_t *events,
                 size_t max)
{
    size_t n = 0, off = 0;
    while (off < len && n < max) {
        size_t c = ZSTD_findFrameCompressedSize(buf + off, len - off);
        if (ZSTD_isError(c))
            abort();
        unsigned long long fcs = ZSTD_getFrameContentSize(buf + off, c);
        uint8_t *content = xmalloc((size_t)fcs);
        if (ZSTD_decompress(content, (size_t)fcs, buf + off, c) != fcs)
            abort();
        start[n] = off;
        raw[n] = (size_t)fcs;
        events[n] = 0;
        if (fcs > 0 && content[0] == GMT_FRAME_EVENTS) {
            const uint8_t *p = content + 1, *end = content + fcs;
            uint64_t first, count;
            if (gmt_get_uv(&p, end, &first) || gmt_get_uv(&p, end, &count))
                abort();
            events[n] = count;
        }
        free(content);
        off += c;
        n++;
    }
    start[n] = off;
    return n;
}
