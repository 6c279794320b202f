/*
 * import_et_scan: walks the top level of an Execution Trace's JSON text without building the
 * whole document (a 13 MB ET is ~180 MB as a jansson tree): it finds the "schema" string and
 * hands out each element of "nodes" as a span of text, which import_et.c parses one at a
 * time. It checks the structure it walks (brackets, strings, commas); jansson checks each
 * node's text, so the only text not validated is that of top-level values other than
 * "schema" and "nodes".
 */
#ifndef IMPORT_ET_SCAN_H
#define IMPORT_ET_SCAN_H

#include <stddef.h>

#include "gms_error.h"

typedef struct et_scan {
    const char *buf, *end, *name;
    const char *nodes;        /* just after the '[' of "nodes", or NULL when there is none */
    int nodes_not_array;      /* "nodes" is there but not an array */
    const char *p;            /* the node cursor */
    int have_schema;          /* a "schema" string was found (copied into schema) */
    char schema[64];
    long long pid;            /* the recording process ("pid"), -1 when not given */
} et_scan;

/* Scans the top-level object. Errors: not JSON (with line and column), not an object. */
int et_scan_top(et_scan *s, const char *buf, size_t len, const char *name, gms_error *err);
/* The next element of "nodes": 1 and its span, 0 after the last, < 0 on an error. */
int et_scan_node(et_scan *s, const char **elem, size_t *len, gms_error *err);
/* "line L column C" of position p, for messages. */
void et_scan_where(const et_scan *s, const char *p, char *out, size_t n);

#endif
