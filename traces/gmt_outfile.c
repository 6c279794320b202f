/* gmt_outfile: the writers' temporary output file (see gmt_outfile.h). */
#include "gmt_outfile.h"
#include "gms_tmpfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gmt_outfile_create(const char *path, FILE **f, char **tmp, gms_error *err)
{
    *f = NULL;
    *tmp = NULL;
    if (!path || !*path)
        return gms_error_set(err, GMS_EINVAL, "empty output path; give a file name");
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return gms_error_set(err, GMS_EIO, "%s: is a directory; give a file name for the output",
                             path);
    size_t n = strlen(path) + 32;
    char *name = malloc(n);
    if (!name)
        return gms_error_set(err, GMS_ENOMEM, "%s: out of memory", path);
    snprintf(name, n, "%s.tmp-%ld", path, (long)getpid());
    *f = fopen(name, "wb");
    if (!*f) {
        int e = errno;
        gms_error_set(err, GMS_EIO, "%s: cannot create %s: %s (is the directory there and "
                      "writable?)", path, name, strerror(e));
        free(name);
        return GMS_EIO;
    }
    gms_tmp_track(name);
    *tmp = name;
    return 0;
}
