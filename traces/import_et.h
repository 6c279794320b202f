/*
 * import_et: a PyTorch Execution Trace (torch.profiler.ExecutionTraceObserver, plain or gzip)
 * as a .gmt event stream. docs/import-pytorch.md states every rule and its limits.
 *
 * Three steps, one file each (and import_et_scan.c, the top-level JSON walk; import_et_source.c,
 * the gmt_source glue and header):
 *   import_et.c        reads the JSON node by node, checks the schema, normalizes both families
 *                      (1.0.x: tensors as [tensor_id, storage_id, offset, numel, itemsize,
 *                      device]; 1.1.x-chakra: inputs/outputs objects of values, shapes, types)
 *                      into et_node records, and picks the outermost operator of each thread;
 *   import_et_ops.c    turns those ops into events: storages, views (aliases), in-place
 *                      writes as new versions (views), constants, per-step inputs, releases
 *                      after the last use, iteration and backward annotations;
 *   import_et_cost.c   the roofline estimate of each op's cost from its shapes.
 * The Kineto join (import_et_kineto.h, `--kineto`) replaces import_et_cost's numbers with
 * measured ones: it gets the et_trace (ops with their name and step) before events are built.
 * A one-to-one join also hands over the run's allocations (et_trace.allocs), from which the
 * events take the storages' real lifetimes (import_et_lifetimes.h).
 */
#ifndef IMPORT_ET_H
#define IMPORT_ET_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

struct gmt_event;

/* One tensor value of an op's inputs or outputs. */
typedef struct et_tensor {
    uint64_t tensor_id, storage_id;
    uint64_t offset, numel, itemsize; /* offset and numel in elements */
    int cuda;                          /* device is "cuda" or "cuda:N" */
    int device;                        /* N of "cuda:N", -1 for "cuda" or another device */
} et_tensor;

/* One argument: a non-tensor value (n = 0), a tensor (n = 1) or a tensor list (n >= 0). */
typedef struct et_arg {
    uint32_t first; /* index into et_trace.tensors */
    uint32_t n;
    int is_tensor;  /* 1 for Tensor and GenericList[Tensor...] arguments */
    int64_t dim0, dim_last; /* a tensor's first and last dimension (0: unknown), for costs */
} et_arg;

/* An operator call the importer keeps: an outermost operator of its thread. */
typedef struct et_op {
    int64_t id;      /* node id: ids are taken when a call starts, so they order execution */
    int64_t rf_id;   /* record-function id (the Kineto join's key) */
    int64_t tid;
    const char *name;   /* ATen name ("aten::conv2d"), owned by the et_trace */
    const char *schema; /* "" when the node has none */
    uint32_t in_first, n_in, out_first, n_out; /* into et_trace.args */
    uint32_t hid_first, n_hid; /* into et_trace.hidden: outputs of its nested calls */
    int backward;    /* runs under an autograd engine function */
    int optimizer;   /* runs under an optimizer step (Optimizer.step#...) */
    int iter_start;  /* an iteration marker started before this op (and after the previous) */
    uint64_t dur_ns; /* filled by the cost estimate (or a later Kineto join) */
    int has_cost;
    /* Its call in the Kineto trace when a one-to-one join found it (kt_joined): the CPU
     * interval and thread, for the lifetimes from the memory events (import_et_lifetimes.c). */
    int64_t kt_ts, kt_end, kt_tid;
    int kt_joined;
    /* The modules around the call, outermost first, as a dotted path of the names of its
     * "nn.Module: NAME" record functions ("ResNet_0.Sequential_1.Bottleneck_0"), interned;
     * NULL outside every module. */
    const char *module_path;
} et_op;

/* One block the real caching allocator handed out during the run: a pair of the Kineto
 * trace's CUDA [memory] events (an allocation and the free of its address), set by a
 * one-to-one Kineto join (et_kineto_join), read by the lifetimes (import_et_lifetimes.c). */
typedef struct et_alloc {
    int64_t ts, free_ts; /* ns on the Kineto trace's clock; free_ts INT64_MAX: not freed in it */
    int64_t tid;         /* the CPU thread that asked for it */
    uint64_t bytes;      /* the block's size as PyTorch reports it (rounded to 512 bytes) */
} et_alloc;

typedef struct et_trace {
    char **strs;        /* names and schemas, each distinct text once */
    size_t n_strs;
    char schema[64];
    int chakra;          /* the 1.1.x-chakra family */
    et_op *ops;
    size_t n_ops;
    et_arg *args;
    size_t n_args;
    et_tensor *tensors;
    size_t n_tensors;
    uint32_t *hidden;   /* indices into args, grouped by op (et_op.hid_first) */
    size_t n_hidden;
    /* what the walk saw and left out, for the header */
    size_t nodes, nested_ops, wrappers, iterations;
    size_t module_calls; /* "nn.Module: NAME" record functions (layer scopes) */
    const char *iteration_marker; /* "ProfilerStep#", "## forward ##", "Optimizer.step" or "" */
    /* what the file says about the job, for the Kineto pairing checks (import_et_pairing.c) */
    long long pid;                /* the recording process, -1 when not given */
    int cuda_device;              /* the N of every "cuda:N" tensor; -1 none, -2 several */
    long long step_first, step_last; /* ProfilerStep#N numbers seen, -1 when none */
    /* the run's allocations by start time, from a one-to-one Kineto join (none without) */
    et_alloc *allocs;
    size_t n_allocs;
} et_trace;

/* 1 when the start of the file (plain or gzip) is a PyTorch Execution Trace object. */
int et_sniff(const char *path);

/* Reads path into *out. Errors name the file and say what to do: not JSON, a truncated gzip,
 * not an Execution Trace, a schema major this build does not know. */
int et_load(const char *path, et_trace **out, gms_error *err);
/* As et_load, from a buffer (the fuzz target's entry); name is used in messages. */
int et_load_buffer(const char *buf, size_t len, const char *name, et_trace **out,
                   gms_error *err);
void et_trace_free(et_trace *t);

/* ---- costs (import_et_cost.c) ------------------------------------------------------------ */
typedef struct et_cost_totals {
    size_t estimated, views, uncosted; /* ops with a roofline cost, views (free), none */
} et_cost_totals;

/* Fills every op's dur_ns with a roofline estimate on the named GPU (synth's table). Returns
 * GMS_EINVAL for an unknown GPU name. */
int et_estimate_costs(et_trace *t, const char *gpu, et_cost_totals *tot, gms_error *err);

/* ---- foreach ops (import_et_foreach.c) ---------------------------------------------------- */
/* A `_foreach_*` op applies one op to each element of its tensor lists: its parts, N when
 * every list argument holds the same N > 1 tensors (single tensors go to every part), else 1
 * (any other op too). */
uint32_t et_foreach_parts(const et_trace *t, const et_op *op);
/* The elements [*lo, *hi) of arg that part `part` of `parts` touches. */
void et_part_range(const et_arg *arg, uint32_t part, uint32_t parts, uint32_t *lo,
                   uint32_t *hi);
/* Bytes of the CUDA tensors part `part` touches (its share of the op's cost). */
uint64_t et_part_bytes(const et_trace *t, const et_op *op, uint32_t part, uint32_t parts);

/* ---- events (import_et_ops.c) ------------------------------------------------------------ */
typedef struct et_events et_events;

typedef struct et_event_totals {
    size_t ops, calls, aliases, constants, step_inputs, releases, backward_marks;
    size_t optimizer_marks;     /* optimizer steps marked (ANNOTATE optimizer) */
    size_t cpu_tensors;         /* tensor values not on a CUDA device, left out */
    size_t ops_without_cuda;    /* ops that touch no CUDA tensor, left out */
    size_t in_place_ops;        /* ops that write a tensor in place */
    size_t in_place_writes;     /* tensors written in place: each a new version (a view) */
    size_t mutations_in_calls;  /* in-place ops that also make new tensors */
    size_t constant_writes;     /* of the writes, those to a constant (an optimizer step) */
    size_t foreach_split;       /* `_foreach_*` ops replayed as one op per list element */
    size_t foreach_parts;       /* the ops they became */
    size_t gradients_held;      /* gradients kept to the end of their step (param.grad) */
    size_t state_held;          /* optimizer state made in a step, kept to its end */
    size_t stale_reads;         /* reads of a tensor older than its storage's latest write,
                                 * which read the latest version too */
    size_t storage_reuses;      /* a storage id that came back as a new allocation */
    size_t nested_outputs;      /* new storages made by nested calls, kept as outputs */
    size_t scopes;              /* layer scopes begun (module record functions) */
    uint64_t constant_bytes;
    /* lifetimes from a Kineto trace's memory events (import_et_lifetimes.c) */
    size_t kt_allocs;           /* allocations the run made during the ET's joined calls */
    size_t kt_matched;          /* new storages matched to one of them */
    size_t kt_later_frees;      /* of those, freed after the op that used them last */
    size_t kt_early_frees;      /* freed before their last use in the ET: kept to it */
    size_t kt_workspaces;       /* made and freed inside one op, no storage: its temporaries */
    uint64_t kt_workspace_max;  /* the largest of those */
    size_t kt_unmatched;        /* made during an op, outliving it, matching no storage */
} et_event_totals;

/* Builds the event list of t (costs must be filled). t must outlive the events. gpu (synth's
 * table, NULL for none) prices the host-to-device copy of a per-step input. */
struct gmt_synth_gpu;
int et_events_build(const et_trace *t, const struct gmt_synth_gpu *gpu, et_events **out,
                    et_event_totals *tot, gms_error *err);
/* As gmt_reader_next: 1 and *ev, 0 at the end. */
int et_events_next(et_events *e, struct gmt_event *ev);
void et_events_free(et_events *e);

/* ---- the ET as one gmt_source input (import_et_source.c) --------------------------------- */
typedef struct et_source et_source;

/* Loads, estimates costs on gpu (NULL: the default, ET_DEFAULT_GPU), replaces them with the
 * measured ones of the Kineto trace at kineto (NULL: none, import_et_kineto.h), after checking
 * that both files record the same job (et_kineto_pairing; kineto_force: a mismatch is only
 * reported), and builds events. With a Kineto trace and no gpu, the per-step inputs are
 * priced on the roofline GPU of the Kineto trace's device when the table has one. */
#define ET_DEFAULT_GPU "v100"
int et_source_open(const char *path, const char *gpu, const char *kineto, int kineto_force,
                   et_source **out, gms_error *err);
int et_source_next(et_source *s, struct gmt_event *ev);
size_t et_source_meta_count(const et_source *s);
void et_source_meta_at(const et_source *s, size_t i, const char **key, const char **value);
void et_source_close(et_source *s);

#endif
