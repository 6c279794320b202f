/* libFuzzer: arbitrary bytes through sim_trace_load (format sniffing, the .gmt reader or the
 * DTR log importer, then the replay engine's trace builder: name binding, reference counts,
 * storages, the link of children and storage graph, the baseline replay). A trace that loads
 * must be consistent enough to walk: every op's arguments and outputs, every storage. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("simload", data, size);
    sim_trace *t = NULL;
    gms_error err;
    if (sim_trace_load(path, &t, &err) != 0) {
        if (t)
            abort(); /* a failed load hands out nothing */
        return 0;
    }
    const sim_baseline *b = sim_trace_baseline(t);
    if (!b)
        abort();
    (void)*(volatile const uint64_t *)&b->memory;
    sim_trace_free(t);
    return 0;
}
