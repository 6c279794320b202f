/*
 * SQL straight on a store file, for the analysis unit tests that check what the store wrote
 * (or damage it on purpose). Each call opens the file, runs one statement and closes it.
 */
#ifndef TEST_SQL_H
#define TEST_SQL_H

#include <check.h>
#include <sqlite3.h>
#include <stdint.h>

/* The first column of sql's first row: 1 with *i and *d, 0 when it is NULL or there is no
 * row (*row says which). */
static inline int sql_first_(const char *path, const char *sql, int *row, int64_t *i, double *d)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    *row = sqlite3_step(st) == SQLITE_ROW;
    int have = *row && sqlite3_column_type(st, 0) != SQLITE_NULL;
    if (have) {
        *i = sqlite3_column_int64(st, 0);
        *d = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return have;
}

/* sql's one value in *i and *d (NULL reads 0); there must be a row. */
static inline void sql_one_(const char *path, const char *sql, int64_t *i, double *d)
{
    int row;
    *i = 0;
    *d = 0;
    sql_first_(path, sql, &row, i, d);
    ck_assert_msg(row, "no row from: %s", sql);
}

static inline int64_t sql_int(const char *path, const char *sql)
{
    int64_t i;
    double d;
    sql_one_(path, sql, &i, &d);
    return i;
}

static inline double sql_double(const char *path, const char *sql)
{
    int64_t i;
    double d;
    sql_one_(path, sql, &i, &d);
    return d;
}

/* sql's one value in *out: 0, or -1 when it is NULL or there is no row (*out untouched). */
static inline int sql_double_or_null(const char *path, const char *sql, double *out)
{
    int row;
    int64_t i;
    double d;
    if (!sql_first_(path, sql, &row, &i, &d))
        return -1;
    *out = d;
    return 0;
}

/* Runs sql (any number of statements), which must succeed. */
static inline void sql_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

#endif
