/* libFuzzer target: any bytes as a graph --host-estimate value (opt/opt_hostcost.c): the parser
 * either rejects them with a message or returns a slowdown and a bandwidth within their stated
 * ranges, at least one given; the estimate of any op is finite and >= 0; an accepted spec
 * parses again to the same figures from its own text. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "opt_hostcost.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    opt_host_estimate e;
    gms_error err = {0};
    if (opt_host_estimate_parse(text, &e, &err) == 0) {
        if (!(e.slowdown == 0 || (e.slowdown > 0 && e.slowdown <= 1e6)) ||
            !(e.gbps == 0 || (e.gbps >= 1e-6 && e.gbps <= 1e6)) || (e.slowdown == 0 && e.gbps == 0))
            abort();
        double ms = opt_host_estimate_op(&e, UINT64_MAX, UINT64_MAX);
        if (!isfinite(ms) || ms < 0 || opt_host_estimate_op(&e, 0, 0) != 0)
            abort();
        char again[96];
        if (e.slowdown > 0 && e.gbps > 0)
            snprintf(again, sizeof again, "roofline=%.17g,slowdown=%.17g", e.gbps, e.slowdown);
        else if (e.slowdown > 0)
            snprintf(again, sizeof again, "slowdown=%.17g", e.slowdown);
        else
            snprintf(again, sizeof again, "roofline=%.17g", e.gbps);
        opt_host_estimate f;
        if (opt_host_estimate_parse(again, &f, &err) != 0 || f.slowdown != e.slowdown ||
            f.gbps != e.gbps)
            abort();
    } else if (err.msg[0] == '\0') {
        abort();
    }
    free(text);
    return 0;
}
