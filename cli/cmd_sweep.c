/* Placeholder until the sweep subcommand lands; replaced by its real implementation. */
#include "cli.h"

int cmd_sweep(int argc, char **argv)
{
    (void)argc;
    cli_error(argv[0], "not implemented yet");
    return 1;
}
