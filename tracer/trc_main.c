/* trc_main: InitializeInjection, the entry point the CUDA driver calls when
 * CUDA_INJECTION64_PATH names libgpumemsim-tracer.so, and the end-of-job paths (see trc.h).
 *
 * End of job: atexit flushes CUPTI (FLUSH_FORCED), records the dropped-record count and an
 * "end" INFO, writes everything to disk, and only then calls cuptiFinalize (CUDA 13.0/13.1 can
 * crash at shutdown without it; if it crashes instead, the data is already on disk; set
 * GMS_TRACER_NO_FINALIZE=1 to skip it). The exit path runs under a watchdog: if CUPTI hangs
 * (GMS_TRACER_EXIT_TIMEOUT seconds, default 10) or crashes while finishing, the process ends
 * with the job's own exit status, since the trace is already on disk. Fatal signals flush what
 * they can under a 3-second alarm (a tracer must never hang the job), then the signal proceeds
 * as it would have; signal handlers never wait for a lock.
 *
 * A background thread writes the buffered records every second (and CUPTI delivers its
 * buffers every second, cuptiActivityFlushPeriod), so a killed job loses about a second.
 *
 * NVTX: the tracer exports InitializeInjectionNvtx2 and forwards it to the libcupti it is bound
 * to, so NVTX_INJECTION64_PATH can name the tracer and NVTX reaches the CUPTI instance that
 * records the activities (a PyTorch job has its own libcupti loaded before us). */
#define _GNU_SOURCE
#include "trc.h"

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pid_t g_pid;
static volatile sig_atomic_t g_finished, g_in_signal, g_exit_status;
static volatile sig_atomic_t g_in_exit; /* inside at_exit: CUPTI is flushing/finalizing */
static volatile sig_atomic_t g_nvtx_injected; /* InitializeInjectionNvtx2 forwarded (1) */
static int g_exit_timeout = 10;
static _Atomic long g_exit_deadline; /* CLOCK_MONOTONIC seconds; 0 = not exiting */

static long now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec;
}

/* Every second: buffered records to disk; while the exit path runs: its watchdog. */
static void *background(void *arg)
{
    (void)arg;
    for (;;) {
        struct timespec d = {1, 0};
        nanosleep(&d, NULL);
        if (getpid() != g_pid)
            return NULL;
        long deadline = g_exit_deadline;
        if (deadline && now_s() >= deadline) {
            static const char msg[] = "gpumemsim-tracer: CUPTI did not finish within "
                                      "GMS_TRACER_EXIT_TIMEOUT seconds at exit; ending the "
                                      "job with its own exit status (the trace is on disk)\n";
            ssize_t w = write(2, msg, sizeof msg - 1);
            (void)w;
            _exit(g_exit_status);
        }
        trc_out_try_flush();
    }
    return NULL;
}

static const int g_signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTERM, SIGINT};
#define N_SIGNALS ((int)(sizeof g_signals / sizeof g_signals[0]))
static struct sigaction g_old[N_SIGNALS];

static void write_end_info(const char *how)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)trc_activity_dropped());
    trc_out_info("dropped_records", buf);
    trc_out_info("nvtx_injection", g_nvtx_injected ? "forwarded to libcupti" : "not called");
    trc_out_info("end", how);
}

static void at_exit(int status, void *arg)
{
    (void)arg;
    if (getpid() != g_pid || g_finished)
        return;
    g_exit_status = status & 0xff;
    g_finished = 1;
    g_in_exit = 1; /* from here until CUPTI is done a crash ends the job with its status */
    trc_out_flush(); /* what we have is on disk before CUPTI is asked for anything */
    g_exit_deadline = now_s() + g_exit_timeout;
    const char *stall = getenv("GMS_TRACER_TEST_STALL_EXIT"); /* tests: a CUPTI that hangs */
    if (stall && atoi(stall) > 0)
        sleep((unsigned)atoi(stall));
    trc_activity_flush();
    trc_callback_summary();
    write_end_info("exit");
    uint64_t dropped = trc_activity_dropped();
    if (dropped)
        fprintf(stderr,
                "gpumemsim-tracer: CUPTI dropped %llu activity records; raise "
                "GMS_TRACER_BUFFER_MB\n",
                (unsigned long long)dropped);
    trc_out_flush(); /* on disk before anything below can go wrong */
    const char *skip = getenv("GMS_TRACER_NO_FINALIZE");
    if (!skip || !*skip || strcmp(skip, "0") == 0) {
        trc_callback_stop();
        cuptiFinalize();
    }
    trc_out_close();
    /* later exit handlers (the job's own) run unwatched and crash as they would have */
    g_exit_deadline = 0;
    g_in_exit = 0;
}

static int signal_index(int sig)
{
    for (int i = 0; i < N_SIGNALS; i++)
        if (g_signals[i] == sig)
            return i;
    return -1;
}

/* Saves what the dying job recorded, then lets the signal do what it would have done. A job
 * that handles SIGINT/SIGTERM itself (Python's KeyboardInterrupt) keeps doing so: we only flush
 * our own buffer and chain to its handler; atexit finishes the trace later. */
static void on_signal(int sig)
{
    int i = signal_index(sig);
    int chained = i >= 0 && (sig == SIGINT || sig == SIGTERM) &&
                  g_old[i].sa_handler != SIG_DFL && g_old[i].sa_handler != SIG_IGN;
    if (getpid() == g_pid && !g_in_signal && !g_finished) {
        g_in_signal = 1;
        if (!chained) {
            signal(SIGALRM, SIG_DFL);
            alarm(3); /* if CUPTI is wedged by the crash, die rather than hang */
            trc_activity_flush();
            char how[32];
            snprintf(how, sizeof how, "signal %d", sig);
            write_end_info(how);
        }
        /* never wait for the lock here: the interrupted thread may hold it (the periodic
         * flush has written all but the last second anyway) */
        trc_out_try_flush();
        alarm(0); /* the job's own handler may survive the signal: no stray alarm for it */
        g_in_signal = 0;
    } else if (getpid() == g_pid && g_in_exit && sig != SIGINT && sig != SIGTERM) {
        /* a crash inside cuptiFinalize/FlushAll after the trace was written: the job had
         * finished with its own status, which it keeps */
        _exit(g_exit_status);
    }
    if (i >= 0)
        sigaction(sig, &g_old[i], NULL);
    else
        signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signal_handlers(void)
{
    for (int i = 0; i < N_SIGNALS; i++) {
        struct sigaction old;
        if (sigaction(g_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* the job ignores it: so do we */
        g_old[i] = old;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(g_signals[i], &sa, NULL);
    }
}

static void on_fork_child(void)
{
    /* a forked child must not touch the parent's file or CUPTI state */
    trc_out_forget_after_fork();
}

/* NVTX reaches CUPTI through NVTX_INJECTION64_PATH; `gpumemsim record` points it at this
 * library, and a job started by hand gets it here (before its first NVTX call, if that comes
 * after CUDA initialisation). */
static void point_nvtx_at_us(void)
{
    if (getenv("NVTX_INJECTION64_PATH"))
        return;
    Dl_info info;
    if (dladdr((void *)point_nvtx_at_us, &info) && info.dli_fname)
        setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
}

__attribute__((visibility("default"))) int InitializeInjection(void);
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(void *get_export_table);

/* Called by each NVTX instance's loader (NVTX_INJECTION64_PATH = this library): forwarded to the
 * libcupti this library is bound to, the instance whose MARKER records we collect. */
int InitializeInjectionNvtx2(void *get_export_table)
{
    Dl_info info;
    void *h = NULL;
    if (dladdr((void *)cuptiSubscribe, &info) && info.dli_fname)
        h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD); /* the copy we are linked to */
    int (*init)(void *) = NULL;
    if (h)
        *(void **)&init = dlsym(h, "InitializeInjectionNvtx2");
    int ok = init ? init(get_export_table) : 0;
    if (h)
        dlclose(h); /* NOLOAD only took a reference */
    if (ok)
        g_nvtx_injected = 1;
    else
        trc_status("NVTX injection failed: %s has no working InitializeInjectionNvtx2; NVTX "
                   "ranges are not recorded", h ? info.dli_fname : "libcupti");
    return ok;
}

/* INFO cupti_library and cupti_version; 0 when the loaded libcupti's records have the layouts
 * this library was built for (same CUDA major.minor), else -1 (activity records not read). */
static int check_cupti(void)
{
    Dl_info info;
    if (dladdr((void *)cuptiSubscribe, &info) && info.dli_fname)
        trc_out_info("cupti_library", info.dli_fname);
    uint32_t v = 0;
    char buf[96];
    if (cuptiGetVersion(&v) != CUPTI_SUCCESS) {
        trc_status("cuptiGetVersion failed; cannot check the CUPTI version");
        return 0;
    }
    snprintf(buf, sizeof buf, "%u (built with %u)", v, (unsigned)CUPTI_API_VERSION);
    trc_out_info("cupti_version", buf);
    if (v / 100 == CUPTI_API_VERSION / 100)
        return 0;
    const char *any = getenv("GMS_TRACER_ANY_CUPTI");
    if (any && *any && strcmp(any, "0") != 0)
        return 0;
    trc_status("the loaded libcupti has API version %u, this tracer was built for %u: activity "
               "records (kernels, markers) are not read because their layouts may differ; "
               "rebuild the tracer against this CUPTI or set GMS_TRACER_ANY_CUPTI=1",
               v, (unsigned)CUPTI_API_VERSION);
    return -1;
}

int InitializeInjection(void)
{
    static int done;
    if (done)
        return 1;
    done = 1;
    g_pid = getpid();
    if (trc_out_open() != 0)
        return 1; /* not recording; the job runs as if we were not here */
    char buf[64];
    snprintf(buf, sizeof buf, "%d", (int)g_pid);
    trc_out_info("pid", buf);
    trc_out_info("tracer_version", GMS_VERSION);
    const char *t = getenv("GMS_TRACER_EXIT_TIMEOUT");
    if (t && atoi(t) >= 1 && atoi(t) <= 3600)
        g_exit_timeout = atoi(t);
    point_nvtx_at_us();
    int version_ok = check_cupti() == 0;
    int cb = trc_callback_start();
    int act = version_ok ? trc_activity_start() : -1;
    if (cb != 0 && act != 0)
        trc_status("recording nothing: CUPTI refused both the callback and the activity API");
    if (act == 0)
        cuptiActivityFlushPeriod(1000); /* CUPTI delivers its buffers every second */
    pthread_atfork(NULL, NULL, on_fork_child);
    on_exit(at_exit, NULL);
    install_signal_handlers();
    pthread_t th;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        sigset_t all, old;
        sigfillset(&all); /* the job's signals go to the job's threads, not ours */
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int prc = pthread_create(&th, &attr, background, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (prc != 0)
            trc_status("cannot start the flush thread; records reach the disk only at exit");
        pthread_attr_destroy(&attr);
    }
    trc_out_flush();
    return 1;
}
