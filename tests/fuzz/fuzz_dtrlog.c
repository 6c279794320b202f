/* libFuzzer target: any bytes through the DTR log reader, and every event it accepts through
 * the writer and back (must re-read to the same events). */
#include "dtrlog.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    dtrlog_reader *r;
    gms_error err;
    if (dtrlog_reader_open_stream(f, "fuzz.log", 1, &r, &err) != 0)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz-dtrlog-%d.log", (int)getpid());
    dtrlog_writer *w;
    if (dtrlog_writer_open(path, &w, &err) != 0)
        abort();
    gmt_event ev;
    int rc, wrc = 0;
    while ((rc = dtrlog_reader_next(r, &ev, &err)) == 1) {
        if (ev.kind == GMT_CALL)
            for (uint32_t i = 0; i < ev.n_outputs; i++)
                if (ev.outputs[i].alias_of >= (int32_t)ev.n_inputs)
                    abort();
        if (ev.kind == GMT_MUTATE)
            for (uint32_t i = 0; i < ev.n_mutated; i++)
                if (ev.mutated[i] >= ev.n_inputs)
                    abort();
        if (!wrc)
            wrc = dtrlog_writer_write(w, &ev, &err);
        if (wrc) {
            fprintf(stderr, "write failed: %s\n", err.msg);
            abort();
        }
    }
    uint64_t n = dtrlog_reader_events_read(r);
    dtrlog_reader_close(r);
    if (rc < 0) {
        dtrlog_writer_abort(w);
        if (strncmp(err.msg, "fuzz.log:", 9) != 0)
            abort();
        return 0;
    }
    if (dtrlog_writer_close(w, &err) != 0)
        abort();
    /* re-read the written log: same number of events, no error */
    if (dtrlog_reader_open(path, &r, &err) != 0)
        abort();
    uint64_t m = 0;
    while ((rc = dtrlog_reader_next(r, &ev, &err)) == 1)
        m++;
    if (rc < 0) {
        fprintf(stderr, "reread: %s\n", err.msg);
        abort();
    }
    if (m != n)
        abort();
    dtrlog_reader_close(r);
    remove(path);
    return 0;
}
