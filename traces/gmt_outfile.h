/*
 * gmt_outfile: the temporary file both trace writers (gmt_writer, dtrlog_writer) fill before
 * renaming it onto the output path, so that no one ever sees a partial trace.
 */
#ifndef GMT_OUTFILE_H
#define GMT_OUTFILE_H

#include <stdio.h>

#include "gms_error.h"

/* Refuses an empty path or one naming a folder, then creates PATH.tmp-<pid> for writing: *f is
 * the open file, *tmp its malloc'd name (the caller frees it and renames or removes the file).
 * Returns 0, or GMS_EINVAL / GMS_ENOMEM / GMS_EIO with a message naming path. */
int gmt_outfile_create(const char *path, FILE **f, char **tmp, gms_error *err);

#endif
