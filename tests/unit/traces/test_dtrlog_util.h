/* Helpers shared by the traces unit tests (DTR logs, Execution Traces): run the reader over
 * text and render what it produced as one line per event, so a test can compare against a
 * short expected string; find the test data. */
#ifndef TEST_DTRLOG_UTIL_H
#define TEST_DTRLOG_UTIL_H

#include <stddef.h>

#include "gmt.h"

/* One event as text: "CONSTANT 5 64", "CALL op 9 in=1,2 out=3:64:-1", "NAME 7 foo"... */
void tu_event_text(const gmt_event *ev, char *buf, size_t len);

/* Reads text (as file "t.log") with dtrlog_reader and returns every event's text, one per
 * line; an error adds a last line "ERROR <code> <message>". Reads it twice, with the fast
 * line parser and with jansson only, and asserts both give the same. Caller frees. */
char *tu_read_log(const char *text);

/* Path of a fresh file name in a per-process temporary folder (not created). Caller frees. */
char *tu_tmp_path(const char *name);

/* Whole content of a file, NUL-terminated (*len = bytes); NULL when it cannot be read. */
char *tu_slurp(const char *path, size_t *len);

/* Writes text to path; returns 0. */
int tu_write_file(const char *path, const char *text);

/* $GMS_SHARED_DIR/traces/dtr-iclr21, failing the test loudly when absent. Caller frees. */
char *tu_dtr_dir(void);

/* The DTR paper's logs there (*.log), full paths in name order; *n their count (the test
 * fails when the folder is absent). Free with tu_free_list. */
char **tu_dtr_logs(size_t *n);
void tu_free_list(char **list, size_t n);

/* $GMS_SOURCE_DIR/tests/unit/traces/data/name (the test fails without GMS_SOURCE_DIR).
 * Caller frees. */
char *tu_data_path(const char *name);

#endif
