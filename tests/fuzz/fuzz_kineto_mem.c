/* libFuzzer: arbitrary bytes as a Kineto trace's memory events (kmem_load, then the events the
 * importer hands out), written plain to one temporary file per input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "kineto_mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("kmem", data, size);
    kmem_trace *k;
    gms_error err;
    if (kmem_load(path, &k, &err) != 0)
        return 0;
    kmem_iter *it;
    if (kmem_iter_new(k, &it, &err) != 0)
        return 0;
    gmt_event ev;
    while (kmem_iter_next(it, &ev, &err) > 0)
        fuzz_check_event(&ev);
    kmem_iter_free(it);
    return 0;
}
