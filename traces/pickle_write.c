/*
 * pickle_write: plain data as a pickle that both Python's pickle.load and MemoryViz.js's own
 * small unpickler read (pickle.h). Opcodes used: PROTO 4, EMPTY_DICT MARK SETITEMS,
 * EMPTY_LIST MARK APPENDS, MARK TUPLE, BININT1 BININT2 BININT LONG1, BINFLOAT, NEWTRUE NEWFALSE
 * NONE, SHORT_BINUNICODE BINUNICODE, MEMOIZE (after each new string) and BINGET/LONG_BINGET
 * (a string written before), STOP. No FRAME: it is optional in protocol 4.
 *
 * Errors are sticky: the first failed write is reported by pk_writer_close, which then
 * removes the temporary file, so a caller writes everything and checks once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gms_tmpfile.h"
#include "gmt_namemap.h"
#include "gmt_outfile.h"
#include "pickle.h"

struct pk_writer {
    FILE *f;
    char *path, *tmp;
    gmt_namemap *memo; /* string -> memo index */
    uint64_t nmemo;
    int depth, failed;
    char kind[64]; /* the open containers: 'd', 'l', 't' */
};

int pk_writer_open(const char *path, pk_writer **out, gms_error *err)
{
    *out = NULL;
    pk_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path)) || !(w->memo = gmt_namemap_new())) {
        if (w) {
            free(w->path);
            free(w);
        }
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    }
    int rc = gmt_outfile_create(path, &w->f, &w->tmp, err);
    if (rc) {
        gmt_namemap_free(w->memo);
        free(w->path);
        free(w);
        return rc;
    }
    fputc(0x80, w->f); /* PROTO 4 */
    fputc(4, w->f);
    *out = w;
    return 0;
}

static void put_le(pk_writer *w, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        fputc((int)(v >> (8 * i) & 0xff), w->f);
}

static void open_c(pk_writer *w, char kind)
{
    if (w->depth == (int)sizeof w->kind) {
        w->failed = 1;
        return;
    }
    w->kind[w->depth++] = kind;
    if (kind == 'd')
        fputc('}', w->f);
    else if (kind == 'l')
        fputc(']', w->f);
    fputc('(', w->f); /* MARK */
}

void pk_w_dict(pk_writer *w)
{
    open_c(w, 'd');
}

void pk_w_list(pk_writer *w)
{
    open_c(w, 'l');
}

void pk_w_tuple(pk_writer *w)
{
    open_c(w, 't');
}

void pk_w_end(pk_writer *w)
{
    if (!w->depth) {
        w->failed = 1;
        return;
    }
    char k = w->kind[--w->depth];
    fputc(k == 'd' ? 'u' : k == 'l' ? 'e' : 't', w->f); /* SETITEMS, APPENDS, TUPLE */
}

void pk_w_int(pk_writer *w, int64_t v)
{
    if (v >= 0 && v < 256) {
        fputc('K', w->f);
        put_le(w, (uint64_t)v, 1);
    } else if (v >= 0 && v < 65536) {
        fputc('M', w->f);
        put_le(w, (uint64_t)v, 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        fputc('J', w->f);
        put_le(w, (uint64_t)v, 4);
    } else { /* LONG1: the fewest bytes of two's complement that keep the sign */
        int n = 8;
        uint64_t u = (uint64_t)v;
        while (n > 1) {
            int top = (int)(u >> (8 * (n - 1)) & 0xff), next = (int)(u >> (8 * (n - 2)) & 0x80);
            if ((top == 0 && !next) || (top == 0xff && next))
                n--;
            else
                break;
        }
        fputc(0x8a, w->f);
        fputc(n, w->f);
        put_le(w, u, n);
    }
}

void pk_w_uint(pk_writer *w, uint64_t v)
{
    if (v <= INT64_MAX) {
        pk_w_int(w, (int64_t)v);
        return;
    }
    fputc(0x8a, w->f); /* 9 bytes: the top one keeps it positive */
    fputc(9, w->f);
    put_le(w, v, 8);
    fputc(0, w->f);
}

void pk_w_float(pk_writer *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    fputc('G', w->f);
    for (int i = 7; i >= 0; i--)
        fputc((int)(bits >> (8 * i) & 0xff), w->f);
}

void pk_w_bool(pk_writer *w, int v)
{
    fputc(v ? 0x88 : 0x89, w->f);
}

void pk_w_none(pk_writer *w)
{
    fputc('N', w->f);
}

void pk_w_str(pk_writer *w, const char *s)
{
    size_t n = strlen(s);
    uint64_t at;
    if (gmt_namemap_find(w->memo, s, n, &at) >= 0) {
        if (at < 256) {
            fputc('h', w->f); /* BINGET */
            put_le(w, at, 1);
        } else {
            fputc('j', w->f); /* LONG_BINGET */
            put_le(w, at, 4);
        }
        return;
    }
    if (n < 256) {
        fputc(0x8c, w->f);
        put_le(w, n, 1);
    } else {
        fputc('X', w->f);
        put_le(w, n, 4);
    }
    fwrite(s, 1, n, w->f);
    if (w->nmemo < UINT32_MAX && gmt_namemap_put(w->memo, s, n, w->nmemo) >= 0) {
        fputc(0x94, w->f); /* MEMOIZE */
        w->nmemo++;
    }
}

int pk_writer_close(pk_writer *w, int abandon, gms_error *err)
{
    if (!w)
        return 0;
    int rc = 0;
    if (!abandon) {
        fputc('.', w->f); /* STOP */
        int bad = ferror(w->f) || fflush(w->f) != 0;
        int e = errno;
        if (fclose(w->f) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        if (w->failed || w->depth)
            rc = gms_error_set(err, GMS_EINVAL, "%s: the pickle's containers were not closed "
                               "as opened (a bug in the writer's caller)", w->path);
        else if (bad)
            rc = gms_error_set(err, GMS_EIO, "%s: write failed: %s", w->tmp, strerror(e));
        else if (rename(w->tmp, w->path) != 0)
            rc = gms_error_set(err, GMS_EIO, "%s: cannot rename %s into place: %s", w->path,
                               w->tmp, strerror(errno));
    } else {
        fclose(w->f);
    }
    if (rc || abandon)
        remove(w->tmp);
    gms_tmp_done(w->tmp);
    free(w->tmp);
    free(w->path);
    gmt_namemap_free(w->memo);
    free(w);
    return rc;
}
