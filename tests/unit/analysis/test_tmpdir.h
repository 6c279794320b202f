/*
 * A fresh temporary folder per test (Check fixture) for the analysis unit tests: setup makes
 * TMPDIR/PREFIX-XXXXXX, teardown removes it with everything inside, path_in names a file in it.
 */
#ifndef TEST_TMPDIR_H
#define TEST_TMPDIR_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

static char tmp_dir[256];

static inline void tmpdir_make(const char *prefix)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(tmp_dir, sizeof tmp_dir, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
}

static inline void tmpdir_remove(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* TMP_DIR/name; the 16 most recent results stay valid. */
static inline const char *path_in(const char *name)
{
    static char buf[16][300];
    static int k;
    char *p = buf[k++ % 16];
    snprintf(p, 300, "%s/%s", tmp_dir, name);
    return p;
}

#endif
