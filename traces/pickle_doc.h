/*
 * pickle_doc: the document a pickle is read into, shared by the reader (pickle_read.c) and
 * the accessors (pickle_doc.c). Private to traces/: users see pickle.h only.
 */
#ifndef GMS_PICKLE_DOC_H
#define GMS_PICKLE_DOC_H

#include <stddef.h>
#include <stdint.h>

#include "pickle.h"

typedef struct pk_node {
    uint8_t type;
    uint32_t len; /* string bytes; container items (dict: pairs) */
    uint64_t v;   /* int bits, double bits, string offset, container: chunk head<<32 | tail,
                   * after flatten() the first item's index */
} pk_node;

struct pk_doc {
    pk_node *n;
    size_t nn, capn;
    pk_ref *items;
    size_t ni, capi;
    char *s;
    size_t ns, caps;
    pk_ref root;
};

#endif
