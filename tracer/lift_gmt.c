/* trc_lift_to_gmt: the lifter's .gmt file sink (raw file in, atomic .gmt out). */
#include "lift.h"

#include <stdio.h>
#include <string.h>

static int sink_meta(void *ctx, const char *key, const char *value, gms_error *err)
{
    return gmt_writer_meta(ctx, key, value, err);
}

static int sink_event(void *ctx, const gmt_event *ev, gms_error *err)
{
    return gmt_writer_write(ctx, ev, err);
}

int trc_lift_to_gmt(const char *raw_path, const char *gmt_path, trc_lift_stats *st,
                    char *raw_warning, size_t warning_len, gms_error *err)
{
    return trc_lift_to_gmt_opt(raw_path, gmt_path, NULL, st, raw_warning, warning_len, err);
}

int trc_lift_to_gmt_opt(const char *raw_path, const char *gmt_path, const trc_lift_opts *opts,
                        trc_lift_stats *st, char *raw_warning, size_t warning_len,
                        gms_error *err)
{
    if (raw_warning && warning_len)
        raw_warning[0] = '\0';
    trc_raw *raw = NULL;
    int rc = trc_raw_open(raw_path, &raw, err);
    if (rc)
        return rc;
    if (raw_warning && warning_len && trc_raw_warning(raw))
        snprintf(raw_warning, warning_len, "%s", trc_raw_warning(raw));
    size_t n = trc_raw_count(raw), activity = 0;
    for (size_t i = 0; i < n; i++) {
        const trc_rec *r = trc_raw_at(raw, i);
        activity += r->type == TRC_REC_KERNEL || r->type == TRC_REC_LAUNCH ||
                    ((r->type == TRC_REC_ALLOC || r->type == TRC_REC_API_ALLOC) &&
                     (r->flags == TRC_MEM_DEVICE || r->flags == TRC_MEM_MANAGED));
    }
    if (activity == 0) {
        char status[600] = "";
        size_t used = 0;
        for (size_t i = 0; i < n && used + 3 < sizeof status; i++) {
            const trc_rec *r = trc_raw_at(raw, i);
            if (r->type == TRC_REC_INFO && r->name && strcmp(r->name, "status") == 0 && r->text)
                used += (size_t)snprintf(status + used, sizeof status - used, "%s%s",
                                         used ? "; " : "", r->text);
        }
        rc = gms_error_set(err, GMS_EINVAL,
                           "%s: no CUDA activity was recorded (no kernel, no device "
                           "allocation)%s%s",
                           raw_path, status[0] ? "; tracer said: " : "", status);
        trc_raw_close(raw);
        return rc;
    }
    gmt_writer *w = NULL;
    rc = gmt_writer_open(gmt_path, &w, err);
    if (rc == 0) {
        trc_sink sink = {.ctx = w, .meta = sink_meta, .event = sink_event};
        /* trc_raw keeps records contiguous: index 0 is the array */
        rc = trc_lift_records_opt(trc_raw_at(raw, 0), n, &sink, opts, st, err);
        if (rc == 0)
            rc = gmt_writer_close(w, err);
        else
            gmt_writer_abort(w);
    }
    trc_raw_close(raw);
    return rc;
}
