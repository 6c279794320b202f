/*
 * memcheck_snapshot: gpumemsim memcheck on a PyTorch memory snapshot (snapshot_cli.h).
 *
 * Without --alloc-conf: the exact check (the caching model seeded with the real state before
 * the first event, every event compared; sim/memory_replay.h) and the cold-start prediction
 * of the peak reserved bytes. With --alloc-conf (repeatable): the what-if table, each
 * setting replayed cold beside the recorded ones, with --device-memory the predicted OOM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "memory.h"
#include "memcheck_snapshot_json.h"
#include "memory_replay.h"
#include "snapshot_cli.h"

static const char *const CMD = "memcheck";

static double pct_of(uint64_t a, uint64_t b)
{
    return b ? 100.0 * ((double)a - (double)b) / (double)b : 0.0;
}

/* The event's one-line description and its top frames. */
static void print_event(const snapshot *s, int device, long i, const char *indent)
{
    const snap_event *e = &s->ev[s->dev_first[device] + (size_t)i];
    char b[32];
    printf("%sevent %ld: %s of %s at 0x%llx (stream %lld)\n", indent, i,
           snap_action_name(e->action), cli_format_bytes(e->size, b, sizeof b),
           (unsigned long long)e->addr, (long long)e->stream);
    char in2[32];
    snprintf(in2, sizeof in2, "%s  ", indent);
    snap_print_frames(s, e->frames, 4, in2, stdout);
}

/* The recorded allocator settings as model options (max_split_size, expandable_segments,
 * roundup_power2_divisions; a GC threshold needs the fraction's limit, not recorded). */
static const sim_memory_model *recorded_model(const snapshot *s, sim_memory_options *o,
                                              char *key, size_t len)
{
    sim_memory_options_init(o);
    const sim_memory_model *m = &sim_memory_caching;
    snprintf(key, len, "caching (as recorded)");
    if (s->set.max_split_size != UINT64_MAX && s->set.max_split_size >= (UINT64_C(20) << 20))
        o->max_split_size = s->set.max_split_size;
    if (s->set.expandable_segments) {
        o->expandable_segments = 1;
        m = &sim_memory_caching_expandable;
    } else {
        for (int i = 0; i < SIM_ROUNDUP_INTERVALS && i < 16; i++)
            o->roundup_divisions[i] = s->set.roundup[i];
    }
    return m;
}

typedef struct args {
    const char *path;
    const char *confs[8];
    int nconf;
    uint64_t device_memory; /* UINT64_MAX: none */
    int device, cold_only;
    json_t *json; /* --json: the reports fill this object instead of printing */
} args;

static int exact_report(const snapshot *s, int d, const snap_state *st, const args *a)
{
    sim_memory_options opt;
    char key[64];
    const sim_memory_model *m = recorded_model(s, &opt, key, sizeof key);
    char why[2048];
    int nu = snap_unmodelled(s, d, why, sizeof why);
    const char *skip = NULL;
    if (a->cold_only)
        skip = "--cold";
    else if (nu)
        skip = "the snapshot uses what the model leaves out (see the warnings)";
    else if (!m->seed)
        skip = "expandable segments cannot be seeded yet";
    sim_replay_result r;
    gms_error err;
    if (!skip) {
        sim_replay_options o = {.model = m, .opt = &opt, .cold = 0, .limit = UINT64_MAX};
        if (sim_replay_snapshot(s, d, st, &o, &r, &err)) {
            cli_error(CMD, "%s: device %d: %s", a->path, d, err.msg);
            return 1;
        }
        if (a->json)
            json_object_set_new(a->json, "exact", mcj_exact(s, d, st, &r));
    }
    if (!skip && !a->json) {
        char b2[32];
        printf("exact check          the caching model seeded with the %zu segments and %zu "
               "live blocks held before the first event\n", st->nseg, st->nblk);
        printf("  placement          %zu of %zu allocations at the real segment and offset "
               "(%.2f%%)\n", r.placed_same, r.allocs,
               r.allocs ? 100.0 * (double)r.placed_same / (double)r.allocs : 100.0);
        printf("  reserved equal     after %zu of %zu allocs and frees; segments reserved during "
               "the trace: real %zu, model %zu\n", r.reserved_equal, r.reserved_checks,
               r.segs_real, r.segs_model);
        printf("  requested equal    after %zu of %zu allocs and frees\n", r.requested_equal,
               r.reserved_checks);
        printf("  at the end         segments real %zu, model %zu; reserved real %llu, model %llu "
               "(%s); allocated real %llu, model %llu; live blocks at the same place and size "
               "%zu of %zu\n", r.end_segments_real, r.end_segments_model,
               (unsigned long long)r.end_reserved_real, (unsigned long long)r.end_reserved_model,
               cli_format_bytes(r.end_reserved_model, b2, sizeof b2),
               (unsigned long long)r.end_allocated_real,
               (unsigned long long)r.end_allocated_model, r.end_blocks_same, r.end_blocks);
        if (r.first_divergence < 0)
            printf("  first divergence   none\n");
        else {
            printf("  first divergence   %s\n", r.divergence);
            print_event(s, d, r.first_divergence, "                     ");
        }
    } else if (skip && a->json) {
        json_object_set_new(a->json, "exact", json_pack("{s:b, s:s}", "run", 0, "why", skip));
    } else if (skip) {
        printf("exact check          not run: %s\n", skip);
    }
    /* cold start: only the live blocks */
    sim_replay_options o = {.model = m, .opt = &opt, .cold = 1, .limit = a->device_memory};
    sim_replay_result c;
    if (sim_replay_snapshot(s, d, st, &o, &c, &err)) {
        cli_error(CMD, "%s: device %d: %s", a->path, d, err.msg);
        return 1;
    }
    if (a->json) {
        json_object_set_new(a->json, "cold_start", mcj_cold(s, d, &c, a->device_memory));
        return 0;
    }
    char b1[32], b2[32];
    printf("cold start           the model starts empty with the %zu blocks live before the "
           "first event, then replays the events\n", st->nblk);
    if (c.oom_event >= 0) {
        printf("  out of memory      with %s reserved of the --device-memory %s at\n",
               cli_format_bytes(c.oom_reserved, b1, sizeof b1),
               cli_format_bytes(a->device_memory, b2, sizeof b2));
        print_event(s, d, c.oom_event, "                     ");
        return 0;
    }
    printf("  peak reserved      predicted %s, real %s (%+.3f%%)\n",
           cli_format_bytes(c.peak_reserved_model, b1, sizeof b1),
           cli_format_bytes(c.peak_reserved_real, b2, sizeof b2),
           pct_of(c.peak_reserved_model, c.peak_reserved_real));
    return 0;
}

/* One row of the what-if table. */
typedef struct row {
    char name[160];
    sim_replay_result r;
} row;

/* The real reserved bytes' peak over all of device d's events (the state before the first
 * plus the segment events), whatever a replay reached. */
static uint64_t real_peak(const snapshot *s, int d, const snap_state *st)
{
    uint64_t r = st->reserved, peak = r;
    for (size_t i = s->dev_first[d]; i < s->dev_first[d] + s->dev_n[d]; i++) {
        const snap_event *e = &s->ev[i];
        if (e->action == SNAP_SEGMENT_ALLOC || e->action == SNAP_SEGMENT_MAP)
            r += e->size;
        else if (e->action == SNAP_SEGMENT_FREE || e->action == SNAP_SEGMENT_UNMAP)
            r -= e->size <= r ? e->size : r;
        if (r > peak)
            peak = r;
    }
    return peak;
}

static int whatif_report(const snapshot *s, int d, const snap_state *st, const args *a)
{
    uint64_t peak_real = real_peak(s, d, st);
    row rows[9];
    int n = 0;
    gms_error err;
    for (int k = -1; k < a->nconf; k++) {
        sim_memory_options opt;
        char key[160];
        const sim_memory_model *m;
        if (k < 0) {
            m = recorded_model(s, &opt, key, sizeof key);
        } else {
            m = &sim_memory_caching;
            if (sim_memory_parse_conf(&m, a->confs[k], &opt, key, sizeof key, &err)) {
                cli_error(CMD, "--alloc-conf: %s", err.msg);
                return 2;
            }
        }
        sim_replay_options o = {.model = m, .opt = &opt, .cold = 1, .limit = a->device_memory};
        if (sim_replay_snapshot(s, d, st, &o, &rows[n].r, &err)) {
            cli_error(CMD, "%s: device %d: %s", a->path, d, err.msg);
            return 1;
        }
        snprintf(rows[n].name, sizeof rows[n].name, "%s", k < 0 ? key : a->confs[k]);
        n++;
    }
    if (a->json) {
        json_t *rs = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(rs, mcj_whatif_row(s, d, rows[i].name, &rows[i].r, peak_real,
                                                     a->device_memory));
        json_object_set_new(a->json, "whatif", rs);
        json_object_set_new(a->json, "real_peak_reserved", json_integer((json_int_t)peak_real));
        return 0;
    }
    char b1[32], b2[32], b3[32];
    printf("what-if (cold start, each setting from the same state before the first event)\n");
    printf("%-44s %14s %9s %14s %7s  %s\n", "setting", "peak reserved", "vs real",
           "largest free", "frag", a->device_memory != UINT64_MAX ? "OOM" : "");
    for (int i = 0; i < n; i++) {
        const sim_replay_result *r = &rows[i].r;
        char oom[64] = "", vs[32];
        if (a->device_memory != UINT64_MAX) {
            if (r->oom_event < 0)
                snprintf(oom, sizeof oom, "no");
            else
                snprintf(oom, sizeof oom, "at event %ld", r->oom_event);
        }
        if (r->oom_event >= 0) /* the run stopped there: its peak is no prediction */
            snprintf(vs, sizeof vs, "%9s", "-");
        else
            snprintf(vs, sizeof vs, "%+8.2f%%", pct_of(r->peak_reserved_model, peak_real));
        printf("%-44s %14s %s %14s %6.2f%%  %s\n", rows[i].name,
               cli_format_bytes(r->peak_reserved_model, b1, sizeof b1), vs,
               cli_format_bytes(r->largest_free_at_peak, b2, sizeof b2), 100 * r->frag, oom);
    }
    printf("real peak reserved: %s (the snapshot's segments over its events)\n",
           cli_format_bytes(peak_real, b3, sizeof b3));
    /* the OOMs the job itself recorded */
    size_t nrec = 0;
    long first_rec = -1;
    for (size_t i = 0; i < s->dev_n[d]; i++)
        if (s->ev[s->dev_first[d] + i].action == SNAP_OOM && nrec++ == 0)
            first_rec = (long)i;
    if (nrec) {
        const snap_event *e = &s->ev[s->dev_first[d] + (size_t)first_rec];
        printf("recorded: the job ran out of memory %zu time(s); the first at event %ld (a "
               "request of %s with %s free on the device)\n", nrec, first_rec,
               cli_format_bytes(e->size, b1, sizeof b1),
               cli_format_bytes(e->addr, b2, sizeof b2));
    }
    for (int i = 0; i < n; i++)
        if (rows[i].r.oom_event >= 0) {
            printf("%s: out of memory with %s reserved of %s at\n", rows[i].name,
                   cli_format_bytes(rows[i].r.oom_reserved, b1, sizeof b1),
                   cli_format_bytes(a->device_memory, b2, sizeof b2));
            print_event(s, d, rows[i].r.oom_event, "  ");
        }
    return 0;
}

int cli_memcheck_snapshot(const char *path, const char *const *confs, int nconf,
                          uint64_t device_memory, int device, int cold_only, int json)
{
    args a = {.path = path, .nconf = nconf, .device_memory = device_memory, .device = device,
              .cold_only = cold_only};
    gms_error err;
    for (int i = 0; i < nconf && i < 8; i++) { /* bad settings before any output */
        const sim_memory_model *m = &sim_memory_caching;
        sim_memory_options o;
        char key[160];
        if (sim_memory_parse_conf(&m, confs[i], &o, key, sizeof key, &err)) {
            cli_error(CMD, "--alloc-conf %s: %s", confs[i], err.msg);
            return 2;
        }
        a.confs[i] = confs[i];
    }
    snapshot *s;
    if (snap_load(path, &s, &err)) {
        cli_error(CMD, "%s", err.msg);
        return 1;
    }
    int d = device >= 0 ? device : snap_main_device(s);
    if (d < 0 || d >= s->ndev) {
        cli_error(CMD, "%s: no events for device %d (the snapshot has %d device trace(s))", path,
                  d, s->ndev);
        snap_free(s);
        return 1;
    }
    cli_snapshot_warn(CMD, s, d);
    snap_state st;
    if (snap_initial_state(s, d, &st, &err)) {
        cli_error(CMD, "%s: %s", path, err.msg);
        snap_free(s);
        return 1;
    }
    if (json) {
        char why[2048];
        json_t *un = json_array();
        if (snap_unmodelled(s, d, why, sizeof why))
            for (char *save = NULL, *l = strtok_r(why, "\n", &save); l;
                 l = strtok_r(NULL, "\n", &save))
                json_array_append_new(un, json_string(l));
        a.json = json_pack("{s:s, s:i, s:I, s:{s:I, s:I, s:I}, s:o}", "snapshot", path,
                           "device", d, "events", (json_int_t)s->dev_n[d],
                           "before_first_event", "segments", (json_int_t)st.nseg,
                           "live_blocks", (json_int_t)st.nblk, "reserved",
                           (json_int_t)st.reserved, "unmodelled", un);
        json_t *oo = json_array(); /* the OOMs the job itself recorded */
        for (size_t i = 0; i < s->dev_n[d]; i++)
            if (s->ev[s->dev_first[d] + i].action == SNAP_OOM)
                json_array_append_new(oo, mcj_event(s, d, (long)i));
        json_object_set_new(a.json, "recorded_ooms", oo);
    } else {
        printf("snapshot             %s (device %d: %zu events; before the first: %zu "
               "segments, %zu live blocks)\n", path, d, s->dev_n[d], st.nseg, st.nblk);
    }
    int rc = nconf ? whatif_report(s, d, &st, &a) : exact_report(s, d, &st, &a);
    if (a.json) { /* one object, printed whole only when every report ran */
        if (!rc && json_dumpf(a.json, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0)
            putchar('\n');
        else if (!rc)
            rc = 1;
        json_decref(a.json);
    }
    snap_state_free(&st);
    snap_free(s);
    return rc;
}
