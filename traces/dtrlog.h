/*
 * dtrlog: the DTR JSON log format (the logs of the DTR paper's instrumented PyTorch), read as
 * and written from gmt events. ../shared/spec/dtr-semantics.md section 1 defines the lines.
 *
 * One JSON object per line, keys sorted, no spaces:
 *   {"INSTRUCTION":"CONSTANT","NAME":n}              then {"INSTRUCTION":"MEMORY","MEMORY":m,"NAME":n}
 *   {"ARGS":[..],"INSTRUCTION":"CALL","NAME":op,"RESULT":[..],"TIME":t}
 *                                                    then per result r, in order:
 *                                                    {"INSTRUCTION":"MEMORY","MEMORY":m,"NAME":r}
 *                                                    {"ALIAS":a,"INSTRUCTION":"ALIAS","NAME":r}
 *   {"ARGS":[..],"INSTRUCTION":"MUTATE","MUTATE":[i,..],"NAME":op,"TIME":t}
 *   {"DST":d,"INSTRUCTION":"COPY","SRC":s}           (also "COPY_FROM")
 *   {"INSTRUCTION":"RELEASE","NAME":n}
 *   {"ANNOTATION":text,"INSTRUCTION":"ANNOTATE"}     (+ optional "VALUE":v, a gpumemsim
 *                                                     extension for gmt annotations with a value)
 * TIME, MEMORY, ALIAS and VALUE are decimal integers written as JSON strings ("920906"); MUTATE
 * holds JSON integers (indices into ARGS). ALIAS is -1 (own storage) or an index into ARGS.
 *
 * Mapping onto gmt events (one event per CONSTANT/CALL record, one per other line):
 *   - a tensor named "x<digits>" (canonical decimal, value < DTRLOG_FRESH_ID_BASE) has id =
 *     digits; any other name gets a fresh id >= DTRLOG_FRESH_ID_BASE (the same id at every
 *     later use) and a GMT_NAME event (id, name) just before the event that first uses it;
 *   - CALL outputs keep the MEMORY value as size even for views, alias_of = ALIAS;
 *   - ANNOTATE text = ANNOTATION, has_value/value = VALUE.
 * Exporting reverses this exactly: a log read and written back is byte-identical when it was
 * written in this canonical form (all the DTR paper's logs are).
 *
 * Errors name the line: "FILE:LINE: what is wrong" with code GMS_EFORMAT (GMS_EIO for read
 * failures). The reader streams line by line; its memory is the largest line plus the table
 * of non-"x<digits>" names.
 */
#ifndef DTRLOG_H
#define DTRLOG_H

#include <stdint.h>
#include <stdio.h>

#include "gmt.h"

/* Ids from here up are handed to names that are not "x<digits>" with a smaller value. */
#define DTRLOG_FRESH_ID_BASE (UINT64_C(1) << 62)

/* Longest line the reader accepts (bytes); longer lines are a format error. */
#define DTRLOG_MAX_LINE ((size_t)64 << 20)

/* ------------------------------------------------------------------------------------------
 * Reader: produces gmt events exactly like gmt_reader_next.
 */
typedef struct dtrlog_reader dtrlog_reader;

int dtrlog_reader_open(const char *path, dtrlog_reader **out, gms_error *err);
/* Reads from an already open stream (a pipe, fmemopen buffer...); name is used in messages.
 * When owns is non-zero, dtrlog_reader_close closes f. */
int dtrlog_reader_open_stream(FILE *f, const char *name, int owns, dtrlog_reader **out,
                              gms_error *err);
/* Reads the next event into *ev. Returns 1 when an event was read, 0 at the end of the log and
 * a negative value on error (err: "FILE:LINE: what is wrong"). Pointers inside *ev stay valid
 * until the next call or dtrlog_reader_close. After an error every later call fails too. */
int dtrlog_reader_next(dtrlog_reader *r, gmt_event *ev, gms_error *err);
uint64_t dtrlog_reader_events_read(const dtrlog_reader *r);
/* Lines consumed so far (the number of the last line read). */
uint64_t dtrlog_reader_line(const dtrlog_reader *r);
/* Test hook: fast = 0 parses every line with jansson instead of the fast parser for the
 * canonical form (same results, slower). Default 1. */
void dtrlog_reader_set_fast(dtrlog_reader *r, int fast);
void dtrlog_reader_close(dtrlog_reader *r);

/* ------------------------------------------------------------------------------------------
 * Writer: writes events as log lines to PATH.tmp.<pid> and renames it onto PATH in
 * dtrlog_writer_close, so a failed or aborted write never leaves a partial PATH behind.
 * NAME events set the text written for an id (default "x<id>"); a NAME may not reuse another
 * id's name, and may not be "x<digits>" for another id. A NAME that comes after the id was
 * already written is ignored (the id keeps "x<id>", so the log names each tensor one way) and
 * counted in dtrlog_writer_late_names.
 */
typedef struct dtrlog_writer dtrlog_writer;

int dtrlog_writer_open(const char *path, dtrlog_writer **out, gms_error *err);
/* Writes one event (a CALL becomes its CALL line plus MEMORY/ALIAS lines). Errors:
 * GMS_EINVAL for an event that cannot be written (message names the event number), GMS_EIO. */
int dtrlog_writer_write(dtrlog_writer *w, const gmt_event *ev, gms_error *err);
uint64_t dtrlog_writer_events_written(const dtrlog_writer *w);
/* NAME events ignored because their id had already been written under "x<id>". */
uint64_t dtrlog_writer_late_names(const dtrlog_writer *w);
/* SCOPE events dropped: DTR logs have no layer scopes (the ops are written all the same). */
uint64_t dtrlog_writer_dropped_scopes(const dtrlog_writer *w);
/* Flushes, closes and atomically renames into place. Frees w even on failure (the temporary
 * file is then removed). */
int dtrlog_writer_close(dtrlog_writer *w, gms_error *err);
/* Discards everything written so far (removes the temporary file) and frees w. */
void dtrlog_writer_abort(dtrlog_writer *w);

/* ------------------------------------------------------------------------------------------
 * Helpers shared by the reader and writer.
 */
/* 1 when name is "x<digits>" in canonical decimal (no sign, no leading zero) with a value
 * below DTRLOG_FRESH_ID_BASE; *id then receives the value. */
int dtrlog_name_to_id(const char *name, size_t len, uint64_t *id);

#endif
