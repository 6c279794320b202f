/* store_merge_conflict: runs that two merge inputs hold with different results (store.h).
 *
 * A run key names one simulation, which is deterministic: two stores that disagree on it were
 * made by different builds, plugins or data, and silently keeping one of them hides that. So
 * the merge refuses unless the caller named a rule; equal results (wall time, tool version and
 * creation time aside) are the same run and merge silently. */
#include "store_internal.h"

#include <stdio.h>
#include <string.h>

/* temp.merge_origin: which input each output run came from, for the messages. */
int store_merge_origin_init(sqlite3 *db, gms_error *err)
{
    return store_exec(db, "CREATE TEMP TABLE merge_origin (id INTEGER PRIMARY KEY, input INTEGER)",
                      "preparing the output", err);
}

int store_merge_origin_note(sqlite3 *db, size_t input, gms_error *err)
{
    char sql[160];
    snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO temp.merge_origin SELECT id, %zu FROM "
                              "main.runs", input);
    return store_exec(db, sql, "recording where runs came from", err);
}

/* The runs of src whose key is in main with other results. The first %s is the source's
 * allocator column ('ideal' before schema v4); the second an extra condition. */
static const char conflicts_from[] =
    " FROM src.runs r JOIN main.runs m ON m.trace_hash = r.trace_hash AND m.policy = r.policy"
    "  AND m.params = r.params AND m.budget = r.budget AND m.remat_limit = r.remat_limit"
    "  AND m.semantics = r.semantics AND m.allocator = %s"
    " LEFT JOIN main.traces t ON t.hash = r.trace_hash"
    " WHERE (m.status IS NOT r.status OR m.overhead IS NOT r.overhead"
    "  OR m.evictions IS NOT r.evictions OR m.eager_evictions IS NOT r.eager_evictions"
    "  OR m.remats IS NOT r.remats OR m.remat_compute IS NOT r.remat_compute"
    "  OR m.peak_memory IS NOT r.peak_memory)%s";

static const char conflicts_cols[] =
    "SELECT count(*) OVER (), t.name, r.trace_hash, r.policy, r.params, r.budget,"
    " r.remat_limit, r.semantics, m.allocator, m.status, m.overhead, m.evictions, m.remats,"
    " m.peak_memory, m.created_at, r.status, r.overhead, r.evictions, r.remats, r.peak_memory,"
    " r.created_at, (SELECT input FROM temp.merge_origin o WHERE o.id = m.id)";

static void describe(sqlite3_stmt *st, int col, char *buf, size_t len)
{
    snprintf(buf, len, "%s, overhead %.10g, %lld evictions, %lld remats, peak %lld B, created %s",
             (const char *)sqlite3_column_text(st, col), sqlite3_column_double(st, col + 1),
             (long long)sqlite3_column_int64(st, col + 2),
             (long long)sqlite3_column_int64(st, col + 3),
             (long long)sqlite3_column_int64(st, col + 4),
             (const char *)sqlite3_column_text(st, col + 5));
}

/* The error naming the first conflicting run (the statement's row) and both results. */
static int refuse(sqlite3_stmt *st, const char *const *inputs, size_t input, gms_error *err)
{
    char a[320], b[320];
    describe(st, 9, a, sizeof a);
    describe(st, 15, b, sizeof b);
    sqlite3_int64 from = sqlite3_column_int64(st, 21);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    return gms_error_set(
        err, GMS_EINVAL,
        "%lld run(s) of %s are in an earlier input with other results; the first: trace %s "
        "(%.12s), policy %s, params '%s', budget %lld B, remat limit %g, %s, allocator %s: "
        "%s has %s; %s has %s. Nothing was written: find out why they differ, or keep one "
        "with --prefer first, last or newer",
        (long long)sqlite3_column_int64(st, 0), inputs[input], name ? name : "?",
        (const char *)sqlite3_column_text(st, 2), (const char *)sqlite3_column_text(st, 3),
        (const char *)sqlite3_column_text(st, 4), (long long)sqlite3_column_int64(st, 5),
        sqlite3_column_double(st, 6), (const char *)sqlite3_column_text(st, 7),
        (const char *)sqlite3_column_text(st, 8),
        from >= 0 && (size_t)from < input ? inputs[from] : "an earlier input", a, inputs[input],
        b);
}

int store_merge_conflicts(sqlite3 *db, int version, const char *const *inputs, size_t input,
                          store_merge_prefer prefer, size_t *resolved, gms_error *err)
{
    if (prefer == STORE_MERGE_FIRST)
        return 0; /* INSERT OR IGNORE keeps what is there */
    const char *alloc = version >= 4 ? "r.allocator" : "'ideal'";
    const char *newer = prefer == STORE_MERGE_NEWER ? " AND r.created_at > m.created_at" : "";
    char from[sizeof conflicts_from + 64], sql[sizeof conflicts_from + sizeof conflicts_cols + 128];
    snprintf(from, sizeof from, conflicts_from, alloc, newer);
    if (prefer == STORE_MERGE_REFUSE) {
        snprintf(sql, sizeof sql, "%s%s ORDER BY r.id LIMIT 1", conflicts_cols, from);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            return store_db_error(db, err, "looking for conflicting runs");
        int step = sqlite3_step(st), rc = 0;
        if (step == SQLITE_ROW)
            rc = refuse(st, inputs, input, err);
        else if (step != SQLITE_DONE)
            rc = store_db_error(db, err, "looking for conflicting runs");
        sqlite3_finalize(st);
        return rc;
    }
    /* last / newer: the output's rows go (their timelines and iterations cascade), and the
     * copy that follows brings the input's */
    snprintf(sql, sizeof sql, "DELETE FROM main.runs WHERE id IN (SELECT m.id%s)", from);
    int rc = store_exec(db, sql, "replacing conflicting runs", err);
    if (!rc && resolved)
        *resolved += (size_t)sqlite3_changes(db);
    return rc;
}
