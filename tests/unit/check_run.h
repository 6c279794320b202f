/* Shared by the Check unit tests: the end of every main. */
#ifndef GMS_CHECK_RUN_H
#define GMS_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

/* Runs every test of s (CK_NORMAL output) and frees the runner, which owns s: EXIT_SUCCESS
 * when none failed, for ctest. */
static inline int gms_check_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The rounds a randomized test runs: all `plain` of them in the plain build; in a sanitizer
 * build (GMS_SANITIZE: ASan's allocator under the solver, or the checks, make a round many
 * times slower) the first `sanitized` of the same sequence, chosen to reach every case the
 * test cycles through (each graph size, each chain length). CI runs both builds, so every
 * round still runs, and the sanitizers watch the same code on a prefix of the same inputs. */
static inline int gms_test_rounds(int plain, int sanitized)
{
#ifdef GMS_TEST_SANITIZED
    (void)plain;
    return sanitized;
#else
    (void)sanitized;
    return plain;
#endif
}

#endif
