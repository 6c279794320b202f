/* snapshot_info: gpumemsim info on a PyTorch memory snapshot (snapshot_cli.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "snapshot_cli.h"

static const char *const CMD = "info";

void cli_snapshot_warn(const char *cmd, const snapshot *s, int device)
{
    char buf[2048];
    if (!snap_unmodelled(s, device, buf, sizeof buf))
        return;
    for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        fprintf(stderr, "gpumemsim %s: warning: device %d: %s\n", cmd, device, l);
}

typedef struct dev_summary {
    size_t nseg, nsmall, active_blocks;
    uint64_t reserved, allocated;
} dev_summary;

static dev_summary summarize(const snapshot *s, int d)
{
    dev_summary o = {0};
    for (size_t i = 0; i < s->nseg; i++) {
        const snap_segment *g = &s->seg[i];
        if (g->device != d)
            continue;
        o.nseg++;
        o.nsmall += g->small;
        o.reserved += g->size;
        for (size_t k = 0; k < g->n_blocks; k++)
            if (s->blk[g->first_block + k].state != SNAP_INACTIVE) {
                o.active_blocks++;
                o.allocated += s->blk[g->first_block + k].size;
            }
    }
    return o;
}

static json_t *settings_json(const snapshot *s)
{
    if (!s->set.present)
        return json_null();
    return json_pack("{s:s, s:I, s:f, s:b, s:b}", "PYTORCH_CUDA_ALLOC_CONF", s->set.conf,
                     "max_split_size",
                     (json_int_t)(s->set.max_split_size == UINT64_MAX ? -1
                                                                      : (json_int_t)s->set.max_split_size),
                     "garbage_collection_threshold", s->set.gc_threshold, "expandable_segments",
                     s->set.expandable_segments, "roundup_power2_divisions_set",
                     s->set.roundup_divisions_set);
}

static int print_json(const char *path, const snapshot *s)
{
    json_t *devs = json_array();
    for (int d = 0; d < s->ndev; d++) {
        dev_summary m = summarize(s, d);
        snap_state st;
        gms_error err;
        if (snap_initial_state(s, d, &st, &err)) {
            cli_error(CMD, "%s: %s", path, err.msg);
            json_decref(devs);
            return 1;
        }
        json_t *by = json_object();
        size_t c[SNAP_N_ACTIONS] = {0};
        for (size_t i = s->dev_first[d]; i < s->dev_first[d] + s->dev_n[d]; i++)
            c[s->ev[i].action]++;
        for (int a = 0; a < SNAP_N_ACTIONS; a++)
            if (c[a])
                json_object_set_new(by, snap_action_name(a), json_integer((json_int_t)c[a]));
        char buf[2048];
        int nu = snap_unmodelled(s, d, buf, sizeof buf);
        json_t *un = json_array();
        if (nu)
            for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l;
                 l = strtok_r(NULL, "\n", &save))
                json_array_append_new(un, json_string(l));
        json_array_append_new(
            devs, json_pack("{s:i, s:I, s:o, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I, "
                            "s:I}, s:o}",
                            "device", d, "events", (json_int_t)s->dev_n[d], "events_by_action", by,
                            "segments", (json_int_t)m.nseg, "reserved", (json_int_t)m.reserved,
                            "active_blocks", (json_int_t)m.active_blocks, "allocated",
                            (json_int_t)m.allocated, "before_first_event", "segments",
                            (json_int_t)st.nseg, "reserved", (json_int_t)st.reserved,
                            "live_blocks", (json_int_t)st.nblk, "allocated",
                            (json_int_t)st.allocated, "freed_without_alloc",
                            (json_int_t)st.freed_unallocated, "contradictions",
                            (json_int_t)st.problems, "unmodelled", un));
        snap_state_free(&st);
    }
    json_t *o = json_pack("{s:s, s:s, s:o, s:o}", "file", path, "format", "pytorch-snapshot",
                          "devices", devs, "allocator_settings", settings_json(s));
    int rc = !o || json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0;
    if (!rc)
        putchar('\n');
    json_decref(o);
    return rc;
}

static void print_text(const char *path, const snapshot *s)
{
    char b1[32], b2[32];
    printf("file                 %s\n", path);
    printf("format               PyTorch memory snapshot (allocator events, no op graph: "
           "gpumemsim memcheck replays it)\n");
    if (!s->set.present)
        printf("allocator settings   not recorded (a PyTorch before 2.4 or so)\n");
    else
        printf("allocator settings   PYTORCH_CUDA_ALLOC_CONF='%s'  max_split_size %s  "
               "expandable_segments %s  garbage_collection_threshold %g  "
               "roundup_power2_divisions %s\n",
               s->set.conf,
               s->set.max_split_size == UINT64_MAX
                   ? "unset"
                   : cli_format_bytes(s->set.max_split_size, b1, sizeof b1),
               s->set.expandable_segments ? "True" : "False", s->set.gc_threshold,
               s->set.roundup_divisions_set ? "set" : "default");
    for (int d = 0; d < s->ndev; d++) {
        dev_summary m = summarize(s, d);
        printf("device %d\n", d);
        printf("  events             %zu:", s->dev_n[d]);
        size_t c[SNAP_N_ACTIONS] = {0};
        for (size_t i = s->dev_first[d]; i < s->dev_first[d] + s->dev_n[d]; i++)
            c[s->ev[i].action]++;
        const char *sep = " ";
        for (int a = 0; a < SNAP_N_ACTIONS; a++)
            if (c[a]) {
                printf("%s%s %zu", sep, snap_action_name(a), c[a]);
                sep = ", ";
            }
        printf("\n  at the dump        %zu segments (%zu small-pool), reserved %s, %zu active "
               "blocks, allocated %s\n",
               m.nseg, m.nsmall, cli_format_bytes(m.reserved, b1, sizeof b1), m.active_blocks,
               cli_format_bytes(m.allocated, b2, sizeof b2));
        snap_state st;
        gms_error err;
        if (snap_initial_state(s, d, &st, &err) == 0) {
            printf("  before 1st event   %zu segments, reserved %s, %zu live blocks, allocated "
                   "%s (%zu freed in the trace without being allocated in it)\n",
                   st.nseg, cli_format_bytes(st.reserved, b1, sizeof b1), st.nblk,
                   cli_format_bytes(st.allocated, b2, sizeof b2), st.freed_unallocated);
            if (st.problems)
                printf("  contradictions     %zu events disagree with the final segments; the "
                       "first: %s\n",
                       st.problems, st.msg);
            snap_state_free(&st);
        }
    }
}

int cli_snapshot_info(const char *path, int json)
{
    snapshot *s;
    gms_error err;
    if (snap_load(path, &s, &err)) {
        cli_error(CMD, "%s", err.msg);
        return 1;
    }
    int rc = 0;
    if (json)
        rc = print_json(path, s);
    else
        print_text(path, s);
    for (int d = 0; d < s->ndev; d++)
        cli_snapshot_warn(CMD, s, d);
    snap_free(s);
    return rc;
}
