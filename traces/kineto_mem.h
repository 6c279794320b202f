/*
 * kineto_mem: the `[memory]` events of a Kineto / Chrome trace (torch.profiler with
 * profile_memory=True) as an allocation-only trace.
 *
 * Each CUDA memory event of the chosen device is one allocation (Bytes > 0) or free
 * (Bytes < 0) of the real caching allocator, with the block's address, its size (PyTorch
 * reports the rounded block size) and the allocator's own Total Allocated and Total Reserved
 * right after it (../shared/spec/wave2-notes.md, section 3b). Events are ordered by time,
 * ties by their Ev Idx.
 *
 * As .gmt events (docs/memory.md): an allocation is a CALL "alloc" with no inputs and one
 * output of its size, a free is a RELEASE of that output; costs are 0 (the trace has no
 * dependencies to rematerialize). A trace that starts in the middle of a run is primed first:
 * one CALL "preexisting" per block that the trace frees without having allocated it (address
 * order), one CONSTANT "preexisting-rest" for the rest of the bytes allocated before the first
 * event (never freed in the trace), and a CALL "cached-free" of the reserved-but-free bytes
 * before the first event, released at once, so that an allocator model starts with about the
 * reserved memory the real one held. The header's kineto_priming_ops counts those ops.
 */
#ifndef KINETO_MEM_H
#define KINETO_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gms_error.h"

typedef struct kmem_event {
    uint64_t addr;
    int64_t bytes;            /* > 0 allocation, < 0 free */
    uint64_t total_allocated; /* the allocator's own figures right after the event */
    uint64_t total_reserved;
    uint64_t id;              /* the tensor it allocates or frees in the .gmt form */
} kmem_event;

typedef struct kmem_trace {
    kmem_event *ev;
    size_t n;
    uint64_t *pre_sizes; /* blocks freed but never allocated in the trace (tensor ids 1..n) */
    size_t n_pre;
    uint64_t pre_rest;   /* bytes allocated before the first event and never freed */
    uint64_t initial_allocated, initial_reserved;
    uint64_t peak_allocated, peak_reserved;
    int device;
    char device_name[128];
    size_t other_events; /* memory events of other devices and of the CPU, left out */
} kmem_trace;

/* 1 when the start of the file (plain or gzip) is a Kineto/Chrome trace object. */
int kmem_sniff(const char *path);

/* Reads the memory events of the CUDA device with the most of them. Errors: not JSON, no
 * traceEvents, no CUDA memory events (record with profile_memory=True), inconsistent totals. */
int kmem_load(const char *path, kmem_trace **out, gms_error *err);
void kmem_free(kmem_trace *k);

/* Reads a whole file, gunzipping it when it is gzip-compressed. */
int kmem_read_file(const char *path, char **buf, size_t *len, gms_error *err);

/* For sniffers: reads up to len - 1 bytes of the start of a regular file (plain or gzip)
 * into buf, NUL-terminated, and returns where its text starts after white space; NULL when
 * the file is no regular file or cannot be read (reading ahead would eat a pipe's bytes that
 * another reader needs). */
const char *kmem_read_head(const char *path, char *buf, size_t len);

#endif

/* ---- the trace as .gmt events (kineto_mem_events.c) ------------------------------------- */
struct gmt_event;
typedef struct kmem_iter kmem_iter;

/* Takes ownership of k. */
int kmem_iter_new(kmem_trace *k, kmem_iter **out, gms_error *err);
/* As gmt_reader_next: 1 and *ev, 0 at the end. */
int kmem_iter_next(kmem_iter *it, struct gmt_event *ev, gms_error *err);
const kmem_trace *kmem_iter_trace(const kmem_iter *it);
void kmem_iter_free(kmem_iter *it);
/* Ops the priming adds before the trace's own events (kineto_priming_ops in the header). */
size_t kmem_priming_ops(const kmem_trace *k);
