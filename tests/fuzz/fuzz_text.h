/* Shared by the fuzz targets of string parsers (option values, --policy-args, sizes). */
#ifndef FUZZ_TEXT_H
#define FUZZ_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The input as a NUL-terminated string (a NUL inside ends it early, as a C string would),
 * malloc'd: free it. NULL when out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return NULL;
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

#endif
