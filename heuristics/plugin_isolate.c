/* plugin_isolate: a plugin's run in a child process (see plugin_isolate.h). */
#undef _POSIX_C_SOURCE
#define _GNU_SOURCE /* pipe2, strsignal, syscall */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h> /* PIPE_BUF */
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h> /* atexit */
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
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
    unsigned char reply[POL_ISOLATED_REPLY]; /* what the child's observer made of the run */
} isolated_msg;

_Static_assert(sizeof(isolated_msg) <= PIPE_BUF, "one atomic pipe write");

/* Seconds a plugin run may take before it is killed (0: no limit). */
static double run_timeout_s = POL_PLUGIN_TIMEOUT_DEFAULT;

int pol_set_plugin_timeout(double seconds)
{
    if (!(seconds >= 0) || seconds > POL_PLUGIN_TIMEOUT_MAX)
        return -1;
    run_timeout_s = seconds;
    return 0;
}

double pol_plugin_timeout(void)
{
    return run_timeout_s;
}

/* The groups of the runs in flight, killed at exit: a thread of a process that exits while
 * another waits for its child would otherwise leave the child to PR_SET_PDEATHSIG alone. */
#define LIVE_SLOTS 256
static volatile sig_atomic_t live[LIVE_SLOTS];
static pthread_once_t live_once = PTHREAD_ONCE_INIT;

static void kill_live(void)
{
    for (int i = 0; i < LIVE_SLOTS; i++)
        if (live[i] > 0)
            kill(-(pid_t)live[i], SIGKILL);
}

static void live_init(void)
{
    atexit(kill_live);
}

static int live_add(pid_t pid)
{
    pthread_once(&live_once, live_init);
    for (int i = 0; i < LIVE_SLOTS; i++)
        if (__sync_bool_compare_and_swap(&live[i], 0, (sig_atomic_t)pid))
            return i;
    return -1; /* more runs in flight than slots: PR_SET_PDEATHSIG still covers them */
}

static void live_remove(int slot)
{
    if (slot >= 0)
        live[slot] = 0;
}

static void child(int fd, pid_t parent, sim_runner *r, const sim_config *cfg,
                  void (*reply)(void *ctx, void *buf))
{
    /* Never outlive the caller: killed when the thread that forked us ends (with its process,
     * however it ends); the parent may have died before the request, hence the check. Our
     * own process group lets the caller kill whatever the plugin started along with us. */
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(112);
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
    if (!m.rc && reply)
        reply(cfg->observer_ctx, m.reply);
    ssize_t w;
    do
        w = write(fd, &m, sizeof m);
    while (w < 0 && errno == EINTR);
    _exit(w == (ssize_t)sizeof m ? 0 : 111); /* no atexit handlers, no stdio flush */
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Waits for the child (its group killed and reaped once limit_s > 0 seconds have passed,
 * then *timed_out = 1). Sleeps in poll on a pidfd, which becomes readable when the child
 * exits; where there are none (Linux before 5.3), polls waitpid every few milliseconds. */
static pid_t wait_child(pid_t pid, double limit_s, int *status, int *timed_out)
{
    pid_t w;
    if (limit_s <= 0) {
        do
            w = waitpid(pid, status, 0);
        while (w < 0 && errno == EINTR);
        return w;
    }
    double end = now_s() + limit_s;
#ifdef SYS_pidfd_open
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
    int pfd = -1;
#endif
    for (;;) {
        do
            w = waitpid(pid, status, WNOHANG);
        while (w < 0 && errno == EINTR);
        if (w != 0)
            break;
        double left = end - now_s();
        if (left <= 0) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            do
                w = waitpid(pid, status, 0);
            while (w < 0 && errno == EINTR);
            *timed_out = 1;
            break;
        }
        if (pfd >= 0) {
            struct pollfd p = {.fd = pfd, .events = POLLIN};
            double ms = ceil(left * 1e3);
            (void)poll(&p, 1, ms > 60000 ? 60000 : (int)ms);
        } else {
            struct timespec t = {0, 2000000};
            nanosleep(&t, NULL);
        }
    }
    if (pfd >= 0)
        close(pfd);
    return w;
}

int pol_run_isolated(sim_runner *r, const sim_config *cfg, sim_result *res, gms_error *err)
{
    if (cfg->observer)
        return gms_error_set(err, GMS_EINVAL,
                             "pol_run_isolated: runs with an observer are not isolated");
    return pol_run_isolated_reply(r, cfg, NULL, NULL, res, err);
}

int pol_run_isolated_reply(sim_runner *r, const sim_config *cfg,
                           void (*reply)(void *ctx, void *buf), void *buf, sim_result *res,
                           gms_error *err)
{
    const sim_policy *p = cfg->policy;
    const char *name = p && p->name ? p->name : "?";
    const char *path = pol_plugin_path(p);
    if (cfg->observer && !reply)
        return gms_error_set(err, GMS_EINVAL, "pol_run_isolated_reply: an observer in the "
                             "child needs a reply to carry back what it saw");
    int fds[2];
    /* close-on-exec and non-blocking: the parent reads only after the child has exited, and
     * children forked meanwhile by other threads may hold the write end open */
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return gms_error_set(err, GMS_EIO, "plugin '%s': cannot create a pipe: %s", name,
                             strerror(errno));
    pid_t parent = getpid();
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
        child(fds[1], parent, r, cfg, reply);
    }
    close(fds[1]);
    setpgid(pid, pid); /* also here: the child may not have run yet when we kill its group */
    int slot = live_add(pid);
    int status = 0, timed_out = 0;
    pid_t w = wait_child(pid, run_timeout_s, &status, &timed_out);
    live_remove(slot);
    if (timed_out) {
        close(fds[0]);
        return gms_error_set(err, GMS_EEXTERNAL,
                             "plugin '%s' (%s) did not finish its run within %g s and was "
                             "killed; raise the limit with --plugin-timeout SECONDS (0: none) "
                             "if it is only slow", name, path ? path : "?", run_timeout_s);
    }
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
        if (reply)
            memcpy(buf, m.reply, sizeof m.reply);
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
