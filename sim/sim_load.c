/*
 * sim_load: sim_trace_load, a trace file (.gmt or DTR log, sniffed by gmt_source) fed event by
 * event through the trace builder.
 */
#include <stdio.h>

#include "gmt.h"
#include "sim_internal.h"

int sim_trace_load(const char *path, sim_trace **out, gms_error *err)
{
    return sim_trace_load_kineto(path, NULL, 0, out, err);
}

int sim_trace_load_kineto(const char *path, const char *kineto, int force, sim_trace **out,
                          gms_error *err)
{
    *out = NULL;
    if (!path)
        return gms_error_set(err, GMS_EINVAL, "sim_trace_load: NULL path");
    gmt_source *src;
    gmt_source_options opt = {NULL, kineto, force};
    int rc = gmt_source_open_with(path, &opt, &src, err);
    if (rc)
        return rc;
    if (kineto && gmt_source_format(src) != GMT_FORMAT_PYTORCH_ET) {
        gmt_source_close(src);
        return gms_error_set(err, GMS_EINVAL,
                             "%s: --kineto applies to a PyTorch Execution Trace only (this "
                             "trace has its own costs)",
                             path);
    }
    sim_trace_builder *b;
    rc = sim_trace_builder_new(&b, err);
    if (rc) {
        gmt_source_close(src);
        return rc;
    }
    gmt_event ev;
    gms_error e2;
    for (;;) {
        int r = gmt_source_next(src, &ev, err);
        if (r == 0)
            break;
        if (r < 0) {
            rc = err && err->code ? err->code : GMS_EFORMAT;
            break;
        }
        if (sim_trace_builder_add(b, &ev, &e2) != 0) {
            rc = gms_error_set(err, e2.code, "%s: %s", path, e2.msg);
            break;
        }
    }
    /* A truncated file reads as a clean prefix; replaying it would report numbers for a job
     * that never ran like that, so an incomplete trace is an error here. */
    const char *truncated = rc ? NULL : gmt_source_warning(src);
    if (truncated)
        rc = gms_error_set(err, GMS_EFORMAT,
                           "%s; refusing to simulate an incomplete trace (record or convert it "
                           "again)", truncated);
    gmt_source_close(src);
    if (rc) {
        sim_trace_builder_free(b);
        return rc;
    }
    if (sim_trace_builder_finish(b, out, &e2) != 0)
        return gms_error_set(err, e2.code, "%s: %s", path, e2.msg);
    return 0;
}
