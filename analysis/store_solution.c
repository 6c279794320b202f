/* store_solution: the solver's answers in the store (see store_solution.h). */
#include "store_solution.h"

#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

#ifndef GMS_VERSION
#define GMS_VERSION "unknown"
#endif

static void bind_key(sqlite3_stmt *st, const store_solution_key *k)
{
    sqlite3_bind_text(st, 1, k->trace_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, k->iteration);
    sqlite3_bind_text(st, 3, k->coarsen, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)k->budget);
    sqlite3_bind_text(st, 5, k->mode, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 6, k->time_limit > 0 ? k->time_limit : 0);
}

int store_put_solution(store *s, const store_solution *sol, gms_error *err)
{
    if (s->version < 8)
        return gms_error_set(err, GMS_EVERSION, "%s: schema version %d has no solutions "
                             "table; open it for writing to migrate it", s->path, s->version);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT OR IGNORE INTO solutions (trace_hash, iteration, coarsen,"
                           " budget, mode, time_limit, status, objective, lower_bound, gap,"
                           " solve_s, nodes, schedule, tool_version)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                           -1, &st, NULL) != SQLITE_OK)
        return store_db_error(s->db, err, "storing a solution");
    bind_key(st, &sol->key);
    sqlite3_bind_text(st, 7, sol->status, -1, SQLITE_STATIC);
    if (sol->schedule) {
        sqlite3_bind_double(st, 8, sol->objective);
        if (sol->gap >= 0) /* < 0: no bound was known (the time limit stopped the LP) */
            sqlite3_bind_double(st, 10, sol->gap);
        sqlite3_bind_blob64(st, 13, sol->schedule, sol->schedule_len, SQLITE_STATIC);
    }
    if (sol->lower_bound >= 0)
        sqlite3_bind_double(st, 9, sol->lower_bound);
    sqlite3_bind_double(st, 11, sol->solve_s);
    sqlite3_bind_int64(st, 12, sol->nodes);
    sqlite3_bind_text(st, 14, GMS_VERSION, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_db_error(s->db, err, "storing a solution");
    return 0;
}

int store_get_solution(store *s, const store_solution_key *k, store_solution *out, int *found,
                       gms_error *err)
{
    *found = 0;
    if (s->version < 8)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT status, objective, lower_bound, gap, solve_s, nodes, schedule"
                           " FROM solutions WHERE trace_hash = ?1 AND iteration = ?2"
                           " AND coarsen = ?3 AND budget = ?4 AND mode = ?5 AND time_limit = ?6",
                           -1, &st, NULL) != SQLITE_OK)
        return store_db_error(s->db, err, "looking up a solution");
    bind_key(st, k);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(st);
        return 0;
    }
    if (rc != SQLITE_ROW) {
        rc = store_db_error(s->db, err, "looking up a solution");
        sqlite3_finalize(st);
        return rc;
    }
    const char *status = (const char *)sqlite3_column_text(st, 0);
    char *status_copy = strdup(status ? status : "");
    size_t len = (size_t)sqlite3_column_bytes(st, 6);
    const void *blob = sqlite3_column_blob(st, 6);
    void *copy = blob ? malloc(len ? len : 1) : NULL;
    if (!status_copy || (blob && !copy)) {
        free(status_copy);
        free(copy);
        sqlite3_finalize(st);
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    }
    if (copy)
        memcpy(copy, blob, len);
    out->status = status_copy;
    out->objective = sqlite3_column_double(st, 1);
    out->lower_bound = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 2);
    out->gap = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 3);
    out->solve_s = sqlite3_column_double(st, 4);
    out->nodes = (uint32_t)sqlite3_column_int64(st, 5);
    out->schedule = copy;
    out->schedule_len = copy ? len : 0;
    sqlite3_finalize(st);
    *found = 1;
    return 0;
}

void store_solution_clear(store_solution *sol)
{
    free((void *)sol->status);
    free((void *)sol->schedule);
    sol->status = NULL;
    sol->schedule = NULL;
    sol->schedule_len = 0;
}

int store_count_solutions(store *s, int64_t *n, gms_error *err)
{
    *n = 0;
    if (s->version < 8)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM solutions", -1, &st, NULL) != SQLITE_OK)
        return store_db_error(s->db, err, "counting solutions");
    if (sqlite3_step(st) == SQLITE_ROW)
        *n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return 0;
}
