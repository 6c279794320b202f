/*
 * gmt_varint: LEB128 unsigned varints and zigzag signed integers, as the .gmt format uses
 * them (docs/trace-format.md, "Varints"). Header-only so the decoder's hot loop inlines them.
 *
 * A varint holds 7 bits per byte, least significant group first; the high bit says another
 * byte follows. At most 10 bytes; the 10th may only hold the value's top bit (0 or 1).
 */
#ifndef GMT_VARINT_H
#define GMT_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define GMT_VARINT_MAX 10

/* Writes v at p (which must have GMT_VARINT_MAX bytes free); returns the bytes written. */
static inline size_t gmt_put_uv(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static inline uint64_t gmt_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t gmt_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* The multi-byte case of gmt_get_uv, kept out of line of the one-byte fast path. */
static inline int gmt_get_uv_slow(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (p >= end)
            return -1; /* runs past the end */
        uint8_t b = *p++;
        if (shift == 63 && b > 1)
            return -1; /* more than 64 bits */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            *pp = p;
            return 0;
        }
    }
    return -1;
}

/* Reads a varint from [*pp, end) into *out and advances *pp. Returns 0, or -1 when the
 * varint runs past end or overflows 64 bits (then *pp is unchanged). */
static inline int gmt_get_uv(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *out = *p;
        *pp = p + 1;
        return 0;
    }
    return gmt_get_uv_slow(pp, end, out);
}

#endif
