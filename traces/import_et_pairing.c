/*
 * import_et_pairing: before a Kineto trace's times are joined onto an Execution Trace, what both
 * files say about the job they recorded must agree (import_et_kineto.h, docs/import-pytorch.md
 * "Pairing checks"): the recording process (each rank of a distributed job is a process of its
 * own, so another rank's Kineto trace names another pid), the GPU, and the profiler's step
 * numbers where both have them. A value only one file states is not compared; the header says
 * what was. The op multiset is compared by the join itself (the 95% rule).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "import_et_kineto.h"

#define FORCE_HINT                                                                              \
    "pass the Kineto trace torch.profiler recorded in the same process and run as this ET, or " \
    "--kineto-force to join them anyway"

/* Appends printf-style text to buf (of n bytes, NUL-terminated), truncating. */
static void add(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t n, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    if (len + 1 < n)
        vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

int et_kineto_pairing(const et_trace *t, const kt_job *k, const char *et_path,
                      const char *kt_path, int force, char *summary, size_t n, gms_error *err)
{
    char bad[512] = "";
    summary[0] = '\0';
    if (t->pid >= 0 && k->pid >= 0) {
        add(summary, n, "pid %lld", t->pid);
        if (t->pid != k->pid)
            snprintf(bad, sizeof bad,
                     "the ET was recorded by process %lld, the Kineto trace by process %lld "
                     "(another rank's or another run's trace)",
                     t->pid, k->pid);
    } else {
        add(summary, n, "pid not compared");
    }
    if (t->cuda_device >= 0 && k->device >= 0) {
        add(summary, n, ", device cuda:%d", t->cuda_device);
        if (t->cuda_device != k->device && !bad[0])
            snprintf(bad, sizeof bad,
                     "the ET's tensors are on cuda:%d, the Kineto trace's kernels ran on GPU %d",
                     t->cuda_device, k->device);
    } else {
        add(summary, n, ", device not compared");
    }
    if (t->step_first >= 0 && k->step_first >= 0) {
        add(summary, n, ", ProfilerStep#%lld..%lld", t->step_first, t->step_last);
        if ((t->step_first < k->step_first || t->step_last > k->step_last) && !bad[0])
            snprintf(bad, sizeof bad,
                     "the ET holds ProfilerStep#%lld..%lld, the Kineto trace "
                     "ProfilerStep#%lld..%lld",
                     t->step_first, t->step_last, k->step_first, k->step_last);
    } else {
        add(summary, n, ", steps not compared");
    }
    if (k->rank >= 0)
        add(summary, n, "; Kineto: rank %lld of %lld (the ET records no rank)", k->rank,
            k->world);
    if (!bad[0])
        return 0;
    if (force) {
        char forced[1024];
        snprintf(forced, sizeof forced, "FORCED (--kineto-force): %s; %s", bad, summary);
        snprintf(summary, n, "%s", forced);
        return 0;
    }
    return gms_error_set(err, GMS_EFORMAT, "%s: the Kineto trace %s is not of this run: %s; %s",
                         et_path, kt_path, bad, FORCE_HINT);
}
