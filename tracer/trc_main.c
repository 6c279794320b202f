/* trc_main: InitializeInjection, the entry point the CUDA driver calls when
 * CUDA_INJECTION64_PATH names libgpumemsim-tracer.so, and the end-of-job paths (see trc.h).
 *
 * End of job: atexit flushes CUPTI (FLUSH_FORCED), records the dropped-record count and an
 * "end" INFO, writes everything to disk, and only then calls cuptiFinalize (CUDA 13.0/13.1 can
 * crash at shutdown without it; if it crashes instead, the data is already on disk; set
 * GMS_TRACER_NO_FINALIZE=1 to skip it). Fatal signals flush what they can under a 3-second
 * alarm (a tracer must never hang the job), then the signal proceeds as it would have. */
#define _GNU_SOURCE
#include "trc.h"

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pid_t g_pid;
static volatile sig_atomic_t g_finished, g_in_signal;

static const int g_signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTERM, SIGINT};
#define N_SIGNALS ((int)(sizeof g_signals / sizeof g_signals[0]))
static struct sigaction g_old[N_SIGNALS];

static void write_end_info(const char *how)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)trc_activity_dropped());
    trc_out_info("dropped_records", buf);
    trc_out_info("end", how);
}

static void at_exit(void)
{
    if (getpid() != g_pid || g_finished)
        return;
    g_finished = 1;
    trc_activity_flush();
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
        trc_out_flush();
        alarm(0); /* the job's own handler may survive the signal: no stray alarm for it */
        g_in_signal = 0;
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

/* NVTX reaches CUPTI only through NVTX_INJECTION64_PATH = libcupti; `gpumemsim record` sets
 * it, and a job started by hand gets it here (before its first NVTX call, if that comes after
 * CUDA initialisation). */
static void point_nvtx_at_cupti(void)
{
    if (getenv("NVTX_INJECTION64_PATH"))
        return;
    Dl_info info;
    if (dladdr((void *)cuptiSubscribe, &info) && info.dli_fname)
        setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
}

__attribute__((visibility("default"))) int InitializeInjection(void);

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
    point_nvtx_at_cupti();
    int cb = trc_callback_start();
    int act = trc_activity_start();
    if (cb != 0 && act != 0)
        trc_status("recording nothing: CUPTI refused both the callback and the activity API");
    pthread_atfork(NULL, NULL, on_fork_child);
    atexit(at_exit);
    install_signal_handlers();
    trc_out_flush();
    return 1;
}
