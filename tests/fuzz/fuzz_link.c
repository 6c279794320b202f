/* libFuzzer target: any bytes as a --link value (sim/link.c): the parser either rejects them
 * with a message or returns a positive finite bandwidth, and a copy time that never falls below
 * the latency; an accepted custom link parses again to the same figures from its own text. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    sim_link l;
    gms_error err = {0};
    if (sim_link_parse(text, &l, &err) == 0) {
        if (!(l.gbps > 0 && isfinite(l.gbps)) || sim_link_copy_ns(&l, 1 << 20) < l.latency_ns)
            abort();
        char again[96], key[96];
        snprintf(again, sizeof again, "%.17g,%.17g", l.gbps, (double)l.latency_ns / 1000.0);
        sim_link m;
        if (sim_link_parse(again, &m, &err) != 0 || m.gbps != l.gbps ||
            m.latency_ns != l.latency_ns)
            abort();
        if (sim_link_format(&l, key, sizeof key) <= 0)
            abort();
    } else if (err.msg[0] == '\0') {
        abort();
    }
    free(text);
    return 0;
}
