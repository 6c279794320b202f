/*
 * progress: the progress report of long CLI commands (sweep). On a terminal a one-line bar
 * redrawn in place with rate and ETA; otherwise (a log file, CI) a plain line every 5 seconds
 * or every 10% of the work, whichever comes first; nothing with quiet.
 */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

typedef struct progress {
    FILE *f;
    const char *label;  /* "sweep" */
    const char *unit;   /* what is counted, "runs" unless set after progress_init */
    int tty, quiet;
    double last_print;  /* elapsed seconds at the last plain line */
    size_t last_decile; /* last 10% step printed */
    int drawn;          /* a bar is on screen */
} progress;

/* f is usually stderr; tty mode is chosen when isatty(fileno(f)). */
void progress_init(progress *p, FILE *f, const char *label, int quiet);

/* Reports done of total units after elapsed seconds; note is a short suffix ("12 failed"). */
void progress_update(progress *p, size_t done, size_t total, double elapsed, const char *note);

/* Ends the bar line (tty) so that later output starts on a fresh line. */
void progress_end(progress *p);

/* Formats seconds as "42s", "3m07s", "1h02m" into buf. */
const char *progress_format_duration(double s, char *buf, size_t len);

#endif
