/* perfetto: a simulated run as Chrome trace-event JSON, streamed (see perfetto.h). */
#include "perfetto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gms_tmpfile.h"
#include "gmt_outfile.h"

enum { TID_COMPUTE = 1, TID_EVICTIONS = 2, TID_D2H = 3, TID_H2D = 4 };

/* The counters, each remembered at its last written value so only changes are written. */
enum { C_RESIDENT, C_RESERVED, C_ALLOCATED, C_BUDGET, N_COUNTERS };
static const char *const counter_names[N_COUNTERS] = {"resident", "reserved", "allocated",
                                                      "budget"};

struct perfetto_writer {
    FILE *f;
    char *tmp, *path;
    perfetto_info info;
    uint64_t clock;            /* the clock after the last event: where the next slice starts */
    uint64_t memory;           /* resident bytes after the last event */
    uint64_t last[N_COUNTERS]; /* value last written per counter */
    uint64_t events;
    int io_error;              /* errno of the first failed write, or -1 for an unknown one */
};

/* A JSON string of s: escapes quotes, backslashes and control bytes, and writes any byte that
 * is not part of well-formed UTF-8 as U+FFFD, so strict parsers (jansson, Python) read any
 * op name a trace may hold. */
static void put_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    putc('"', f);
    while (*p) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            putc('\\', f);
            putc(c, f);
            p++;
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
            p++;
        } else if (c < 0x80) {
            putc(c, f);
            p++;
        } else {
            /* lead byte: length and the range its first continuation byte must be in */
            int n = 0;
            unsigned char lo = 0x80, hi = 0xBF;
            if (c >= 0xC2 && c <= 0xDF)
                n = 2;
            else if (c >= 0xE0 && c <= 0xEF) {
                n = 3;
                lo = c == 0xE0 ? 0xA0 : 0x80;
                hi = c == 0xED ? 0x9F : 0xBF;
            } else if (c >= 0xF0 && c <= 0xF4) {
                n = 4;
                lo = c == 0xF0 ? 0x90 : 0x80;
                hi = c == 0xF4 ? 0x8F : 0xBF;
            }
            int ok = n > 0 && p[1] >= lo && p[1] <= hi;
            for (int k = 2; ok && k < n; k++)
                ok = p[k] >= 0x80 && p[k] <= 0xBF;
            if (ok) {
                fwrite(p, 1, (size_t)n, f);
                p += n;
            } else {
                fputs("\\ufffd", f);
                p++;
            }
        }
    }
    putc('"', f);
}

/* ts in microseconds from a clock in ns, exactly (three decimals). */
static void put_ts(FILE *f, uint64_t ns)
{
    fprintf(f, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

/* Every event follows the metadata events, so each one starts with a separator. */
static void begin_event(perfetto_writer *w)
{
    w->events++;
    fputs(",\n", w->f);
}

static void counter(perfetto_writer *w, int which, uint64_t ns, uint64_t value, int force)
{
    if (!force && w->last[which] == value)
        return;
    w->last[which] = value;
    begin_event(w);
    /* a tid as well: Perfetto files a counter under the process of the event's thread */
    fprintf(w->f, "{\"ph\":\"C\",\"pid\":1,\"tid\":%d,\"name\":\"%s\",\"ts\":", TID_COMPUTE,
            counter_names[which]);
    put_ts(w->f, ns);
    fprintf(w->f, ",\"args\":{\"bytes\":%llu}}", (unsigned long long)value);
}

static void model_counters(perfetto_writer *w, uint64_t ns, const sim_event *ev)
{
    if (!w->info.memory_model)
        return;
    counter(w, C_RESERVED, ns, ev->reserved, 0);
    counter(w, C_ALLOCATED, ns, ev->allocated, 0);
}

static void metadata(perfetto_writer *w, const char *what, int tid, const char *name)
{
    fprintf(w->f, "{\"ph\":\"M\",\"pid\":1,");
    if (tid)
        fprintf(w->f, "\"tid\":%d,", tid);
    fprintf(w->f, "\"name\":\"%s\",\"args\":{\"name\":", what);
    put_string(w->f, name);
    fputs("}}", w->f);
}

int perfetto_open(const char *path, const perfetto_info *info, perfetto_writer **out,
                  gms_error *err)
{
    *out = NULL;
    if (path && strcmp(path, "-") == 0)
        return gms_error_set(err, GMS_EINVAL, "'-': the trace-event JSON needs a file name");
    perfetto_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path ? path : ""))) {
        free(w);
        return gms_error_set(err, GMS_ENOMEM, "out of memory opening %s", path);
    }
    int rc = gmt_outfile_create(path, &w->f, &w->tmp, err);
    if (rc) {
        free(w->path);
        free(w);
        return rc;
    }
    w->info = *info;
    w->info.title = NULL; /* not kept: the caller's string may die */
    w->clock = 1;         /* the simulator's clock starts at 1 */
    FILE *f = w->f;
    /* no displayTimeUnit: older Perfetto versions read "ns" there as the unit of ts itself */
    fputs("{\"traceEvents\":[\n", f);
    metadata(w, "process_name", 0, info->title ? info->title : "gpumemsim sim");
    fputs(",\n", f);
    metadata(w, "thread_name", TID_COMPUTE, "compute");
    fputs(",\n", f);
    metadata(w, "thread_name", TID_EVICTIONS, "evictions");
    if (info->swap) {
        fputs(",\n", f);
        metadata(w, "thread_name", TID_D2H, "copy device-to-host");
        fputs(",\n", f);
        metadata(w, "thread_name", TID_H2D, "copy host-to-device");
    }
    fputs(",\n{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_sort_index\",\"args\":"
          "{\"sort_index\":1}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":"
          "\"thread_sort_index\",\"args\":{\"sort_index\":2}}",
          f);
    /* every counter starts at 0 (the budget at its value) at time 0 */
    for (int c = 0; c < N_COUNTERS; c++) {
        if ((c == C_RESERVED || c == C_ALLOCATED) && !w->info.memory_model)
            continue;
        if (c == C_BUDGET && w->info.budget == UINT64_MAX)
            continue;
        counter(w, c, 0, c == C_BUDGET ? w->info.budget : 0, 1);
    }
    *out = w;
    return 0;
}

void perfetto_observe(void *vw, const sim_event *ev)
{
    perfetto_writer *w = vw;
    FILE *f = w->f;
    if (ev->kind == SIM_EV_COMPUTE || ev->kind == SIM_EV_REMAT) {
        int remat = ev->kind == SIM_EV_REMAT;
        uint64_t start = w->clock, end = ev->clock >= start ? ev->clock : start;
        /* the simulator adds all outputs, then drops copies already resident: the first
         * figure is the run's peak when this op sets it */
        uint64_t during = w->memory + ev->size;
        counter(w, C_RESIDENT, start, during, 0);
        model_counters(w, start, ev);
        begin_event(w);
        fprintf(f, "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"cat\":\"%s\",\"name\":", TID_COMPUTE,
                remat ? "remat" : "op");
        if (remat) {
            /* "remat <op>": a name of its own, so the UI colours and counts it apart */
            size_t n = strlen(ev->op ? ev->op : "?");
            char small[128], *name = n + 7 <= sizeof small ? small : malloc(n + 7);
            if (name) {
                snprintf(name, n + 7, "remat %s", ev->op ? ev->op : "?");
                put_string(f, name);
                if (name != small)
                    free(name);
            } else {
                put_string(f, "remat");
            }
        } else {
            put_string(f, ev->op ? ev->op : "?");
        }
        fputs(",\"ts\":", f);
        put_ts(f, start);
        fputs(",\"dur\":", f);
        put_ts(f, end - start);
        fprintf(f, ",\"args\":{\"op_index\":%llu,\"bytes\":%llu}}",
                (unsigned long long)ev->op_index, (unsigned long long)ev->size);
        counter(w, C_RESIDENT, end, ev->memory, 0);
        w->clock = end;
    } else if (ev->kind == SIM_EV_SWAP_DONE) {
        /* the device bytes of a swap-out are freed when its copy ends; the counter cannot go
         * back before what it already wrote, so a copy that ended during an op shows at the
         * op's end */
        counter(w, C_RESIDENT, ev->clock > w->clock ? ev->clock : w->clock, ev->memory, 0);
    } else if (ev->kind == SIM_EV_SWAP_OUT || ev->kind == SIM_EV_SWAP_IN) {
        /* a slice on its copy engine's track, from when the copy starts to when it ends */
        int out = ev->kind == SIM_EV_SWAP_OUT;
        begin_event(w);
        fprintf(f, "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"cat\":\"copy\",\"name\":\"%s\","
                   "\"ts\":",
                out ? TID_D2H : TID_H2D, out ? "swap out" : "swap in");
        put_ts(f, ev->copy_start);
        fputs(",\"dur\":", f);
        put_ts(f, ev->copy_end - ev->copy_start);
        fprintf(f, ",\"args\":{\"bytes\":%llu,\"storage\":%llu,\"op_index\":%llu}}",
                (unsigned long long)ev->size, (unsigned long long)ev->storage,
                (unsigned long long)ev->op_index);
        uint64_t at = ev->clock > w->clock ? ev->clock : w->clock;
        counter(w, C_RESIDENT, at, ev->memory, 0);
    } else {
        int eager = ev->kind == SIM_EV_EVICT_EAGER;
        uint64_t at = ev->clock > w->clock ? ev->clock : w->clock;
        begin_event(w);
        fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%d,\"cat\":\"%s\",\"name\":"
                   "\"%s\",\"ts\":",
                TID_EVICTIONS, eager ? "eager-free" : "evict", eager ? "free" : "evict");
        put_ts(f, at);
        fprintf(f, ",\"args\":{\"bytes\":%llu,\"storage\":%llu,\"op_index\":%llu}}",
                (unsigned long long)ev->size, (unsigned long long)ev->storage,
                (unsigned long long)ev->op_index);
        counter(w, C_RESIDENT, at, ev->memory, 0);
        model_counters(w, at, ev);
    }
    w->memory = ev->memory;
    if (!w->io_error && ferror(f))
        w->io_error = errno ? errno : -1;
}

uint64_t perfetto_events(const perfetto_writer *w)
{
    return w ? w->events : 0;
}

static void free_writer(perfetto_writer *w)
{
    if (w->tmp)
        gms_tmp_done(w->tmp); /* renamed into place or removed by now */
    free(w->tmp);
    free(w->path);
    free(w);
}

int perfetto_close(perfetto_writer *w, const sim_result *res, gms_error *err)
{
    if (!w)
        return 0;
    FILE *f = w->f;
    uint64_t end = res->clock > w->clock ? res->clock : w->clock;
    if (w->info.budget != UINT64_MAX) /* so the budget line spans the whole run */
        counter(w, C_BUDGET, end, w->info.budget, 1);
    fprintf(f, "\n],\n\"otherData\":{\"status\":\"%s\",\"clock_ns\":%llu,\"evictions\":%llu,"
               "\"eager_evictions\":%llu,\"remats\":%llu,\"peak_memory\":%llu",
            sim_status_name(res->status), (unsigned long long)res->clock,
            (unsigned long long)res->evictions, (unsigned long long)res->eager_evictions,
            (unsigned long long)res->remats, (unsigned long long)res->peak_memory);
    if (res->status == SIM_OK)
        fprintf(f, ",\"overhead\":%.17g", res->overhead);
    if (w->info.swap)
        fprintf(f, ",\"swaps_out\":%llu,\"swaps_in\":%llu,\"stall_ns\":%llu",
                (unsigned long long)res->swaps_out, (unsigned long long)res->swaps_in,
                (unsigned long long)res->stall_ns);
    fputs("}}\n", f);
    int e = w->io_error > 0 ? w->io_error : 0;
    int bad = w->io_error != 0 || ferror(f);
    if (fflush(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    w->f = NULL;
    int rc = 0;
    if (bad)
        rc = gms_error_set(err, GMS_EIO, "%s: write failed: %s", w->tmp,
                           e ? strerror(e) : "I/O error");
    else if (rename(w->tmp, w->path) != 0)
        rc = gms_error_set(err, GMS_EIO, "%s: cannot rename %s into place: %s", w->path,
                           w->tmp, strerror(errno));
    if (rc)
        remove(w->tmp);
    free_writer(w);
    return rc;
}

void perfetto_abort(perfetto_writer *w)
{
    if (!w)
        return;
    if (w->f)
        fclose(w->f);
    remove(w->tmp);
    free_writer(w);
}
