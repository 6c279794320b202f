/* pickle_doc: reading a document the pickle reader built (pickle.h). */
#include <string.h>

#include "pickle.h"
#include "pickle_doc.h"

pk_ref pk_root(const pk_doc *d)
{
    return d->root;
}

pk_type pk_type_of(const pk_doc *d, pk_ref r)
{
    return r < d->nn ? (pk_type)d->n[r].type : PK_NONE;
}

const char *pk_type_name(pk_type t)
{
    static const char *const names[] = {"None", "bool",  "int",  "int", "float",
                                        "str",  "bytes", "list", "tuple", "dict"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

int pk_int(const pk_doc *d, pk_ref r, int64_t *v)
{
    if (r >= d->nn || (d->n[r].type != PK_INT && d->n[r].type != PK_BOOL))
        return -1;
    *v = (int64_t)d->n[r].v;
    return 0;
}

int pk_float(const pk_doc *d, pk_ref r, double *v)
{
    if (r >= d->nn)
        return -1;
    if (d->n[r].type == PK_FLOAT) {
        memcpy(v, &d->n[r].v, sizeof *v);
        return 0;
    }
    int64_t i;
    if (pk_int(d, r, &i))
        return -1;
    *v = (double)i;
    return 0;
}

const char *pk_str(const pk_doc *d, pk_ref r, size_t *len)
{
    if (r >= d->nn || (d->n[r].type != PK_STR && d->n[r].type != PK_BYTES &&
                       d->n[r].type != PK_BIGINT))
        return NULL;
    if (len)
        *len = d->n[r].len;
    return d->s + d->n[r].v;
}

size_t pk_len(const pk_doc *d, pk_ref r)
{
    if (r >= d->nn)
        return 0;
    int t = d->n[r].type;
    return t == PK_LIST || t == PK_TUPLE || t == PK_DICT ? d->n[r].len : 0;
}

pk_ref pk_item(const pk_doc *d, pk_ref r, size_t i)
{
    if (r >= d->nn || (d->n[r].type != PK_LIST && d->n[r].type != PK_TUPLE) || i >= d->n[r].len)
        return PK_NULL;
    return d->items[d->n[r].v + i];
}

pk_ref pk_key(const pk_doc *d, pk_ref r, size_t i)
{
    if (r >= d->nn || d->n[r].type != PK_DICT || i >= d->n[r].len)
        return PK_NULL;
    return d->items[d->n[r].v + 2 * i];
}

pk_ref pk_value(const pk_doc *d, pk_ref r, size_t i)
{
    if (r >= d->nn || d->n[r].type != PK_DICT || i >= d->n[r].len)
        return PK_NULL;
    return d->items[d->n[r].v + 2 * i + 1];
}

pk_ref pk_get(const pk_doc *d, pk_ref r, const char *key)
{
    size_t n = pk_len(d, r);
    if (r >= d->nn || d->n[r].type != PK_DICT)
        return PK_NULL;
    size_t kl = strlen(key);
    for (size_t i = n; i-- > 0;) {
        pk_ref k = d->items[d->n[r].v + 2 * i];
        if (d->n[k].type == PK_STR && d->n[k].len == kl && memcmp(d->s + d->n[k].v, key, kl) == 0)
            return d->items[d->n[r].v + 2 * i + 1];
    }
    return PK_NULL;
}

size_t pk_memory(const pk_doc *d)
{
    return sizeof *d + d->capn * sizeof *d->n + d->capi * sizeof *d->items + d->caps;
}
