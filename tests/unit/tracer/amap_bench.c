/* amap_bench: the tracer's live-allocation map (trc_amap.c) against the flat sorted array it
 * replaced (review D15), side by side: with N live allocations, the time of one allocation +
 * free pair at a random place and of one pointer lookup.
 * usage: amap_bench [N...]   (default 300 3000 30000) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trc_amap.h"

/* ---- the old algorithm (trc_callback.c before): one sorted array, memmove on every change */
typedef struct flat {
    trc_amap_range *e;
    size_t n, cap;
} flat;

static size_t flat_lower(const flat *f, uint64_t a)
{
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->e[mid].base < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void flat_insert(flat *f, uint64_t base, uint64_t size)
{
    size_t i = flat_lower(f, base);
    if (i < f->n && f->e[i].base == base)
        return;
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 1024;
        f->e = realloc(f->e, f->cap * sizeof *f->e);
        if (!f->e)
            exit(1);
    }
    memmove(f->e + i + 1, f->e + i, (f->n - i) * sizeof *f->e);
    f->e[i] = (trc_amap_range){base, size, 0};
    f->n++;
}

static void flat_remove(flat *f, uint64_t base)
{
    size_t i = flat_lower(f, base);
    if (i < f->n && f->e[i].base == base) {
        memmove(f->e + i, f->e + i + 1, (f->n - i - 1) * sizeof *f->e);
        f->n--;
    }
}

static int flat_hit(const flat *f, uint64_t v)
{
    size_t i = flat_lower(f, v);
    if (i < f->n && f->e[i].base == v)
        return 1;
    return i > 0 && v - f->e[i - 1].base < f->e[i - 1].size;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    size_t sizes_default[] = {300, 3000, 30000};
    size_t n_sizes = argc > 1 ? (size_t)(argc - 1) : 3;
    printf("| live allocations | alloc+free, flat array (ns) | alloc+free, trc_amap (ns) | ratio "
           "| lookup, flat (ns) | lookup, trc_amap (ns) |\n|---|---|---|---|---|---|\n");
    for (size_t s = 0; s < n_sizes; s++) {
        size_t n = argc > 1 ? (size_t)strtoull(argv[s + 1], NULL, 10) : sizes_default[s];
        if (n == 0 || n > 10000000) {
            fprintf(stderr, "amap_bench: N must be 1..10000000\n");
            return 2;
        }
        flat f = {0};
        trc_amap m = {0};
        /* n live allocations spread over a 1 TiB range, 4 KiB apart at least */
        for (size_t i = 0; i < n; i++) {
            uint64_t b = 0x7f0000000000ull + (next() % (1ull << 28)) * 4096;
            flat_insert(&f, b, 4096);
            if (trc_amap_insert(&m, b, 4096, 0) < 0)
                return 1;
        }
        const size_t ops = 200000;
        uint64_t *addr = malloc(ops * sizeof *addr);
        if (!addr)
            return 1;
        for (size_t i = 0; i < ops; i++)
            addr[i] = 0x7f0000000000ull + (next() % (1ull << 28)) * 4096 + 8;
        double t0 = now_s();
        for (size_t i = 0; i < ops; i++) {
            flat_insert(&f, addr[i], 16);
            flat_remove(&f, addr[i]);
        }
        double t1 = now_s();
        for (size_t i = 0; i < ops; i++) {
            trc_amap_insert(&m, addr[i], 16, 0);
            trc_amap_remove(&m, addr[i], NULL);
        }
        double t2 = now_s();
        volatile int hits = 0;
        for (size_t i = 0; i < ops; i++)
            hits += flat_hit(&f, addr[i] - 8);
        double t3 = now_s();
        for (size_t i = 0; i < ops; i++)
            hits -= trc_amap_hit(&m, addr[i] - 8);
        double t4 = now_s();
        if (hits != 0) {
            fprintf(stderr, "amap_bench: the two maps disagree\n");
            return 1;
        }
        double a = (t1 - t0) / ops * 1e9, b = (t2 - t1) / ops * 1e9;
        printf("| %zu | %.1f | %.1f | %.1fx | %.1f | %.1f |\n", n, a, b, a / b,
               (t3 - t2) / ops * 1e9, (t4 - t3) / ops * 1e9);
        free(addr);
        free(f.e);
        trc_amap_free(&m);
    }
    return 0;
}
