/* gpumemsim record: run a CUDA job under the CUPTI tracer and lift what it recorded into .gmt.
 *
 * The job runs as a child with CUDA_INJECTION64_PATH naming libgpumemsim-tracer.so; every
 * process that initialises CUDA writes its own raw file into a private directory. Lifting
 * happens here, after the job has ended, so a job that crashes still leaves what it flushed.
 * No CUDA headers: this file only execs. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli.h"
#include "lift.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define CMD "record"
#define TRACER_NAME "libgpumemsim-tracer.so"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpumemsim record -o OUT.gmt [--pytorch] [--raw-keep] [--raw-dir DIR]\n"
            "                        [--nvtx-domains LIST] [--drop-end-pointers] -- CMD [ARGS...]\n\n"
            "Runs CMD with the CUPTI tracer injected (CUDA_INJECTION64_PATH) and writes what it\n"
            "did on the GPU as a .gmt trace: allocations, kernels grouped into ops by NVTX\n"
            "ranges, frees, and 'gpumemsim:iteration' ranges as iteration marks.\n\n"
            "  -o, --output OUT.gmt  the trace to write (atomically; nothing on failure)\n"
            "  --pytorch             set PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync so every\n"
            "                        tensor allocation is visible (not just allocator segments)\n"
            "  --raw-keep            keep the raw per-process records (printed path)\n"
            "  --raw-dir DIR         put the raw records in DIR (default: beside OUT)\n"
            "  --nvtx-domains LIST   comma-separated NVTX domains whose ranges also form ops\n"
            "                        ('*' = all); default: only the default domain, so the\n"
            "                        ranges libraries emit (cuBLAS, cuDNN, NCCL, CUB) are ignored\n"
            "  --drop-end-pointers   a kernel argument one past the end of another argument's\n"
            "                        allocation that starts the next allocation is an end bound,\n"
            "                        not a use of the next allocation (default: a use; counted)\n\n"
            "The exit status is CMD's (128+N if a signal N ended it). A process of CMD that\n"
            "initialises CUDA is traced; when several do, the busiest goes to OUT and the others\n"
            "to OUT with .pid<N> before the extension. The tracer library is looked up in\n"
            "GMS_TRACER_LIB, then beside this gpumemsim's build tree or install prefix.\n"
            "See docs/tracer.md for what is inferred and its limits.\n");
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The tracer library: $GMS_TRACER_LIB, else next to this executable's build tree
 * (build/cli/gpumemsim -> build/tracer/) or install prefix (bin/ -> lib*). */
static int find_tracer(char *out, size_t len)
{
    const char *env = getenv("GMS_TRACER_LIB");
    if (env && *env) {
        if (!file_exists(env)) {
            cli_error(CMD, "GMS_TRACER_LIB=%s: no such file; unset it or point it at %s", env,
                      TRACER_NAME);
            return -1;
        }
        snprintf(out, len, "%s", env);
        return 0;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        static const char *const rel[] = {"../tracer/", "", "../lib/", "../lib64/",
                                          "../lib/x86_64-linux-gnu/", "../lib/aarch64-linux-gnu/"};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            char cand[4096 + 64];
            snprintf(cand, sizeof cand, "%s/%s%s", exe, rel[i], TRACER_NAME);
            if (file_exists(cand) && strlen(cand) < len) {
                char *real = realpath(cand, NULL);
                snprintf(out, len, "%s", real ? real : cand);
                free(real);
                return 0;
            }
        }
    }
    cli_error(CMD,
              "no tracer library (%s) next to this gpumemsim: the CUDA toolkit with CUPTI was not "
              "found when gpumemsim was built, so the tracer was not built; install the CUDA "
              "toolkit (with CUPTI) and rebuild, or set GMS_TRACER_LIB to the library",
              TRACER_NAME);
    return -1;
}

static volatile sig_atomic_t g_child;

/* SIGINT/SIGTERM sent to gpumemsim itself (kill, a batch system) go on to the job. Signals from
 * the terminal already reach the job (same process group), so they are not sent twice. */
static void forward_signal(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    if (g_child > 0 && info && (info->si_code == SI_USER || info->si_code == SI_QUEUE))
        kill((pid_t)g_child, sig);
}

/* Runs argv with the tracer environment; returns the job's exit status in shell form (or
 * -1 when it could not be started: message printed). */
static int run_job(char **argv)
{
    int pipefd[2];
    if (pipe(pipefd) != 0) {
        cli_error(CMD, "pipe: %s", strerror(errno));
        return -1;
    }
    fcntl(pipefd[1], F_SETFD, FD_CLOEXEC);
    fcntl(pipefd[0], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        cli_error(CMD, "fork: %s", strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        close(pipefd[0]);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(pipefd[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(pipefd[1]);
    g_child = pid;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int exec_errno = 0;
    ssize_t got;
    do
        got = read(pipefd[0], &exec_errno, sizeof exec_errno);
    while (got < 0 && errno == EINTR);
    close(pipefd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    g_child = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (got == (ssize_t)sizeof exec_errno) {
        cli_error(CMD, "cannot run '%s': %s%s", argv[0], strerror(exec_errno),
                  exec_errno == ENOENT ? " (not found in PATH; give a path or fix the name)" : "");
        return -1;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

typedef struct raw_file {
    char path[4600];
    long long size;
    int pid;
} raw_file;

static int cmp_raw(const void *a, const void *b)
{
    const raw_file *x = a, *y = b;
    return x->size < y->size ? 1 : x->size > y->size ? -1 : x->pid - y->pid;
}

/* The raw files in dir (gms-<pid>*.raw), busiest first. Caller frees *out. */
static size_t list_raw(const char *dir, raw_file **out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0, cap = 0;
    raw_file *v = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "gms-", 4) != 0 || l < 8 || strcmp(e->d_name + l - 4, ".raw") != 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            raw_file *nv = realloc(v, cap * sizeof *nv);
            if (!nv)
                break;
            v = nv;
        }
        raw_file *r = &v[n];
        snprintf(r->path, sizeof r->path, "%s/%s", dir, e->d_name);
        struct stat st;
        r->size = stat(r->path, &st) == 0 ? (long long)st.st_size : 0;
        r->pid = atoi(e->d_name + 4);
        n++;
    }
    closedir(d);
    if (n)
        qsort(v, n, sizeof *v, cmp_raw);
    *out = v;
    return n;
}

/* OUT.gmt -> OUT.pid<N>.gmt for the other traced processes. */
static void sibling_name(const char *out, int pid, char *buf, size_t len)
{
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (!dot || (slash && dot < slash))
        snprintf(buf, len, "%s.pid%d", out, pid);
    else
        snprintf(buf, len, "%.*s.pid%d%s", (int)(dot - out), out, pid, dot);
}

/* 1 when the job's program looks like a Python interpreter (python, python3, python3.12). */
static int is_python(const char *prog)
{
    const char *base = strrchr(prog, '/');
    base = base ? base + 1 : prog;
    return strncmp(base, "python", 6) == 0;
}

static void print_summary(const char *path, const trc_lift_stats *st, const char *warning,
                          const char *prog)
{
    char peak[32], size[32];
    struct stat sb;
    cli_format_bytes(st->peak_bytes, peak, sizeof peak);
    cli_format_bytes(stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0, size, sizeof size);
    printf("%s: %llu events, %llu ops (%llu kernels), %llu constants, %llu iterations, "
           "peak %s allocated, trace %s, %llu dropped records%s%s\n",
           path, (unsigned long long)st->events, (unsigned long long)st->ops,
           (unsigned long long)st->kernels, (unsigned long long)st->constants,
           (unsigned long long)st->iterations, peak, size,
           (unsigned long long)st->dropped_records, st->device[0] ? ", device " : "", st->device);
    if (st->dropped_records)
        fprintf(stderr, "gpumemsim record: warning: CUPTI dropped %llu records; rerun with "
                "GMS_TRACER_BUFFER_MB=64 (or more)\n", (unsigned long long)st->dropped_records);
    if (st->status[0])
        fprintf(stderr, "gpumemsim record: warning: tracer: %s\n", st->status);
    if (!st->clean_end)
        fprintf(stderr, "gpumemsim record: warning: the job did not exit normally; the trace "
                "holds what was flushed before it died\n");
    if (st->alloc_source == TRC_ALLOCS_MEMORY2 && st->alloc_records_memory2)
        fprintf(stderr, "gpumemsim record: warning: the allocation callbacks recorded nothing; "
                "allocations come from CUPTI's MEMORY2 records\n");
    if (st->alloc_source == TRC_ALLOCS_CALLBACKS &&
        st->alloc_records_memory2 > st->alloc_records_callbacks)
        fprintf(stderr, "gpumemsim record: warning: CUPTI saw %llu allocations, the callbacks "
                "%llu: some allocation path is not hooked (see docs/tracer.md)\n",
                (unsigned long long)st->alloc_records_memory2,
                (unsigned long long)st->alloc_records_callbacks);
    if (st->thread_ids_mismatch)
        fprintf(stderr, "gpumemsim record: warning: NVTX and launch thread ids never matched; "
                "ranges were applied across threads\n");
    if (st->markers == 0 && is_python(prog))
        fprintf(stderr, "gpumemsim record: warning: no NVTX range reached the tracer, so every "
                "kernel is its own op and no iteration is marked; PyTorch names ops only under "
                "torch.autograd.profiler.emit_nvtx() (see docs/tracer.md)\n");
    if (st->foreign_markers)
        fprintf(stderr, "gpumemsim record: note: %llu NVTX ranges of other domains (%s) were "
                "ignored; --nvtx-domains makes them ops\n",
                (unsigned long long)st->foreign_markers, st->foreign_domains);
    if (st->past_end_refs)
        fprintf(stderr, "gpumemsim record: note: %llu kernel arguments were one past the end of "
                "one allocation and the start of the next; taken as uses of the next%s\n",
                (unsigned long long)st->past_end_refs,
                " (--drop-end-pointers takes them as end bounds)");
    if (st->setup_state)
        fprintf(stderr, "gpumemsim record: note: %llu allocations alive at the first iteration "
                "and freed inside it are setup_state outputs, not constants\n",
                (unsigned long long)st->setup_state);
    if (st->setup_kernels)
        fprintf(stderr, "gpumemsim record: note: %llu kernels before the first "
                "gpumemsim:iteration range were left out as setup\n",
                (unsigned long long)st->setup_kernels);
    if (warning && warning[0])
        fprintf(stderr, "gpumemsim record: warning: %s\n", warning);
    if (st->freed_refs || st->unresolved_refs || st->launches_without_kernel ||
        st->kernels_without_launch)
        fprintf(stderr,
                "gpumemsim record: note: %llu references to freed memory and %llu to unknown "
                "memory ignored; %llu launches without kernel record, %llu kernels without "
                "launch record\n",
                (unsigned long long)st->freed_refs, (unsigned long long)st->unresolved_refs,
                (unsigned long long)st->launches_without_kernel,
                (unsigned long long)st->kernels_without_launch);
}

static void remove_dir(const char *dir, const raw_file *raws, size_t n)
{
    for (size_t i = 0; i < n; i++)
        unlink(raws[i].path);
    rmdir(dir);
}

static int set_pytorch_env(void)
{
    const char *cur = getenv("PYTORCH_CUDA_ALLOC_CONF");
    if (!cur || !*cur)
        return setenv("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync", 1);
    if (strstr(cur, "backend:")) {
        if (!strstr(cur, "backend:cudaMallocAsync"))
            fprintf(stderr, "gpumemsim record: warning: PYTORCH_CUDA_ALLOC_CONF=%s picks its own "
                    "backend; the trace will show allocator segments, not tensors\n", cur);
        return 0;
    }
    size_t len = strlen(cur) + 32;
    char *v = malloc(len);
    if (!v)
        return -1;
    snprintf(v, len, "%s,backend:cudaMallocAsync", cur);
    int rc = setenv("PYTORCH_CUDA_ALLOC_CONF", v, 1);
    free(v);
    return rc;
}

int cmd_record(int argc, char **argv)
{
    const char *out = NULL, *raw_dir_arg = NULL, *domains = NULL;
    int pytorch = 0, keep = 0, drop_end = 0, dashdash = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            dashdash = i;
            break;
        } else if (cli_is_help(a)) {
            usage(stdout);
            return 0;
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(a, "--raw-dir") == 0 && i + 1 < argc) {
            raw_dir_arg = argv[++i];
        } else if (strcmp(a, "--nvtx-domains") == 0 && i + 1 < argc) {
            domains = argv[++i];
        } else if (strcmp(a, "--drop-end-pointers") == 0) {
            drop_end = 1;
        } else if (strcmp(a, "--pytorch") == 0) {
            pytorch = 1;
        } else if (strcmp(a, "--raw-keep") == 0) {
            keep = 1;
        } else {
            cli_error(CMD, "unexpected argument '%s'; the command to trace goes after '--' "
                      "(gpumemsim record -o job.gmt -- python train.py)", a);
            return 2;
        }
    }
    if (!out) {
        cli_error(CMD, "missing -o OUT.gmt (where to write the trace)");
        return 2;
    }
    if (dashdash < 0) {
        cli_error(CMD, "missing '--' before the command to trace "
                  "(gpumemsim record -o %s -- CMD ARGS...)", out);
        return 2;
    }
    if (dashdash + 1 >= argc) {
        cli_error(CMD, "missing the command to trace after '--'");
        return 2;
    }
    char tracer[4096];
    if (find_tracer(tracer, sizeof tracer) != 0)
        return 1;

    char raw_dir[4200];
    if (raw_dir_arg) {
        snprintf(raw_dir, sizeof raw_dir, "%s", raw_dir_arg);
        if (mkdir(raw_dir, 0755) != 0 && errno != EEXIST) {
            cli_error(CMD, "%s: cannot create the raw record directory: %s", raw_dir,
                      strerror(errno));
            return 1;
        }
    } else {
        snprintf(raw_dir, sizeof raw_dir, "%s.raw.XXXXXX", out);
        if (!mkdtemp(raw_dir)) {
            cli_error(CMD, "%s: cannot create a directory beside the output: %s; check that "
                      "the output's directory exists and is writable", raw_dir, strerror(errno));
            return 1;
        }
    }
    /* absolute: the job may change directory before it initialises CUDA */
    char *abs_dir = realpath(raw_dir, NULL);
    if (abs_dir) {
        snprintf(raw_dir, sizeof raw_dir, "%s", abs_dir);
        free(abs_dir);
    }
    if (setenv("CUDA_INJECTION64_PATH", tracer, 1) != 0 ||
        setenv("GMS_TRACE_DIR", raw_dir, 1) != 0 ||
        /* the tracer forwards NVTX to the very libcupti that records the activities (a
         * PyTorch job has its own copy loaded before us: a path to another copy would route
         * NVTX into a second CUPTI instance that records nothing) */
        setenv("NVTX_INJECTION64_PATH", tracer, 1) != 0 ||
        (pytorch && set_pytorch_env() != 0)) {
        cli_error(CMD, "cannot set the tracer environment: %s", strerror(errno));
        rmdir(raw_dir);
        return 1;
    }

    int code = run_job(argv + dashdash + 1);
    raw_file *raws = NULL;
    size_t n_raw = list_raw(raw_dir, &raws);
    if (code < 0) {
        if (!keep)
            remove_dir(raw_dir, raws, n_raw);
        free(raws);
        return 127;
    }
    int rc = 0;
    if (n_raw == 0) {
        cli_error(CMD, "no CUDA activity was recorded: '%s' never initialised CUDA (the "
                  "tracer wrote nothing); %s not written", argv[dashdash + 1], out);
        rc = 1;
    }
    int written = 0;
    for (size_t i = 0; i < n_raw; i++) {
        char path[4400], warning[512];
        if (written == 0) /* the busiest process that did something gets OUT itself */
            snprintf(path, sizeof path, "%s", out);
        else
            sibling_name(out, raws[i].pid, path, sizeof path);
        trc_lift_stats st;
        gms_error err = {0};
        trc_lift_opts opts = {.nvtx_domains = domains, .drop_past_end = drop_end};
        int lrc = trc_lift_to_gmt_opt(raws[i].path, path, &opts, &st, warning, sizeof warning,
                                      &err);
        if (lrc == GMS_EINVAL && n_raw > 1)
            continue; /* a process that initialised CUDA but did nothing */
        if (lrc != 0) {
            cli_error(CMD, "%s%s", err.msg,
                      lrc == GMS_EINVAL ? "; check that the job really ran on the GPU" : "");
            rc = 1;
            continue;
        }
        print_summary(path, &st, warning, argv[dashdash + 1]);
        written++;
    }
    if (n_raw > 0 && written == 0 && rc == 0) { /* every process was skipped as idle */
        cli_error(CMD, "no CUDA activity was recorded: the %zu processes of '%s' that "
                  "initialised CUDA ran no kernel and allocated no device memory; %s not written",
                  n_raw, argv[dashdash + 1], out);
        rc = 1;
    }
    if (keep && n_raw > 0)
        printf("raw records kept in %s\n", raw_dir);
    else
        remove_dir(raw_dir, raws, n_raw);
    free(raws);
    if (code != 0) {
        if (rc == 0)
            fprintf(stderr, "gpumemsim record: note: the job exited with status %d\n", code);
        return code; /* the job's failure wins: scripts see why it failed */
    }
    return rc;
}
