/* opt_first: CBC on the whole program before the window search, or not (opt_first.h). */
#include "opt_first.h"

#include <stdlib.h>
#include <string.h>

#include "opt_lns.h"

double opt_first_max_nonzeros(double window_nonzeros)
{
    const char *env = getenv("GMS_OPT_SOLVER_FIRST_NONZEROS");
    char *end;
    double v = env && *env ? strtod(env, &end) : -1;
    return env && *env && !*end && v >= 0 ? v : window_nonzeros;
}

void opt_first_plan_for(const opt_size *sz, double time_limit, double max_nonzeros,
                        opt_first_plan *out)
{
    memset(out, 0, sizeof *out);
    out->nonzeros = sz->nonzeros;
    out->max_nonzeros = max_nonzeros;
    out->seconds = OPT_FIRST_SHARE * time_limit;
    if (out->seconds > OPT_LNS_WINDOW_SECONDS)
        out->seconds = OPT_LNS_WINDOW_SECONDS;
    out->first = time_limit > 0 && sz->nonzeros > 0 && (double)sz->nonzeros <= max_nonzeros &&
                 2 * sz->lp_seconds <= out->seconds;
}
