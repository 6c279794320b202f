#include "gms_error.h"

#include <stdarg.h>
#include <stdio.h>

int gms_error_set(gms_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void gms_error_clear(gms_error *err)
{
    if (err) {
        err->code = 0;
        err->msg[0] = '\0';
    }
}
