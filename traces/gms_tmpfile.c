/* gms_tmpfile: umask modes and interrupt cleanup of temporary output files (gms_tmpfile.h). */
#include "gms_tmpfile.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_SLOTS 16
#define TMP_PATH_MAX 4096

/* Written only outside the handler; the handler reads whole slots (a slot is emptied by
 * clearing its first byte last, so a half-written slot starts with 0). */
static char slots[TMP_SLOTS][TMP_PATH_MAX];
static volatile sig_atomic_t installed;

void gms_tmp_umask_mode(int fd)
{
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
}

static void on_signal(int sig)
{
    for (int i = 0; i < TMP_SLOTS; i++)
        if (slots[i][0])
            unlink(slots[i]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
            continue; /* ignored, or somebody else's handler: leave it */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
    installed = 1;
}

void gms_tmp_track(const char *path)
{
    size_t n = strlen(path);
    if (n >= TMP_PATH_MAX)
        return;
    if (!installed)
        install();
    for (int i = 0; i < TMP_SLOTS; i++)
        if (!slots[i][0]) {
            memcpy(slots[i] + 1, path + 1, n); /* the first byte last: see slots */
            slots[i][0] = path[0];
            return;
        }
}

void gms_tmp_done(const char *path)
{
    for (int i = 0; i < TMP_SLOTS; i++)
        if (slots[i][0] && strcmp(slots[i], path) == 0)
            slots[i][0] = '\0';
}
