/*
 * import_et_source: an Execution Trace as one input of gmt_source (import_et.h): load, cost
 * estimate, events, and the header metadata that says where it came from and what was left
 * out.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmt.h"
#include "import_et.h"
#include "import_et_kineto.h"
#include "synth.h"

#define ET_META_MAX 64

struct et_source {
    et_trace *t;
    et_events *ev;
    const char *keys[ET_META_MAX];
    char *values[ET_META_MAX];
    size_t n_meta;
};

static int meta(et_source *s, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int meta(et_source *s, const char *key, const char *fmt, ...)
{
    if (s->n_meta == ET_META_MAX)
        return -1;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *v = n < 0 ? NULL : strdup(buf);
    if (!v)
        return -1;
    s->keys[s->n_meta] = key;
    s->values[s->n_meta++] = v;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The roofline GPU of a Kineto trace's device name ("NVIDIA A100-SXM4-40GB" -> a100), or
 * NULL when the table has none like it. */
static const gmt_synth_gpu *gpu_of_device(const char *device)
{
    static const char *const names[][2] = {
        {"H200", "h200"}, {"H100", "h100"}, {"A100", "a100"}, {"V100", "v100"}, {"TITAN V", "titanv"}};
    char up[128];
    size_t i = 0;
    for (; device[i] && i + 1 < sizeof up; i++)
        up[i] = (char)(device[i] >= 'a' && device[i] <= 'z' ? device[i] - 32 : device[i]);
    up[i] = '\0';
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (strstr(up, names[k][0]))
            return gmt_synth_gpu_find(names[k][1]);
    return NULL;
}

/* The cost lines: estimated (no Kineto trace) or measured (the join's totals). The per-step
 * inputs, which no Kineto trace times, are priced on gpu: with a Kineto trace, the roofline
 * GPU of its device unless --gpu named one (see et_source_open). */
static int describe_costs(et_source *s, const gmt_synth_gpu *gpu, const char *kineto,
                          const et_kineto_totals *k, const et_cost_totals *c, const char *why)
{
    if (!kineto)
        return meta(s, "cost_source", "estimated: roofline from shapes on %s (no Kineto trace)",
                    gpu->key) ||
               meta(s, "cost_gpu", "%s", gpu->name) ||
               meta(s, "et_ops_estimated", "%zu", c->estimated) ||
               meta(s, "et_ops_views", "%zu", c->views) ||
               meta(s, "et_ops_without_cost", "%zu", c->uncosted);
    return meta(s, "cost_source",
                "measured: GPU time of the kernels, memcpys and memsets each op launched, "
                "Kineto trace %s, %s join",
                base_name(kineto), k->join) ||
           meta(s, "cost_gpu", "%s", k->device) || meta(s, "kineto_join", "%s", k->join) ||
           meta(s, "kineto_steps", "%zu", k->kineto_steps) ||
           meta(s, "kineto_gpu_events", "%zu", k->gpu_events) ||
           meta(s, "kineto_gpu_ns", "%llu", (unsigned long long)k->gpu_ns) ||
           meta(s, "kineto_gpu_events_joined", "%zu", k->gpu_events_linked) ||
           meta(s, "kineto_gpu_ns_joined", "%llu", (unsigned long long)k->gpu_ns_linked) ||
           meta(s, "kineto_step_gpu_ns_median", "%llu",
                (unsigned long long)k->step_gpu_ns_median) ||
           meta(s, "et_ops_measured", "%zu", k->matched) ||
           meta(s, "et_ops_without_cost", "%zu", k->unmatched) ||
           meta(s, "kineto_pairing", "%s", k->pairing) ||
           meta(s, "step_input_costs", "estimated on %s (%s; copies made before the trace)",
                gpu->key, why);
}

/* Which rule set the releases: the ET's lower bound, or the run's own frees. */
static int describe_releases(et_source *s, const et_event_totals *e)
{
    if (!s->t->n_allocs)
        return meta(s, "releases", "after last use: a lower bound of the real lifetimes");
    return meta(s, "releases",
                "at the real frees of the Kineto trace's memory events where a storage matched "
                "an allocation, else after last use") ||
           meta(s, "kineto_allocations", "%zu", e->kt_allocs) ||
           meta(s, "kineto_allocations_matched", "%zu", e->kt_matched) ||
           meta(s, "kineto_frees_after_last_use", "%zu", e->kt_later_frees) ||
           meta(s, "kineto_frees_before_last_use", "%zu", e->kt_early_frees) ||
           meta(s, "kineto_workspaces", "%zu (the largest %llu B)", e->kt_workspaces,
                (unsigned long long)e->kt_workspace_max) ||
           meta(s, "kineto_allocations_unmatched", "%zu", e->kt_unmatched);
}

static int describe(et_source *s, const char *path, const gmt_synth_gpu *gpu,
                    const char *kineto, const et_kineto_totals *k, const et_cost_totals *c,
                    const et_event_totals *e, const char *why)
{
    const et_trace *t = s->t;
    return meta(s, "source", "%s", base_name(path)) ||
           meta(s, "producer", "pytorch-execution-trace") ||
           meta(s, "source_format", "PyTorch Execution Trace") ||
           meta(s, "et_schema", "%s", t->schema) || meta(s, "device", "cuda") ||
           meta(s, "time_unit", "ns") || describe_costs(s, gpu, kineto, k, c, why) ||
           meta(s, "iterations", "%zu", t->iterations) ||
           meta(s, "iteration_marker", "%s", t->iteration_marker[0] ? t->iteration_marker
                                                                   : "none (one iteration)") ||
           meta(s, "et_nodes", "%zu", t->nodes) || meta(s, "et_ops", "%zu", e->ops) ||
           meta(s, "et_nested_ops_skipped", "%zu", t->nested_ops) ||
           meta(s, "et_wrappers_skipped", "%zu", t->wrappers) ||
           meta(s, "et_cpu_only_ops_skipped", "%zu", e->ops_without_cuda) ||
           meta(s, "et_cpu_tensors_skipped", "%zu", e->cpu_tensors) ||
           meta(s, "et_constants", "%zu", e->constants) ||
           meta(s, "et_constant_bytes", "%llu", (unsigned long long)e->constant_bytes) ||
           meta(s, "et_step_inputs", "%zu", e->step_inputs) ||
           meta(s, "et_in_place_ops", "%zu", e->in_place_ops) ||
           meta(s, "et_in_place_writes", "%zu", e->in_place_writes) ||
           meta(s, "et_mutations_in_calls", "%zu", e->mutations_in_calls) ||
           meta(s, "et_constant_writes", "%zu", e->constant_writes) ||
           meta(s, "et_stale_view_reads", "%zu", e->stale_reads) ||
           meta(s, "et_gradients_held", "%zu", e->gradients_held) ||
           meta(s, "et_optimizer_state_held", "%zu", e->state_held) ||
           meta(s, "et_foreach_split", "%zu ops into %zu", e->foreach_split, e->foreach_parts) ||
           meta(s, "in_place_writes", "a new version of the storage (a view): no bytes") ||
           meta(s, "et_storage_reuses", "%zu", e->storage_reuses) ||
           meta(s, "et_nested_outputs", "%zu", e->nested_outputs) ||
           meta(s, "layer_scopes", "%s",
                e->scopes ? "from the nn.Module record functions"
                          : "none (no nn.Module record functions: planners segment the forward "
                            "pass, docs/layers.md)") ||
           describe_releases(s, e);
}

int et_source_open(const char *path, const char *gpu_key, const char *kineto,
                   int kineto_force, et_source **out, gms_error *err)
{
    *out = NULL;
    const gmt_synth_gpu *gpu = gmt_synth_gpu_find(gpu_key ? gpu_key : ET_DEFAULT_GPU);
    if (!gpu)
        return gms_error_set(err, GMS_EINVAL,
                             "%s: unknown GPU \"%s\" for the cost estimate (known: h200, h100, "
                             "a100, v100, titanv)",
                             path, gpu_key);
    et_source *s = calloc(1, sizeof *s);
    if (!s)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    et_cost_totals c;
    et_event_totals e;
    int rc = et_load(path, &s->t, err);
    if (!rc)
        rc = et_estimate_costs(s->t, gpu->key, &c, err);
    et_kineto_totals k;
    memset(&k, 0, sizeof k);
    char why[192] = "--gpu";
    if (!rc && kineto) {
        kt_trace *kt = NULL;
        rc = kt_load(kineto, s->t, &kt, err);
        char pairing[sizeof k.pairing];
        if (!rc)
            rc = et_kineto_pairing(s->t, kt_job_of(kt), path, kineto, kineto_force, pairing,
                                   sizeof pairing, err);
        if (!rc)
            rc = et_kineto_join(s->t, kt, kineto, &k, err);
        if (!rc)
            memcpy(k.pairing, pairing, sizeof pairing);
        kt_free(kt);
        /* the step inputs' copies on the Kineto trace's GPU, so the header's GPUs agree */
        const gmt_synth_gpu *measured = rc ? NULL : gpu_of_device(k.device);
        if (!gpu_key && measured) {
            gpu = measured;
            snprintf(why, sizeof why, "the Kineto trace's GPU");
        } else if (!gpu_key) {
            snprintf(why, sizeof why, "the default: the Kineto trace's GPU, %.120s, has no "
                     "roofline entry", k.device);
        }
    }
    if (!rc)
        rc = et_events_build(s->t, gpu, &s->ev, &e, err);
    if (!rc && describe(s, path, gpu, kineto, &k, &c, &e, why))
        rc = gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    if (rc) {
        et_source_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

int et_source_next(et_source *s, gmt_event *ev)
{
    return et_events_next(s->ev, ev);
}

size_t et_source_meta_count(const et_source *s)
{
    return s->n_meta;
}

void et_source_meta_at(const et_source *s, size_t i, const char **key, const char **value)
{
    *key = s->keys[i];
    *value = s->values[i];
}

void et_source_close(et_source *s)
{
    if (!s)
        return;
    et_events_free(s->ev);
    et_trace_free(s->t);
    for (size_t i = 0; i < s->n_meta; i++)
        free(s->values[i]);
    free(s);
}
