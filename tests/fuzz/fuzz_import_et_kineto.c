/* libFuzzer: arbitrary bytes as the Kineto trace of the Kineto join (kt_load_buffer, the
 * pairing checks on what it says about its job, forced and not, then et_kineto_join against
 * the hand-made ET tiny_et.json, embedded below by its op names, then the events built with
 * the lifetimes from the trace's [memory] events, import_et_lifetimes.c).
 * Seeded with tests/unit/traces/data/tiny_kineto*.json and tests/fuzz/seeds/kineto/ (one with
 * memory events for the embedded ET's call) by scripts/fuzz.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gmt.h"
#include "import_et.h"
#include "import_et_kineto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char et_json[] =
    "{\"schema\":\"1.0.1\",\"pid\":1,\"start_ts\":0,\"nodes\":["
    "{\"name\":\"aten::addmm\",\"id\":2,\"rf_id\":2,\"parent\":1,\"tid\":1,"
    "\"op_schema\":\"aten::addmm(Tensor self, Tensor mat1, Tensor mat2) -> Tensor\","
    "\"inputs\":[[1,101,0,4,4,\"cuda:0\"],[2,102,0,8,4,\"cuda:0\"],[3,103,0,16,4,\"cuda:0\"]],"
    "\"input_shapes\":[[4],[2,4],[4,4]],\"input_types\":[\"Tensor(float)\",\"Tensor(float)\","
    "\"Tensor(float)\"],\"outputs\":[[4,104,0,8,4,\"cuda:0\"]],\"output_shapes\":[[2,4]],"
    "\"output_types\":[\"Tensor(float)\"]}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static et_trace *t;
    gms_error err;
    if (!t && et_load_buffer(et_json, strlen(et_json), "et.json", &t, &err) != 0)
        abort(); /* the embedded ET must load */
    kt_trace *k;
    if (kt_load_buffer((const char *)data, size, "fuzz.json", t, &k, &err) != 0)
        return 0;
    char summary[512];
    const kt_job *job = kt_job_of(k);
    int refused = et_kineto_pairing(t, job, "et.json", "fuzz.json", 0, summary, sizeof summary,
                                    &err) != 0;
    if (et_kineto_pairing(t, job, "et.json", "fuzz.json", 1, summary, sizeof summary, &err) != 0 ||
        strlen(summary) >= sizeof summary || (refused && strncmp(summary, "FORCED", 6) != 0))
        abort(); /* forced: never refused, and a refusal shows in the summary */
    et_kineto_totals tot;
    int joined = et_kineto_join(t, k, "fuzz.json", &tot, &err) == 0;
    if (tot.matched + tot.unmatched > t->n_ops || tot.gpu_ns_linked > tot.gpu_ns)
        abort();
    et_events *ev;
    et_event_totals et;
    if (joined && et_events_build(t, NULL, &ev, &et, &err) == 0) {
        gmt_event e;
        while (et_events_next(ev, &e) == 1)
            if (e.kind == GMT_CALL && e.n_outputs > 1 + et.kt_workspaces)
                abort(); /* one output, plus at most the workspaces found */
        if (et.kt_matched + et.kt_workspaces + et.kt_unmatched > et.kt_allocs)
            abort();
        et_events_free(ev);
    }
    kt_free(k);
    return 0;
}
