#include "test_dtrlog_util.h"

#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dtrlog.h"

void tu_event_text(const gmt_event *ev, char *buf, size_t len)
{
    int n = 0;
#define PUT(...) n += snprintf(buf + n, (size_t)n < len ? len - (size_t)n : 0, __VA_ARGS__)
    switch (ev->kind) {
    case GMT_CONSTANT:
        PUT("CONSTANT %" PRIu64 " %" PRIu64, ev->id, ev->size);
        break;
    case GMT_CALL:
    case GMT_MUTATE:
        PUT("%s %s %" PRIu64 " in=", ev->kind == GMT_CALL ? "CALL" : "MUTATE", ev->op,
            ev->dur_ns);
        for (uint32_t i = 0; i < ev->n_inputs; i++)
            PUT("%s%" PRIu64, i ? "," : "", ev->inputs[i]);
        if (ev->kind == GMT_CALL) {
            PUT(" out=");
            for (uint32_t i = 0; i < ev->n_outputs; i++)
                PUT("%s%" PRIu64 ":%" PRIu64 ":%" PRId32, i ? "," : "", ev->outputs[i].id,
                    ev->outputs[i].size, ev->outputs[i].alias_of);
        } else {
            PUT(" mut=");
            for (uint32_t i = 0; i < ev->n_mutated; i++)
                PUT("%s%" PRIu32, i ? "," : "", ev->mutated[i]);
        }
        break;
    case GMT_COPY:
    case GMT_COPY_FROM:
        PUT("%s %" PRIu64 " %" PRIu64, ev->kind == GMT_COPY ? "COPY" : "COPY_FROM", ev->id,
            ev->src);
        break;
    case GMT_RELEASE:
        PUT("RELEASE %" PRIu64, ev->id);
        break;
    case GMT_ANNOTATE:
        PUT("ANNOTATE %s", ev->text);
        if (ev->has_value)
            PUT(" %" PRId64, ev->value);
        break;
    case GMT_NAME:
        PUT("NAME %" PRIu64 " %s", ev->id, ev->text);
        break;
    default:
        PUT("KIND%d", (int)ev->kind);
    }
#undef PUT
}

/* Reads text with the fast line parser on or off. */
static char *read_log_mode(const char *text, int fast)
{
    char *out = NULL;
    size_t out_len = 0;
    FILE *o = open_memstream(&out, &out_len);
    ck_assert_ptr_nonnull(o);
    /* fmemopen needs a non-empty buffer; an empty log is tested with a real file */
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    dtrlog_reader *r;
    gms_error err;
    gms_error_clear(&err);
    ck_assert_int_eq(dtrlog_reader_open_stream(f, "t.log", 1, &r, &err), 0);
    dtrlog_reader_set_fast(r, fast);
    gmt_event ev;
    int rc;
    char line[4096];
    while ((rc = dtrlog_reader_next(r, &ev, &err)) == 1) {
        tu_event_text(&ev, line, sizeof line);
        fprintf(o, "%s\n", line);
    }
    if (rc < 0) {
        fprintf(o, "ERROR %d %s\n", err.code, err.msg);
        /* an error is sticky */
        ck_assert_int_lt(dtrlog_reader_next(r, &ev, &err), 0);
    }
    dtrlog_reader_close(r);
    fclose(o);
    return out;
}

char *tu_read_log(const char *text)
{
    char *fast = read_log_mode(text, 1), *slow = read_log_mode(text, 0);
    ck_assert_msg(strcmp(fast, slow) == 0, "fast and jansson parsers differ on:\n%s\nfast:\n%s\njansson:\n%s",
                  text, fast, slow);
    free(slow);
    return fast;
}

/* The test process's temporary folder; removed with its files when the process that made it
 * exits (Check runs each test in a forked child, so each child makes and removes its own). */
static char tmp_dir[512];
static pid_t tmp_owner;

static void remove_tmp_dir(void)
{
    if (!tmp_dir[0] || getpid() != tmp_owner)
        return;
    DIR *d = opendir(tmp_dir);
    if (d) {
        char path[1024];
        for (struct dirent *e; (e = readdir(d));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", tmp_dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(tmp_dir);
}

char *tu_tmp_path(const char *name)
{
    if (!tmp_dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(tmp_dir, sizeof tmp_dir, "%s/gms-dtrlog-test-XXXXXX", t && *t ? t : "/tmp");
        ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
        tmp_owner = getpid();
        atexit(remove_tmp_dir);
    }
    const char *dir = tmp_dir;
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

char *tu_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            cap = (n + 65536 + 1) * 2;
            char *b = realloc(buf, cap);
            ck_assert_ptr_nonnull(b);
            buf = b;
        }
        size_t k = fread(buf + n, 1, 65536, f);
        n += k;
        if (k == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int tu_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    ck_assert_int_eq(fclose(f), 0);
    return 0;
}

char *tu_dtr_dir(void)
{
    const char *shared = getenv("GMS_SHARED_DIR");
    ck_assert_msg(shared && *shared, "GMS_SHARED_DIR is not set (run through ctest)");
    size_t n = strlen(shared) + 64;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/traces/dtr-iclr21", shared);
    struct stat st;
    ck_assert_msg(stat(p, &st) == 0 && S_ISDIR(st.st_mode), "missing test data folder %s", p);
    return p;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **tu_dtr_logs(size_t *n)
{
    char *dir = tu_dtr_dir();
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    char **list = NULL;
    size_t cap = 0;
    *n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".log") != 0)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            list = realloc(list, cap * sizeof *list);
            ck_assert_ptr_nonnull(list);
        }
        size_t m = strlen(dir) + len + 2;
        list[*n] = malloc(m);
        ck_assert_ptr_nonnull(list[*n]);
        snprintf(list[(*n)++], m, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    free(dir);
    if (*n)
        qsort(list, *n, sizeof *list, by_name);
    return list;
}

void tu_free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

char *tu_data_path(const char *name)
{
    const char *dir = getenv("GMS_SOURCE_DIR");
    ck_assert_msg(dir != NULL, "GMS_SOURCE_DIR is not set (run the test through ctest)");
    size_t n = strlen(dir) + strlen(name) + 40;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/tests/unit/traces/data/%s", dir, name);
    return p;
}
