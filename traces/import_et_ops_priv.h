/*
 * import_et_ops_priv: the event builder's records (import_et_ops.c), shared with the lifetimes
 * from a Kineto trace's memory events (import_et_lifetimes.c). Not an interface: both files
 * are one builder split by concern.
 */
#ifndef IMPORT_ET_OPS_PRIV_H
#define IMPORT_ET_OPS_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "addr_map.h"
#include "gmt.h"
#include "import_et.h"

#define NO_HANDLE UINT32_MAX

typedef struct gen { /* one life of a storage id */
    uint64_t size;
    uint32_t base;      /* its first handle */
    uint32_t first_use; /* op index */
    uint32_t latest;    /* the handle of its latest version (NO_HANDLE: never written) */
    uint32_t version;   /* in-place writes so far */
    uint8_t preexisting, reused;
    uint8_t read_by_optimizer; /* an op of an optimizer step reads it */
    uint8_t written_with_grad; /* an optimizer op that reads a gradient writes it */
    uint8_t freed_at_known;    /* a Kineto allocation matched it: free_ts is the real free */
    int64_t free_ts;
} gen;

typedef struct handle {
    uint32_t gen, last_use;
    uint32_t ver;       /* the gen's version when this handle was made */
    uint8_t is_version; /* made by an in-place write */
} handle;

typedef struct rec { /* one op's event */
    uint32_t op;        /* index into t->ops */
    uint64_t dur_ns;    /* the op's cost, or its part's share of it (et_foreach_parts) */
    uint32_t in_first, n_in, out_first, n_out;
    int iter_start; /* an iteration starts here (or at an op left out just before) */
} rec;

enum {
    IT_START,
    IT_CONST,
    IT_STEPIN,
    IT_ITER,
    IT_BWD,
    IT_OPT,
    IT_OP,
    IT_RELEASE,
    IT_SCOPE_BEGIN,
    IT_SCOPE_END
};
typedef struct item {
    uint32_t kind, ref; /* a handle (CONST, STEPIN, RELEASE), a rec (OP), a scope name
                         * (SCOPE_BEGIN) */
} item;

typedef struct scope_name { /* the first len bytes of a module path */
    const char *path;
    uint32_t len;
} scope_name;

#define VEC(T)          \
    struct {            \
        T *v;           \
        size_t n, cap;  \
    }

struct et_events {
    const et_trace *t;
    VEC(gen) gens;
    VEC(handle) handles;
    VEC(rec) recs;
    VEC(uint64_t) ins;
    VEC(gmt_output) outs;
    VEC(uint32_t) muts; /* the op being built's written inputs: (input index, tensor id) */
    VEC(uint64_t) mut_tids;
    VEC(item) items;
    VEC(scope_name) scope_names;
    size_t pos;
    uint64_t split_total, split_given; /* the foreach op being split: bytes, cost handed out */
    uint32_t op_first_rec;             /* the rec of its first part */
    addr_map storages, tensors; /* ET storage id -> gen, ET tensor id -> handle */
    uint64_t *step_cost; /* per gen: the host-to-device copy of a step input */
    gmt_output one_out;
    char scope_text[4096]; /* the SCOPE event being handed out */
    /* the module path whose scopes are open while events are ordered (depth components) */
    const char *open_path;
    uint32_t open_depth;
};

/* Grows a VEC's array to hold need elements; -1 when out of memory. */
int et_vgrow(void **v, size_t *cap, size_t need, size_t size);

/* Appends x to a VEC; -1 when out of memory. */
#define PUSH(vec, x)                                                           \
    (et_vgrow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v)    \
         ? -1                                                                  \
         : ((vec).v[(vec).n++] = (x), 0))

/* Lifetimes from the run's allocations (t->allocs, import_et_lifetimes.c). After op k's recs
 * were built (its first gen gens_before): matches its new storages to the allocations made
 * during its Kineto call, and gives the allocations made and freed inside the call that no
 * storage matched (a kernel's own workspace) to its last rec as outputs released right after
 * it. 0, or -1 when out of memory. */
int et_lifetimes_op(et_events *e, uint32_t k, size_t gens_before, et_event_totals *tot);
/* After every op: a matched storage is released after the op during which its real free came
 * (never before its last use). 0, or -1 when out of memory. */
int et_lifetimes_apply(et_events *e, et_event_totals *tot);

#endif
