/*
 * gpumemsim convert: DTR JSON log <-> .gmt trace (and .gmt -> .gmt, log -> log).
 *
 * Reads any trace gpumemsim understands (format sniffed by gmt_source) and writes it in the
 * format --to names. Both writers write a temporary file and rename it into place, so on any
 * error no output file is left behind.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "dtrlog.h"
#include "gmt.h"

static const char *const CMD = "convert";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim convert INPUT [-o OUTPUT] [--to gmt|dtr-log] [--gpu NAME]\n"
            "                         [--kineto FILE [--kineto-force]] [--quiet]\n"
            "\n"
            "Converts a trace between the DTR JSON log format (one JSON object per line, as\n"
            "written by the DTR paper's instrumented PyTorch) and gpumemsim's .gmt format.\n"
            "The input format is detected from the file's content; a PyTorch Execution Trace\n"
            "or a Kineto memory trace is imported too (docs/import-pytorch.md, docs/memory.md).\n"
            "\n"
            "options:\n"
            "  -o, --output FILE   where to write (default: INPUT with its extension (.json.gz,\n"
            "                      .json, .log, .gz, ...) replaced by .gmt or .log); must\n"
            "                      differ from INPUT\n"
            "  -t, --to FORMAT     gmt (default) or dtr-log\n"
            "  -g, --gpu NAME      a PyTorch Execution Trace's op costs are a roofline\n"
            "                      estimate on this GPU: h200, h100, a100, v100 (default),\n"
            "                      titanv\n"
            "  -k, --kineto FILE   a PyTorch Execution Trace's op costs measured instead: the\n"
            "                      GPU time each op launched in the run's Kineto trace FILE\n"
            "                      (docs/import-pytorch.md; refused when FILE is of another run);\n"
            "                      recorded with profile_memory=True, its memory events give\n"
            "                      the storages' real lifetimes and the kernels' workspaces\n"
            "  --kineto-force      join the Kineto trace even when the two files disagree on\n"
            "                      the job (process id, GPU, profiler steps)\n"
            "  -q, --quiet         no summary line or notes (warnings still go to stderr)\n"
            "  -h, --help          show this help\n"
            "\n"
            "A log converted to .gmt and back is byte-identical to the original. .gmt to .gmt\n"
            "keeps layer scopes; a DTR log has none, so --to dtr-log drops them (a note on\n"
            "stderr says how many). On any error the message names the file and line (or\n"
            "event) and no output file is written.\n"
            "\n"
            "examples:\n"
            "  gpumemsim convert unet-6-...-default.log -o unet.gmt\n"
            "  gpumemsim convert unet.gmt --to dtr-log -o unet.log\n");
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* INPUT with its extension (if any, in the last path component) replaced by ext: a known
 * trace suffix whole (dlrm_et.json.gz -> dlrm_et.gmt, not dlrm_et.json.gmt), else the text
 * after the last dot. */
static char *default_output(const char *input, const char *ext)
{
    static const char *const known[] = {".json.gz", ".log.gz", ".gmt.gz", ".json", ".log",
                                        ".gmt", ".gz"};
    const char *base = base_name(input);
    size_t blen = strlen(base), stem = strlen(input);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        stem = (size_t)(dot - input);
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        size_t k = strlen(known[i]);
        if (blen > k && strcmp(base + blen - k, known[i]) == 0) {
            stem = strlen(input) - k;
            break;
        }
    }
    size_t n = stem + strlen(ext) + 1;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%.*s%s", (int)stem, input, ext);
    return out;
}

/* 1 when both paths name the same existing file (or are the same text). */
static int same_file(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The output side: one of the two writers. */
typedef struct sink {
    gmt_writer *gmt;
    dtrlog_writer *log;
} sink;

/* Opens the writer for format to_log/gmt and, for a .gmt, writes the header metadata: a DTR
 * log gets producer/source/model, a .gmt input keeps its own header. */
static int sink_open(sink *k, const char *out, int to_log, gmt_source *src, const char *input,
                     gms_error *err)
{
    memset(k, 0, sizeof *k);
    if (to_log)
        return dtrlog_writer_open(out, &k->log, err);
    int rc = gmt_writer_open(out, &k->gmt, err);
    if (rc != 0)
        return rc;
    if (gmt_source_format(src) == GMT_FORMAT_DTR_LOG) {
        const char *model = gmt_source_meta(src, "model");
        if ((rc = gmt_writer_meta(k->gmt, "producer", "gpumemsim convert " GMS_VERSION, err)) ||
            (rc = gmt_writer_meta(k->gmt, "source", base_name(input), err)) ||
            (model && *model && (rc = gmt_writer_meta(k->gmt, "model", model, err))) ||
            (rc = gmt_writer_meta(k->gmt, "source_format", "dtr-log", err)))
            return rc;
    } else {
        for (size_t i = 0; i < gmt_source_meta_count(src); i++) {
            const char *key, *value;
            gmt_source_meta_at(src, i, &key, &value);
            if ((rc = gmt_writer_meta(k->gmt, key, value, err)))
                return rc;
        }
    }
    return 0;
}

static int sink_write(sink *k, const gmt_event *ev, gms_error *err)
{
    return k->log ? dtrlog_writer_write(k->log, ev, err) : gmt_writer_write(k->gmt, ev, err);
}

static int sink_close(sink *k, gms_error *err)
{
    int rc = k->log ? dtrlog_writer_close(k->log, err) : gmt_writer_close(k->gmt, err);
    k->log = NULL;
    k->gmt = NULL;
    return rc;
}

static void sink_abort(sink *k)
{
    if (k->log)
        dtrlog_writer_abort(k->log);
    if (k->gmt)
        gmt_writer_abort(k->gmt);
    k->log = NULL;
    k->gmt = NULL;
}

/* Copies every event of input into output. Returns 0 or 1 (message printed). */
static int convert(const char *input, const char *output, int to_log,
                   const gmt_source_options *opt, int quiet)
{
    gms_error err;
    gms_error_clear(&err);
    gmt_source *src = NULL;
    sink k;
    memset(&k, 0, sizeof k);
    double t0 = now_s();
    const char *gpu = opt->gpu, *kineto = opt->kineto;
    if (gmt_source_open_with(input, opt, &src, &err) != 0) {
        cli_error(CMD, "%s", err.msg);
        return 1;
    }
    if ((gpu || kineto) && gmt_source_format(src) != GMT_FORMAT_PYTORCH_ET) {
        gmt_source_close(src);
        cli_error(CMD, "%s: %s applies to a PyTorch Execution Trace only (this trace has "
                       "its own costs)", input, gpu ? "--gpu" : "--kineto");
        return 2;
    }
    if (sink_open(&k, output, to_log, src, input, &err) != 0)
        goto fail;
    gmt_event ev;
    int rc;
    uint64_t events = 0;
    while ((rc = gmt_source_next(src, &ev, &err)) == 1) {
        if (sink_write(&k, &ev, &err) != 0)
            goto fail;
        events++;
    }
    if (rc < 0)
        goto fail;
    if (gmt_source_warning(src)) {
        /* a truncated .gmt: refuse to write a shorter trace that looks complete */
        gms_error_set(&err, GMS_EFORMAT, "%s (convert refuses partial traces)",
                      gmt_source_warning(src));
        goto fail;
    }
    uint64_t late = k.log ? dtrlog_writer_late_names(k.log) : 0;
    uint64_t dropped = k.log ? dtrlog_writer_dropped_scopes(k.log) : 0;
    if (sink_close(&k, &err) != 0)
        goto fail;
    if (late == 1)
        fprintf(stderr, "gpumemsim convert: warning: 1 NAME event came after its tensor's first "
                        "use; that tensor keeps its x<id> name in %s\n", output);
    else if (late > 1)
        fprintf(stderr, "gpumemsim convert: warning: %" PRIu64 " NAME events came after their "
                        "tensor's first use; those tensors keep their x<id> names in %s\n",
                late, output);
    if (dropped && !quiet)
        fprintf(stderr, "gpumemsim convert: note: dropped %" PRIu64 " SCOPE events (layer scope "
                        "begins and ends): DTR logs have no scopes; every op is kept\n", dropped);
    gmt_source_close(src);
    double dt = now_s() - t0;
    if (!quiet) {
        char in_b[32], out_b[32];
        uint64_t in_size = file_size(input), out_size = file_size(output);
        printf("%s -> %s (%s): %" PRIu64 " events, %s in, %s out, %.3f s (%.0f events/s)\n",
               input, output, to_log ? "dtr-log" : "gmt", events,
               cli_format_bytes(in_size, in_b, sizeof in_b),
               cli_format_bytes(out_size, out_b, sizeof out_b), dt,
               dt > 0 ? (double)events / dt : 0.0);
    }
    return 0;
fail:
    sink_abort(&k);
    gmt_source_close(src);
    cli_error(CMD, "%s", err.msg);
    return 1;
}

int cmd_convert(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"to", required_argument, NULL, 't'},
        {"quiet", no_argument, NULL, 'q'},
        {"gpu", required_argument, NULL, 'g'},
        {"kineto", required_argument, NULL, 'k'},
        {"kineto-force", no_argument, NULL, 'F'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *output = NULL, *to = "gmt", *gpu = NULL, *kineto = NULL;
    int quiet = 0, force = 0, c;
    optind = 1;
    opterr = 0;
    /* the leading ':' makes a missing value ':' rather than '?', so the two read apart */
    while ((c = getopt_long(argc, argv, ":o:t:g:k:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 't':
            to = optarg;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'g':
            gpu = optarg;
            break;
        case 'k':
            kineto = optarg;
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
        default: /* a long option as written; a short one by optopt (also inside -qx) */
            if (strncmp(argv[optind - 1], "--", 2) == 0 || !optopt)
                cli_error(CMD, "unknown option '%s' (see --help)", argv[optind - 1]);
            else
                cli_error(CMD, "unknown option '-%c' (see --help)", optopt);
            return 2;
        }
    }
    if (optind != argc - 1) {
        if (optind >= argc)
            cli_error(CMD, "no input file given (see --help)");
        else
            cli_error(CMD, "expected one input file, got %d (see --help)", argc - optind);
        return 2;
    }
    if (force && !kineto) {
        cli_error(CMD, "--kineto-force forces the join of a --kineto trace: give --kineto FILE");
        return 2;
    }
    const char *input = argv[optind];
    int to_log;
    if (strcmp(to, "gmt") == 0)
        to_log = 0;
    else if (strcmp(to, "dtr-log") == 0 || strcmp(to, "log") == 0)
        to_log = 1;
    else {
        cli_error(CMD, "unknown output format '%s' for --to (use gmt or dtr-log)", to);
        return 2;
    }
    char *def = NULL;
    if (!output) {
        def = default_output(input, to_log ? ".log" : ".gmt");
        if (!def) {
            cli_error(CMD, "out of memory");
            return 1;
        }
        output = def;
    }
    int rc;
    struct stat st;
    if (stat(output, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error(CMD, "output %s is a directory; give a file name with -o", output);
        rc = 2;
    } else if (same_file(input, output)) {
        cli_error(CMD, "output %s is the input file; choose another name with -o", output);
        rc = 2;
    } else {
        gmt_source_options opt = {gpu, kineto, force};
        rc = convert(input, output, to_log, &opt, quiet);
    }
    free(def);
    return rc;
}
