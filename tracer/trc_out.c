/* trc_out: the tracer's per-process raw record file (see trc.h and lift_raw.h).
 *
 * Records are encoded into one buffer under a mutex and written with write(2) when it fills and
 * at flush. No stdio: a forked child that calls exit() would flush an inherited FILE buffer into
 * the parent's file; our buffer is simply forgotten in the child (trc_out_forget_after_fork). */
#include "trc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_BUFFER (4u << 20)

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_fd = -1;
static uint8_t *g_buf;
static size_t g_len;
static char g_path[4096];
static int g_write_failed;

/* Writes all of p (retrying short writes); -1 on error. Called with g_lock held. */
static int write_all(const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(g_fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void flush_locked(void)
{
    if (g_fd < 0 || g_len == 0)
        return;
    if (!g_write_failed && write_all(g_buf, g_len) != 0) {
        g_write_failed = 1; /* disk full: keep the job running, stop writing */
        fprintf(stderr, "gpumemsim-tracer: cannot write %s: %s; recording stops here\n", g_path,
                strerror(errno));
    }
    g_len = 0;
}

int trc_out_open(void)
{
    const char *dir = getenv("GMS_TRACE_DIR");
    if (!dir || !*dir)
        dir = ".";
    g_buf = malloc(OUT_BUFFER);
    if (!g_buf)
        return -1;
    pid_t pid = getpid();
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        if (attempt == 0)
            snprintf(g_path, sizeof g_path, "%s/gms-%d.raw", dir, (int)pid);
        else
            snprintf(g_path, sizeof g_path, "%s/gms-%d-%d.raw", dir, (int)pid, attempt);
        /* O_EXCL: never truncate or append to a file another process owns */
        fd = open(g_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        fprintf(stderr, "gpumemsim-tracer: cannot create %s: %s; not recording this process\n",
                g_path, strerror(errno));
        free(g_buf);
        g_buf = NULL;
        return -1;
    }
    uint8_t header[TRC_RAW_HEADER_SIZE];
    trc_raw_header(header, (uint32_t)pid);
    pthread_mutex_lock(&g_lock);
    g_fd = fd;
    memcpy(g_buf, header, sizeof header);
    g_len = sizeof header;
    flush_locked();
    pthread_mutex_unlock(&g_lock);
    return 0;
}

void trc_out_write(const trc_rec *rec)
{
    size_t need = trc_raw_record_size(rec);
    if (need == 0)
        return;
    pthread_mutex_lock(&g_lock);
    if (g_fd >= 0 && !g_write_failed) {
        if (need > OUT_BUFFER - g_len)
            flush_locked();
        if (need <= OUT_BUFFER - g_len)
            g_len += trc_raw_encode(rec, g_buf + g_len, OUT_BUFFER - g_len);
    }
    pthread_mutex_unlock(&g_lock);
}

void trc_out_info(const char *key, const char *value)
{
    trc_rec r = {.type = TRC_REC_INFO, .name = key, .text = value};
    trc_out_write(&r);
}

void trc_out_flush(void)
{
    pthread_mutex_lock(&g_lock);
    flush_locked();
    pthread_mutex_unlock(&g_lock);
}

int trc_out_try_flush(void)
{
    if (pthread_mutex_trylock(&g_lock) != 0)
        return -1; /* a writer holds it (perhaps the interrupted thread itself) */
    flush_locked();
    pthread_mutex_unlock(&g_lock);
    return 0;
}

void trc_out_close(void)
{
    pthread_mutex_lock(&g_lock);
    flush_locked();
    if (g_fd >= 0)
        close(g_fd);
    g_fd = -1;
    pthread_mutex_unlock(&g_lock);
}

void trc_out_forget_after_fork(void)
{
    /* the lock may have been held by a parent thread at fork time: do not take it */
    if (g_fd >= 0)
        close(g_fd);
    g_fd = -1;
    g_len = 0;
    pthread_mutex_init(&g_lock, NULL);
}

const char *trc_out_path(void)
{
    return g_path;
}

void trc_status(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "gpumemsim-tracer: %s\n", msg);
    trc_out_info("status", msg);
}
