/* libFuzzer: arbitrary bytes as a PyTorch Execution Trace (et_load_buffer, the roofline
 * estimate, the events the importer builds, every one checked). Seeded with the hand-made ETs
 * of tests/unit/traces/data by scripts/fuzz.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "import_et.h"
#include "synth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    et_trace *t;
    gms_error err;
    if (et_load_buffer((const char *)data, size, "fuzz.json", &t, &err) != 0)
        return 0;
    et_cost_totals c;
    et_event_totals tot;
    et_events *e = NULL;
    if (et_estimate_costs(t, NULL, &c, &err) == 0 &&
        et_events_build(t, gmt_synth_gpu_find(ET_DEFAULT_GPU), &e, &tot, &err) == 0) {
        gmt_event ev;
        while (et_events_next(e, &ev) > 0)
            fuzz_check_event(&ev);
    }
    et_events_free(e);
    et_trace_free(t);
    return 0;
}
