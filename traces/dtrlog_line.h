/*
 * dtrlog_line: one DTR log line parsed into a flat record (private to dtrlog_reader.c and
 * its tests).
 *
 * DTR log lines are flat JSON objects whose values are strings or lists of strings/integers.
 * A fast parser handles exactly that subset for plain ASCII lines without escapes (all real
 * logs); any line it does not fully understand (escapes, non-ASCII, other value types, a
 * syntax error, duplicate keys) goes through jansson instead, which decides whether it is
 * valid JSON and gives the error message. Both paths produce the same record, so the fast
 * path changes speed only.
 */
#ifndef DTRLOG_LINE_H
#define DTRLOG_LINE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define DL_MAX_FIELDS 16

typedef enum dl_type { DL_STRING = 1, DL_ARRAY = 2, DL_OTHER = 3 } dl_type;
typedef enum dl_item_kind { DL_ITEM_STRING = 1, DL_ITEM_INT = 2, DL_ITEM_OTHER = 3 } dl_item_kind;

typedef struct dl_item {
    dl_item_kind kind;
    const char *s; /* DL_ITEM_STRING: NUL-terminated */
    size_t len;
    int64_t i;     /* DL_ITEM_INT */
} dl_item;

typedef struct dl_field {
    const char *key; /* NUL-terminated */
    size_t key_len;
    dl_type type;
    const char *s;   /* DL_STRING: NUL-terminated value */
    size_t len;
    size_t first, n; /* DL_ARRAY: items[first .. first+n) of the record */
} dl_field;

typedef struct dl_record {
    dl_field fields[DL_MAX_FIELDS];
    size_t n_fields;
    dl_item *items;
    size_t n_items, cap_items;
    json_t *json; /* slow path: owns the strings */
} dl_record;

void dl_record_init(dl_record *rec);
/* Releases what the record owns (keeps its item array for reuse until dl_record_free). */
void dl_record_clear(dl_record *rec);
void dl_record_free(dl_record *rec);

/* Parses line[0..len) (no newline) into rec, replacing its previous content. The line buffer
 * must stay alive (and unmodified) while rec is used: the fast path NUL-terminates strings in
 * place. fast = 0 forces jansson (tests compare both paths). Returns 0; -1 with what filled
 * for a line that is not a JSON object ("not valid JSON: ... (column N)"); -2 when out of
 * memory. */
int dl_parse(dl_record *rec, char *line, size_t len, int fast, char *what, size_t what_len);

/* The field named key, or NULL. */
const dl_field *dl_get(const dl_record *rec, const char *key);

#endif
