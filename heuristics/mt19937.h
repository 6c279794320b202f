/*
 * mt19937: the Mersenne Twister exactly as CPython's `random` module uses it, so that the
 * random policy makes the same choices as simrd's RandomStorage under random.seed(k)
 * (spec section 5).
 */
#ifndef POL_MT19937_H
#define POL_MT19937_H

#include <stdint.h>

#define POL_MT_N 624

typedef struct pol_mt {
    uint32_t mt[POL_MT_N];
    int mti;
} pol_mt;

/* CPython random.seed(k) for an integer k >= 0: init_by_array over the 32-bit words of k,
 * least significant first ([0] for k == 0). */
void pol_mt_seed(pol_mt *m, uint64_t k);
/* genrand_uint32: the next 32 random bits (random.getrandbits(32)). */
uint32_t pol_mt_next(pol_mt *m);
/* random.randrange(0, n) for 0 < n < 2^32: k = bit_length(n), draw getrandbits(k) until < n. */
uint32_t pol_mt_below(pol_mt *m, uint32_t n);

#endif
