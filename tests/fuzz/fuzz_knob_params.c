/* libFuzzer target: any bytes as the --policy-args of rotor, sac and ac-budget
 * (heuristics/knob_params.c), canonicalized first as the CLI does: each parser either rejects
 * them with a message naming its planner or returns values within their documented bounds
 * (rotor's slots 1..100000; sac's ops non-empty base names, at most 64, every >= 0; ac-budget's
 * budget in [0, 1] and a known solver). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "knob_params.h"
#include "planners.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    char *canon = NULL;
    gms_error err = {0};
    if (planner_params_canon(text, &canon, &err) != 0) {
        free(text);
        return 0;
    }
    uint32_t slots = 0;
    if (knob_rotor_params(canon, &slots, &err) == 0) {
        if (slots < 1 || slots > KNOB_ROTOR_SLOTS_MAX)
            abort();
    } else if (strncmp(err.msg, "planner rotor", 13) && strncmp(err.msg, "rotor", 5)) {
        abort();
    }
    knob_sac_params sp;
    if (knob_sac_params_parse(canon, &sp, &err) == 0) {
        if (sp.n_ops > KNOB_SAC_MAX_OPS || (sp.op_sac && sp.n_ops == 0))
            abort();
        for (uint32_t i = 0; i < sp.n_ops; i++)
            if (strnlen(sp.ops[i], KNOB_OP_NAME) == KNOB_OP_NAME)
                abort();
    } else if (strncmp(err.msg, "planner sac", 11) && strncmp(err.msg, "sac", 3)) {
        abort();
    }
    knob_acb_params ap;
    if (knob_acb_params_parse(canon, &ap, &err) == 0) {
        if (!(ap.budget >= 0 && ap.budget <= 1) || ap.solver < 0 || ap.solver > 2)
            abort();
    } else if (strncmp(err.msg, "planner ac-budget", 17) && strncmp(err.msg, "ac-budget", 9)) {
        abort();
    }
    free(canon);
    free(text);
    return 0;
}
