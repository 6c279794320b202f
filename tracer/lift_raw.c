/* trc_raw reader: loads a tracer raw record file into memory (see lift_raw.h). */
#include "lift_raw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

struct trc_raw {
    trc_rec *recs;
    size_t n;
    uint64_t *ptrs; /* every record's pointer list, back to back */
    char *strings;  /* every record's strings, NUL-terminated, back to back */
    uint32_t pid;
    char warning[512];
};

/* Where a record's pointers and strings sit in ptrs/strings; turned into pointers at the end. */
typedef struct rec_offsets {
    size_t ptrs, name, text;
    int has_name, has_text;
} rec_offsets;

int trc_raw_parse(const uint8_t *data, size_t len, const char *name, trc_raw **out,
                  gms_error *err)
{
    *out = NULL;
    if (len < TRC_RAW_HEADER_SIZE || memcmp(data, TRC_RAW_MAGIC, 6) != 0)
        return gms_error_set(err, GMS_EFORMAT,
                             "%s: not a gpumemsim raw trace (no GMSRAW header); it should be a "
                             "gms-<pid>.raw file written by libgpumemsim-tracer",
                             name);
    if (memcmp(data, TRC_RAW_MAGIC, 8) != 0 || get_u32(data + 8) > TRC_RAW_VERSION)
        return gms_error_set(err, GMS_EVERSION,
                             "%s: raw trace version %u is newer than this gpumemsim reads (%u); "
                             "use the gpumemsim that matches the tracer library",
                             name, get_u32(data + 8), TRC_RAW_VERSION);
    trc_raw *r = calloc(1, sizeof *r);
    /* Upper bounds: every record takes >= 8 + fixed payload bytes; strings and pointers fit in
     * the file's own bytes, plus a NUL per string. */
    size_t max_recs = len / (8 + TRC_RAW_FIXED_PAYLOAD) + 1;
    rec_offsets *offs = calloc(max_recs, sizeof *offs);
    if (r) {
        r->recs = calloc(max_recs, sizeof *r->recs);
        r->ptrs = malloc(len / 8 + 1 > 0 ? (len / 8 + 1) * sizeof(uint64_t) : 8);
        r->strings = malloc(len + 2 * max_recs + 1);
    }
    if (!r || !offs || !r->recs || !r->ptrs || !r->strings) {
        free(offs);
        trc_raw_close(r);
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory loading %zu bytes", name, len);
    }
    r->pid = get_u32(data + 12);
    size_t pos = TRC_RAW_HEADER_SIZE, n_ptrs = 0, n_str = 0;
    while (pos < len) {
        const char *why = NULL;
        if (len - pos < 8) {
            why = "truncated record header";
        } else {
            uint32_t type = get_u32(data + pos), plen = get_u32(data + pos + 4);
            const uint8_t *p = data + pos + 8;
            if (type < 1 || type > TRC_REC_TYPE_MAX)
                why = "unknown record type (corrupt file)";
            else if (plen < TRC_RAW_FIXED_PAYLOAD || plen > TRC_RAW_MAX_RECORD)
                why = "impossible record length (corrupt file)";
            else if (plen > len - pos - 8)
                why = "truncated record";
            else {
                uint32_t np = get_u32(p + 96), nl = get_u32(p + 100), tl = get_u32(p + 104);
                if (np > TRC_RAW_MAX_PTRS ||
                    (uint64_t)TRC_RAW_FIXED_PAYLOAD + (uint64_t)np * 8 + nl + tl != plen)
                    why = "record lengths do not add up (corrupt file)";
                else {
                    trc_rec *rec = &r->recs[r->n];
                    rec_offsets *o = &offs[r->n];
                    uint64_t f[12];
                    for (int i = 0; i < 12; i++)
                        f[i] = get_u64(p + 8 * i);
                    rec->type = (trc_rec_type)type;
                    rec->ts = f[0], rec->end = f[1], rec->corr = f[2], rec->corr2 = f[3];
                    rec->addr = f[4], rec->bytes = f[5], rec->stream = f[6], rec->thread = f[7];
                    rec->flags = f[8], rec->id = f[9], rec->aux = f[10], rec->value = f[11];
                    rec->n_ptrs = np;
                    const uint8_t *q = p + TRC_RAW_FIXED_PAYLOAD;
                    o->ptrs = n_ptrs;
                    for (uint32_t i = 0; i < np; i++, q += 8)
                        r->ptrs[n_ptrs++] = get_u64(q);
                    o->has_name = nl > 0;
                    o->name = n_str;
                    memcpy(r->strings + n_str, q, nl);
                    n_str += nl;
                    r->strings[n_str++] = '\0';
                    q += nl;
                    o->has_text = tl > 0;
                    o->text = n_str;
                    memcpy(r->strings + n_str, q, tl);
                    n_str += tl;
                    r->strings[n_str++] = '\0';
                    r->n++;
                    pos += 8 + (size_t)plen;
                    continue;
                }
            }
        }
        snprintf(r->warning, sizeof r->warning,
                 "%s: %s at byte %zu after record %zu; kept the %zu complete records before it "
                 "(the traced job probably died while writing)",
                 name, why, pos, r->n, r->n);
        break;
    }
    for (size_t i = 0; i < r->n; i++) {
        r->recs[i].ptrs = r->recs[i].n_ptrs ? r->ptrs + offs[i].ptrs : NULL;
        r->recs[i].name = offs[i].has_name ? r->strings + offs[i].name : NULL;
        r->recs[i].text = offs[i].has_text ? r->strings + offs[i].text : NULL;
    }
    free(offs);
    *out = r;
    return 0;
}

int trc_raw_open(const char *path, trc_raw **out, gms_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gms_error_set(err, GMS_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    int rc = 0;
    while (buf) {
        if (len == cap) {
            uint8_t *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (!buf)
        rc = gms_error_set(err, GMS_ENOMEM, "%s: out of memory reading the file", path);
    else if (ferror(f))
        rc = gms_error_set(err, GMS_EIO, "%s: read error: %s", path, strerror(errno));
    fclose(f);
    if (rc == 0)
        rc = trc_raw_parse(buf, len, path, out, err);
    free(buf);
    return rc;
}

size_t trc_raw_count(const trc_raw *r)
{
    return r->n;
}

const trc_rec *trc_raw_at(const trc_raw *r, size_t i)
{
    return i < r->n ? &r->recs[i] : NULL;
}

uint32_t trc_raw_pid(const trc_raw *r)
{
    return r->pid;
}

const char *trc_raw_warning(const trc_raw *r)
{
    return r->warning[0] ? r->warning : NULL;
}

void trc_raw_close(trc_raw *r)
{
    if (!r)
        return;
    free(r->recs);
    free(r->ptrs);
    free(r->strings);
    free(r);
}
