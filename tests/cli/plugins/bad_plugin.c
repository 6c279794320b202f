/* Broken policy plugins for the tests, one per BAD_* macro: a wrong ABI version, a name taken
 * by a built-in, a policy with neither score nor choose, no entry function at all, a score
 * that turns NaN, a score that crashes, a score that never returns. */
#include <math.h>
#include <stddef.h>

#include "policy.h"

#ifndef BAD_NO_SCORE
static double score(const sim_view *v, uint32_t s, void *state)
{
    (void)state;
#ifdef BAD_NAN
    if (sim_view_clock(v) > 1000) /* fine at first, then NaN */
        return NAN;
#endif
#ifdef BAD_SEGV
    if (sim_view_clock(v) > 1000) { /* fine at first, then a null dereference */
        volatile int *volatile p = NULL;
        *p = 1;
    }
#endif
#ifdef BAD_HANG
    if (sim_view_clock(v) > 1000) /* fine at first, then it loops, as a buggy plugin may */
        for (volatile unsigned long spin = 0;; spin++)
            ;
#endif
    return (double)sim_view_size(v, s);
}
#endif

static const sim_policy policy = {
#ifdef BAD_NAME
    .name = "dtr",
#else
    .name = "test-bad",
#endif
    .description = "a broken test plugin",
#ifndef BAD_NO_SCORE
    .score = score,
#endif
};

#ifdef BAD_NO_ENTRY
const sim_policy *not_the_entry(unsigned *abi_version);
const sim_policy *not_the_entry(unsigned *abi_version)
#else
const sim_policy *gpumemsim_policy(unsigned *abi_version)
#endif
{
#ifdef BAD_ABI
    *abi_version = SIM_POLICY_ABI_VERSION + 1;
#else
    *abi_version = SIM_POLICY_ABI_VERSION;
#endif
    return &policy;
}
