/* libFuzzer: the input is split into chunks (a 2-byte little-endian length, then that many
 * bytes), each compressed into a valid, checksummed zstd frame, and the result read as a .gmt
 * file. Checksums stop random bytes at the frame layer; this target gets past them to the
 * header parser, the frame dispatcher and the event decoder. Start the corpus with a chunk
 * "GMTRACE\n\x01\x00\x00" (a header) for quick progress, and "GMTRACE\n\x01\x01\x00" (a 1.1
 * header: extension records are then decoded as layer scopes, checked for balance). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "fuzz_common.h"
#include "gmt_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ZSTD_CCtx *cc;
    if (!cc) {
        cc = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
        ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
    }
    size_t cap = ZSTD_compressBound(size) + 64 * (size / 2 + 1), len = 0;
    uint8_t *file = malloc(cap);
    if (!file)
        return 0;
    size_t pos = 0;
    while (size - pos >= 2) {
        size_t n = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
        pos += 2;
        if (n > size - pos)
            n = size - pos;
        size_t c = ZSTD_compress2(cc, file + len, cap - len, data + pos, n);
        if (ZSTD_isError(c))
            break;
        len += c;
        pos += n;
    }
    FILE *f = len ? fmemopen(file, len, "rb") : NULL;
    if (f) {
        gmt_reader *r;
        gms_error err;
        if (gmt_reader_open_stream(f, "fuzz.gmt", &r, &err) == 0)
            fuzz_drain_reader(r);
    }
    free(file);
    return 0;
}
