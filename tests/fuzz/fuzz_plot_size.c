/* libFuzzer target: any bytes as a chart size (plot overhead --size): the parser either
 * rejects them with a message or returns a size within its documented bounds (a preset's
 * height may be 0: fit to the content), and a size it accepts parses again to the same value
 * from its own canonical form. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "plot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    double w = 0, h = 0;
    gms_error err;
    if (plot_parse_size(text, &w, &h, &err) == 0) {
        /* a preset may leave the height to the chart (0) */
        if (!(w >= 1.0 && w <= 50.0 && (h == 0 || (h >= 1.0 && h <= 50.0))))
            abort();
        if (h == 0) {
            free(text);
            return 0;
        }
        char again[96];
        double w2, h2;
        snprintf(again, sizeof again, "%.17gx%.17gin", w, h);
        if (plot_parse_size(again, &w2, &h2, &err) != 0 || w2 != w || h2 != h)
            abort();
    } else if (err.msg[0] == '\0') {
        abort();
    }
    free(text);
    return 0;
}
