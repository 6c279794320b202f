/*
 * gms_error: the one error carrier every gpumemsim library fills in.
 *
 * Functions that can fail return 0 on success and a non-zero code on failure, and write a human
 * message into a caller-provided gms_error: what failed, where (file, event index, line) and,
 * where it helps, what to do. Libraries never print or exit; the CLI prints err.msg.
 * A NULL gms_error pointer is allowed everywhere and means "don't tell me why".
 */
#ifndef GMS_ERROR_H
#define GMS_ERROR_H

#include <stddef.h>

#define GMS_ERROR_MSG_MAX 1024

typedef struct gms_error {
    int code;                     /* 0 = no error; otherwise one of GMS_E* below */
    char msg[GMS_ERROR_MSG_MAX];  /* NUL-terminated human message */
} gms_error;

enum {
    GMS_OK = 0,
    GMS_EIO = 1,        /* open/read/write/rename failed (errno text in msg) */
    GMS_EFORMAT = 2,    /* malformed or corrupt input */
    GMS_EVERSION = 3,   /* input written by a newer, incompatible format version */
    GMS_ENOMEM = 4,     /* allocation failed */
    GMS_EINVAL = 5,     /* bad argument from the caller */
    GMS_ESTATE = 6,     /* API used in the wrong order */
    GMS_EDB = 7,        /* SQLite failure */
    GMS_EEXTERNAL = 8,  /* an external program (gnuplot, the traced job) failed */
};

/* Sets err->code and formats err->msg (printf style). Returns code, so callers can write
 * `return gms_error_set(err, GMS_EFORMAT, "%s: event %llu: ...", ...);`. NULL err is allowed. */
int gms_error_set(gms_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clears err to "no error". NULL err is allowed. */
void gms_error_clear(gms_error *err);

#endif
