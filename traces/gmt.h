/*
 * gmt: the gpumemsim trace (.gmt) event model, writer and streaming reader.
 *
 * A trace is a header (format version + key/value metadata) followed by a sequence of events
 * in program order. The vocabulary maps one-to-one onto the DTR JSON logs (see
 * ../shared/spec/dtr-semantics.md section 1 and docs/trace-format.md for the bytes):
 *
 *   CONSTANT id size                      a weight/input tensor that exists before the step
 *   CALL op dur inputs... -> outputs...   an op; each output is a new tensor with its own
 *                                         storage (alias_of = -1) or a view of input alias_of
 *   MUTATE op dur inputs... mutated...    in-place op on inputs[mutated[i]]
 *   COPY dst src                          dst becomes another handle of tensor src
 *   COPY_FROM dst src                     handle dst is rebound to src (old target released)
 *   RELEASE id                            a handle dies
 *   ANNOTATE kind [value]                 "START", "BACKWARD", "iteration" (value = input size)
 *   NAME id text                          display name of tensor id when it is not "x<id>"
 *   SCOPE begin name / SCOPE end          a layer scope (module path such as "h.3.attn")
 *                                         opens or the innermost open one closes; scopes
 *                                         nest, balance, and change nothing in the replay
 *                                         (format 1.1, docs/trace-format.md section 2.4)
 *
 * Tensor ids are 64-bit handles. Op names are strings (interned in the file's string table;
 * the reader hands back pointers that stay valid until gmt_reader_close).
 *
 * Ownership: every pointer inside a gmt_event returned by a reader points into the reader and
 * stays valid until the next call to *_next or *_close. Writers copy what they need.
 */
#ifndef GMT_H
#define GMT_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

/* Format version this build writes; readers accept any minor of the same major. */
#define GMT_VERSION_MAJOR 1
#define GMT_VERSION_MINOR 1

typedef enum gmt_kind {
    GMT_CONSTANT = 1,
    GMT_CALL = 2,
    GMT_MUTATE = 3,
    GMT_COPY = 4,
    GMT_COPY_FROM = 5,
    GMT_RELEASE = 6,
    GMT_ANNOTATE = 7,
    GMT_NAME = 8,
    GMT_SCOPE = 9, /* since 1.1: not counted in frames' event counts (a 1.0 reader skips it) */
} gmt_kind;

#define GMT_KIND_COUNT 10 /* kinds are 1..9; arrays indexed by kind use this size */

/* Printable name of a kind ("CALL"...), "?" for an unknown value. */
const char *gmt_kind_name(gmt_kind kind);

typedef struct gmt_output {
    uint64_t id;      /* the new tensor */
    uint64_t size;    /* bytes; kept for views too (DTR logs carry a MEMORY line for them) */
    int32_t alias_of; /* -1: a new storage; >= 0: index into the op's inputs it is a view of */
} gmt_output;

typedef struct gmt_event {
    gmt_kind kind;
    uint64_t id;          /* CONSTANT, RELEASE, NAME: the tensor; COPY, COPY_FROM: dst */
    uint64_t src;         /* COPY, COPY_FROM */
    uint64_t size;        /* CONSTANT: bytes */
    const char *op;       /* CALL, MUTATE: op name (NUL-terminated) */
    uint64_t dur_ns;      /* CALL, MUTATE: cost in the trace's time unit (ns) */
    uint32_t n_inputs;    /* CALL, MUTATE */
    const uint64_t *inputs;
    uint32_t n_outputs;   /* CALL */
    const gmt_output *outputs;
    uint32_t n_mutated;   /* MUTATE: indices into inputs */
    const uint32_t *mutated;
    const char *text;     /* ANNOTATE: kind ("START"...); NAME: display name */
    int has_value;        /* ANNOTATE: 1 when value is present */
    int64_t value;        /* ANNOTATE */
    int scope_end;        /* SCOPE: 0 = scope `text` begins; 1 = the innermost open scope ends
                           * (readers set text to its name; writers accept NULL or its name) */
} gmt_event;

/* Resets ev to an empty event of the given kind (all counts 0, pointers NULL). */
void gmt_event_init(gmt_event *ev, gmt_kind kind);

/* Makes ev a SCOPE event (what an importer calls for each module entry and exit):
 * end = 0: the scope `name` begins (a module path, 1..4095 bytes, e.g. "h.3.attn");
 * end = 1: the innermost open scope ends; name may be NULL, else it must be that scope's.
 * ev keeps a pointer to name. */
void gmt_event_scope(gmt_event *ev, const char *name, int end);

/* Checks the invariants a consumer relies on (alias_of < n_inputs, mutated[i] < n_inputs,
 * strings present where required). Returns 0 or GMS_EFORMAT with a message naming the field. */
int gmt_event_validate(const gmt_event *ev, gms_error *err);

/* ------------------------------------------------------------------------------------------
 * Writer. Writes to PATH.tmp and renames onto PATH in gmt_writer_close, so a failed or
 * aborted write never leaves a partial PATH behind.
 */
typedef struct gmt_writer gmt_writer;

int gmt_writer_open(const char *path, gmt_writer **out, gms_error *err);
/* Adds header metadata; only before the first event. Well-known keys: producer, source,
 * model, device, device_memory, time_unit (default "ns"). */
int gmt_writer_meta(gmt_writer *w, const char *key, const char *value, gms_error *err);
int gmt_writer_write(gmt_writer *w, const gmt_event *ev, gms_error *err);
/* Flushes, closes and atomically renames into place. Frees w even on failure. */
int gmt_writer_close(gmt_writer *w, gms_error *err);
/* Discards everything written so far (removes the temporary file) and frees w. */
void gmt_writer_abort(gmt_writer *w);

/* ------------------------------------------------------------------------------------------
 * Streaming reader: memory independent of the trace's length (bounded by the largest event
 * and the string table).
 */
typedef struct gmt_reader gmt_reader;

int gmt_reader_open(const char *path, gmt_reader **out, gms_error *err);
/* Reads the next event into *ev. Returns 1 when an event was read, 0 at the end of the trace,
 * and a negative value on error (err says "FILE: event N: what is wrong"). A truncated file
 * ends with 0 after its last complete event, and gmt_reader_warning() then says so. */
int gmt_reader_next(gmt_reader *r, gmt_event *ev, gms_error *err);
/* Header metadata: value for key, or NULL. */
const char *gmt_reader_meta(const gmt_reader *r, const char *key);
size_t gmt_reader_meta_count(const gmt_reader *r);
void gmt_reader_meta_at(const gmt_reader *r, size_t i, const char **key, const char **value);
/* "FILE: truncated after event N" once the end of a truncated file was reached, else NULL. */
const char *gmt_reader_warning(const gmt_reader *r);
uint64_t gmt_reader_events_read(const gmt_reader *r);
void gmt_reader_close(gmt_reader *r);

/* ------------------------------------------------------------------------------------------
 * Source: one reader interface over every trace file gpumemsim understands (.gmt, DTR JSON
 * log). The format is sniffed from the file's first bytes, not its name.
 */
typedef struct gmt_source gmt_source;

typedef enum gmt_format {
    GMT_FORMAT_GMT = 1,
    GMT_FORMAT_DTR_LOG = 2,
    GMT_FORMAT_KINETO_MEMORY = 3, /* a Kineto trace's [memory] events (kineto_mem.h) */
    GMT_FORMAT_PYTORCH_ET = 4,    /* a PyTorch Execution Trace (import_et.h) */
} gmt_format;

int gmt_source_open(const char *path, gmt_source **out, gms_error *err);

/* Settings of the importers that need them; NULL or zeroed fields take each default. */
typedef struct gmt_source_options {
    const char *gpu; /* importers that estimate op costs (PyTorch ET): one of synth's GPUs */
    const char *kineto; /* PyTorch ET: the run's Kineto trace, for measured op costs */
    int kineto_force;   /* join it even when the files disagree on the job (pid, GPU, steps) */
} gmt_source_options;
int gmt_source_open_with(const char *path, const gmt_source_options *opt, gmt_source **out,
                         gms_error *err);
int gmt_source_next(gmt_source *s, gmt_event *ev, gms_error *err); /* as gmt_reader_next */
gmt_format gmt_source_format(const gmt_source *s);
const char *gmt_source_meta(const gmt_source *s, const char *key);
size_t gmt_source_meta_count(const gmt_source *s);
void gmt_source_meta_at(const gmt_source *s, size_t i, const char **key, const char **value);
const char *gmt_source_warning(const gmt_source *s);
void gmt_source_close(gmt_source *s);

#endif
