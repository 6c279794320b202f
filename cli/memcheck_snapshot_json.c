/* memcheck_snapshot_json: memcheck --json on a snapshot (memcheck_snapshot_json.h). */
#include "memcheck_snapshot_json.h"

static json_t *frames_json(const snapshot *s, pk_ref frames)
{
    pk_ref top[4];
    size_t n = snap_top_frames(s, frames, 4, top);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        const char *name, *file;
        int64_t ln;
        snap_frame_fields(s, top[i], &name, &file, &ln);
        json_array_append_new(a, json_pack("{s:s, s:s, s:I}", "name", name, "filename", file,
                                           "line", (json_int_t)ln));
    }
    return a;
}

json_t *mcj_event(const snapshot *s, int d, long i)
{
    const snap_event *e = &s->ev[s->dev_first[d] + (size_t)i];
    json_t *o = json_pack("{s:I, s:s}", "index", (json_int_t)i, "action",
                          snap_action_name(e->action));
    if (e->action == SNAP_OOM)
        json_object_set_new(o, "device_free", json_integer((json_int_t)e->addr));
    else
        json_object_set_new(o, "addr", json_integer((json_int_t)e->addr));
    json_object_set_new(o, "size", json_integer((json_int_t)e->size));
    json_object_set_new(o, "stream", json_integer((json_int_t)e->stream));
    json_object_set_new(o, "frames", frames_json(s, e->frames));
    return o;
}

static json_t *share(size_t a, size_t b)
{
    return json_real(b ? (double)a / (double)b : 1.0);
}

json_t *mcj_exact(const snapshot *s, int d, const snap_state *st, const sim_replay_result *r)
{
    json_t *div = json_null();
    if (r->first_divergence >= 0) {
        div = mcj_event(s, d, r->first_divergence);
        json_object_set_new(div, "what", json_string(r->divergence));
    }
    return json_pack(
        "{s:b, s:I, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, "
        "s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:o}",
        "run", 1, "seeded_segments", (json_int_t)st->nseg, "seeded_blocks",
        (json_int_t)st->nblk, "allocations", (json_int_t)r->allocs, "placed_same",
        (json_int_t)r->placed_same, "placed_same_share", share(r->placed_same, r->allocs),
        "checks", (json_int_t)r->reserved_checks, "reserved_equal",
        (json_int_t)r->reserved_equal, "requested_equal", (json_int_t)r->requested_equal,
        "segments_reserved_real", (json_int_t)r->segs_real, "segments_reserved_model",
        (json_int_t)r->segs_model, "end", "segments_real", (json_int_t)r->end_segments_real,
        "segments_model", (json_int_t)r->end_segments_model, "reserved_real",
        (json_int_t)r->end_reserved_real, "reserved_model", (json_int_t)r->end_reserved_model,
        "allocated_real", (json_int_t)r->end_allocated_real, "allocated_model",
        (json_int_t)r->end_allocated_model, "live_blocks", (json_int_t)r->end_blocks,
        "live_blocks_same", (json_int_t)r->end_blocks_same, "first_divergence", div);
}

static json_t *oom_json(const snapshot *s, int d, const sim_replay_result *r,
                        uint64_t device_memory)
{
    if (device_memory == UINT64_MAX || r->oom_event < 0)
        return json_null();
    json_t *o = mcj_event(s, d, r->oom_event);
    json_object_set_new(o, "reserved", json_integer((json_int_t)r->oom_reserved));
    json_object_set_new(o, "device_memory", json_integer((json_int_t)device_memory));
    return o;
}

json_t *mcj_cold(const snapshot *s, int d, const sim_replay_result *c, uint64_t device_memory)
{
    json_t *err = c->oom_event >= 0 || !c->peak_reserved_real
                      ? json_null()
                      : json_real(((double)c->peak_reserved_model -
                                   (double)c->peak_reserved_real) /
                                  (double)c->peak_reserved_real);
    return json_pack("{s:I, s:I, s:o, s:o}", "peak_reserved_predicted",
                     (json_int_t)c->peak_reserved_model, "peak_reserved_real",
                     (json_int_t)c->peak_reserved_real, "peak_rel_error", err, "oom",
                     oom_json(s, d, c, device_memory));
}

json_t *mcj_whatif_row(const snapshot *s, int d, const char *name, const sim_replay_result *r,
                       uint64_t real_peak, uint64_t device_memory)
{
    json_t *vs = r->oom_event >= 0 || !real_peak
                     ? json_null()
                     : json_real(((double)r->peak_reserved_model - (double)real_peak) /
                                 (double)real_peak);
    return json_pack("{s:s, s:I, s:o, s:I, s:f, s:o}", "setting", name, "peak_reserved",
                     (json_int_t)r->peak_reserved_model, "peak_rel_error", vs,
                     "largest_free_at_peak", (json_int_t)r->largest_free_at_peak,
                     "fragmentation", r->frag, "oom", oom_json(s, d, r, device_memory));
}
