/*
 * sim_ref: the reference table reader (see sim_ref.h).
 */
#include "sim_ref.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIM_REF_FIELDS 15

static const char header[] = "log_file,model,policy,trial,ratio,budget,baseline_memory,"
                             "baseline_compute,status,overhead,evictions,eager_evictions,"
                             "remat_compute,peak_memory,simrd_wall_s";

/* Splits a line (no quoted fields) in place into at most max fields; the line end is cut. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = 0;
        p = c + 1;
    }
    char *nl = strpbrk(f[n - 1], "\r\n");
    if (nl)
        *nl = 0;
    return n;
}

/* A field as an unsigned decimal integer / a double: 0, or -1 when it is not one. */
static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || errno)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return *s && !*end && !errno ? 0 : -1;
}

void sim_ref_free(sim_ref_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].log);
        free(rows[i].model);
        free(rows[i].policy);
    }
    free(rows);
}

static const char *const field_names[SIM_REF_FIELDS] = {
    "log_file",    "model",       "policy",          "trial",         "ratio",
    "budget",      "baseline_memory", "baseline_compute", "status",    "overhead",
    "evictions",   "eager_evictions", "remat_compute", "peak_memory", "simrd_wall_s"};

/* Fills r's numbers and status from the fields c[]: -1, or the index of the first field
 * that is not valid. */
static int parse_row(char **c, sim_ref_row *r)
{
    uint64_t trial;
    int i = 3;
    if (parse_u64(c[i], &trial) || trial > 1000000000 || parse_double(c[++i], &r->ratio) ||
        parse_u64(c[++i], &r->budget) || parse_u64(c[++i], &r->base_mem) ||
        parse_u64(c[++i], &r->base_compute) || (++i, strlen(c[i]) >= sizeof r->status) ||
        (++i, c[i][0] && parse_double(c[i], &r->overhead)) ||
        parse_u64(c[++i], &r->evictions) || parse_u64(c[++i], &r->eager) ||
        parse_u64(c[++i], &r->remat) || parse_u64(c[++i], &r->peak) ||
        parse_double(c[++i], &r->simrd_s))
        return i;
    r->trial = (int)trial;
    snprintf(r->status, sizeof r->status, "%s", c[8]);
    r->has_overhead = c[9][0] != 0;
    return -1;
}

int sim_ref_load(const char *path, sim_ref_row **rows_out, size_t *n_out, gms_error *err)
{
    *rows_out = NULL;
    *n_out = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return gms_error_set(err, GMS_EIO, "cannot open the reference table %s: %s", path,
                             strerror(errno));
    char *line = NULL;
    size_t line_cap = 0;
    int rc = 0;
    sim_ref_row *rows = NULL;
    size_t n = 0, cap = 0;
    if (getline(&line, &line_cap, f) < 0 || strncmp(line, header, sizeof header - 1) != 0) {
        rc = gms_error_set(err, GMS_EFORMAT,
                           "%s: not a reference table (expected the simrd-pareto.csv header)",
                           path);
        goto done;
    }
    unsigned long lineno = 1;
    while (getline(&line, &line_cap, f) >= 0) {
        lineno++;
        char *c[SIM_REF_FIELDS + 1];
        if (split(line, c, SIM_REF_FIELDS + 1) != SIM_REF_FIELDS) {
            rc = gms_error_set(err, GMS_EFORMAT, "%s:%lu: expected %d fields", path, lineno,
                               SIM_REF_FIELDS);
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            sim_ref_row *nr = realloc(rows, cap * sizeof *nr);
            if (!nr) {
                rc = gms_error_set(err, GMS_ENOMEM, "out of memory reading %s", path);
                break;
            }
            rows = nr;
        }
        sim_ref_row *r = &rows[n];
        memset(r, 0, sizeof *r);
        int bad = parse_row(c, r);
        if (bad >= 0) {
            rc = gms_error_set(err, GMS_EFORMAT, "%s:%lu: %s '%s' is not a valid value", path,
                               lineno, field_names[bad], c[bad]);
            break;
        }
        n++;
        r->log = strdup(c[0]);
        r->model = strdup(c[1]);
        r->policy = strdup(c[2]);
        if (!r->log || !r->model || !r->policy) {
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory reading %s", path);
            break;
        }
    }
    if (rc == 0 && ferror(f))
        rc = gms_error_set(err, GMS_EIO, "cannot read %s: %s", path, strerror(errno));
    if (rc != 0)
        sim_ref_free(rows, n);
    else {
        *rows_out = rows;
        *n_out = n;
    }
done:
    free(line);
    fclose(f);
    return rc;
}
