/* store: reading runs back (store_query_runs) and exporting them as CSV or JSON. */
#include "store_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns, then a store of schema v3 or later adds the traces' constants and bottleneck
 * (an older store opened read-only reads NULL for them). */
static const char query_cols[] =
    "SELECT r.id, t.name, r.trace_hash, t.baseline_memory, t.baseline_compute, r.policy,"
    " r.params, r.ratio, r.budget, r.remat_limit, r.semantics, r.status, r.overhead,"
    " r.evictions, r.eager_evictions, r.remats, r.remat_compute, r.peak_memory, r.wall_s,"
    " r.tool_version, r.created_at, ";
static const char query_head[] =
    " FROM runs r JOIN traces t ON t.hash = r.trace_hash"
    " WHERE (?1 IS NULL OR t.name = ?1 OR t.name GLOB ?1 OR t.hash = ?1"
    "  OR (length(?1) >= 6 AND t.hash GLOB ?1 || '*'))"
    " AND (?2 IS NULL OR r.remat_limit = ?2) AND (?3 IS NULL OR r.semantics = ?3)"
    " AND (?4 IS NULL OR r.params = ?4 OR r.params GLOB ?4)"
    " AND (?5 IS NULL OR r.status = ?5)";
/* The memory-model columns (schema version 4); a store read as it is from before that holds
 * ideal runs only. */
static const char mem_cols_v4[] =
    "r.allocator, r.peak_reserved, r.peak_allocated, r.largest_free, r.frag_allocs, r.frag_ratio";
static const char mem_cols_v3[] = "'ideal', r.peak_memory, r.peak_memory, 0, 0, 0.0";
/* The runtime-cost totals (schema version 5); runs from before it paid none. */
static const char cost_cols_v5[] = ", r.op_overhead_ns, r.search_ns, r.evict_ns";
static const char cost_cols_v4[] = ", 0, 0, 0";
/* The checkpoint-planner figures (schema version 6). */
static const char plan_cols_v6[] = ", r.plan_iterations, r.plan_predicted, r.pred_err_mean,"
                                   " r.pred_err_max, r.cache_hits, r.cache_misses, r.plan_s,"
                                   " r.checkpoints";
static const char plan_cols_v5[] = ", 0, 0, NULL, NULL, 0, 0, 0.0, 0";
/* The swapping figures (schema version 7); runs from before it never swapped. */
static const char swap_cols_v7[] =
    ", r.swap_out_bytes, r.swap_in_bytes, r.stall_ns, r.d2h_busy_ns, r.h2d_busy_ns";
static const char swap_cols_v6[] = ", 0, 0, 0, 0, 0";
/* A checkmate run's note (schema version 11); none before it. */
static const char note_cols_v11[] = ", r.note";
static const char note_cols_v10[] = ", NULL";
static const char query_tail[] = " ORDER BY t.name, r.trace_hash, r.policy, r.budget, r.params";

static const char *text_or_empty(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? (const char *)t : "";
}

int store_query_runs(store *s, const store_filter *f, store_row_fn fn, void *ctx,
                     gms_error *err)
{
    size_t np = f ? f->n_policies : 0;
    size_t len = sizeof query_cols + sizeof query_head + sizeof mem_cols_v4 +
                 sizeof cost_cols_v5 + sizeof plan_cols_v6 + sizeof swap_cols_v7 + sizeof note_cols_v11 +
                 sizeof query_tail + 64 + np * 8;
    char *sql = malloc(len);
    if (!sql)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    size_t off = (size_t)snprintf(sql, len, "%s%s, %s%s%s%s%s%s", query_cols,
                                  s->version >= 3 ? "t.constants, t.bottleneck" : "NULL, NULL",
                                  s->version >= 4 ? mem_cols_v4 : mem_cols_v3,
                                  s->version >= 5 ? cost_cols_v5 : cost_cols_v4,
                                  s->version >= 6 ? plan_cols_v6 : plan_cols_v5,
                                  s->version >= 7 ? swap_cols_v7 : swap_cols_v6,
                                  s->version >= 11 ? note_cols_v11 : note_cols_v10, query_head);
    if (f && f->allocator) /* stores before version 4 hold ideal runs only */
        off += (size_t)snprintf(sql + off, len - off, " AND %s = ?6",
                                s->version >= 4 ? "r.allocator" : "'ideal'");
    if (np) {
        off += (size_t)snprintf(sql + off, len - off, " AND r.policy IN (");
        for (size_t i = 0; i < np; i++)
            off += (size_t)snprintf(sql + off, len - off, "%s?%zu", i ? "," : "", i + 7);
        off += (size_t)snprintf(sql + off, len - off, ")");
    }
    snprintf(sql + off, len - off, "%s", query_tail);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    free(sql);
    if (rc != SQLITE_OK)
        return store_db_error(s->db, err, "querying runs");
    if (f && f->trace_name)
        sqlite3_bind_text(st, 1, f->trace_name, -1, SQLITE_STATIC);
    for (size_t i = 0; i < np; i++)
        sqlite3_bind_text(st, (int)i + 7, f->policies[i], -1, SQLITE_STATIC);
    if (f && f->allocator)
        sqlite3_bind_text(st, 6, f->allocator, -1, SQLITE_STATIC);
    if (f && f->remat_limit > 0)
        sqlite3_bind_double(st, 2, f->remat_limit);
    if (f && f->semantics)
        sqlite3_bind_text(st, 3, f->semantics, -1, SQLITE_STATIC);
    if (f && f->params)
        sqlite3_bind_text(st, 4, f->params, -1, SQLITE_STATIC);
    if (f && f->status)
        sqlite3_bind_text(st, 5, f->status, -1, SQLITE_STATIC);
    int result = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_row r;
        r.id = sqlite3_column_int64(st, 0);
        r.trace_name = text_or_empty(st, 1);
        r.trace_hash = text_or_empty(st, 2);
        r.baseline_memory = (uint64_t)sqlite3_column_int64(st, 3);
        r.baseline_compute = (uint64_t)sqlite3_column_int64(st, 4);
        r.policy = text_or_empty(st, 5);
        r.params = text_or_empty(st, 6);
        r.ratio = sqlite3_column_type(st, 7) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 7);
        r.budget = (uint64_t)sqlite3_column_int64(st, 8);
        r.remat_limit = sqlite3_column_double(st, 9);
        r.semantics = text_or_empty(st, 10);
        r.status = text_or_empty(st, 11);
        r.has_overhead = sqlite3_column_type(st, 12) != SQLITE_NULL;
        r.overhead = r.has_overhead ? sqlite3_column_double(st, 12) : NAN;
        r.evictions = (uint64_t)sqlite3_column_int64(st, 13);
        r.eager_evictions = (uint64_t)sqlite3_column_int64(st, 14);
        r.remats = (uint64_t)sqlite3_column_int64(st, 15);
        r.remat_compute = (uint64_t)sqlite3_column_int64(st, 16);
        r.peak_memory = (uint64_t)sqlite3_column_int64(st, 17);
        r.wall_s = sqlite3_column_double(st, 18);
        r.tool_version = text_or_empty(st, 19);
        r.created_at = text_or_empty(st, 20);
        r.trace_constants = (uint64_t)sqlite3_column_int64(st, 21);   /* NULL reads as 0 */
        r.trace_bottleneck = (uint64_t)sqlite3_column_int64(st, 22);
        r.allocator = text_or_empty(st, 23);
        r.peak_reserved = (uint64_t)sqlite3_column_int64(st, 24);
        r.peak_allocated = (uint64_t)sqlite3_column_int64(st, 25);
        r.largest_free = (uint64_t)sqlite3_column_int64(st, 26);
        r.frag_allocs = (uint64_t)sqlite3_column_int64(st, 27);
        r.frag_ratio = sqlite3_column_double(st, 28);
        r.op_overhead_ns = (uint64_t)sqlite3_column_int64(st, 29);
        r.search_ns = (uint64_t)sqlite3_column_int64(st, 30);
        r.evict_ns = (uint64_t)sqlite3_column_int64(st, 31);
        r.plan_iterations = (uint32_t)sqlite3_column_int64(st, 32);
        r.plan_predicted = (uint32_t)sqlite3_column_int64(st, 33);
        r.has_pred_err = sqlite3_column_type(st, 34) != SQLITE_NULL;
        r.pred_err_mean = r.has_pred_err ? sqlite3_column_double(st, 34) : NAN;
        r.pred_err_max = r.has_pred_err ? sqlite3_column_double(st, 35) : NAN;
        r.cache_hits = (uint32_t)sqlite3_column_int64(st, 36);
        r.cache_misses = (uint32_t)sqlite3_column_int64(st, 37);
        r.plan_s = sqlite3_column_double(st, 38);
        r.checkpoints = (uint64_t)sqlite3_column_int64(st, 39);
        r.swap_out_bytes = (uint64_t)sqlite3_column_int64(st, 40);
        r.swap_in_bytes = (uint64_t)sqlite3_column_int64(st, 41);
        r.stall_ns = (uint64_t)sqlite3_column_int64(st, 42);
        r.d2h_busy_ns = (uint64_t)sqlite3_column_int64(st, 43);
        r.h2d_busy_ns = (uint64_t)sqlite3_column_int64(st, 44);
        r.note = text_or_empty(st, 45);
        if ((result = fn(ctx, &r)) != 0)
            break;
    }
    if (result == 0 && rc != SQLITE_DONE)
        result = store_db_error(s->db, err, "reading runs");
    sqlite3_finalize(st);
    return result;
}

/* Shortest "%.Ng" that reads back as exactly v, so exports are stable and exact. */
static const char *fmt_double(double v, char *buf, size_t len)
{
    if (isnan(v)) {
        buf[0] = '\0';
        return buf;
    }
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* Writes s as a CSV field, quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static const char csv_header[] =
    "trace,trace_hash,policy,params,ratio,budget,remat_limit,semantics,status,overhead,"
    "evictions,eager_evictions,remats,remat_compute,peak_memory,baseline_memory,"
    "baseline_compute,allocator,peak_reserved,peak_allocated,largest_free,frag_allocs,"
    "frag_ratio,op_overhead_ns,search_ns,evict_ns,plan_iterations,plan_predicted,pred_err_mean,"
    "pred_err_max,cache_hits,cache_misses,plan_s,checkpoints,swap_out_bytes,swap_in_bytes,"
    "stall_ns,d2h_busy_ns,h2d_busy_ns,note,tool_version,wall_s,created_at\n";

static int csv_row(void *ctx, const store_row *r)
{
    FILE *out = ctx;
    char b1[40], b2[40], b3[40], b4[40];
    csv_field(out, r->trace_name);
    fprintf(out, ",%s,", r->trace_hash);
    csv_field(out, r->policy);
    fputc(',', out);
    csv_field(out, r->params);
    fprintf(out, ",%s,%llu,%s,", fmt_double(r->ratio, b1, sizeof b1),
            (unsigned long long)r->budget, fmt_double(r->remat_limit, b2, sizeof b2));
    csv_field(out, r->semantics);
    fprintf(out, ",%s,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,", r->status,
            fmt_double(r->overhead, b3, sizeof b3), (unsigned long long)r->evictions,
            (unsigned long long)r->eager_evictions, (unsigned long long)r->remats,
            (unsigned long long)r->remat_compute, (unsigned long long)r->peak_memory,
            (unsigned long long)r->baseline_memory, (unsigned long long)r->baseline_compute);
    csv_field(out, r->allocator);
    fprintf(out, ",%llu,%llu,%llu,%llu,%s,%llu,%llu,%llu,", (unsigned long long)r->peak_reserved,
            (unsigned long long)r->peak_allocated, (unsigned long long)r->largest_free,
            (unsigned long long)r->frag_allocs, fmt_double(r->frag_ratio, b1, sizeof b1),
            (unsigned long long)r->op_overhead_ns, (unsigned long long)r->search_ns,
            (unsigned long long)r->evict_ns);
    fprintf(out, "%u,%u,%s,%s,%u,%u,%s,%llu,", r->plan_iterations, r->plan_predicted,
            r->has_pred_err ? fmt_double(r->pred_err_mean, b1, sizeof b1) : "",
            r->has_pred_err ? fmt_double(r->pred_err_max, b2, sizeof b2) : "", r->cache_hits,
            r->cache_misses, fmt_double(r->plan_s, b3, sizeof b3),
            (unsigned long long)r->checkpoints);
    fprintf(out, "%llu,%llu,%llu,%llu,%llu,", (unsigned long long)r->swap_out_bytes,
            (unsigned long long)r->swap_in_bytes, (unsigned long long)r->stall_ns,
            (unsigned long long)r->d2h_busy_ns, (unsigned long long)r->h2d_busy_ns);
    csv_field(out, r->note); /* before the fields that differ between equal runs */
    fputc(',', out);
    csv_field(out, r->tool_version);
    fprintf(out, ",%s,%s\n", fmt_double(r->wall_s, b4, sizeof b4), r->created_at);
    return 0;
}

int store_export_csv(store *s, const store_filter *f, FILE *out, gms_error *err)
{
    fputs(csv_header, out);
    return store_query_runs(s, f, csv_row, out, err);
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

typedef struct json_ctx {
    FILE *out;
    size_t n;
} json_ctx;

static int json_row(void *ctx, const store_row *r)
{
    json_ctx *j = ctx;
    FILE *out = j->out;
    char b[40];
    fputs(j->n++ ? ",\n  {" : "\n  {", out);
    fputs("\"trace\": ", out);
    json_string(out, r->trace_name);
    fprintf(out, ", \"trace_hash\": \"%s\", \"policy\": ", r->trace_hash);
    json_string(out, r->policy);
    fputs(", \"params\": ", out);
    json_string(out, r->params);
    fprintf(out, ", \"ratio\": %s", isnan(r->ratio) ? "null" : fmt_double(r->ratio, b, sizeof b));
    fprintf(out, ", \"budget\": %llu", (unsigned long long)r->budget);
    fprintf(out, ", \"remat_limit\": %s, \"semantics\": ", fmt_double(r->remat_limit, b, sizeof b));
    json_string(out, r->semantics);
    fprintf(out, ", \"status\": \"%s\", \"overhead\": %s", r->status,
            r->has_overhead ? fmt_double(r->overhead, b, sizeof b) : "null");
    fprintf(out,
            ", \"evictions\": %llu, \"eager_evictions\": %llu, \"remats\": %llu,"
            " \"remat_compute\": %llu, \"peak_memory\": %llu, \"baseline_memory\": %llu,"
            " \"baseline_compute\": %llu, \"tool_version\": ",
            (unsigned long long)r->evictions, (unsigned long long)r->eager_evictions,
            (unsigned long long)r->remats, (unsigned long long)r->remat_compute,
            (unsigned long long)r->peak_memory, (unsigned long long)r->baseline_memory,
            (unsigned long long)r->baseline_compute);
    json_string(out, r->tool_version);
    fprintf(out, ", \"wall_s\": %s, \"created_at\": ", fmt_double(r->wall_s, b, sizeof b));
    json_string(out, r->created_at);
    fputs(", \"allocator\": ", out);
    json_string(out, r->allocator);
    fprintf(out,
            ", \"peak_reserved\": %llu, \"peak_allocated\": %llu, \"largest_free\": %llu,"
            " \"frag_allocs\": %llu, \"frag_ratio\": %s, \"op_overhead_ns\": %llu,"
            " \"search_ns\": %llu, \"evict_ns\": %llu",
            (unsigned long long)r->peak_reserved, (unsigned long long)r->peak_allocated,
            (unsigned long long)r->largest_free, (unsigned long long)r->frag_allocs,
            fmt_double(r->frag_ratio, b, sizeof b), (unsigned long long)r->op_overhead_ns,
            (unsigned long long)r->search_ns, (unsigned long long)r->evict_ns);
    char b2[40], b3[40];
    fprintf(out,
            ", \"plan_iterations\": %u, \"plan_predicted\": %u, \"pred_err_mean\": %s,"
            " \"pred_err_max\": %s, \"cache_hits\": %u, \"cache_misses\": %u, \"plan_s\": %s,"
            " \"checkpoints\": %llu",
            r->plan_iterations, r->plan_predicted,
            r->has_pred_err ? fmt_double(r->pred_err_mean, b, sizeof b) : "null",
            r->has_pred_err ? fmt_double(r->pred_err_max, b2, sizeof b2) : "null",
            r->cache_hits, r->cache_misses, fmt_double(r->plan_s, b3, sizeof b3),
            (unsigned long long)r->checkpoints);
    fprintf(out,
            ", \"swap_out_bytes\": %llu, \"swap_in_bytes\": %llu, \"stall_ns\": %llu,"
            " \"d2h_busy_ns\": %llu, \"h2d_busy_ns\": %llu, \"note\": ",
            (unsigned long long)r->swap_out_bytes, (unsigned long long)r->swap_in_bytes,
            (unsigned long long)r->stall_ns, (unsigned long long)r->d2h_busy_ns,
            (unsigned long long)r->h2d_busy_ns);
    if (*r->note)
        json_string(out, r->note);
    else
        fputs("null", out);
    fputc('}', out);
    return 0;
}

int store_export_json(store *s, const store_filter *f, FILE *out, gms_error *err)
{
    json_ctx j = {out, 0};
    fputc('[', out);
    int rc = store_query_runs(s, f, json_row, &j, err);
    fputs(j.n ? "\n]\n" : "]\n", out);
    return rc;
}

int store_query_iterations(store *s, int64_t run_id, store_iteration_fn fn, void *ctx,
                           gms_error *err)
{
    if (s->version < 6)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT iteration, input_size, status, start_memory, peak_memory,"
                           " predicted_peak, cache_hit, plan_ns, clock_ns, compute_ns,"
                           " recompute_ns, layers, checkpointed, plan FROM iterations"
                           " WHERE run_id = ?1 ORDER BY iteration",
                           -1, &st, NULL) != SQLITE_OK)
        return store_db_error(s->db, err, "querying iterations");
    sqlite3_bind_int64(st, 1, run_id);
    int rc, result = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_iteration it = {
            .iteration = (uint32_t)sqlite3_column_int64(st, 0),
            .input_size = sqlite3_column_type(st, 1) == SQLITE_NULL
                              ? -1 : sqlite3_column_int64(st, 1),
            .status = text_or_empty(st, 2),
            .start_memory = (uint64_t)sqlite3_column_int64(st, 3),
            .peak_memory = (uint64_t)sqlite3_column_int64(st, 4),
            .predicted_peak = sqlite3_column_type(st, 5) == SQLITE_NULL
                                  ? -1 : sqlite3_column_double(st, 5),
            .cache_hit = sqlite3_column_type(st, 6) == SQLITE_NULL
                             ? -1 : sqlite3_column_int(st, 6),
            .plan_ns = (uint64_t)sqlite3_column_int64(st, 7),
            .clock_ns = (uint64_t)sqlite3_column_int64(st, 8),
            .compute_ns = (uint64_t)sqlite3_column_int64(st, 9),
            .recompute_ns = (uint64_t)sqlite3_column_int64(st, 10),
            .n_layers = (uint32_t)sqlite3_column_int64(st, 11),
            .n_checkpointed = (uint32_t)sqlite3_column_int64(st, 12),
            .plan = text_or_empty(st, 13),
        };
        if ((result = fn(ctx, &it)) != 0)
            break;
    }
    int bad = result == 0 && rc != SQLITE_DONE;
    sqlite3_finalize(st);
    if (bad)
        return store_db_error(s->db, err, "querying iterations");
    return result;
}
