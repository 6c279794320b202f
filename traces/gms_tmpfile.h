/*
 * gms_tmpfile: what every write-to-a-temporary-file-then-rename output needs besides the
 * rename: the mode the user's umask gives (mkstemp makes 0600 files, which colleagues cannot
 * read), and removal of the temporary file when the process is interrupted (SIGINT, SIGTERM,
 * SIGHUP), so that Ctrl-C never leaves a *.tmp-* file behind.
 */
#ifndef GMS_TMPFILE_H
#define GMS_TMPFILE_H

/* Gives the open file fd the mode 0666 & ~umask, as open(2) with 0666 would have. */
void gms_tmp_umask_mode(int fd);

/* Removes path if the process is interrupted before gms_tmp_done(path). Keeps a copy of the
 * path (up to 16 at once; more are not tracked). The first call installs handlers for SIGINT,
 * SIGTERM and SIGHUP where none is installed; they remove the files and then die of the same
 * signal. */
void gms_tmp_track(const char *path);
/* path was renamed into place or removed: stop tracking it. */
void gms_tmp_done(const char *path);

#endif
