/* store_solution: the solver's answers in the store (see store_solution.h). */
#include "store_solution.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

#ifndef GMS_VERSION
#define GMS_VERSION "unknown"
#endif

const char *store_solution_search(const store_solution_key *k)
{
    return k->search && *k->search ? k->search : "none";
}

/* The key as ?1 .. ?6, and the search as ?20 where the statement has it (version 12) */
static void bind_key(sqlite3_stmt *st, const store_solution_key *k)
{
    sqlite3_bind_text(st, 1, k->trace_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, k->iteration);
    sqlite3_bind_text(st, 3, k->coarsen, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)k->budget);
    sqlite3_bind_text(st, 5, k->mode, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 6, k->time_limit > 0 ? k->time_limit : 0);
    if (sqlite3_bind_parameter_index(st, "?20"))
        sqlite3_bind_text(st, 20, store_solution_search(k), -1, SQLITE_STATIC);
}

/* A store before version 12 holds answers found without the window search only. */
static int searchable(const store *s, const store_solution_key *k)
{
    return s->version >= 12 || strcmp(store_solution_search(k), "none") == 0;
}

int store_put_solution(store *s, const store_solution *sol, gms_error *err)
{
    if (s->version < 8)
        return gms_error_set(err, GMS_EVERSION, "%s: schema version %d has no solutions "
                             "table; open it for writing to migrate it", s->path, s->version);
    if (!searchable(s, &sol->key))
        return gms_error_set(err, GMS_EVERSION, "%s: schema version %d has no search in its "
                             "solutions' key; open it for writing to migrate it", s->path,
                             s->version);
    /* version 9 added the graph's compute, 10 which bound lower_bound is, 12 the search */
    const char *sql = s->version >= 12
        ? "INSERT OR IGNORE INTO solutions (trace_hash, iteration, coarsen, budget, mode,"
          " time_limit, status, objective, lower_bound, gap, solve_s, nodes, schedule,"
          " tool_version, compute, lower_bound_from, answer_from, search)"
          " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
          " ?20)"
        : s->version >= 10
        ? "INSERT OR IGNORE INTO solutions (trace_hash, iteration, coarsen, budget, mode,"
          " time_limit, status, objective, lower_bound, gap, solve_s, nodes, schedule,"
          " tool_version, compute, lower_bound_from)"
          " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"
        : s->version >= 9
        ? "INSERT OR IGNORE INTO solutions (trace_hash, iteration, coarsen, budget, mode,"
          " time_limit, status, objective, lower_bound, gap, solve_s, nodes, schedule,"
          " tool_version, compute)"
          " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
        : "INSERT OR IGNORE INTO solutions (trace_hash, iteration, coarsen, budget, mode,"
          " time_limit, status, objective, lower_bound, gap, solve_s, nodes, schedule,"
          " tool_version)"
          " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
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
    if (s->version >= 9 && sol->compute > 0)
        sqlite3_bind_double(st, 15, sol->compute);
    if (s->version >= 10 && sol->lower_bound >= 0)
        sqlite3_bind_text(st, 16, sol->bound_boundary ? "boundary" : "lp", -1, SQLITE_STATIC);
    if (s->version >= 12 && sol->schedule && sol->answer_from)
        sqlite3_bind_text(st, 17, sol->answer_from, -1, SQLITE_STATIC);
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
    if (s->version < 8 || !searchable(s, k))
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           s->version >= 12
                               ? "SELECT status, objective, lower_bound, gap, solve_s, nodes,"
                                 " schedule, compute, lower_bound_from, answer_from FROM"
                                 " solutions WHERE trace_hash = ?1 AND iteration = ?2"
                                 " AND coarsen = ?3 AND budget = ?4 AND mode = ?5"
                                 " AND time_limit = ?6 AND search = ?20"
                           : s->version >= 10
                               ? "SELECT status, objective, lower_bound, gap, solve_s, nodes,"
                                 " schedule, compute, lower_bound_from, NULL FROM solutions"
                                 " WHERE trace_hash = ?1 AND iteration = ?2 AND coarsen = ?3"
                                 " AND budget = ?4 AND mode = ?5 AND time_limit = ?6"
                           : s->version >= 9
                               ? "SELECT status, objective, lower_bound, gap, solve_s, nodes,"
                                 " schedule, compute, NULL, NULL FROM solutions WHERE"
                                 " trace_hash = ?1"
                                 " AND iteration = ?2 AND coarsen = ?3 AND budget = ?4"
                                 " AND mode = ?5 AND time_limit = ?6"
                               : "SELECT status, objective, lower_bound, gap, solve_s, nodes,"
                                 " schedule, NULL, NULL, NULL FROM solutions WHERE"
                                 " trace_hash = ?1"
                                 " AND iteration = ?2"
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
    const char *answer_from = (const char *)sqlite3_column_text(st, 9);
    char *status_copy = strdup(status ? status : "");
    char *from_copy = answer_from ? strdup(answer_from) : NULL;
    size_t len = (size_t)sqlite3_column_bytes(st, 6);
    const void *blob = sqlite3_column_blob(st, 6);
    void *copy = blob ? malloc(len ? len : 1) : NULL;
    if (!status_copy || (blob && !copy) || (answer_from && !from_copy)) {
        free(status_copy);
        free(from_copy);
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
    out->compute = sqlite3_column_type(st, 7) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 7);
    const char *from = (const char *)sqlite3_column_text(st, 8);
    out->bound_boundary = from && strcmp(from, "boundary") == 0;
    out->answer_from = from_copy;
    out->schedule = copy;
    out->schedule_len = copy ? len : 0;
    sqlite3_finalize(st);
    *found = 1;
    return 0;
}

void store_solution_clear(store_solution *sol)
{
    free((void *)sol->status);
    free((void *)sol->answer_from);
    free((void *)sol->schedule);
    sol->status = NULL;
    sol->answer_from = NULL;
    sol->schedule = NULL;
    sol->schedule_len = 0;
}

int store_solution_fill_compute(store *s, const store_solution_key *k, double compute,
                                gms_error *err)
{
    if (s->version < 9 || !(compute > 0) || !searchable(s, k))
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           s->version >= 12
                               ? "UPDATE solutions SET compute = ?7 WHERE trace_hash = ?1"
                                 " AND iteration = ?2 AND coarsen = ?3 AND budget = ?4"
                                 " AND mode = ?5 AND time_limit = ?6 AND search = ?20"
                                 " AND compute IS NULL"
                               : "UPDATE solutions SET compute = ?7 WHERE trace_hash = ?1"
                                 " AND iteration = ?2 AND coarsen = ?3 AND budget = ?4"
                                 " AND mode = ?5 AND time_limit = ?6 AND compute IS NULL",
                           -1, &st, NULL) != SQLITE_OK)
        return store_db_error(s->db, err, "completing a solution");
    bind_key(st, k);
    sqlite3_bind_double(st, 7, compute);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_db_error(s->db, err, "completing a solution");
}

int store_solutions_at(store *s, const char *trace_hash, uint64_t budget, store_solution_fn fn,
                       void *ctx, gms_error *err)
{
    if (s->version < 8)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           s->version >= 12
                               ? "SELECT iteration, coarsen, time_limit, status, objective,"
                                 " lower_bound, gap, solve_s, nodes, compute, search,"
                                 " answer_from FROM solutions WHERE trace_hash = ?1"
                                 " AND budget = ?2 AND mode = 'exact'"
                                 " ORDER BY coarsen, iteration, time_limit, search"
                           : s->version >= 9
                               ? "SELECT iteration, coarsen, time_limit, status, objective,"
                                 " lower_bound, gap, solve_s, nodes, compute, 'none', NULL"
                                 " FROM solutions"
                                 " WHERE trace_hash = ?1 AND budget = ?2 AND mode = 'exact'"
                                 " ORDER BY coarsen, iteration, time_limit"
                               : "SELECT iteration, coarsen, time_limit, status, objective,"
                                 " lower_bound, gap, solve_s, nodes, NULL, 'none', NULL"
                                 " FROM solutions"
                                 " WHERE trace_hash = ?1 AND budget = ?2 AND mode = 'exact'"
                                 " ORDER BY coarsen, iteration, time_limit",
                           -1, &st, NULL) != SQLITE_OK)
        return store_db_error(s->db, err, "looking up solutions");
    sqlite3_bind_text(st, 1, trace_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)budget);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_solution sol = {0};
        sol.key.trace_hash = trace_hash;
        sol.key.iteration = (uint32_t)sqlite3_column_int64(st, 0);
        sol.key.coarsen = (const char *)sqlite3_column_text(st, 1);
        sol.key.budget = budget;
        sol.key.mode = "exact";
        sol.key.time_limit = sqlite3_column_double(st, 2);
        sol.status = (const char *)sqlite3_column_text(st, 3);
        /* an objective is stored exactly when the solver found a schedule */
        sol.objective = sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN
                                                                   : sqlite3_column_double(st, 4);
        sol.lower_bound = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1
                                                                     : sqlite3_column_double(st, 5);
        sol.gap = sqlite3_column_double(st, 6);
        sol.solve_s = sqlite3_column_double(st, 7);
        sol.nodes = (uint32_t)sqlite3_column_int64(st, 8);
        sol.compute = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 9);
        sol.key.search = (const char *)sqlite3_column_text(st, 10);
        sol.answer_from = (const char *)sqlite3_column_text(st, 11);
        if (fn(ctx, &sol)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : store_db_error(s->db, err, "looking up solutions");
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
