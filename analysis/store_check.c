/* store_check: a store's tables and columns against those of its schema version (see
 * store_internal.h).
 *
 * quick_check finds a damaged file, not a damaged schema: a store whose table was dropped or
 * whose column was renamed by hand opened fine and failed later with a raw SQL error, after
 * the write-mode open had already changed its header (issue 31). The reference is the schema
 * a fresh store of the same version gets, built in memory by the same migrations, so this
 * check never lags behind them. */
#include "store_internal.h"

#include <stdio.h>
#include <string.h>

/* 1 when db has column col in table (0 when either is missing), -1 on an error. */
static int has_column(sqlite3 *db, const char *table, const char *col)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

static int has_table(sqlite3 *db, const char *table)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int store_check_schema(sqlite3 *db, const char *path, int version, gms_error *err)
{
    if (version < 1 || version > STORE_SCHEMA_VERSION)
        return 0; /* an empty file (0) is created; newer ones are refused by their version */
    sqlite3 *ref;
    if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        sqlite3_close(ref);
        return gms_error_set(err, GMS_ENOMEM, "out of memory checking %s", path);
    }
    int rc = 0;
    for (int v = 0; v < version && !rc; v++)
        rc = store_migrate_step(ref, v, err);
    sqlite3_stmt *st = NULL;
    if (!rc && sqlite3_prepare_v2(ref,
                                  "SELECT m.name, c.name FROM sqlite_master m, "
                                  "pragma_table_info(m.name) c WHERE m.type = 'table' "
                                  "ORDER BY m.rowid, c.cid",
                                  -1, &st, NULL) != SQLITE_OK)
        rc = store_db_error(ref, err, "building the reference schema");
    while (!rc && sqlite3_step(st) == SQLITE_ROW) {
        const char *table = (const char *)sqlite3_column_text(st, 0);
        const char *col = (const char *)sqlite3_column_text(st, 1);
        int t = has_table(db, table), c = t == 1 ? has_column(db, table, col) : 0;
        if (t < 0 || c < 0)
            rc = gms_error_set(err, GMS_EFORMAT, "%s: cannot read its schema (%s)", path,
                               sqlite3_errmsg(db));
        else if (t == 0)
            rc = gms_error_set(err, GMS_EFORMAT,
                               "%s: a damaged result store: its table '%s' is missing (schema "
                               "version %d has it); it was left unchanged: restore it from a "
                               "copy, or start a new store",
                               path, table, version);
        else if (c == 0)
            rc = gms_error_set(err, GMS_EFORMAT,
                               "%s: a damaged result store: table '%s' has no column '%s' "
                               "(schema version %d has it); it was left unchanged: restore it "
                               "from a copy, or start a new store",
                               path, table, col, version);
    }
    sqlite3_finalize(st);
    sqlite3_close(ref);
    return rc;
}
