/* Private to analysis/store*.c: the store handle and small SQLite helpers. */
#ifndef STORE_INTERNAL_H
#define STORE_INTERNAL_H

#include <sqlite3.h>

#include "store.h"

struct store {
    sqlite3 *db;
    int version;  /* schema version of the file */
    int readonly;
    char *path;
    sqlite3_stmt *put_run;   /* prepared lazily, finalized by store_close */
    sqlite3_stmt *has_run;
    sqlite3_stmt *put_timeline;
    sqlite3_stmt *put_iteration;
};

/* Fills err with "what: sqlite message" and returns GMS_EDB. */
int store_db_error(sqlite3 *db, gms_error *err, const char *what);

/* Runs SQL that returns no rows; on failure fills err (prefixed with what). */
int store_exec(sqlite3 *db, const char *sql, const char *what, gms_error *err);

/* Checks that path holds a SQLite database (or is empty/missing): 0, or GMS_EFORMAT with a
 * message. Reads only the 16-byte header, so it never modifies anything. */
int store_check_header(const char *path, gms_error *err);

/* Applies the schema migration from version from to from + 1 (store.c's table). */
int store_migrate_step(sqlite3 *db, int from, gms_error *err);

/* Checks that db, a store at schema version (1..current), has every table and column a
 * fresh store of that version has (extra ones are fine): 0, or GMS_EFORMAT naming the first
 * missing one. Reads only (store_check.c). */
int store_check_schema(sqlite3 *db, const char *path, int version, gms_error *err);

/* The merge's conflict checks (store_merge_conflict.c), on the output db with the input
 * attached as src: origin_init once, origin_note(i) after copying input i, and conflicts
 * before copying the runs of inputs[input] (refuse: an error naming the first; last/newer:
 * the output's conflicting runs deleted, *resolved += their number). */
int store_merge_origin_init(sqlite3 *db, gms_error *err);
int store_merge_origin_note(sqlite3 *db, size_t input, gms_error *err);
int store_merge_conflicts(sqlite3 *db, int version, const char *const *inputs, size_t input,
                          store_merge_prefer prefer, size_t *resolved, gms_error *err);

#endif
