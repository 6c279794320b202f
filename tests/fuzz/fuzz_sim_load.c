/* libFuzzer: arbitrary bytes through sim_trace_load (format sniffing, the .gmt reader or the
 * DTR log importer, then the replay engine's trace builder: name binding, reference counts,
 * storages, the link of children and storage graph, the baseline replay). A trace that loads
 * must be consistent enough to walk: every op's arguments and outputs, every storage; and
 * where its baseline peaks (sim_peak.c: phases, categories) must be its baseline memory, the
 * categories summing to it. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "sim.h"
#include "sim_peak.h"

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
    sim_categories *c;
    if (sim_categories_build(t, &c, &err) == 0) {
        sim_peak p;
        sim_peak_baseline(t, c, &p);
        uint64_t sum = 0;
        for (int k = 0; k < SIM_CAT_COUNT; k++)
            sum += p.by_category[k];
        if (p.memory != b->memory || sum != p.memory || p.largest_op_bytes != b->bottleneck)
            abort();
        sim_categories_free(c);
    }
    sim_trace_free(t);
    return 0;
}
