/* opt_child: a MILP solve in a child process under a hard wall-clock limit (opt_child.h). */
#undef _POSIX_C_SOURCE
#define _GNU_SOURCE /* pipe2, strsignal */
#include "opt_child.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double opt_child_grace(double limit)
{
    double g = 1.0 + 0.05 * (limit > 0 ? limit : 0);
    return g < 10.0 ? g : 10.0;
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *at = buf;
    while (len > 0) {
        ssize_t w = write(fd, at, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        at += w;
        len -= (size_t)w;
    }
    return 0;
}

/* The best rounded solution (opt_solver_opts.round) the child has found, in memory shared
 * with the parent, so that it survives a kill: two slots, the child writes the one not
 * current and then publishes it, so a kill in mid-copy leaves the last whole one current. The
 * parent reads it only after reaping the child. */
typedef struct kept {
    volatile int current; /* slot of the best, or -1 */
    volatile long calls;  /* LP solutions given to round */
    double obj[2];
    double x[];           /* two slots of n_cols values */
} kept;

typedef struct kept_hook {
    kept *k;
    uint32_t n_cols;
    int (*round)(void *ctx, const double *lp_x, double *x_out, double *obj);
    void *ctx;
} kept_hook;

static int keep_round(void *ctx, const double *lp_x, double *x_out, double *obj)
{
    kept_hook *h = ctx;
    h->k->calls++;
    if (!h->round(h->ctx, lp_x, x_out, obj))
        return 0;
    kept *k = h->k;
    if (k->current < 0 || *obj < k->obj[k->current]) {
        int slot = k->current == 0;
        memcpy(k->x + (size_t)slot * h->n_cols, x_out, (size_t)h->n_cols * sizeof *x_out);
        k->obj[slot] = *obj;
        __atomic_store_n(&k->current, slot, __ATOMIC_RELEASE);
    }
    return 1;
}

static size_t kept_bytes(const opt_program *p)
{
    return sizeof(kept) + 2 * (size_t)p->n_cols * sizeof(double);
}

static _Noreturn void child(int fd, opt_child_solver solve, const opt_program *p,
                            const opt_graph *g, const opt_solver_opts *o, kept *k)
{
    /* the parent's interrupt handlers (gms_tmpfile.c removes unfinished outputs) are not the
     * child's business: a Ctrl-C ends the child plainly */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            signal(sigs[i], SIG_DFL);
    }
    signal(SIGPIPE, SIG_IGN); /* a parent gone: write fails, the child ends */
    if (o->log) /* a killed child's log is not lost in its buffer */
        setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
    opt_child_msg m;
    memset(&m, 0, sizeof m);
    memcpy(m.magic, "GMSC", 4);
    opt_solver_result r;
    memset(&r, 0, sizeof r);
    opt_solver_opts oc = *o;
    kept_hook kh = {.k = k, .n_cols = p->n_cols, .round = o->round, .ctx = o->round_ctx};
    if (k) {
        oc.round = keep_round;
        oc.round_ctx = &kh;
    }
    m.rc = solve(p, g, &oc, &r, &m.err);
    if (m.rc == 0) {
        m.status = (int32_t)r.status;
        m.objective = r.objective;
        m.bound = r.bound;
        m.seconds = r.seconds;
        m.nodes = r.nodes;
        m.rounded = r.rounded;
        m.round_calls = r.round_calls;
        m.n_x = r.x ? p->n_cols : 0;
    }
    int ok = write_all(fd, &m, sizeof m) == 0 &&
             (m.n_x == 0 || write_all(fd, r.x, (size_t)m.n_x * sizeof(double)) == 0);
    fflush(NULL); /* the solver's log (--log); the parent flushed its buffers before the fork */
    _exit(ok ? 0 : 111); /* no atexit handlers */
}

/* Reads the child's answer into buf (cap bytes; one more means too much) until it closes the
 * pipe or the deadline passes. *timed_out: the deadline passed; returns errno or 0. */
static int read_answer(int fd, char *buf, size_t cap, size_t *got, double deadline,
                       int *timed_out)
{
    *got = 0;
    *timed_out = 0;
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) {
            *timed_out = 1;
            return 0;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)ceil(left * 1000));
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0)
            return errno;
        if (pr == 0)
            continue;
        ssize_t n = read(fd, buf + *got, cap + 1 - *got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return 0; /* the child closed its end: it has exited */
        *got += (size_t)n;
        if (*got > cap)
            return 0;
    }
}

static int solve_in_child(opt_child_solver solve, const opt_program *p, const opt_graph *g,
                          const opt_solver_opts *o, kept *k, opt_solver_result *r, int *killed,
                          gms_error *err)
{
    size_t cap = sizeof(opt_child_msg) + (size_t)p->n_cols * sizeof(double);
    char *buf = malloc(cap + 1);
    if (!buf)
        return gms_error_set(err, GMS_ENOMEM, "out of memory for the solver's answer");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        int e = errno;
        free(buf);
        return gms_error_set(err, GMS_EIO, "cannot create a pipe for the solver's process: %s",
                             strerror(e));
    }
    fflush(NULL); /* or the child's exit would write our pending output a second time */
    double t0 = now_s(), deadline = t0 + o->time_limit + opt_child_grace(o->time_limit);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        free(buf);
        return gms_error_set(err, GMS_EIO, "cannot fork the solver's process: %s; run without "
                             "--time-limit to solve in this process", strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], solve, p, g, o, k);
    }
    close(fds[1]);
    size_t got;
    int timed_out;
    int read_err = read_answer(fds[0], buf, cap, &got, deadline, &timed_out);
    if (timed_out || read_err || got > cap)
        kill(pid, SIGKILL);
    int status = 0;
    pid_t w;
    do
        w = waitpid(pid, &status, 0);
    while (w < 0 && errno == EINTR);
    close(fds[0]);
    double waited = now_s() - t0;

    opt_child_msg m;
    if (got >= sizeof m && got <= cap) {
        memcpy(&m, buf, sizeof m);
        /* a whole answer counts even when the deadline passed as the child exited */
        if (memcmp(m.magic, "GMSC", 4) == 0 && (m.n_x == 0 || m.n_x == p->n_cols) &&
            got == sizeof m + (size_t)m.n_x * sizeof(double)) {
            if (m.rc) {
                free(buf);
                if (err)
                    *err = m.err;
                return m.rc;
            }
            r->status = (opt_solve_status)m.status;
            r->objective = m.objective;
            r->bound = m.bound;
            r->seconds = m.seconds;
            r->nodes = m.nodes;
            r->rounded = m.rounded;
            r->round_calls = m.round_calls;
            if (m.n_x) {
                r->x = malloc(((size_t)p->n_cols + 1) * sizeof *r->x);
                if (!r->x) {
                    free(buf);
                    return gms_error_set(err, GMS_ENOMEM, "out of memory for the solution");
                }
                memcpy(r->x, buf + sizeof m, (size_t)m.n_x * sizeof(double));
            }
            free(buf);
            return 0;
        }
    }
    free(buf);
    if (timed_out) {
        /* the limit ended the search: an answer (the caller's seed), not an error */
        *killed = 1;
        r->status = OPT_STATUS_UNKNOWN;
        r->bound = -1;
        r->seconds = waited;
        return 0;
    }
    if (read_err)
        return gms_error_set(err, GMS_EIO, "reading the solver's answer: %s", strerror(read_err));
    if (w == pid && WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        return gms_error_set(err, GMS_EEXTERNAL,
                             "the solver's process (%s) died of signal %d (%s) after %.1f s "
                             "without an answer; --log shows how far it got", opt_solver_name(),
                             sig, strsignal(sig), waited);
    }
    return gms_error_set(err, GMS_EEXTERNAL,
                         "the solver's process (%s) ended (exit status %d) after %.1f s without "
                         "a whole answer (%zu of at least %zu bytes)", opt_solver_name(),
                         w == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1, waited, got,
                         sizeof m);
}

int opt_child_solve_with(opt_child_solver solve, const opt_program *p, const opt_graph *g,
                         const opt_solver_opts *o, opt_solver_result *r, int *killed,
                         gms_error *err)
{
    memset(r, 0, sizeof *r);
    *killed = 0;
    if (o->time_limit <= 0)
        return solve(p, g, o, r, err);
    kept *k = NULL;
    if (o->round) {
        void *at = mmap(NULL, kept_bytes(p), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                        -1, 0);
        if (at == MAP_FAILED)
            return gms_error_set(err, GMS_ENOMEM, "out of memory for the solver's incumbent");
        k = at;
        k->current = -1;
    }
    int rc = solve_in_child(solve, p, g, o, k, r, killed, err);
    /* killed: the best rounded solution the child found, not lost with it */
    if (rc == 0 && *killed && k)
        r->round_calls = k->calls;
    if (rc == 0 && *killed && k && k->current >= 0) {
        int slot = __atomic_load_n(&k->current, __ATOMIC_ACQUIRE);
        r->x = malloc(((size_t)p->n_cols + 1) * sizeof *r->x);
        if (!r->x)
            rc = gms_error_set(err, GMS_ENOMEM, "out of memory for the solution");
        else {
            memcpy(r->x, k->x + (size_t)slot * p->n_cols, (size_t)p->n_cols * sizeof *r->x);
            r->objective = k->obj[slot];
            r->status = OPT_STATUS_FEASIBLE;
            r->rounded = 1;
        }
    }
    if (k)
        munmap(k, kept_bytes(p));
    return rc;
}

int opt_child_solve(const opt_program *p, const opt_graph *g, const opt_solver_opts *o,
                    opt_solver_result *r, int *killed, gms_error *err)
{
    return opt_child_solve_with(opt_solver_solve, p, g, o, r, killed, err);
}
