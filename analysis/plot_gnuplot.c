/* plot: finding and running gnuplot, temporary files, shared helpers (see plot.h). */
#include "gms_tmpfile.h"
#include "plot.h"

#include <stdarg.h>

#include "plot_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PLOT_STDERR_MAX 700 /* bytes of gnuplot's error output quoted in a message */

int plot_format_for_path(const char *path, plot_format *fmt, gms_error *err)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash)) {
        if (strcasecmp(dot, ".png") == 0) {
            *fmt = PLOT_PNG;
            return 0;
        }
        if (strcasecmp(dot, ".svg") == 0) {
            *fmt = PLOT_SVG;
            return 0;
        }
        if (strcasecmp(dot, ".pdf") == 0) {
            *fmt = PLOT_PDF;
            return 0;
        }
    }
    return gms_error_set(err, GMS_EINVAL,
                         "%s: unknown chart format; name the output .png, .svg or .pdf", path);
}

static int is_executable(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && access(p, X_OK) == 0;
}

int plot_find_gnuplot(char *buf, size_t len, gms_error *err)
{
    const char *env = getenv("GMS_GNUPLOT");
    if (env && *env) {
        if (is_executable(env)) {
            snprintf(buf, len, "%s", env);
            return 0;
        }
        return gms_error_set(err, GMS_EEXTERNAL,
                             "GMS_GNUPLOT=%s is not an executable file; point it at gnuplot or "
                             "unset it",
                             env);
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        if (n > 0 && n + 10 < len) {
            snprintf(buf, len, "%.*s/gnuplot", (int)n, path);
            if (is_executable(buf))
                return 0;
        }
        path = colon ? colon + 1 : NULL;
    }
    return gms_error_set(err, GMS_EEXTERNAL,
                         "gnuplot not found on PATH; charts need it: install gnuplot "
                         "(Debian: apt-get install gnuplot-nox, or run scripts/setup-deps.sh)");
}

int plot_temp_file(const char *text, size_t len, char **path, gms_error *err)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + 32;
    char *p = malloc(n);
    if (!p)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    snprintf(p, n, "%s/gpumemsim-plot-XXXXXX", dir);
    int fd = mkstemp(p);
    if (fd < 0) {
        int rc = gms_error_set(err, GMS_EIO, "%s: cannot create a temporary file: %s", p,
                               strerror(errno));
        free(p);
        return rc;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int rc = gms_error_set(err, GMS_EIO, "%s: cannot write: %s", p, strerror(errno));
            close(fd);
            unlink(p);
            free(p);
            return rc;
        }
        off += (size_t)w;
    }
    close(fd);
    *path = p;
    return 0;
}

void plot_quote(const char *s, char *buf, size_t len)
{
    size_t k = 0;
    if (len < 3)
        return;
    buf[k++] = '\'';
    for (; *s && k + 3 < len; s++) {
        if (*s == '\'')
            buf[k++] = '\'';
        buf[k++] = *s;
    }
    buf[k++] = '\'';
    buf[k] = '\0';
}

void plot_short_name(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s", name);
    size_t n = strlen(out);
    int dashes = 0;
    for (size_t i = 0; i < n; i++)
        dashes += out[i] == '-';
    /* DTR paper logs: MODEL-BATCH-BUDGET-DATE...-default */
    if (n > 8 && strcmp(out + n - 8, "-default") == 0 && dashes >= 4) {
        char *second = strchr(strchr(out, '-') + 1, '-');
        *second = '\0';
    }
}

/* Reads up to PLOT_STDERR_MAX bytes of gnuplot's captured error output into buf. */
static void read_captured(int fd, char *buf, size_t len)
{
    buf[0] = '\0';
    if (lseek(fd, 0, SEEK_SET) < 0)
        return;
    ssize_t n = read(fd, buf, len - 1);
    if (n <= 0)
        return;
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
}

static const char *terminal_for(plot_format fmt, int w, int h, char *buf, size_t len)
{
    switch (fmt) {
    case PLOT_PNG:
        snprintf(buf, len,
                 "set terminal pngcairo size %d,%d enhanced font 'Sans,11' linewidth 1.3 "
                 "background '#ffffff'\n",
                 w, h);
        break;
    case PLOT_SVG:
        snprintf(buf, len,
                 "set terminal svg size %d,%d enhanced font 'Sans,11' linewidth 1.3 "
                 "background '#ffffff'\n",
                 w, h);
        break;
    case PLOT_PDF:
        snprintf(buf, len,
                 "set terminal pdfcairo size %.2fin,%.2fin enhanced font 'Sans,8' "
                 "fontscale 0.75 linewidth 1.0\n", /* 8 pt text (see plot_text_scale) */
                 w / 160.0, h / 160.0);
        break;
    }
    return buf;
}

double plot_text_scale(plot_format fmt)
{
    return fmt == PLOT_PNG ? PLOT_DPI / 96.0 : 1.0;
}

void plot_terminal(plot_format fmt, const plot_page *pg, char *buf, size_t len)
{
    switch (fmt) {
    case PLOT_PNG: /* points at PLOT_DPI (see plot_text_scale) */
        snprintf(buf, len,
                 "set terminal pngcairo size %d,%d enhanced font 'Sans,%.3g' "
                 "linewidth %.4g background '#ffffff'\n",
                 (int)(pg->width_in * PLOT_DPI + 0.5), (int)(pg->height_in * PLOT_DPI + 0.5),
                 pg->font_pt * plot_text_scale(fmt), plot_text_scale(fmt));
        break;
    case PLOT_SVG:
        snprintf(buf, len,
                 "set terminal svg size %d,%d enhanced font 'Sans,%.3g' linewidth 1.0 "
                 "background '#ffffff'\n",
                 (int)(pg->width_in * 72 + 0.5), (int)(pg->height_in * 72 + 0.5),
                 pg->font_pt);
        break;
    case PLOT_PDF:
        snprintf(buf, len,
                 "set terminal pdfcairo size %.3fin,%.3fin enhanced font 'Sans,%.3g' "
                 "fontscale 0.75 linewidth 1.0\n",
                 pg->width_in, pg->height_in, pg->font_pt);
        break;
    }
}

static int render_term(const char *term, const char *body, const char *out_path,
                       gms_error *err);

int plot_render(const char *body, int width, int height, const char *out_path, gms_error *err)
{
    plot_format fmt = PLOT_PNG; /* set by plot_format_for_path; the compiler cannot tell */
    int rc = plot_format_for_path(out_path, &fmt, err);
    if (rc)
        return rc;
    char term[256];
    terminal_for(fmt, width, height, term, sizeof term);
    return render_term(term, body, out_path, err);
}

int plot_render_page(const char *body, const plot_page *pg, const char *out_path,
                     gms_error *err)
{
    plot_format fmt = PLOT_PNG; /* set by plot_format_for_path; the compiler cannot tell */
    int rc = plot_format_for_path(out_path, &fmt, err);
    if (rc)
        return rc;
    char term[256];
    plot_terminal(fmt, pg, term, sizeof term);
    return render_term(term, body, out_path, err);
}

int plot_write_file(const char *path, const char *text, size_t len, gms_error *err)
{
    size_t tlen = strlen(path) + 32;
    char *tmp = malloc(tlen);
    if (!tmp)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    snprintf(tmp, tlen, "%s.tmp-%ld", path, (long)getpid());
    int rc = 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666); /* the umask decides the mode */
    if (fd >= 0)
        gms_tmp_track(tmp);
    if (fd < 0) {
        rc = gms_error_set(err, GMS_EIO, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return rc;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            rc = gms_error_set(err, GMS_EIO, "%s: cannot write: %s", path, strerror(errno));
            break;
        }
        off += (size_t)w;
    }
    if (close(fd) != 0 && !rc)
        rc = gms_error_set(err, GMS_EIO, "%s: cannot write: %s", path, strerror(errno));
    if (!rc && rename(tmp, path) != 0)
        rc = gms_error_set(err, GMS_EIO, "%s: cannot rename into place: %s", path,
                           strerror(errno));
    if (rc)
        unlink(tmp);
    gms_tmp_done(tmp);
    free(tmp);
    return rc;
}

static int render_term(const char *term, const char *body, const char *out_path,
                       gms_error *err)
{
    int rc;
    char gnuplot[4096];
    if ((rc = plot_find_gnuplot(gnuplot, sizeof gnuplot, err)))
        return rc;

    /* the chart is drawn into a temporary file beside out_path, renamed when complete */
    size_t tlen = strlen(out_path) + 16;
    char *tmp_out = malloc(tlen);
    if (!tmp_out)
        return gms_error_set(err, GMS_ENOMEM, "out of memory");
    snprintf(tmp_out, tlen, "%s.tmp-XXXXXX", out_path);
    int ofd = mkstemp(tmp_out);
    if (ofd < 0) {
        rc = gms_error_set(err, GMS_EIO, "%s: cannot create the chart: %s", out_path,
                           strerror(errno));
        free(tmp_out);
        return rc;
    }
    gms_tmp_umask_mode(ofd); /* gnuplot truncates the file and keeps its mode */
    gms_tmp_track(tmp_out);
    close(ofd);

    char qout[4200];
    plot_quote(tmp_out, qout, sizeof qout);
    size_t slen = strlen(term) + strlen(qout) + strlen(body) + 64;
    char *script = malloc(slen);
    char *script_path = NULL;
    char errbuf[PLOT_STDERR_MAX + 1];
    int efd = -1;
    if (!script) {
        rc = gms_error_set(err, GMS_ENOMEM, "out of memory");
        goto out;
    }
    snprintf(script, slen, "%sset output %s\n%s\nunset output\n", term, qout, body);
    if ((rc = plot_temp_file(script, strlen(script), &script_path, err)))
        goto out;

    char *errpath = NULL;
    if ((rc = plot_temp_file("", 0, &errpath, err)))
        goto out;
    efd = open(errpath, O_RDWR);
    unlink(errpath);
    free(errpath);
    if (efd < 0) {
        rc = gms_error_set(err, GMS_EIO, "cannot capture gnuplot's output: %s", strerror(errno));
        goto out;
    }
    pid_t pid = fork();
    if (pid < 0) {
        rc = gms_error_set(err, GMS_EEXTERNAL, "cannot start gnuplot: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(efd, 1);
        dup2(efd, 2);
        execl(gnuplot, "gnuplot", script_path, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            status = -1;
            break;
        }
    read_captured(efd, errbuf, sizeof errbuf);
    struct stat sb;
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        rc = gms_error_set(err, GMS_EEXTERNAL, "gnuplot (%s) failed drawing %s%s%s", gnuplot,
                           out_path, errbuf[0] ? ":\n" : " (no error output)", errbuf);
        goto out;
    }
    if (stat(tmp_out, &sb) != 0 || sb.st_size == 0) {
        rc = gms_error_set(err, GMS_EEXTERNAL, "gnuplot drew nothing into %s%s%s", out_path,
                           errbuf[0] ? ":\n" : "", errbuf);
        goto out;
    }
    if (rename(tmp_out, out_path) != 0)
        rc = gms_error_set(err, GMS_EIO, "%s: cannot rename the chart into place: %s", out_path,
                           strerror(errno));
out:
    if (efd >= 0)
        close(efd);
    if (rc)
        unlink(tmp_out);
    gms_tmp_done(tmp_out);
    if (script_path) {
        unlink(script_path);
        free(script_path);
    }
    free(script);
    free(tmp_out);
    return rc;
}

/* ---- plot_internal.h ---- */

void plot_buf_printf(plot_buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

void plot_buf_free(plot_buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}
