/* libFuzzer: arbitrary bytes through gmt_source_open (format sniffing, then the .gmt reader or
 * the DTR JSON log importer), via one temporary file rewritten for every input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("source", data, size);
    gmt_source *s;
    gms_error err;
    if (gmt_source_open(path, &s, &err) == 0) {
        for (size_t i = 0; i < gmt_source_meta_count(s); i++) {
            const char *k, *v;
            gmt_source_meta_at(s, i, &k, &v);
            if (!k || !v)
                abort();
        }
        gmt_event ev;
        while (gmt_source_next(s, &ev, &err) > 0)
            fuzz_check_event(&ev);
        gmt_source_close(s);
    }
    return 0;
}
