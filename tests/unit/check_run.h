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

#endif
