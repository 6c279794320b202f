/* progress: terminal bar or plain progress lines (see progress.h). */
#include "progress.h"

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define PROGRESS_BAR_WIDTH 30
#define PROGRESS_PLAIN_EVERY_S 5.0

void progress_init(progress *p, FILE *f, const char *label, int quiet)
{
    p->f = f;
    p->label = label;
    p->quiet = quiet;
    p->tty = isatty(fileno(f));
    p->last_print = 0;
    p->last_decile = 0;
    p->drawn = 0;
    p->unit = "runs";
}

const char *progress_format_duration(double s, char *buf, size_t len)
{
    if (s < 0 || s != s)
        s = 0;
    unsigned long t = (unsigned long)(s + 0.5);
    if (t < 60)
        snprintf(buf, len, "%lus", t);
    else if (t < 3600)
        snprintf(buf, len, "%lum%02lus", t / 60, t % 60);
    else
        snprintf(buf, len, "%luh%02lum", t / 3600, (t % 3600) / 60);
    return buf;
}

void progress_update(progress *p, size_t done, size_t total, double elapsed, const char *note)
{
    if (p->quiet)
        return;
    double frac = total ? (double)done / (double)total : 1.0;
    double rate = elapsed > 0 ? (double)done / elapsed : 0;
    char eta[32] = "?";
    if (rate > 0)
        progress_format_duration((double)(total - done) / rate, eta, sizeof eta);
    else if (done == total)
        snprintf(eta, sizeof eta, "0s");
    if (p->tty) {
        /* one line that fits the terminal: the bar shrinks, then the note goes */
        char line[512], bar[PROGRESS_BAR_WIDTH + 1];
        struct winsize ws;
        int cols = ioctl(fileno(p->f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
        int tail = snprintf(line, sizeof line, "] %zu/%zu %3.0f%%  %.1f/s  ETA %s", done, total,
                            frac * 100, rate, eta);
        int room = cols - 1 - (int)strlen(p->label) - 2 - tail;
        int width = room < PROGRESS_BAR_WIDTH ? room : PROGRESS_BAR_WIDTH;
        if (width < 5)
            width = 0;
        int fill = (int)(frac * width + 1e-9);
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = '\0';
        int used = (int)strlen(p->label) + 2 + width + tail;
        int show_note = note && *note && used + 2 + (int)strlen(note) < cols;
        fprintf(p->f, "\r\033[K%s %s%s%s%s%s", p->label, width ? "[" : "", bar,
                width ? line : line + 2, show_note ? "  " : "", show_note ? note : "");
        fflush(p->f);
        p->drawn = 1;
        return;
    }
    size_t decile = (size_t)(frac * 10 + 1e-9);
    int first = p->last_print == 0 && p->last_decile == 0 && done == 0;
    if (!first && decile == p->last_decile && elapsed - p->last_print < PROGRESS_PLAIN_EVERY_S &&
        done != total)
        return;
    if (done == total && p->last_decile == 10)
        return;
    p->last_decile = decile;
    p->last_print = elapsed > 0 ? elapsed : 1e-9;
    fprintf(p->f, "%s: %zu/%zu %s (%.0f%%), %.1f %s/s, ETA %s%s%s\n", p->label, done, total,
            p->unit, frac * 100, rate, p->unit, eta, note && *note ? ", " : "", note ? note : "");
    fflush(p->f);
}

void progress_end(progress *p)
{
    if (p->tty && p->drawn && !p->quiet)
        fputc('\n', p->f);
    p->drawn = 0;
}
