/* libFuzzer: arbitrary bytes as a pickle (pk_parse), then every node of what it accepted is
 * visited through the accessors, and the document goes through the snapshot importer
 * (snap_from_doc) and the reconstruction of each device's initial state: the reader must
 * never crash, loop or run anything, what it accepts must be a well-formed graph (every ref
 * in range), and the importer must refuse or accept any such graph cleanly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pickle.h"
#include "snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touches every node reachable from r; depth-bounded (a memo cycle is possible: a list
 * appended to itself). */
static size_t budget;

static void visit(const pk_doc *d, pk_ref r, int depth)
{
    if (r == PK_NULL)
        abort(); /* an accepted document never holds a dangling ref */
    if (depth > 64 || budget == 0)
        return;
    budget--;
    int64_t i;
    double f;
    size_t n;
    switch (pk_type_of(d, r)) {
    case PK_LIST:
    case PK_TUPLE:
        for (size_t k = 0; k < pk_len(d, r) && k < 256; k++)
            visit(d, pk_item(d, r, k), depth + 1);
        break;
    case PK_DICT:
        for (size_t k = 0; k < pk_len(d, r) && k < 256; k++) {
            visit(d, pk_key(d, r, k), depth + 1);
            visit(d, pk_value(d, r, k), depth + 1);
        }
        (void)pk_get(d, r, "segments");
        break;
    case PK_STR:
    case PK_BYTES:
    case PK_BIGINT: {
        const char *s = pk_str(d, r, &n);
        if (!s || s[n] != 0)
            abort();
        break;
    }
    default:
        (void)pk_int(d, r, &i);
        (void)pk_float(d, r, &f);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pk_doc *d;
    gms_error err;
    if (pk_parse(data, size, "fuzz", &d, &err) != 0) {
        if (!err.msg[0])
            abort(); /* every refusal says why */
        return 0;
    }
    budget = 100000;
    visit(d, pk_root(d), 0);
    snapshot *s;
    if (snap_from_doc(d, "fuzz", &s, &err) != 0) /* takes d */
        return 0;
    for (int dev = 0; dev < s->ndev; dev++) {
        snap_state st;
        if (snap_initial_state(s, dev, &st, &err) == 0)
            snap_state_free(&st);
        char buf[512];
        (void)snap_unmodelled(s, dev, buf, sizeof buf);
    }
    snap_free(s);
    return 0;
}
