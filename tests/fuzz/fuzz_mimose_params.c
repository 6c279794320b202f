/* libFuzzer target: any bytes as the mimose / mimose-static parameter string (--policy-args):
 * the parser either rejects them with a message naming the planner or returns values within
 * their documented bounds, and what it accepts parses again to the same values from a
 * canonical form. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mimose.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *who = data[0] & 1 ? "mimose-static" : "mimose";
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    pol_mimose_params p, q;
    gms_error err;
    if (pol_mimose_params_parse(who, text, &p, &err) == 0) {
        if (p.warmup < 2 || p.bucket < 0 || p.max_input < -1 ||
            (!(data[0] & 1) && p.max_input != -1) || (p.predict_authors & ~1))
            abort();
        char again[160];
        int n = snprintf(again, sizeof again, "warmup=%" PRIu32 ",reserve=%" PRIu64 ",predict=%s",
                         p.warmup, p.reserve, p.predict_authors ? "authors" : "sequential");
        if (p.bucket != POL_MIMOSE_BUCKET_AUTO)
            n += snprintf(again + n, sizeof again - (size_t)n, ",bucket=%" PRId64, p.bucket);
        if (p.max_input >= 0)
            snprintf(again + n, sizeof again - (size_t)n, ",max_input=%" PRId64, p.max_input);
        if (pol_mimose_params_parse(who, again, &q, &err) != 0 || p.warmup != q.warmup ||
            p.bucket != q.bucket || p.reserve != q.reserve || p.max_input != q.max_input ||
            p.predict_authors != q.predict_authors)
            abort();
    } else if (strncmp(err.msg, who, strlen(who)) != 0) {
        abort();
    }
    free(text);
    return 0;
}
