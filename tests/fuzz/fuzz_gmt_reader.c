/* libFuzzer: arbitrary bytes as a .gmt file (fmemopen, no temporary file). */
#include <stdint.h>
#include <stdio.h>

#include "fuzz_common.h"
#include "gmt_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0; /* fmemopen refuses an empty buffer; the unit tests cover empty files */
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f)
        return 0;
    gmt_reader *r;
    gms_error err;
    if (gmt_reader_open_stream(f, "fuzz.gmt", &r, &err) != 0)
        return 0;
    for (size_t i = 0; i < gmt_reader_meta_count(r); i++) {
        const char *k, *v;
        gmt_reader_meta_at(r, i, &k, &v);
        if (!k || !v)
            abort();
    }
    fuzz_drain_reader(r);
    return 0;
}
