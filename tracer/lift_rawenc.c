/* trc_raw encoder: the raw record bytes the tracer library writes (see lift_raw.h). Kept apart
 * from the reader so the tracer library links it without the rest of the lifter. */
#include "lift_raw.h"

#include <string.h>

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void trc_raw_header(uint8_t buf[TRC_RAW_HEADER_SIZE], uint32_t pid)
{
    memcpy(buf, TRC_RAW_MAGIC, 8);
    put_u32(buf + 8, TRC_RAW_VERSION);
    put_u32(buf + 12, pid);
    put_u64(buf + 16, 0);
}

static size_t str_len(const char *s, size_t max)
{
    if (!s)
        return 0;
    size_t n = strlen(s);
    return n > max ? max : n; /* over-long strings are cut, never refused */
}

size_t trc_raw_record_size(const trc_rec *rec)
{
    if (rec->n_ptrs > TRC_RAW_MAX_PTRS || (rec->n_ptrs && !rec->ptrs))
        return 0;
    size_t len = 8 + TRC_RAW_FIXED_PAYLOAD + (size_t)rec->n_ptrs * 8 + str_len(rec->name, 65536) +
                 str_len(rec->text, 65536);
    return len > TRC_RAW_MAX_RECORD ? 0 : len;
}

size_t trc_raw_encode(const trc_rec *rec, uint8_t *buf, size_t cap)
{
    size_t total = trc_raw_record_size(rec);
    if (total == 0 || total > cap)
        return 0;
    size_t name_len = str_len(rec->name, 65536), text_len = str_len(rec->text, 65536);
    uint8_t *p = buf;
    put_u32(p, (uint32_t)rec->type);
    put_u32(p + 4, (uint32_t)(total - 8));
    p += 8;
    const uint64_t fixed[12] = {rec->ts,     rec->end,    rec->corr,  rec->corr2,
                                rec->addr,   rec->bytes,  rec->stream, rec->thread,
                                rec->flags,  rec->id,     rec->aux,   rec->value};
    for (int i = 0; i < 12; i++, p += 8)
        put_u64(p, fixed[i]);
    put_u32(p, rec->n_ptrs);
    put_u32(p + 4, (uint32_t)name_len);
    put_u32(p + 8, (uint32_t)text_len);
    put_u32(p + 12, 0);
    p += 16;
    for (uint32_t i = 0; i < rec->n_ptrs; i++, p += 8)
        put_u64(p, rec->ptrs[i]);
    if (name_len)
        memcpy(p, rec->name, name_len);
    p += name_len;
    if (text_len)
        memcpy(p, rec->text, text_len);
    return total;
}
