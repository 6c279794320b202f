/* .gmt on the DTR paper's logs: every event of every shared log survives log -> .gmt -> events
 * unchanged, and the .gmt stays under the format's size goal of 3 bytes per event. */
#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_run.h"
#include "dtrlog.h"
#include "gmt.h"
#include "test_dtrlog_util.h"
#include "test_gmt_gen.h"

START_TEST(test_every_shared_log_round_trips_under_3_bytes_per_event)
{
    size_t logs;
    char **log = tu_dtr_logs(&logs);
    for (size_t i = 0; i < logs; i++) {
        const char *path = log[i];
        tg_list l = {0};
        dtrlog_reader *r;
        gms_error err;
        ck_assert_msg(dtrlog_reader_open(path, &r, &err) == 0, "%s", err.msg);
        gmt_event ev;
        int rc;
        while ((rc = dtrlog_reader_next(r, &ev, &err)) > 0)
            tg_push(&l, &ev);
        ck_assert_msg(rc == 0, "%s", err.msg);
        dtrlog_reader_close(r);
        ck_assert_uint_gt(l.n, 1000);

        char *out = tg_path("log.gmt");
        ck_assert_msg(tg_write(out, &l, 0, NULL, &err) == 0, "%s", err.msg);
        tg_result res;
        tg_read(out, &l, &res);
        ck_assert_msg(res.open_rc == 0 && res.rc == 0, "%s: %s", path, res.err.msg);
        ck_assert_msg(res.prefix_ok, "%s: %s", path, res.why);
        ck_assert_uint_eq(res.n, l.n);
        struct stat st;
        ck_assert_int_eq(stat(out, &st), 0);
        double per = (double)st.st_size / (double)l.n;
        ck_assert_msg(per <= 3.0, "%s: %.3f bytes per event (goal: <= 3)", path, per);
        remove(out);
        free(out);
        tg_free(&l);
    }
    ck_assert_uint_ge(logs, 5);
    tu_free_list(log, logs);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gmt_dtrlogs");
    TCase *tc = tcase_create("dtrlogs");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_every_shared_log_round_trips_under_3_bytes_per_event);
    suite_add_tcase(s, tc);
    return gms_check_run(s);
}
