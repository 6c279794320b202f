/* libFuzzer target: any bytes as --policy-args (heuristics/planner_params.c): the parser
 * either rejects them with a message or returns a canonical form that is a fixed point (it
 * canonicalizes to itself), whose every key passes planner_params_check against the keys it
 * holds, and whose values planner_param_double reads without crashing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "planners.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    char *canon = NULL, *again = NULL;
    gms_error err = {0};
    if (planner_params_canon(text, &canon, &err) == 0) {
        if (planner_params_canon(canon, &again, &err) != 0 || strcmp(canon, again) != 0)
            abort();
        /* its keys, as a NULL-ended list */
        char *copy = strdup(canon);
        const char *keys[64];
        size_t n = 0;
        for (char *p = copy, *save = NULL, *k; (k = strtok_r(p, ",", &save)) && n < 63;
             p = NULL) {
            char *eq = strchr(k, '=');
            if (!eq)
                abort();
            *eq = 0;
            keys[n++] = k;
        }
        keys[n] = NULL;
        if (n < 63 && planner_params_check("fuzz", canon, keys, &err) != 0)
            abort();
        for (size_t i = 0; i < n; i++) {
            double d;
            if (planner_param_double("fuzz", canon, keys[i], &d, &err) == 0)
                abort(); /* a key it holds is found */
        }
        free(copy);
    } else if (err.msg[0] == '\0' || canon) {
        abort();
    }
    free(canon);
    free(again);
    free(text);
    return 0;
}
