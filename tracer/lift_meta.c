/* trc_lift meta: the tracer's INFO records -> trace header metadata and stats (lift_int.h). */
#include "lift.h"
#include "lift_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Joins the tracer's problems into st->status ("a; b"), dropping what does not fit. */
static void append_status(trc_lift_stats *st, const char *text)
{
    size_t used = strlen(st->status);
    if (used + 3 >= sizeof st->status)
        return;
    snprintf(st->status + used, sizeof st->status - used, "%s%s", used ? "; " : "", text);
}

/* 1 when an INFO record before index i has the same key (metadata keys are written once). */
static int seen_before(const trc_rec *recs, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (recs[j].type == TRC_REC_INFO && recs[j].name && strcmp(recs[j].name, recs[i].name) == 0)
            return 1;
    return 0;
}

trc_alloc_view trc_alloc_source(trc_rec_type type)
{
    if (type == TRC_REC_API_ALLOC || type == TRC_REC_API_FREE)
        return TRC_ALLOCS_CALLBACKS;
    if (type == TRC_REC_ALLOC || type == TRC_REC_FREE)
        return TRC_ALLOCS_MEMORY2;
    return (trc_alloc_view)0;
}

int trc_lift_meta(const trc_rec *recs, size_t n, const trc_sink *s, trc_lift_stats *st,
                  gms_error *err)
{
    static const char *const ours[] = {"producer",       "source",          "time_unit",
                                       "tracer_status",  "trace_complete",  "allocations",
                                       "allocation_records"};
    int rc = s->meta(s->ctx, "producer", "gpumemsim-tracer " GMS_VERSION, err);
    if (rc == 0)
        rc = s->meta(s->ctx, "source", "cupti", err);
    if (rc == 0)
        rc = s->meta(s->ctx, "time_unit", "ns", err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const trc_rec *r = &recs[i];
        if (r->type != TRC_REC_INFO || !r->name)
            continue;
        const char *v = r->text ? r->text : "";
        int reserved = 0;
        for (size_t k = 0; k < sizeof ours / sizeof ours[0]; k++)
            reserved |= strcmp(r->name, ours[k]) == 0;
        if (reserved)
            continue; /* keys the lifter writes itself */
        if (strcmp(r->name, "end") == 0) {
            /* only a normal exit finished the trace; "signal N" means the job was cut short */
            st->clean_end = strcmp(v, "exit") == 0;
            if (!st->clean_end) {
                char why[96];
                snprintf(why, sizeof why, "job ended by %.60s", v);
                append_status(st, why);
            }
        } else if (strcmp(r->name, "dropped_records") == 0) {
            st->dropped_records = strtoull(v, NULL, 10);
        } else if (strcmp(r->name, "status") == 0) {
            append_status(st, v);
        } else if (!seen_before(recs, i)) {
            if (strcmp(r->name, "device") == 0)
                snprintf(st->device, sizeof st->device, "%s", v);
            rc = s->meta(s->ctx, r->name, v, err);
        }
    }
    for (size_t i = 0; i < n; i++) {
        st->alloc_records_callbacks += recs[i].type == TRC_REC_API_ALLOC;
        st->alloc_records_memory2 += recs[i].type == TRC_REC_ALLOC &&
                                     (recs[i].flags == TRC_MEM_DEVICE ||
                                      recs[i].flags == TRC_MEM_MANAGED);
    }
    st->alloc_source = st->alloc_records_callbacks > 0 ? TRC_ALLOCS_CALLBACKS : TRC_ALLOCS_MEMORY2;
    char buf[96];
    if (rc == 0)
        rc = s->meta(s->ctx, "allocations",
                     st->alloc_source == TRC_ALLOCS_CALLBACKS ? "callbacks" : "memory2", err);
    snprintf(buf, sizeof buf, "callbacks %llu, memory2 %llu",
             (unsigned long long)st->alloc_records_callbacks,
             (unsigned long long)st->alloc_records_memory2);
    if (rc == 0)
        rc = s->meta(s->ctx, "allocation_records", buf, err);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)st->dropped_records);
    if (rc == 0)
        rc = s->meta(s->ctx, "dropped_records", buf, err);
    if (rc == 0)
        rc = s->meta(s->ctx, "tracer_status", st->status[0] ? st->status : "ok", err);
    if (rc == 0)
        rc = s->meta(s->ctx, "trace_complete", st->clean_end ? "yes" : "no (job died)", err);
    return rc;
}
