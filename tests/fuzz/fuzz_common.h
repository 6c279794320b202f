/* Shared by the fuzz targets: drain a reader, checking every event it returns. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdlib.h>

#include "gmt.h"

/* An event a reader returned must satisfy the model's invariants; anything else is a bug the
 * fuzzer should report, so abort. */
static inline void fuzz_check_event(const gmt_event *ev)
{
    if (gmt_event_validate(ev, NULL) != 0)
        abort();
    for (uint32_t i = 0; i < ev->n_inputs; i++)
        (void)*(volatile const uint64_t *)&ev->inputs[i]; /* ASan checks the arrays */
    for (uint32_t i = 0; i < ev->n_outputs; i++)
        (void)*(volatile const uint64_t *)&ev->outputs[i].size;
    for (uint32_t i = 0; i < ev->n_mutated; i++)
        (void)*(volatile const uint32_t *)&ev->mutated[i];
}

#endif
