#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "gpumemsim %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_is_help(const char *s)
{
    return strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0;
}

/* Multiplier for a unit suffix; 0 when the suffix is not a unit. */
static double unit_multiplier(const char *u)
{
    static const struct { const char *name; double mult; } units[] = {
        {"", 1}, {"b", 1},
        {"k", 1024.0}, {"kib", 1024.0}, {"kb", 1e3},
        {"m", 1048576.0}, {"mib", 1048576.0}, {"mb", 1e6},
        {"g", 1073741824.0}, {"gib", 1073741824.0}, {"gb", 1e9},
        {"t", 1099511627776.0}, {"tib", 1099511627776.0}, {"tb", 1e12},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcasecmp(u, units[i].name) == 0)
            return units[i].mult;
    return 0;
}

int cli_parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0)
        return -1;
    while (*end == ' ')
        end++;
    double mult = unit_multiplier(end);
    if (mult == 0)
        return -1;
    double bytes = v * mult;
    if (bytes >= 18446744073709551615.0)
        return -1;
    *out = (uint64_t)bytes;
    return 0;
}

int cli_parse_budget(const char *s, double *ratio, uint64_t *bytes)
{
    char *end;
    *ratio = 0;
    *bytes = 0;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v <= 0)
        return -1;
    if (strcmp(end, "%") == 0)
        v /= 100.0;
    else if (*end != '\0') /* a unit: bytes */
        return cli_parse_bytes(s, bytes) != 0 || *bytes == 0 ? -1 : 0;
    if (v > CLI_MAX_BUDGET_RATIO)
        return -2; /* a plain number is a ratio; bytes need a unit */
    *ratio = v;
    return 0;
}

int cli_parse_sample(const char *s, uint32_t *out)
{
    if (strcmp(s, "sqrt") == 0) {
        *out = UINT32_MAX;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end || errno || s[0] == '-' || v >= UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

const char *cli_shortest_double(double d, char *buf, size_t len)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    return buf;
}

int cli_parse_duration(const char *s, uint64_t *ns)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0) || s[0] == '-')
        return -1;
    double scale = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0)
            scale = units[i].scale;
    if (scale == 0 || !(v * scale <= CLI_MAX_DURATION_NS))
        return -1;
    *ns = (uint64_t)llround(v * scale);
    return 0;
}

int cli_parse_band(const char *s, double *band)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v > 0))
        return -1;
    if (strcmp(end, "%") == 0)
        v /= 100;
    else if (*end)
        return -1;
    if (!(v < 1))
        return -1;
    *band = v;
    return 0;
}

const char *cli_budget_error(const char *s, int rc, char *buf, size_t len)
{
    if (rc == -2)
        snprintf(buf, len,
                 "--budget '%s': a plain number is a ratio of baseline memory (at most %g); for "
                 "bytes give a unit: '%sB', or MB, GiB, ...",
                 s, CLI_MAX_BUDGET_RATIO, s);
    else
        snprintf(buf, len,
                 "bad --budget '%s': give a ratio of baseline memory above 0 and at most %g "
                 "(0.4, 1.5 or 40%%) or bytes with a unit, from 1B to below 16EiB (3.2GiB, "
                 "800MB, 123456789B)",
                 s, CLI_MAX_BUDGET_RATIO);
    return buf;
}

const char *cli_format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%.2f %s", v, units[u]);
    return buf;
}

int cli_parse_seconds(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v > 0) || !isfinite(v))
        return -1;
    if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        v *= 60;
    else if (*end && strcmp(end, "s") != 0)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_iteration(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || end == s || s[0] == '-' || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}
