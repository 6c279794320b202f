/* gpumemsim synth: generate a synthetic training trace (traces/synth.h, docs/synth.md). */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

static void synth_usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim synth --model MODEL [OPTIONS] -o OUT.gmt\n"
            "\n"
            "Writes the trace of K training iterations (forward, backward, optimizer step)\n"
            "of a synthetic model, with op costs from a roofline of the chosen GPU.\n"
            "\n"
            "  --model M          mlp | resnet | transformer | unet (required)\n"
            "  -o, --output PATH  the .gmt file to write (required; written atomically)\n"
            "  --batch B          samples per iteration (mlp 64, resnet 32, transformer 8,\n"
            "                     unet 4)\n"
            "  --seq L            transformer tokens per sample (512)\n"
            "  --image HxW        resnet/unet input image (resnet 224x224, unet 256x256)\n"
            "  --layers N         mlp linear layers (4); resnet depth 10|18|34 (18);\n"
            "                     transformer blocks (12); unet levels (4)\n"
            "  --hidden H         mlp/transformer width (1024/768); resnet/unet base\n"
            "                     channels (64)\n"
            "  --heads N          transformer attention heads (12)\n"
            "  --vocab V          transformer vocabulary (50257)\n"
            "  --classes C        mlp/resnet classes (10/1000); unet output channels (1)\n"
            "  --iterations K     training iterations (1)\n"
            "  --vary-input MIN:MAX  each iteration draws its input size from [MIN, MAX]:\n"
            "                     transformer seq, resnet/unet square image side, mlp batch\n"
            "  --seed S           seed of the --vary-input draws (0)\n"
            "  --gpu G            h200 | h100 | a100 | v100 | titanv (h100)\n"
            "  --dtype D          fp32 | fp16 | bf16 (fp32)\n"
            "  --optimizer O      sgd (with momentum) | adam | none (no update step)\n"
            "                     (default: adam for transformer, sgd otherwise)\n"
            "  --weight-update U  transient (default): the step writes new copies of weights and\n"
            "                     state that die at once, so the weights stay pinned\n"
            "                     CONSTANTs; mutate: it MUTATEs them (faithful in-place\n"
            "                     vocabulary, but under simrd replay later iterations can\n"
            "                     only rematerialize weights through the previous backward\n"
            "                     pass; see docs/synth.md)\n"
            "  --no-scopes        no layer SCOPE events (by default each layer's forward ops,\n"
            "                     and its gradient ops in backward, sit in a scope named by\n"
            "                     its module path: docs/synth.md, \"Layer scopes\")\n"
            "  -q, --quiet        print nothing on success\n"
            "\n"
            "example: gpumemsim synth --model resnet --image 64x64 --batch 8 -o resnet.gmt\n");
}

/* Strict unsigned parse into *out (at most max). 0 or -1. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (parse_u64(s, UINT32_MAX, &v))
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Parses "A<sep>B" into two u32. */
static int parse_pair(const char *s, char sep, uint32_t *a, uint32_t *b)
{
    const char *p = s ? strchr(s, sep) : NULL;
    if (!p || p == s)
        return -1;
    char first[32];
    size_t n = (size_t)(p - s);
    if (n >= sizeof first)
        return -1;
    memcpy(first, s, n);
    first[n] = '\0';
    return parse_u32(first, a) || parse_u32(p + 1, b) ? -1 : 0;
}

/* Options that take a value; the table drives both passes of the parser. */
static const char *const valued[] = {"--model", "-o", "--output", "--batch", "--seq", "--image",
                                     "--layers", "--hidden", "--heads", "--vocab", "--classes",
                                     "--iterations", "--vary-input", "--seed", "--gpu", "--dtype",
                                     "--optimizer", "--weight-update"};

/* Splits argv[*i] into option name and value (from "--opt=value" or the next argument).
 * Returns 1 for a valued option, 0 for a flag, -1 (after an error message) for a problem. */
static int next_opt(int argc, char **argv, int *i, char *name, size_t name_len,
                    const char **value)
{
    const char *a = argv[*i];
    const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    if (n >= name_len) {
        cli_error("synth", "unknown option '%s' (see --help)", a);
        return -1;
    }
    memcpy(name, a, n);
    name[n] = '\0';
    for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
        if (strcmp(name, valued[k]) != 0)
            continue;
        if (eq) {
            *value = eq + 1;
        } else if (*i + 1 < argc) {
            *value = argv[++*i];
        } else {
            cli_error("synth", "%s needs a value (see --help)", name);
            return -1;
        }
        return 1;
    }
    if (eq) {
        cli_error("synth", "option %s takes no value", name);
        return -1;
    }
    *value = NULL;
    return 0;
}

/* Applies one valued option to p (model already set). 0, or -1 after an error message. */
static int apply(gmt_synth_params *p, const char *name, const char *v)
{
    uint32_t *u32 = NULL;
    if (strcmp(name, "--batch") == 0) u32 = &p->batch;
    else if (strcmp(name, "--seq") == 0) u32 = &p->seq;
    else if (strcmp(name, "--layers") == 0) u32 = &p->layers;
    else if (strcmp(name, "--hidden") == 0) u32 = &p->hidden;
    else if (strcmp(name, "--heads") == 0) u32 = &p->heads;
    else if (strcmp(name, "--vocab") == 0) u32 = &p->vocab;
    else if (strcmp(name, "--classes") == 0) u32 = &p->classes;
    else if (strcmp(name, "--iterations") == 0) u32 = &p->iterations;
    if (u32) {
        if (parse_u32(v, u32) || *u32 == 0) {
            cli_error("synth", "%s '%s': expected a positive integer", name, v);
            return -1;
        }
        return 0;
    }
    if (strcmp(name, "--image") == 0) {
        if (parse_pair(v, 'x', &p->image_h, &p->image_w) || !p->image_h || !p->image_w) {
            cli_error("synth", "--image '%s': expected HxW with positive integers, e.g. 224x224",
                      v);
            return -1;
        }
    } else if (strcmp(name, "--vary-input") == 0) {
        if (parse_pair(v, ':', &p->vary_min, &p->vary_max) || !p->vary_min ||
            p->vary_max < p->vary_min) {
            cli_error("synth", "--vary-input '%s': expected MIN:MAX with 1 <= MIN <= MAX", v);
            return -1;
        }
    } else if (strcmp(name, "--seed") == 0) {
        if (parse_u64(v, UINT64_MAX, &p->seed)) {
            cli_error("synth", "--seed '%s': expected a non-negative integer", v);
            return -1;
        }
    } else if (strcmp(name, "--gpu") == 0) {
        p->gpu = gmt_synth_gpu_find(v);
        if (!p->gpu) {
            cli_error("synth", "unknown --gpu '%s' (choose h200, h100, a100, v100 or titanv)", v);
            return -1;
        }
    } else if (strcmp(name, "--dtype") == 0) {
        if (gmt_synth_dtype_parse(v, &p->dtype)) {
            cli_error("synth", "unknown --dtype '%s' (choose fp32, fp16 or bf16)", v);
            return -1;
        }
    } else if (strcmp(name, "--weight-update") == 0) {
        if (gmt_synth_update_parse(v, &p->update)) {
            cli_error("synth", "unknown --weight-update '%s' (choose mutate or transient)", v);
            return -1;
        }
    } else if (strcmp(name, "--optimizer") == 0) {
        if (gmt_synth_optim_parse(v, &p->optim)) {
            cli_error("synth", "unknown --optimizer '%s' (choose sgd, adam or none)", v);
            return -1;
        }
    }
    return 0;
}

int cmd_synth(int argc, char **argv)
{
    const char *model = NULL, *out = NULL;
    int quiet = 0, scopes = 1;
    char name[32];
    const char *v;
    /* Pass 1: --model (defaults depend on it), -o, flags, unknown options. */
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            synth_usage(stdout);
            return 0;
        }
        int k = next_opt(argc, argv, &i, name, sizeof name, &v);
        if (k < 0)
            return 2;
        if (k == 0) {
            if (strcmp(name, "-q") == 0 || strcmp(name, "--quiet") == 0) {
                quiet = 1;
                continue;
            }
            if (strcmp(name, "--no-scopes") == 0) {
                scopes = 0;
                continue;
            }
            cli_error("synth", "unknown option '%s' (see --help)", argv[i]);
            return 2;
        }
        if (strcmp(name, "--model") == 0)
            model = v;
        else if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0)
            out = v;
    }
    if (!model) {
        cli_error("synth", "--model is required (mlp, resnet, transformer or unet; see --help)");
        return 2;
    }
    gmt_synth_model m;
    if (gmt_synth_model_parse(model, &m)) {
        cli_error("synth", "unknown model '%s' (choose mlp, resnet, transformer or unet)", model);
        return 2;
    }
    if (!out || !*out) {
        cli_error("synth", "-o OUT.gmt is required (see --help)");
        return 2;
    }
    gmt_synth_params p;
    gmt_synth_params_default(&p, m);
    p.scopes = scopes;
    /* Pass 2: every other valued option, in order (a later repeat wins). */
    for (int i = 1; i < argc; i++) {
        int k = next_opt(argc, argv, &i, name, sizeof name, &v);
        if (k == 1 && apply(&p, name, v))
            return 2;
    }
    gms_error err;
    gms_error_clear(&err);
    if (gmt_synth_params_validate(&p, &err)) {
        cli_error("synth", "%s", err.msg);
        return 2;
    }
    if (!quiet && p.iterations > 1 && p.optim != GMT_SYNTH_NOOPT &&
        p.update == GMT_SYNTH_UPDATE_MUTATE)
        fprintf(stderr, "gpumemsim synth: note: with --weight-update mutate, iterations after "
                        "the first read weights that simrd replay can only rematerialize through "
                        "the previous backward pass; --weight-update transient keeps them "
                        "pinned (docs/synth.md)\n");
    gmt_synth_totals t;
    if (gmt_synth_write(&p, out, &t, &err)) {
        cli_error("synth", "%s", err.msg);
        return 1;
    }
    if (!quiet) {
        char pb[32], cb[32];
        printf("wrote %s: %s, %" PRIu64 " events, %" PRIu64 " ops, %" PRIu64
               " parameters (%s), constants %s, %.3g GFLOP, %.3f ms on %s %s\n",
               out, gmt_synth_model_name(p.model), t.events, t.ops, t.param_count,
               cli_format_bytes(t.param_bytes, pb, sizeof pb),
               cli_format_bytes(t.constant_bytes, cb, sizeof cb), t.flops / 1e9,
               (double)t.dur_ns / 1e6, p.gpu->key, gmt_synth_dtype_name(p.dtype));
    }
    return 0;
}
