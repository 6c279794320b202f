/* store: checking a filter's names against what a store holds (store_check_filter). */
#include "store_internal.h"

#include <stdlib.h>
#include <string.h>

#define KNOWN_MAX 600 /* characters of "known values" quoted in a message */

/* Fills buf with the distinct values of `sql` (one text column), comma-separated, ending in
 * ", ..." when they do not fit. */
static int list_values(store *s, const char *sql, char *buf, size_t len, gms_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return store_db_error(s->db, err, "listing stored values");
    size_t off = 0;
    buf[0] = '\0';
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        if (!v)
            continue;
        const char *show = *v ? v : "(none)";
        if (off + strlen(show) + 8 >= len) {
            snprintf(buf + off, len - off, "%s...", off ? ", " : "");
            break;
        }
        off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", show);
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        sqlite3_finalize(st);
        return store_db_error(s->db, err, "listing stored values");
    }
    sqlite3_finalize(st);
    if (!buf[0])
        snprintf(buf, len, "nothing");
    return 0;
}

/* 1 when `sql` with ?1 bound to text (or to the double d when text is NULL) has a row. */
static int exists(store *s, const char *sql, const char *text, double d, int *found,
                  gms_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return store_db_error(s->db, err, "checking the filter");
    if (text)
        sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_double(st, 1, d);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_db_error(s->db, err, "checking the filter");
    *found = rc == SQLITE_ROW;
    return 0;
}

static int unknown(store *s, const char *what, const char *value, const char *list_sql,
                   const char *option, gms_error *err)
{
    char known[KNOWN_MAX];
    int rc = list_values(s, list_sql, known, sizeof known, err);
    if (rc)
        return rc;
    return gms_error_set(err, GMS_EINVAL, "no %s '%s' in %s; it holds: %s (pick one with %s)",
                         what, value, s->path ? s->path : "the store", known, option);
}

int store_check_filter(store *s, const store_filter *f, gms_error *err)
{
    if (!f)
        return 0;
    int found = 0, rc;
    if (f->trace_name) {
        if ((rc = exists(s,
                         "SELECT 1 FROM traces WHERE name = ?1 OR name GLOB ?1 OR hash = ?1"
                         " OR (length(?1) >= 6 AND hash GLOB ?1 || '*')",
                         f->trace_name, 0, &found, err)))
            return rc;
        if (!found)
            return unknown(s, "trace", f->trace_name,
                           "SELECT DISTINCT name FROM traces ORDER BY name", "--trace", err);
    }
    for (size_t i = 0; i < f->n_policies; i++) {
        if ((rc = exists(s, "SELECT 1 FROM runs WHERE policy = ?1 LIMIT 1", f->policies[i], 0,
                         &found, err)))
            return rc;
        if (!found)
            return unknown(s, "runs of policy", f->policies[i],
                           "SELECT DISTINCT policy FROM runs ORDER BY policy", "--policy", err);
    }
    if (f->remat_limit > 0) {
        if ((rc = exists(s, "SELECT 1 FROM runs WHERE remat_limit = ?1 LIMIT 1", NULL,
                         f->remat_limit, &found, err)))
            return rc;
        if (!found) {
            char v[40];
            snprintf(v, sizeof v, "%g", f->remat_limit);
            return unknown(s, "runs at remat limit", v,
                           "SELECT DISTINCT CAST(remat_limit AS TEXT) FROM runs"
                           " ORDER BY remat_limit",
                           "--remat-limit", err);
        }
    }
    if (f->semantics) {
        if ((rc = exists(s, "SELECT 1 FROM runs WHERE semantics = ?1 LIMIT 1", f->semantics, 0,
                         &found, err)))
            return rc;
        if (!found)
            return unknown(s, "runs with semantics", f->semantics,
                           "SELECT DISTINCT semantics FROM runs ORDER BY semantics",
                           "--semantics", err);
    }
    if (f->allocator) {
        found = strcmp(f->allocator, "ideal") == 0; /* all a store before version 4 holds */
        if (s->version >= 4 &&
            (rc = exists(s, "SELECT 1 FROM runs WHERE allocator = ?1 LIMIT 1", f->allocator, 0,
                         &found, err)))
            return rc;
        if (!found)
            return unknown(s, "runs with allocator", f->allocator,
                           s->version >= 4 ? "SELECT DISTINCT allocator FROM runs ORDER BY 1"
                                           : "SELECT 'ideal'",
                           "--allocator", err);
    }
    if (f->params) {
        if ((rc = exists(s, "SELECT 1 FROM runs WHERE params = ?1 OR params GLOB ?1 LIMIT 1",
                         f->params, 0, &found, err)))
            return rc;
        if (!found)
            return unknown(s, "runs with parameters", f->params,
                           "SELECT DISTINCT params FROM runs ORDER BY params", "--where params=",
                           err);
    }
    if (f->status) {
        if ((rc = exists(s, "SELECT 1 FROM runs WHERE status = ?1 LIMIT 1", f->status, 0, &found,
                         err)))
            return rc;
        if (!found)
            return unknown(s, "runs with status", f->status,
                           "SELECT DISTINCT status FROM runs ORDER BY status", "--where status=",
                           err);
    }
    return 0;
}
