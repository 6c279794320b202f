/* Helpers for the analysis subcommands (see analysis_util.h). */
#include "analysis_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gms_tmpfile.h"

void cli_list_free(char **items)
{
    if (!items)
        return;
    for (char **p = items; *p; p++)
        free(*p);
    free(items);
}

int cli_list_split(const char *text, char ***items, size_t *n)
{
    *items = NULL;
    *n = 0;
    size_t cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    char **v = calloc(cap + 1, sizeof *v);
    if (!v)
        return -1;
    size_t k = 0;
    const char *start = text;
    for (;;) {
        const char *end = strchr(start, ',');
        size_t len = end ? (size_t)(end - start) : strlen(start);
        if (len == 0 || !(v[k] = strndup(start, len))) {
            cli_list_free(v);
            return -1;
        }
        k++;
        if (!end)
            break;
        start = end + 1;
    }
    *items = v;
    *n = k;
    return 0;
}

int cli_parse_remat_limit(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v == 0 || (v >= 1.0 && v <= 1e6)))
        return -1; /* 0 = no limit, as in sim */
    *out = v;
    return 0;
}

int cli_outfile_open(cli_outfile *o, const char *cmd, const char *path)
{
    o->f = NULL;
    o->path = path;
    size_t len = strlen(path) + 16;
    if (!(o->tmp = malloc(len))) {
        cli_error(cmd, "out of memory");
        return -1;
    }
    snprintf(o->tmp, len, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd >= 0) {
        gms_tmp_umask_mode(fd);
        gms_tmp_track(o->tmp);
    }
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        cli_error(cmd, "%s: cannot create the output file: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
            gms_tmp_done(o->tmp);
        }
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    return 0;
}

int cli_outfile_commit(cli_outfile *o, const char *cmd)
{
    int bad = ferror(o->f);
    if (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0)
        bad = 1;
    if (fclose(o->f) != 0)
        bad = 1;
    o->f = NULL;
    if (bad || rename(o->tmp, o->path) != 0) {
        cli_error(cmd, "%s: cannot write the output file: %s", o->path, strerror(errno));
        unlink(o->tmp);
        gms_tmp_done(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    gms_tmp_done(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return 0;
}

void cli_outfile_abort(cli_outfile *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp) {
        unlink(o->tmp);
        gms_tmp_done(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
}
