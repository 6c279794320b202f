/* Run-key filter options (see filter_opts.h). */
#include "filter_opts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cli_filter_help[] =
    "  --remat-limit L only runs at this remat limit (see the LIMIT column of db runs)\n"
    "  --semantics S   only runs with these replay semantics (simrd)\n"
    "  --allocator A   only runs with this memory model (ideal, caching, ... as in the\n"
    "                  ALLOCATOR column of db runs, settings included)\n"
    "  --where K=V     only runs whose K is V; K: params (e.g. seed=2, or a glob 'seed=*'),\n"
    "                  status (ok, oom, remat-limit), remat-limit, semantics, allocator\n";

static int set_remat_limit(const char *cmd, const char *v, store_filter *f)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d > 0) || isnan(d)) {
        cli_error(cmd, "remat limit '%s': expected a number such as 2 (see db runs)", v);
        return 2;
    }
    f->remat_limit = d;
    return 1;
}

int cli_filter_option(const char *cmd, int argc, char **argv, int *i, store_filter *f)
{
    const char *a = argv[*i];
    int has_val = *i + 1 < argc;
    if (strcmp(a, "--remat-limit") == 0 && has_val) {
        *i += 1;
        return set_remat_limit(cmd, argv[*i], f);
    }
    if (strcmp(a, "--semantics") == 0 && has_val) {
        f->semantics = argv[++*i];
        return 1;
    }
    if (strcmp(a, "--allocator") == 0 && has_val) {
        f->allocator = argv[++*i];
        return 1;
    }
    if (strcmp(a, "--where") != 0 || !has_val)
        return 0;
    const char *kv = argv[++*i], *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        cli_error(cmd, "--where '%s': expected KEY=VALUE with KEY one of params, status, "
                       "remat-limit, semantics, allocator",
                  kv);
        return 2;
    }
    size_t n = (size_t)(eq - kv);
    const char *v = eq + 1;
    if (n == 6 && strncmp(kv, "params", n) == 0) {
        f->params = v;
    } else if (n == 6 && strncmp(kv, "status", n) == 0) {
        if (strcmp(v, "ok") && strcmp(v, "oom") && strcmp(v, "remat-limit")) {
            cli_error(cmd, "--where '%s': a status is ok, oom or remat-limit", kv);
            return 2;
        }
        f->status = v;
    } else if ((n == 11 && strncmp(kv, "remat-limit", n) == 0) ||
               (n == 11 && strncmp(kv, "remat_limit", n) == 0)) {
        return set_remat_limit(cmd, v, f);
    } else if (n == 9 && strncmp(kv, "semantics", n) == 0) {
        f->semantics = v;
    } else if (n == 9 && strncmp(kv, "allocator", n) == 0) {
        f->allocator = v;
    } else {
        cli_error(cmd, "--where '%s': unknown key '%.*s'; use params, status, remat-limit, "
                       "semantics or allocator (trace and policy have --trace and --policy)",
                  kv, (int)n, kv);
        return 2;
    }
    return 1;
}
