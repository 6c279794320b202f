/* gpumemsim: dispatch to a subcommand (see cli.h). */
#include "cli.h"

#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"info", cmd_info, "summarize a trace (.gmt, DTR log, PyTorch ET): events, ops, baseline memory"},
    {"convert", cmd_convert, "convert DTR logs and PyTorch ETs to .gmt, and .gmt to DTR logs"},
    {"synth", cmd_synth, "generate a synthetic training trace (resnet, transformer, unet, mlp)"},
    {"sim", cmd_sim, "replay a trace under a memory budget with an eviction policy"},
    {"calibrate", cmd_calibrate, "find the per-op overhead that reproduces a measured slowdown"},
    {"fit", cmd_fit, "the smallest budget each policy needs to stay within an overhead"},
    {"sweep", cmd_sweep, "simulate traces x policies x budgets in parallel into a SQLite store"},
    {"db", cmd_db, "list, export and merge result stores"},
    {"plot", cmd_plot, "draw overhead-vs-budget charts and memory timelines (gnuplot)"},
    {"record", cmd_record, "record a live GPU job into a .gmt trace (CUPTI)"},
    {"graph", cmd_graph, "one iteration of a trace as a dataflow graph (JSON) for `optimal`"},
    {"optimal", cmd_optimal, "the optimal schedule and its LP bound (Checkmate's MILP, CBC)"},
    {"memcheck", cmd_memcheck, "compare a memory model with the real allocator of a Kineto trace"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f,
            "gpumemsim %s: how much slower does training get with less GPU memory?\n\n"
            "usage: gpumemsim COMMAND [ARGS...]\n\ncommands:\n",
            GMS_VERSION);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'gpumemsim COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "help") == 0 || cli_is_help(name)) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            for (size_t i = 0; i < N_COMMANDS; i++)
                if (strcmp(commands[i].name, argv[2]) == 0) {
                    char *help_argv[] = {argv[2], "--help", NULL};
                    return commands[i].run(2, help_argv);
                }
            fprintf(stderr, "gpumemsim: unknown command '%s'\n", argv[2]);
            return 2;
        }
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("gpumemsim %s\n", GMS_VERSION);
        return 0;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gpumemsim: unknown command '%s' (try 'gpumemsim help')\n", name);
    return 2;
}
