/* gpumemsim db: list, export and merge result stores (analysis/store.h). */
#include <stdlib.h>
#include <string.h>

#include "analysis_util.h"
#include "cli.h"
#include "db_gaps.h"
#include "db_seeds.h"
#include "filter_opts.h"
#include "store.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim db runs DB [FILTER...]\n"
            "       gpumemsim db export DB --csv|--json [-o FILE] [FILTER...]\n"
            "       gpumemsim db gaps DB [--csv|--json] [-o FILE] [FILTER...]\n"
            "       gpumemsim db merge A.db B.db ... -o OUT.db [--force]\n"
            "                          [--prefer first|last|newer]\n\n"
            "  runs     print the stored runs as a table (one line per run, then a tally,\n"
            "           and for runs stored per seed each point's distribution: median,\n"
            "           min, max, how many stopped, the mean only if every seed finished)\n"
            "  export   write every stored run as CSV or JSON, to FILE or stdout\n"
            "  gaps     the yardstick: each run beside every exact Checkmate answer stored\n"
            "           at its trace and budget (by layers or op level), with its gap to\n"
            "           the optimum (overhead / the optimum's overhead - 1) and to the LP\n"
            "           bound; a table, or CSV / JSON (docs/optimal.md)\n"
            "  merge    write the union of several stores (e.g. the shards of a sweep) to\n"
            "           OUT.db without duplicates; an existing OUT.db is only replaced with\n"
            "           --force, and OUT.db appears only when the merge is complete. A run\n"
            "           two stores hold with different results is refused (naming it and\n"
            "           both results) unless --prefer says which to keep: the first input's,\n"
            "           the last one's or the newer (created later); equal runs merge\n\n"
            "  --trace NAME   only this trace: its name (file name without extension), a glob\n"
            "                 such as 'unet*', or its content hash (its first 6+ digits tell\n"
            "                 two traces with one file name apart)\n"
            "  --policy LIST  only these policies (comma-separated; --policies is the same)\n"
            "%s"
            "A trace, policy or other value that the store does not hold is an error that\n"
            "lists what it holds.\n\n"
            "The columns of db runs (db export has them all, under longer names):\n"
            "  TRACE        the trace's name (its file name without extension)\n"
            "  POLICY       the policy, planner or solved schedule (sim --list-policies)\n"
            "  PARAMS       the run's settings beyond the policy (seed, sample, link, costs,\n"
            "               a planner's --policy-args), as stored in its key\n"
            "  LIMIT        the remat limit: the run stopped once its compute passed LIMIT x\n"
            "               the baseline (sweep/sim --remat-limit; 2 as in the DTR paper,\n"
            "               0 = none)\n"
            "  SEMANTICS    the replay semantics (simrd, the DTR paper's simulator)\n"
            "  ALLOCATOR    the memory model (ideal, caching, lifetime; docs/memory.md)\n"
            "  RATIO        the budget as a ratio of the trace's baseline peak memory\n"
            "  BUDGET       the budget in bytes\n"
            "  STATUS       ok; oom (nothing left to evict); remat-limit (stopped at LIMIT)\n"
            "  OVERHEAD     simulated time / baseline compute ('-' when the run stopped)\n"
            "  EVICTIONS    storages the policy evicted, to recompute when needed (a swapping\n"
            "               policy's copies to host memory are SWAPPED-OUT, not evictions)\n"
            "  REMATS       ops recomputed\n"
            "  PEAK         peak memory in use during the run\n"
            "  SWAPPED-OUT  bytes copied to host memory by a swapping policy ('-': none)\n"
            "  SWAPPED-IN   bytes copied back to the GPU\n"
            "  STALL        compute time spent waiting for copies (ms)\n"
            "A checkmate row whose graph's answer is worse than a heuristic's run at its\n"
            "budget, or has no schedule where that run fits, is followed by a note line\n"
            "saying so (db export and db gaps: the note column).\n",
            cli_filter_help);
}

typedef struct db_opts {
    const char *trace;
    char **policies;
    size_t n_policies;
    const char *out;
    int csv, json, force;
    const char *prefer; /* db merge --prefer */
    const char **pos; /* positional arguments */
    size_t n_pos;
    store_filter filter; /* the run-key options (filter_opts.h) */
    int filtered;
} db_opts;

/* Parses the options shared by the db subcommands; returns 0, or the exit code. */
static int parse(int argc, char **argv, db_opts *o)
{
    memset(o, 0, sizeof *o);
    if (!(o->pos = calloc((size_t)argc, sizeof *o->pos))) {
        cli_error("db", "out of memory");
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int has_val = i + 1 < argc;
        int fo = cli_filter_option("db", argc, argv, &i, &o->filter);
        if (fo == 2)
            return 2;
        if (fo == 1) {
            o->filtered = 1;
        } else if (strcmp(a, "--trace") == 0 && has_val) {
            o->trace = argv[++i];
        } else if ((strcmp(a, "--policy") == 0 || strcmp(a, "--policies") == 0) && has_val) {
            cli_list_free(o->policies);
            if (cli_list_split(argv[++i], &o->policies, &o->n_policies) != 0) {
                cli_error("db", "--policy '%s': expected a comma-separated list of names",
                          argv[i]);
                return 2;
            }
        } else if (strcmp(a, "-o") == 0 && has_val) {
            o->out = argv[++i];
        } else if (strcmp(a, "--csv") == 0) {
            o->csv = 1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--force") == 0) {
            o->force = 1;
        } else if (strcmp(a, "--prefer") == 0 && has_val) {
            o->prefer = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            cli_error("db", "unknown option or missing value: '%s' (see gpumemsim db --help)",
                      a);
            return 2;
        } else {
            o->pos[o->n_pos++] = a;
        }
    }
    return 0;
}

typedef struct table_ctx {
    int pass; /* 0: measure widths, 1: print */
    int w_trace, w_policy, w_params, w_sem, w_alloc;
    size_t n, ok, oom, limit;
    db_seeds *seeds; /* the seed distributions (pass 0 fills it) */
    int oom_seeds;
} table_ctx;

static int table_row(void *vctx, const store_row *r)
{
    table_ctx *t = vctx;
    if (t->pass == 0) {
        int l = (int)strlen(r->trace_name);
        t->w_trace = l > t->w_trace ? l : t->w_trace;
        l = (int)strlen(r->policy);
        t->w_policy = l > t->w_policy ? l : t->w_policy;
        l = (int)strlen(r->params);
        t->w_params = l > t->w_params ? l : t->w_params;
        l = (int)strlen(r->semantics);
        t->w_sem = l > t->w_sem ? l : t->w_sem;
        l = (int)strlen(r->allocator);
        t->w_alloc = l > t->w_alloc ? l : t->w_alloc;
        t->n++;
        t->ok += strcmp(r->status, "ok") == 0;
        t->oom += strcmp(r->status, "oom") == 0;
        t->limit += strcmp(r->status, "remat-limit") == 0;
        if (t->seeds && db_seeds_add(t->seeds, r)) { /* NULL: a count only (merge) */
            t->oom_seeds = 1;
            return 1;
        }
        return 0;
    }
    char budget[32], peak[32], overhead[32] = "-", out[32] = "-", in[32] = "-", stall[32] = "-";
    cli_format_bytes(r->budget, budget, sizeof budget);
    cli_format_bytes(r->peak_memory, peak, sizeof peak);
    if (r->has_overhead)
        snprintf(overhead, sizeof overhead, "%.4f", r->overhead);
    if (r->swap_out_bytes || r->swap_in_bytes || r->stall_ns) { /* "-": the run never swapped */
        cli_format_bytes(r->swap_out_bytes, out, sizeof out);
        cli_format_bytes(r->swap_in_bytes, in, sizeof in);
        snprintf(stall, sizeof stall, "%.3f ms", (double)r->stall_ns / 1e6);
    }
    printf("%-*s  %-*s  %-*s  %5g  %-*s  %-*s  %5.3f  %11s  %-11s  %8s  %9llu  %9llu  %11s"
           "  %11s  %11s  %12s\n",
           t->w_trace, r->trace_name, t->w_policy, r->policy, t->w_params, r->params,
           r->remat_limit, t->w_sem, r->semantics, t->w_alloc, r->allocator, r->ratio, budget,
           r->status, overhead, (unsigned long long)r->evictions,
           (unsigned long long)r->remats, peak, out, in, stall);
    if (*r->note)
        printf("  note: %s\n", r->note);
    return 0;
}

static int db_runs(store *s, const store_filter *f)
{
    table_ctx t = {.w_trace = 5, .w_policy = 6, .w_params = 6, .w_sem = 9, .w_alloc = 9};
    gms_error err;
    if (!(t.seeds = db_seeds_new())) {
        cli_error("db runs", "out of memory");
        return 1;
    }
    int rc = store_query_runs(s, f, table_row, &t, &err);
    if (rc || t.oom_seeds) {
        cli_error("db runs", "%s", t.oom_seeds ? "out of memory grouping seeds" : err.msg);
        db_seeds_free(t.seeds);
        return 1;
    }
    printf("%-*s  %-*s  %-*s  %5s  %-*s  %-*s  %5s  %11s  %-11s  %8s  %9s  %9s  %11s  %11s  "
           "%11s  %12s\n",
           t.w_trace, "TRACE", t.w_policy, "POLICY", t.w_params, "PARAMS", "LIMIT", t.w_sem,
           "SEMANTICS", t.w_alloc, "ALLOCATOR", "RATIO", "BUDGET", "STATUS", "OVERHEAD",
           "EVICTIONS", "REMATS", "PEAK", "SWAPPED-OUT", "SWAPPED-IN", "STALL");
    t.pass = 1;
    if (store_query_runs(s, f, table_row, &t, &err)) {
        cli_error("db runs", "%s", err.msg);
        db_seeds_free(t.seeds);
        return 1;
    }
    printf("%zu runs: %zu ok, %zu oom, %zu remat-limit\n", t.n, t.ok, t.oom, t.limit);
    db_seeds_print(t.seeds);
    db_seeds_free(t.seeds);
    return 0;
}

static int db_export(store *s, const store_filter *f, const db_opts *o)
{
    if (o->csv == o->json) {
        cli_error("db export", "say which format: --csv or --json");
        return 2;
    }
    gms_error err;
    cli_outfile of;
    FILE *out = stdout;
    int to_file = o->out && strcmp(o->out, "-") != 0; /* "-o -": standard output */
    if (to_file) {
        if (cli_outfile_open(&of, "db export", o->out))
            return 1;
        out = of.f;
    }
    int rc = o->csv ? store_export_csv(s, f, out, &err) : store_export_json(s, f, out, &err);
    if (rc) {
        cli_error("db export", "%s", err.msg);
        if (to_file)
            cli_outfile_abort(&of);
        return 1;
    }
    if (to_file)
        return cli_outfile_commit(&of, "db export") ? 1 : 0;
    return fflush(stdout) == 0 ? 0 : 1;
}

static int db_merge(const db_opts *o)
{
    if (!o->out || o->n_pos == 0) {
        cli_error("db merge", "usage: gpumemsim db merge A.db B.db ... -o OUT.db [--force]");
        return 2;
    }
    store_merge_prefer prefer = STORE_MERGE_REFUSE;
    if (o->prefer) {
        static const char *const names[] = {"first", "last", "newer"};
        static const store_merge_prefer rules[] = {STORE_MERGE_FIRST, STORE_MERGE_LAST,
                                                   STORE_MERGE_NEWER};
        size_t k = 0;
        while (k < 3 && strcmp(o->prefer, names[k]) != 0)
            k++;
        if (k == 3) {
            cli_error("db merge", "--prefer '%s': give first, last or newer (which input's "
                                  "result to keep for a run the inputs disagree on)", o->prefer);
            return 2;
        }
        prefer = rules[k];
    }
    gms_error err;
    size_t resolved = 0;
    if (store_merge_prefer_rule(o->pos, o->n_pos, o->out, o->force, prefer, &resolved, &err)) {
        cli_error("db merge", "%s", err.msg);
        return 1;
    }
    if (resolved)
        fprintf(stderr, "db merge: %zu run(s) held with other results by an earlier input "
                        "took the %s one (--prefer %s)\n", resolved,
                prefer == STORE_MERGE_NEWER ? "newer" : "last input's", o->prefer);
    store *s;
    if (store_open(o->out, STORE_READONLY, &s, &err) == 0) {
        table_ctx t = {0};
        store_query_runs(s, NULL, table_row, &t, &err);
        store_close(s);
        fprintf(stderr, "merged %zu stores into %s: %zu runs\n", o->n_pos, o->out, t.n);
    }
    return 0;
}

int cmd_db(int argc, char **argv)
{
    if (argc < 2 || cli_is_help(argv[1])) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1];
    for (int i = 2; i < argc; i++)
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
    db_opts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        goto done;
    if (strcmp(sub, "merge") == 0) {
        if (o.trace || o.policies || o.filtered) {
            cli_error("db merge", "merge takes whole stores; filters (--trace, --policy, "
                                  "--remat-limit, --semantics, --where) apply to runs and export");
            rc = 2;
            goto done;
        }
        rc = db_merge(&o);
        goto done;
    }
    if (strcmp(sub, "runs") != 0 && strcmp(sub, "export") != 0 && strcmp(sub, "gaps") != 0) {
        cli_error("db", "unknown subcommand '%s' (runs, export, gaps or merge)", sub);
        rc = 2;
        goto done;
    }
    if (o.prefer) {
        cli_error("db", "--prefer is an option of db merge only");
        rc = 2;
        goto done;
    }
    if (o.n_pos != 1) {
        cli_error("db", "%s takes exactly one store (see gpumemsim db --help)", sub);
        rc = 2;
        goto done;
    }
    if (strcmp(sub, "runs") == 0 && (o.csv || o.json || o.out || o.force)) {
        cli_error("db runs", "%s is not an option of db runs, which prints a table; for CSV or "
                             "JSON use 'gpumemsim db export DB --csv|--json'",
                  o.csv ? "--csv" : o.json ? "--json" : o.out ? "-o" : "--force");
        rc = 2;
        goto done;
    }
    if (strcmp(sub, "gaps") == 0 && (o.force || (o.csv && o.json))) {
        cli_error("db gaps", o.force ? "--force is an option of db merge only"
                                     : "give one format: --csv or --json");
        rc = 2;
        goto done;
    }
    if (strcmp(sub, "export") == 0 && o.force) {
        cli_error("db export", "--force is an option of db merge only");
        rc = 2;
        goto done;
    }
    store *s;
    gms_error err;
    if (store_open(o.pos[0], STORE_READONLY, &s, &err)) {
        cli_error("db", "%s", err.msg);
        rc = 1;
        goto done;
    }
    store_filter f = o.filter;
    f.trace_name = o.trace;
    f.policies = (const char *const *)o.policies;
    f.n_policies = o.n_policies;
    if (store_check_filter(s, &f, &err)) {
        cli_error("db", "%s", err.msg);
        rc = 1;
    } else {
        rc = strcmp(sub, "runs") == 0   ? db_runs(s, &f)
             : strcmp(sub, "gaps") == 0 ? db_gaps(s, &f, o.csv ? 1 : o.json ? 2 : 0, o.out)
                                        : db_export(s, &f, &o);
    }
    store_close(s);
done:
    cli_list_free(o.policies);
    free(o.pos);
    return rc;
}
