/* libFuzzer target: arbitrary bytes as a tracer raw file, parsed (trc_raw_parse) and, whatever
 * survives, lifted into events (trc_lift_records) that are checked with gmt_event_validate.
 * Built with -DGMS_FUZZ=ON (tests/unit/tracer/CMakeLists.txt); run it with
 *   build-fuzz/tests/unit/tracer/fuzz_trc_raw -max_total_time=60 */
#include <stdint.h>
#include <stdlib.h>

#include "lift.h"
#include "lift_raw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fz_meta(void *ctx, const char *key, const char *value, gms_error *err)
{
    (void)ctx;
    (void)err;
    if (!key || !value)
        abort();
    return 0;
}

static int fz_event(void *ctx, const gmt_event *ev, gms_error *err)
{
    (void)ctx;
    if (gmt_event_validate(ev, err) != 0)
        abort(); /* the lifter must only emit well-formed events */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* records are easier to reach behind a valid header: prepend one half of the time */
    uint8_t *buf = malloc(size + TRC_RAW_HEADER_SIZE);
    if (!buf)
        return 0;
    size_t len = size, off = 0;
    if (size > 0 && (data[0] & 1)) {
        trc_raw_header(buf, 1);
        off = TRC_RAW_HEADER_SIZE;
        data++, size--;
        len = size + off;
    }
    for (size_t i = 0; i < size; i++)
        buf[off + i] = data[i];
    trc_raw *r = NULL;
    gms_error err;
    if (trc_raw_parse(buf, len, "fuzz", &r, &err) == 0) {
        trc_sink sink = {.ctx = NULL, .meta = fz_meta, .event = fz_event};
        if (trc_raw_count(r) > 0)
            trc_lift_records(trc_raw_at(r, 0), trc_raw_count(r), &sink, NULL, &err);
        trc_raw_close(r);
    }
    free(buf);
    return 0;
}
