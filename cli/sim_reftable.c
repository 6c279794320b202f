/*
 * sim_reftable: replay the reference table in one process and compare (see sim_reftable.h).
 */
#include "sim_reftable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "registry.h"
#include "sim.h"

typedef struct ref_row {
    char *log, *model, *policy;
    int trial;
    double ratio;
    unsigned long long budget, base_mem, base_compute;
    char status[16];
    int has_overhead;
    double overhead;
    unsigned long long evictions, eager, remat, peak;
    double simrd_s;
    /* ours */
    int agree, exact;
    double wall_s;
} ref_row;

typedef struct group {
    const char *log, *model, *policy;
    int rows, agree, exact;
    double ours_s, simrd_s;
} group;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Splits a CSV line (the reference has no quoted fields) in place. */
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

static void rows_free(ref_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].log);
        free(rows[i].model);
        free(rows[i].policy);
    }
    free(rows);
}

static int load_rows(const char *cmd, const char *csv, ref_row **out, size_t *n_out)
{
    FILE *f = fopen(csv, "r");
    if (!f) {
        cli_error(cmd, "cannot open the reference table %s: %s", csv, strerror(errno));
        return -1;
    }
    static const char header[] = "log_file,model,policy,trial,ratio,budget,baseline_memory,"
                                 "baseline_compute,status,overhead,evictions,eager_evictions,"
                                 "remat_compute,peak_memory,simrd_wall_s";
    char line[8192];
    if (!fgets(line, sizeof line, f) || strncmp(line, header, sizeof header - 1) != 0) {
        cli_error(cmd, "%s: not a reference table (expected the simrd-pareto.csv header)", csv);
        fclose(f);
        return -1;
    }
    ref_row *rows = NULL;
    size_t n = 0, cap = 0;
    unsigned long lineno = 1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *c[16];
        if (split(line, c, 16) != 15) {
            cli_error(cmd, "%s:%lu: expected 15 fields", csv, lineno);
            goto fail;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            ref_row *nr = realloc(rows, cap * sizeof *nr);
            if (!nr) {
                cli_error(cmd, "out of memory");
                goto fail;
            }
            rows = nr;
        }
        ref_row *r = &rows[n];
        memset(r, 0, sizeof *r);
        r->log = strdup(c[0]);
        r->model = strdup(c[1]);
        r->policy = strdup(c[2]);
        n++;
        if (!r->log || !r->model || !r->policy) {
            cli_error(cmd, "out of memory");
            goto fail;
        }
        r->trial = atoi(c[3]);
        r->ratio = strtod(c[4], NULL);
        r->budget = strtoull(c[5], NULL, 10);
        r->base_mem = strtoull(c[6], NULL, 10);
        r->base_compute = strtoull(c[7], NULL, 10);
        snprintf(r->status, sizeof r->status, "%s", c[8]);
        r->has_overhead = c[9][0] != 0;
        r->overhead = r->has_overhead ? strtod(c[9], NULL) : 0;
        r->evictions = strtoull(c[10], NULL, 10);
        r->eager = strtoull(c[11], NULL, 10);
        r->remat = strtoull(c[12], NULL, 10);
        r->peak = strtoull(c[13], NULL, 10);
        r->simrd_s = strtod(c[14], NULL);
    }
    fclose(f);
    *out = rows;
    *n_out = n;
    return 0;
fail:
    fclose(f);
    rows_free(rows, n);
    return -1;
}

/* Runs row r on runner; fills r->agree/exact/wall_s; prints a diff unless quiet. */
static int run_row(const char *cmd, sim_runner *run, const sim_trace *t, ref_row *r, int quiet)
{
    sim_config cfg;
    sim_config_init(&cfg);
    cfg.policy = pol_find(r->policy);
    if (!cfg.policy) {
        cli_error(cmd, "reference row %s: unknown policy %s", r->log, r->policy);
        return -1;
    }
    cfg.budget = sim_budget_for_ratio(t, r->ratio);
    cfg.seed = (uint64_t)r->trial;
    sim_result res;
    gms_error err = {0};
    if (sim_runner_run(run, &cfg, &res, &err) != 0) {
        cli_error(cmd, "%s %s ratio %g: %s", r->log, r->policy, r->ratio, err.msg);
        return -1;
    }
    const sim_baseline *bl = sim_trace_baseline(t);
    const char *st = sim_status_name(res.status);
    double rel = 0;
    if (res.status == SIM_OK && r->has_overhead && r->overhead != 0)
        rel = (res.overhead - r->overhead) / r->overhead;
    if (rel < 0)
        rel = -rel;
    r->agree = strcmp(st, r->status) == 0 && cfg.budget == r->budget &&
               bl->memory == r->base_mem && bl->compute == r->base_compute &&
               res.evictions == r->evictions && res.eager_evictions == r->eager &&
               res.remat_compute == r->remat && res.peak_memory == r->peak && rel <= 1e-9;
    r->exact = r->agree && (res.status != SIM_OK || !r->has_overhead || res.overhead == r->overhead);
    r->wall_s = res.wall_s;
    if (!r->agree && !quiet)
        fprintf(stderr,
                "MISMATCH %s %s trial %d ratio %g\n"
                "  budget    %-22llu ref %llu\n"
                "  status    %-22s ref %s\n"
                "  overhead  %-22.17g ref %.17g\n"
                "  evictions %-22llu ref %llu\n"
                "  eager     %-22llu ref %llu\n"
                "  remat     %-22llu ref %llu\n"
                "  peak      %-22llu ref %llu\n",
                r->model, r->policy, r->trial, r->ratio, (unsigned long long)cfg.budget,
                r->budget, st, r->status, res.status == SIM_OK ? res.overhead : 0.0,
                r->overhead, (unsigned long long)res.evictions, r->evictions,
                (unsigned long long)res.eager_evictions, r->eager,
                (unsigned long long)res.remat_compute, r->remat,
                (unsigned long long)res.peak_memory, r->peak);
    if (!quiet && r->agree && !r->exact)
        fprintf(stderr, "NOTE %s %s ratio %g: overhead %.17g vs %.17g (within 1e-9)\n", r->model,
                r->policy, r->ratio, res.overhead, r->overhead);
    return 0;
}

/* The CSV's directory + "/../traces/dtr-iclr21". */
static char *default_traces_dir(const char *csv)
{
    const char *slash = strrchr(csv, '/');
    size_t dlen = slash ? (size_t)(slash - csv) : 1;
    const char *dir = slash ? csv : ".";
    char *out = malloc(dlen + 32);
    if (out)
        snprintf(out, dlen + 32, "%.*s/../traces/dtr-iclr21", (int)dlen, dir);
    return out;
}

int sim_reftable_run(const char *cmd, const sim_reftable_opts *o)
{
    ref_row *rows;
    size_t n;
    if (load_rows(cmd, o->csv, &rows, &n) != 0)
        return 1;
    char *tdir = o->traces_dir ? strdup(o->traces_dir) : default_traces_dir(o->csv);
    group *groups = calloc(n + 1, sizeof *groups);
    size_t n_groups = 0;
    int rc = 0;
    double load_s = 0, cpu_s = 0, wall_s = 0, simrd_s = 0;
    int repeat = o->repeat > 0 ? o->repeat : 1;
    if (!tdir || !groups) {
        cli_error(cmd, "out of memory");
        rc = 1;
        goto done;
    }
    if (o->rows)
        printf("log_file,policy,trial,ratio,status_ok,agree,exact,wall_s\n");
    /* logs in order of first appearance; each loaded once */
    for (size_t i = 0; i < n && rc == 0; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(rows[j].log, rows[i].log) == 0;
        if (seen)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", tdir, rows[i].log);
        double l0 = wall_now();
        sim_trace *t;
        sim_runner *run = NULL;
        gms_error err = {0};
        if (sim_trace_load(path, &t, &err) != 0) {
            cli_error(cmd, "%s (use --traces DIR to say where the logs are)", err.msg);
            rc = 1;
            break;
        }
        if (sim_runner_new(t, &run, &err) != 0) {
            cli_error(cmd, "%s", err.msg);
            sim_trace_free(t);
            rc = 1;
            break;
        }
        load_s += wall_now() - l0;
        for (int rep = 0; rep < repeat && rc == 0; rep++) {
            double c0 = cpu_now(), w0 = wall_now();
            for (size_t j = i; j < n && rc == 0; j++)
                if (strcmp(rows[j].log, rows[i].log) == 0)
                    rc = run_row(cmd, run, t, &rows[j], o->quiet || rep > 0) ? 1 : 0;
            cpu_s += cpu_now() - c0;
            wall_s += wall_now() - w0;
        }
        sim_runner_free(run);
        sim_trace_free(t);
        for (size_t j = i; j < n && rc == 0; j++) {
            ref_row *r = &rows[j];
            if (strcmp(r->log, rows[i].log) != 0)
                continue;
            size_t g = 0;
            while (g < n_groups && !(strcmp(groups[g].log, r->log) == 0 &&
                                     strcmp(groups[g].policy, r->policy) == 0))
                g++;
            if (g == n_groups) {
                groups[g] = (group){.log = r->log, .model = r->model, .policy = r->policy};
                n_groups++;
            }
            groups[g].rows++;
            groups[g].agree += r->agree;
            groups[g].exact += r->exact;
            groups[g].ours_s += r->wall_s;
            groups[g].simrd_s += r->simrd_s;
            simrd_s += r->simrd_s;
            if (o->rows)
                printf("%s,%s,%d,%.1f,%d,%d,%d,%.6f\n", r->log, r->policy, r->trial, r->ratio,
                       strcmp(r->status, "ok") == 0, r->agree, r->exact, r->wall_s);
        }
    }
    if (rc == 0) {
        FILE *f = o->rows ? stderr : stdout;
        int rows_n = 0, agree = 0, exact = 0;
        fprintf(f, "%-22s %-10s %5s %6s %6s %10s %10s\n", "model", "policy", "rows", "agree",
                "exact", "ours_s", "simrd_s");
        for (size_t g = 0; g < n_groups; g++) {
            fprintf(f, "%-22s %-10s %5d %6d %6d %10.4f %10.3f\n", groups[g].model,
                    groups[g].policy, groups[g].rows, groups[g].agree, groups[g].exact,
                    groups[g].ours_s, groups[g].simrd_s);
            rows_n += groups[g].rows;
            agree += groups[g].agree;
            exact += groups[g].exact;
        }
        fprintf(f, "%-22s %-10s %5d %6d %6d %10.4f %10.3f\n", "total", "", rows_n, agree, exact,
                wall_s / repeat, simrd_s);
        fprintf(f,
                "simulations: %d rows x %d repeat(s): cpu %.4f s (%.4f s per table), wall %.4f s; "
                "trace loading %.3f s; simrd %.1f s; speed-up %.0fx\n",
                rows_n, repeat, cpu_s, cpu_s / repeat, wall_s, load_s, simrd_s,
                cpu_s > 0 ? simrd_s / (cpu_s / repeat) : 0.0);
        if (agree != rows_n)
            rc = 1;
    }
done:
    free(groups);
    free(tdir);
    rows_free(rows, n);
    return rc;
}
