/* store_hash_file: the content hash that identifies a trace in the store (see store.h). */
#include "store.h"

#include <errno.h>
#include <string.h>

#define FNV64_PRIME 0x100000001b3ULL

uint64_t store_fnv1a(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *b = bytes;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= FNV64_PRIME;
    }
    return h;
}

/* 64-bit FNV-1a over the whole file: tiny, dependency-free and plenty to tell traces apart
 * (the store never trusts it for security, only to notice the same bytes twice). */
int store_hash_file(const char *path, char hex[17], gms_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return gms_error_set(err, GMS_EIO, "%s: cannot open: %s", path, strerror(errno));
    uint64_t h = STORE_FNV_OFFSET;
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        h = store_fnv1a(h, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return gms_error_set(err, GMS_EIO, "%s: read error", path);
    snprintf(hex, 17, "%016llx", (unsigned long long)h);
    return 0;
}
