/* plugin_isolate: a plugin's run in a child process (see plugin_isolate.h). */
#undef _POSIX_C_SOURCE
#define _GNU_SOURCE /* pipe2, strsignal */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h> /* PIPE_BUF */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin.h"
#include "plugin_isolate.h"
#include "policy.h"
#include "sim.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GMS_FORK_GATE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define GMS_FORK_GATE 1
#endif
#endif

#ifdef GMS_FORK_GATE
/* writers (forks) first, so that a fork is not starved by workers starting new runs */
static pthread_rwlock_t fork_gate = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
void pol_fork_gate_enter(void)
{
    pthread_rwlock_rdlock(&fork_gate);
}
void pol_fork_gate_leave(void)
{
    pthread_rwlock_unlock(&fork_gate);
}
#define FORK_GATE_CLOSE() pthread_rwlock_wrlock(&fork_gate)
#define FORK_GATE_OPEN() pthread_rwlock_unlock(&fork_gate)
#else
void pol_fork_gate_enter(void)
{
}
void pol_fork_gate_leave(void)
{
}
#define FORK_GATE_CLOSE() ((void)0)
#define FORK_GATE_OPEN() ((void)0)
#endif

/* What the child sends back: one write, smaller than PIPE_BUF, so it arrives whole. */
typedef struct {
    int rc;
    sim_result res;
    gms_error err;
} isolated_msg;

_Static_assert(sizeof(isolated_msg) <= PIPE_BUF, "one atomic pipe write");

static void child(int fd, sim_runner *r, const sim_config *cfg)
{
    /* Interrupt handlers of the parent (gms_tmpfile.c removes the parent's unfinished
     * outputs) are not the child's business: a Ctrl-C kills the child plainly. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            signal(sigs[i], SIG_DFL);
    }
    isolated_msg m;
    memset(&m, 0, sizeof m);
    m.rc = sim_runner_run(r, cfg, &m.res, &m.err);
    ssize_t w;
    do
        w = write(fd, &m, sizeof m);
    while (w < 0 && errno == EINTR);
    _exit(w == (ssize_t)sizeof m ? 0 : 111); /* no atexit handlers, no stdio flush */
}

int pol_run_isolated(sim_runner *r, const sim_config *cfg, sim_result *res, gms_error *err)
{
    const sim_policy *p = cfg->policy;
    const char *name = p && p->name ? p->name : "?";
    const char *path = pol_plugin_path(p);
    if (cfg->observer)
        return gms_error_set(err, GMS_EINVAL,
                             "pol_run_isolated: runs with an observer are not isolated");
    int fds[2];
    /* close-on-exec and non-blocking: the parent reads only after the child has exited, and
     * children forked meanwhile by other threads may hold the write end open */
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return gms_error_set(err, GMS_EIO, "plugin '%s': cannot create a pipe: %s", name,
                             strerror(errno));
    FORK_GATE_CLOSE();
    pid_t pid = fork();
    if (pid != 0)
        FORK_GATE_OPEN(); /* the child never touches the gate: it runs and _exits */
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return gms_error_set(err, GMS_EIO, "plugin '%s': cannot fork its run: %s", name,
                             strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], r, cfg);
    }
    close(fds[1]);
    int status = 0;
    pid_t w;
    do
        w = waitpid(pid, &status, 0);
    while (w < 0 && errno == EINTR);
    isolated_msg m;
    ssize_t n;
    do
        n = read(fds[0], &m, sizeof m);
    while (n < 0 && errno == EINTR);
    close(fds[0]);
    if (w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 && n == (ssize_t)sizeof m) {
        if (m.rc) {
            if (err)
                *err = m.err;
            return m.rc;
        }
        *res = m.res;
        return 0;
    }
    if (w == pid && WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        return gms_error_set(err, GMS_EEXTERNAL,
                             "plugin '%s' (%s) crashed (signal %d, %s); debug it with "
                             "gdb -ex 'set follow-fork-mode child' --args gpumemsim sim TRACE "
                             "--policy %s, or build it with -fsanitize=address", name,
                             path ? path : "?", sig, strsignal(sig), path ? path : "PLUGIN");
    }
    return gms_error_set(err, GMS_EEXTERNAL,
                         "plugin '%s' (%s) ended its run's process (exit status %d) instead of "
                         "returning", name, path ? path : "?",
                         w == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
