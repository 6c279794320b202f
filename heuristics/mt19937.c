/* mt19937: CPython-compatible Mersenne Twister (see mt19937.h; the reference algorithm of
 * Matsumoto and Nishimura, init_by_array included). */
#include "mt19937.h"

#define M 397
#define MATRIX_A 0x9908b0dfu
#define UPPER 0x80000000u
#define LOWER 0x7fffffffu

static void init_genrand(pol_mt *m, uint32_t s)
{
    m->mt[0] = s;
    for (int i = 1; i < POL_MT_N; i++)
        m->mt[i] = 1812433253u * (m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) + (uint32_t)i;
    m->mti = POL_MT_N;
}

static void init_by_array(pol_mt *m, const uint32_t *key, int len)
{
    uint32_t *mt = m->mt;
    init_genrand(m, 19650218u);
    int i = 1, j = 0;
    for (int k = POL_MT_N > len ? POL_MT_N : len; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= POL_MT_N) {
            mt[0] = mt[POL_MT_N - 1];
            i = 1;
        }
        if (j >= len)
            j = 0;
    }
    for (int k = POL_MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= POL_MT_N) {
            mt[0] = mt[POL_MT_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000u;
}

void pol_mt_seed(pol_mt *m, uint64_t k)
{
    uint32_t key[2] = {(uint32_t)k, (uint32_t)(k >> 32)};
    init_by_array(m, key, key[1] ? 2 : 1);
}

uint32_t pol_mt_next(pol_mt *m)
{
    uint32_t *mt = m->mt;
    if (m->mti >= POL_MT_N) {
        int kk;
        uint32_t y;
        for (kk = 0; kk < POL_MT_N - M; kk++) {
            y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER);
            mt[kk] = mt[kk + M] ^ (y >> 1) ^ ((y & 1u) ? MATRIX_A : 0u);
        }
        for (; kk < POL_MT_N - 1; kk++) {
            y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER);
            mt[kk] = mt[kk + (M - POL_MT_N)] ^ (y >> 1) ^ ((y & 1u) ? MATRIX_A : 0u);
        }
        y = (mt[POL_MT_N - 1] & UPPER) | (mt[0] & LOWER);
        mt[POL_MT_N - 1] = mt[M - 1] ^ (y >> 1) ^ ((y & 1u) ? MATRIX_A : 0u);
        m->mti = 0;
    }
    uint32_t y = mt[m->mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

uint32_t pol_mt_below(pol_mt *m, uint32_t n)
{
    if (n == 0) /* Python raises; callers never ask */
        return 0;
    int k = 32 - __builtin_clz(n);
    uint32_t r;
    do
        r = pol_mt_next(m) >> (32 - k);
    while (r >= n);
    return r;
}
