/*
 * pickle: Python pickles as plain data, read without Python and never executed.
 *
 * PyTorch's memory snapshots (torch.cuda.memory._dump_snapshot) are pickles of dicts, lists,
 * tuples, strings and numbers only. This reader accepts exactly that subset of protocols 2-5:
 * PROTO FRAME STOP MARK POP POP_MARK, EMPTY_DICT/LIST/TUPLE DICT LIST TUPLE TUPLE1-3
 * SETITEM(S) APPEND(S), BININT BININT1 BININT2 LONG1 LONG4, BINFLOAT, NONE NEWTRUE NEWFALSE,
 * (SHORT_)BINUNICODE BINUNICODE8, (SHORT_)BINBYTES BINBYTES8 BYTEARRAY8, MEMOIZE BINPUT
 * LONG_BINPUT BINGET LONG_BINGET. Any other opcode (GLOBAL, REDUCE, BUILD, INST, OBJ, ...: the
 * ones that import or call code) is an error naming the opcode and its byte offset; nothing is
 * ever looked up or run.
 *
 * The document is a graph of nodes addressed by pk_ref; a memoized object fetched again
 * (BINGET) is the same node, so the stacks a snapshot repeats thousands of times are stored
 * once. The input is read in blocks (plain or gzip, through zlib), never whole.
 */
#ifndef GMS_PICKLE_H
#define GMS_PICKLE_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

typedef uint32_t pk_ref;
#define PK_NULL UINT32_MAX

typedef enum pk_type {
    PK_NONE,
    PK_BOOL,
    PK_INT,    /* fits int64 */
    PK_BIGINT, /* does not: its two's complement little-endian bytes (pk_bytes) */
    PK_FLOAT,
    PK_STR,    /* UTF-8 as written, not validated */
    PK_BYTES,
    PK_LIST,
    PK_TUPLE,
    PK_DICT,
} pk_type;

typedef struct pk_doc pk_doc;

/* Reads the pickle in the file at path (plain or gzip-compressed). Errors name the file and
 * the byte offset (in the uncompressed stream). */
int pk_load(const char *path, pk_doc **out, gms_error *err);
/* The same on a buffer in memory (name appears in messages). */
int pk_parse(const void *buf, size_t len, const char *name, pk_doc **out, gms_error *err);
void pk_free(pk_doc *d);

/* 1 when the file at path (plain or gzip) starts with a pickle PROTO 2-5 opcode. */
int pk_sniff(const char *path);

pk_ref pk_root(const pk_doc *d);
pk_type pk_type_of(const pk_doc *d, pk_ref r);
const char *pk_type_name(pk_type t);
/* Scalars. pk_int: 0 and *v for PK_INT and PK_BOOL, -1 otherwise. */
int pk_int(const pk_doc *d, pk_ref r, int64_t *v);
/* PK_FLOAT, PK_INT (converted) */
int pk_float(const pk_doc *d, pk_ref r, double *v);
/* PK_STR, PK_BYTES, PK_BIGINT: the bytes (NUL-terminated) and their length; NULL otherwise. */
const char *pk_str(const pk_doc *d, pk_ref r, size_t *len);
/* Containers: items of a list or tuple, key/value pairs of a dict (0 for scalars). */
size_t pk_len(const pk_doc *d, pk_ref r);
pk_ref pk_item(const pk_doc *d, pk_ref r, size_t i);     /* list/tuple item i */
pk_ref pk_key(const pk_doc *d, pk_ref r, size_t i);      /* dict pair i's key */
pk_ref pk_value(const pk_doc *d, pk_ref r, size_t i);    /* dict pair i's value */
/* The value of the str key `key` of a dict; PK_NULL when absent or r is no dict. The last
 * pair wins, as in Python. */
pk_ref pk_get(const pk_doc *d, pk_ref r, const char *key);
/* Bytes the document holds in memory (for the benchmark's memory figure). */
size_t pk_memory(const pk_doc *d);

/* The writer (pickle_write.c): a protocol-4 stream of exactly the opcodes MemoryViz.js's own
 * unpickler reads (torch/utils/viz/MemoryViz.js), in memoized-string form. */
typedef struct pk_writer pk_writer;
/* Writes to a temporary file beside path, renamed over it by pk_writer_close. */
int pk_writer_open(const char *path, pk_writer **out, gms_error *err);
void pk_w_dict(pk_writer *w);       /* starts a dict: pairs follow, then pk_w_end */
void pk_w_list(pk_writer *w);       /* starts a list: items follow, then pk_w_end */
void pk_w_tuple(pk_writer *w);      /* starts a tuple: items follow, then pk_w_end */
void pk_w_end(pk_writer *w);
void pk_w_int(pk_writer *w, int64_t v);
void pk_w_uint(pk_writer *w, uint64_t v);
void pk_w_float(pk_writer *w, double v);
void pk_w_bool(pk_writer *w, int v);
void pk_w_none(pk_writer *w);
void pk_w_str(pk_writer *w, const char *s); /* repeated strings are written once (memo) */
/* Finishes the stream and renames it into place: 0, or the first error (nothing is left at
 * path then). abandon != 0 removes the temporary file without writing anything. */
int pk_writer_close(pk_writer *w, int abandon, gms_error *err);

#endif
