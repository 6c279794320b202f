/* --plugin-timeout, shared by the commands that run plugin policies (cli.h). */
#include <string.h>

#include "cli.h"
#include "plugin_isolate.h"

int cli_plugin_timeout(const char *cmd, const char *s)
{
    double v = 0;
    if ((strcmp(s, "0") != 0 && cli_parse_seconds(s, &v)) || pol_set_plugin_timeout(v)) {
        cli_error(cmd, "--plugin-timeout '%s': give seconds from 0 (no limit) to %g (30, 30s "
                       "or 2m)", s, POL_PLUGIN_TIMEOUT_MAX);
        return 2;
    }
    return 0;
}
