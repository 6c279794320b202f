/*
 * gpumemsim info: summarize a trace (.gmt or DTR log): events by kind, ops, distinct op
 * names, constant bytes, baseline memory and compute (from the simulator), annotations and
 * header metadata. --json prints the same as one JSON object with stable keys.
 */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gmt.h"
#include "gmt_stats.h"
#include "sim.h"
#include "sim_layers.h"
#include "snapshot_cli.h"
#include "peak_report.h"

static const char *const CMD = "info";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim info FILE [--json] [--ops] [--kineto KINETO [--kineto-force]]\n"
            "\n"
            "Summarizes a trace (.gmt, DTR JSON log, Kineto memory trace or PyTorch Execution\n"
            "Trace, detected from the content; docs/import-pytorch.md): events by\n"
            "kind, ops (CALL + MUTATE), distinct op names, constant bytes, baseline peak memory\n"
            "and total compute time (no memory budget; see the DTR semantics spec, section 4),\n"
            "where that peak is (its op and phase, the resident bytes there by category:\n"
            "pre-existing, gradients, optimizer state, saved activations, temporaries,\n"
            "unknown; the largest op; docs/memory.md),\n"
            "annotations and the header metadata, the layer scopes (count, nesting depth) and\n"
            "the top-level forward layers per iteration planners see, from the scopes or, in a\n"
            "trace without scopes, by segmentation (docs/layers.md). A truncated .gmt file\n"
            "is an error (\"truncated after event N\", exit status 1), as in sim, unless\n"
            "--allow-truncated; a trace the simulator cannot replay gets its summary, then\n"
            "an error (exit status 1).\n"
            "\n"
            "A PyTorch memory snapshot (torch.cuda.memory._dump_snapshot; a pickle, plain or\n"
            "gzip) is summarized as what it is, an allocator event stream: events per device\n"
            "and action, the segments at the dump, the allocator settings, the state before\n"
            "the first event reconstructed from them, and warnings for what 'gpumemsim\n"
            "memcheck' cannot model (docs/memory.md).\n"
            "\n"
            "options:\n"
            "  --json      print one JSON object with the keys file, format, events,\n"
            "              events_by_kind, ops, distinct_op_names, outputs, views,\n"
            "              constant_bytes, baseline_memory, baseline_compute, peak\n"
            "              (where the baseline peaks: op, phase, resident bytes by\n"
            "              category, the largest op; docs/memory.md), scopes\n"
            "              ({count, max_depth}), layers ({source, iterations,\n"
            "              per_iteration} or null), annotations, meta, warning\n"
            "  --ops       also list every op name with its count, most frequent first\n"
            "  --allow-truncated  summarize the complete events of a truncated .gmt (with a\n"
            "              warning, exit status 0) instead of refusing it\n"
            "  --kineto KINETO  a PyTorch Execution Trace's op costs measured from the run's\n"
            "              Kineto trace KINETO instead of estimated (docs/import-pytorch.md)\n"
            "  --kineto-force  join KINETO even when the two files disagree on the job\n"
            "              (process id, GPU, profiler steps; docs/import-pytorch.md)\n"
            "  -h, --help  show this help\n"
            "\n"
            "example:\n"
            "  gpumemsim info unet.gmt\n");
}

typedef struct info {
    const char *path;
    const char *kineto; /* --kineto, or NULL */
    int kineto_force;   /* --kineto-force */
    gmt_format format;
    gmt_stats *stats;
    /* header metadata, copied (the source is closed before printing) */
    char **keys, **values;
    size_t n_meta;
    char *warning;
    sim_baseline baseline;
    int have_baseline;
    /* the layers planners see (sim_layers.h), when the trace replays */
    uint32_t n_iterations;
    uint32_t *layers_per_iteration;
    sim_layer_source layer_source;
    /* where the baseline peaks (sim_peak.h); its op names copied, the trace is freed */
    sim_peak peak;
    char peak_op[256], largest_op[256];
} info;

static void info_free(info *in)
{
    gmt_stats_free(in->stats);
    for (size_t i = 0; i < in->n_meta; i++) {
        free(in->keys[i]);
        free(in->values[i]);
    }
    free(in->keys);
    free(in->values);
    free(in->warning);
    free(in->layers_per_iteration);
}

/* Counts the layers of each iteration of t into in. 0 or an error code. */
static int count_layers(info *in, const sim_trace *t, gms_error *err)
{
    sim_layers *l;
    int rc = sim_layers_build(t, &l, err);
    if (rc)
        return rc;
    in->n_iterations = sim_layers_iterations(l);
    in->layer_source = sim_layers_source(l);
    in->layers_per_iteration = calloc(in->n_iterations ? in->n_iterations : 1, sizeof(uint32_t));
    if (!in->layers_per_iteration) {
        sim_layers_free(l);
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < in->n_iterations; i++)
        in->layers_per_iteration[i] = sim_layers_iteration(l, i)->n_layers;
    sim_layers_free(l);
    return 0;
}

/* Where the baseline peaks, and what is resident there (sim_peak.h). */
static int find_peak(info *in, const sim_trace *t, gms_error *err)
{
    sim_categories *c;
    int rc = sim_categories_build(t, &c, err);
    if (rc)
        return rc;
    sim_peak_baseline(t, c, &in->peak);
    sim_categories_free(c);
    snprintf(in->peak_op, sizeof in->peak_op, "%s", in->peak.op);
    snprintf(in->largest_op, sizeof in->largest_op, "%s",
             in->peak.largest_op ? in->peak.largest_op : "");
    in->peak.op = in->peak_op;
    in->peak.largest_op = in->largest_op;
    return 0;
}

static const char *layer_source_name(sim_layer_source s)
{
    return s == SIM_LAYERS_SCOPES ? "scopes" : s == SIM_LAYERS_SEGMENTS ? "segments" : "mixed";
}

/* Copies the source's metadata and warning into in. */
static int copy_meta(info *in, const gmt_source *src, gms_error *err)
{
    size_t n = gmt_source_meta_count(src);
    in->keys = calloc(n ? n : 1, sizeof *in->keys);
    in->values = calloc(n ? n : 1, sizeof *in->values);
    if (!in->keys || !in->values)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *k, *v;
        gmt_source_meta_at(src, i, &k, &v);
        in->keys[i] = strdup(k);
        in->values[i] = strdup(v);
        in->n_meta = i + 1;
        if (!in->keys[i] || !in->values[i])
            return gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
    const char *w = gmt_source_warning(src);
    if (w && !(in->warning = strdup(w)))
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    return 0;
}

/* Feeds one event to the simulator's trace builder. The first failure is kept in sim_err and
 * ends the building (the statistics go on). */
static void build(info *in, sim_trace_builder **b, const gmt_event *ev, gms_error *sim_err)
{
    gms_error e;
    if (*b && sim_trace_builder_add(*b, ev, &e) != 0) {
        gms_error_set(sim_err, e.code, "%s: %s", in->path, e.msg);
        sim_trace_builder_free(*b);
        *b = NULL;
    }
}

/* Reads the trace once, into the statistics and into the simulator's trace builder (what
 * sim_trace_load does), so the baseline memory/compute are exactly the figures every
 * simulation of this trace is measured against, and a pipe can be read too. A trace that
 * parses but cannot be replayed leaves have_baseline 0 and the reason in sim_err. */
static int scan(info *in, gms_error *err, gms_error *sim_err)
{
    gmt_source *src;
    gmt_source_options opt = {NULL, in->kineto, in->kineto_force};
    int rc = gmt_source_open_with(in->path, &opt, &src, err);
    if (rc != 0)
        return rc;
    in->format = gmt_source_format(src);
    if (in->kineto && in->format != GMT_FORMAT_PYTORCH_ET) {
        gmt_source_close(src);
        return gms_error_set(err, GMS_EINVAL,
                             "%s: --kineto applies to a PyTorch Execution Trace only (this "
                             "trace has its own costs)",
                             in->path);
    }
    in->stats = gmt_stats_new();
    sim_trace_builder *b = NULL;
    if (!in->stats || (rc = sim_trace_builder_new(&b, err)) != 0) {
        gmt_source_close(src);
        return rc ? rc : gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
    gmt_event ev;
    while ((rc = gmt_source_next(src, &ev, err)) == 1) {
        if ((rc = gmt_stats_add(in->stats, &ev, err)) != 0)
            break;
        build(in, &b, &ev, sim_err);
    }
    if (rc == 0)
        rc = copy_meta(in, src, err);
    else if (rc < 0)
        rc = err && err->code ? err->code : GMS_EFORMAT;
    gmt_source_close(src);
    if (rc != 0) {
        sim_trace_builder_free(b);
        return rc;
    }
    if (b) {
        sim_trace *t;
        gms_error e;
        if (sim_trace_builder_finish(b, &t, &e) != 0) { /* frees b */
            gms_error_set(sim_err, e.code, "%s: %s", in->path, e.msg);
        } else {
            in->baseline = *sim_trace_baseline(t);
            in->have_baseline = 1;
            rc = count_layers(in, t, err);
            if (!rc)
                rc = find_peak(in, t, err);
            sim_trace_free(t);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static const char *format_name(gmt_format f)
{
    switch (f) {
    case GMT_FORMAT_GMT: return "gmt";
    case GMT_FORMAT_KINETO_MEMORY: return "kineto-memory";
    case GMT_FORMAT_PYTORCH_ET: return "pytorch-et";
    case GMT_FORMAT_DTR_LOG: break;
    }
    return "dtr-log";
}

/* qsort order for --ops: most frequent first, then by first appearance. */
static const gmt_stats *sort_stats;

static int by_count(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    uint64_t ci, cj;
    gmt_stats_op_name_at(sort_stats, i, &ci);
    gmt_stats_op_name_at(sort_stats, j, &cj);
    if (ci != cj)
        return ci > cj ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* Every op name with its count, most frequent first. */
static void print_ops(const gmt_stats *s)
{
    size_t n = gmt_stats_op_names(s);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    printf("op names (count):\n");
    for (size_t i = 0; i < n; i++)
        if (order)
            order[i] = i;
    if (order) {
        sort_stats = s;
        qsort(order, n, sizeof *order, by_count);
    }
    for (size_t k = 0; k < n; k++) {
        uint64_t c;
        const char *op = gmt_stats_op_name_at(s, order ? order[k] : k, &c);
        printf("  %-40s  %" PRIu64 "\n", op, c);
    }
    free(order);
}

static void print_text(const info *in, int list_ops)
{
    const gmt_stats *s = in->stats;
    char b[32];
    printf("file:               %s (%s)\n", in->path, format_name(in->format));
    printf("events:             %" PRIu64 "\n", gmt_stats_events(s));
    for (int k = 1; k < GMT_KIND_COUNT; k++)
        if (gmt_stats_kind(s, (gmt_kind)k))
            printf("  %-16s  %" PRIu64 "\n", gmt_kind_name((gmt_kind)k),
                   gmt_stats_kind(s, (gmt_kind)k));
    if (gmt_stats_kind(s, (gmt_kind)0))
        printf("  %-16s  %" PRIu64 "\n", "(unknown)", gmt_stats_kind(s, (gmt_kind)0));
    printf("ops:                %" PRIu64 " (CALL + MUTATE)\n", gmt_stats_ops(s));
    printf("distinct op names:  %zu\n", gmt_stats_op_names(s));
    printf("outputs:            %" PRIu64 " (%" PRIu64 " views)\n", gmt_stats_outputs(s),
           gmt_stats_views(s));
    printf("constant bytes:     %" PRIu64 " (%s)\n", gmt_stats_constant_bytes(s),
           cli_format_bytes(gmt_stats_constant_bytes(s), b, sizeof b));
    if (in->have_baseline) {
        printf("baseline memory:    %" PRIu64 " (%s peak, no budget)\n", in->baseline.memory,
               cli_format_bytes(in->baseline.memory, b, sizeof b));
        printf("baseline compute:   %" PRIu64 " ns (%.3f ms)\n", in->baseline.compute,
               (double)in->baseline.compute / 1e6);
        peak_report_text(&in->peak, 20, "");
    }
    if (gmt_stats_scopes(s))
        printf("scopes:             %" PRIu64 " (nested %" PRIu64 " deep)\n", gmt_stats_scopes(s),
               gmt_stats_scope_depth(s));
    else
        printf("scopes:             none\n");
    if (in->have_baseline) {
        uint32_t n = in->n_iterations, same = 1;
        for (uint32_t i = 1; i < n; i++)
            same &= in->layers_per_iteration[i] == in->layers_per_iteration[0];
        printf("layers:             ");
        if (n == 0) {
            printf("none (no forward op)\n");
        } else {
            if (same)
                printf("%u", in->layers_per_iteration[0]);
            for (uint32_t i = 0; !same && i < n; i++)
                printf("%s%u", i ? "," : "", in->layers_per_iteration[i]);
            printf(" per iteration, %u iteration%s, from %s\n", n, n == 1 ? "" : "s",
                   in->layer_source == SIM_LAYERS_SCOPES     ? "the scopes"
                   : in->layer_source == SIM_LAYERS_SEGMENTS ? "segmentation (no scopes)"
                                                             : "scopes and segmentation");
        }
    }
    printf("annotations:       ");
    if (gmt_stats_annotations(s) == 0)
        printf(" none");
    for (size_t i = 0; i < gmt_stats_annotations(s); i++) {
        uint64_t n;
        const char *a = gmt_stats_annotation_at(s, i, &n);
        printf(" %s x%" PRIu64 "%s", a, n, i + 1 < gmt_stats_annotations(s) ? "," : "");
    }
    printf("\nmeta:\n");
    for (size_t i = 0; i < in->n_meta; i++)
        printf("  %-16s  %s\n", in->keys[i], in->values[i]);
    if (list_ops)
        print_ops(s);
}

static json_t *jint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v);
}

/* Builds the --json object; NULL when out of memory. */
static json_t *to_json(const info *in)
{
    const gmt_stats *s = in->stats;
    json_t *o = json_object(), *kinds = json_object(), *ann = json_object(),
           *meta = json_object();
    if (!o || !kinds || !ann || !meta) {
        json_decref(o);
        json_decref(kinds);
        json_decref(ann);
        json_decref(meta);
        return NULL;
    }
    int bad = 0;
    for (int k = 1; k < GMT_KIND_COUNT; k++)
        bad |= json_object_set_new(kinds, gmt_kind_name((gmt_kind)k),
                                   jint(gmt_stats_kind(s, (gmt_kind)k)));
    for (size_t i = 0; i < gmt_stats_annotations(s); i++) {
        uint64_t n;
        const char *a = gmt_stats_annotation_at(s, i, &n);
        bad |= json_object_set_new(ann, a, jint(n));
    }
    for (size_t i = 0; i < in->n_meta; i++)
        bad |= json_object_set_new(meta, in->keys[i], json_string(in->values[i]));
    bad |= json_object_set_new(o, "file", json_string(in->path));
    bad |= json_object_set_new(o, "format", json_string(format_name(in->format)));
    bad |= json_object_set_new(o, "events", jint(gmt_stats_events(s)));
    bad |= json_object_set_new(o, "events_by_kind", kinds);
    bad |= json_object_set_new(o, "ops", jint(gmt_stats_ops(s)));
    bad |= json_object_set_new(o, "distinct_op_names", jint(gmt_stats_op_names(s)));
    bad |= json_object_set_new(o, "outputs", jint(gmt_stats_outputs(s)));
    bad |= json_object_set_new(o, "views", jint(gmt_stats_views(s)));
    bad |= json_object_set_new(o, "constant_bytes", jint(gmt_stats_constant_bytes(s)));
    /* null when the simulator cannot replay the trace (the keys stay stable) */
    bad |= json_object_set_new(o, "baseline_memory",
                               in->have_baseline ? jint(in->baseline.memory) : json_null());
    bad |= json_object_set_new(o, "baseline_compute",
                               in->have_baseline ? jint(in->baseline.compute) : json_null());
    json_t *pk = in->have_baseline ? peak_report_json(&in->peak) : json_null();
    bad |= !pk || json_object_set_new(o, "peak", pk);
    json_t *scopes = json_object(), *layers = NULL;
    if (scopes) {
        bad |= json_object_set_new(scopes, "count", jint(gmt_stats_scopes(s)));
        bad |= json_object_set_new(scopes, "max_depth", jint(gmt_stats_scope_depth(s)));
    }
    bad |= json_object_set_new(o, "scopes", scopes ? scopes : json_null());
    if (in->have_baseline && (layers = json_object())) {
        json_t *per = json_array();
        for (uint32_t i = 0; per && i < in->n_iterations; i++)
            bad |= json_array_append_new(per, jint(in->layers_per_iteration[i]));
        bad |= json_object_set_new(layers, "source", json_string(in->n_iterations
                                       ? layer_source_name(in->layer_source) : "none"));
        bad |= json_object_set_new(layers, "iterations", jint(in->n_iterations));
        bad |= json_object_set_new(layers, "per_iteration", per ? per : json_null());
    }
    bad |= !scopes || (in->have_baseline && !layers);
    bad |= json_object_set_new(o, "layers", layers ? layers : json_null());
    bad |= json_object_set_new(o, "annotations", ann);
    bad |= json_object_set_new(o, "meta", meta);
    bad |= json_object_set_new(o, "warning", in->warning ? json_string(in->warning) : json_null());
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"ops", no_argument, NULL, 'p'},
        {"kineto", required_argument, NULL, 'k'},
        {"allow-truncated", no_argument, NULL, 't'},
        {"kineto-force", no_argument, NULL, 'F'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int as_json = 0, list_ops = 0, allow_truncated = 0, force = 0, c;
    const char *kineto = NULL;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            as_json = 1;
            break;
        case 'p':
            list_ops = 1;
            break;
        case 'k':
            kineto = optarg;
            break;
        case 't':
            allow_truncated = 1;
            break;
        case 'F':
            force = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            cli_error(CMD, "option '%s' needs a value (see --help)", argv[optind - 1]);
            return 2;
        default:
            cli_error(CMD, "unknown option '%s' (see --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (as_json && list_ops) {
        cli_error(CMD, "--ops lists op names in the text report; --json has no such list: use "
                       "one or the other");
        return 2;
    }
    if (force && !kineto) {
        cli_error(CMD, "--kineto-force forces the join of a --kineto trace: give --kineto KINETO");
        return 2;
    }
    if (optind != argc - 1) {
        if (optind >= argc)
            cli_error(CMD, "no trace file given (see --help)");
        else
            cli_error(CMD, "expected one trace file, got %d (see --help)", argc - optind);
        return 2;
    }
    if (snap_sniff(argv[optind])) {
        if (list_ops || kineto) {
            cli_error(CMD, "%s is a PyTorch memory snapshot (allocator events, no ops): --ops "
                      "and --kineto do not apply", argv[optind]);
            return 2;
        }
        return cli_snapshot_info(argv[optind], as_json);
    }
    info in;
    memset(&in, 0, sizeof in);
    in.path = argv[optind];
    in.kineto = kineto;
    in.kineto_force = force;
    gms_error err;
    gms_error_clear(&err);
    /* A trace that parses but cannot be replayed still gets its summary, then the error. */
    gms_error sim_err;
    gms_error_clear(&sim_err);
    if (scan(&in, &err, &sim_err) != 0) {
        cli_error(CMD, "%s", err.msg);
        info_free(&in);
        return 1;
    }
    if (in.warning && !allow_truncated) {
        /* a summary of the events before the cut would read as the whole trace */
        cli_error(CMD, "%s: the file ends inside an event (an interrupted recording or copy); "
                       "sim refuses it too. Summarize the complete events with "
                       "--allow-truncated", in.warning);
        info_free(&in);
        return 1;
    }
    int rc = !in.have_baseline;
    if (as_json) {
        json_t *o = to_json(&in);
        if (!o || json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
            cli_error(CMD, "cannot print JSON (out of memory?)");
            rc = 1;
        } else {
            putchar('\n');
        }
        json_decref(o);
    } else {
        print_text(&in, list_ops);
    }
    if (in.warning)
        fprintf(stderr, "gpumemsim info: warning: %s\n", in.warning);
    if (!in.have_baseline)
        cli_error(CMD, "no baseline: the simulator cannot replay this trace: %s", sim_err.msg);
    info_free(&in);
    return rc;
}
