/*
 * trc_raw: the raw record file the CUPTI tracer writes and the lifter reads.
 *
 * One file per traced process ("gms-<pid>.raw" in $GMS_TRACE_DIR). It holds what CUPTI and the
 * launch callbacks saw, almost unprocessed, so that all inference (ordering, op grouping, inputs
 * vs outputs) happens afterwards in the lifter (lift.h), pure C and testable without a GPU.
 *
 * Bytes (all integers little-endian):
 *   file header  "GMSRAW01" (8 bytes), u32 version (1), u32 pid, u64 reserved
 *   record       u32 type, u32 payload length, payload
 *   payload      12 x u64: ts end corr corr2 addr bytes stream thread flags id aux value
 *                u32 n_ptrs, u32 name_len, u32 text_len, u32 reserved
 *                n_ptrs x u64 ptrs, name bytes, text bytes (no NUL terminators)
 * The payload length must equal the sum of those parts exactly; anything else is corruption.
 * A file cut short (the job was killed) ends after its last complete record.
 *
 * The encoder is shared by the tracer library (tracer/trc_*.c) and the tests, which build
 * hand-made raw files; it never allocates.
 */
#ifndef TRC_RAW_H
#define TRC_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "gms_error.h"

#define TRC_RAW_MAGIC "GMSRAW01"
#define TRC_RAW_VERSION 1u
#define TRC_RAW_HEADER_SIZE 24u
#define TRC_RAW_FIXED_PAYLOAD (12u * 8u + 4u * 4u)
#define TRC_RAW_MAX_RECORD (1u << 20) /* larger records are corruption */
#define TRC_RAW_MAX_PTRS 4096u

typedef enum trc_rec_type {
    /* MEMORY2 activity. ts, addr, bytes, stream, corr; flags = memory kind (TRC_MEM_*);
     * aux = memory pool base address (0: not a pool allocation); id = 1 if asynchronous. */
    TRC_REC_ALLOC = 1,
    TRC_REC_FREE = 2,
    /* CONCURRENT_KERNEL activity. ts = start, end, corr, stream, name = kernel name. */
    TRC_REC_KERNEL = 3,
    /* Launch callback (driver domain). ts = host time at launch, corr = driver API correlation
     * id, corr2 = enclosing runtime API correlation id (0 if none), thread = OS thread id,
     * ptrs = parameter values that pointed into a live allocation when the kernel launched. */
    TRC_REC_LAUNCH = 4,
    /* MARKER activity (NVTX). ts, id (same on start and end), flags = TRC_MARK_*, thread (0 for
     * process-wide ranges), name = range name (start and instantaneous markers), text = domain. */
    TRC_REC_MARKER = 5,
    /* MARKER_DATA activity. id = the marker's id, flags = TRC_PAYLOAD_*, value = payload. */
    TRC_REC_MARKER_DATA = 6,
    /* MEMCPY / MEMSET activity. ts = start, end, bytes, corr, stream, flags = copy kind. */
    TRC_REC_MEMCPY = 7,
    TRC_REC_MEMSET = 8,
    /* Key/value facts about the recording: name = key, text = value ("device", "status",
     * "dropped_records", "end" ...). */
    TRC_REC_INFO = 9,
    /* memcpy/memset API call (callback). ts = host time at the call, corr = its correlation id
     * (the MEMCPY/MEMSET activity record's), thread, addr = destination, aux = source (0 for a
     * memset), bytes, flags = TRC_COPY_MEMSET for a memset. Written only when the destination
     * or the source was a live device allocation. */
    TRC_REC_COPY = 10,
    /* The allocation/free API callbacks' own view (ts = host time after the call, addr, bytes,
     * flags = memory kind, aux = 1 for a pool allocation), one record per allocation. The
     * lifter uses these only when the file has no MEMORY2 allocation record at all (the
     * activity kind could not be enabled, or every record was dropped). */
    TRC_REC_API_ALLOC = 11,
    TRC_REC_API_FREE = 12,
} trc_rec_type;

#define TRC_REC_TYPE_MAX 12

#define TRC_COPY_MEMSET 1u

/* Memory kinds (same numbers as CUpti_ActivityMemoryKind). */
enum {
    TRC_MEM_UNKNOWN = 0,
    TRC_MEM_PAGEABLE = 1,
    TRC_MEM_PINNED = 2,
    TRC_MEM_DEVICE = 3,
    TRC_MEM_ARRAY = 4,
    TRC_MEM_MANAGED = 5,
    TRC_MEM_DEVICE_STATIC = 6,
    TRC_MEM_MANAGED_STATIC = 7,
};

/* Marker flags (same bits as CUPTI_ACTIVITY_FLAG_MARKER_*). */
enum {
    TRC_MARK_INSTANT = 1u << 0,
    TRC_MARK_START = 1u << 1,
    TRC_MARK_END = 1u << 2,
};

/* Marker payload kinds (same numbers as CUpti_MetricValueKind). */
enum {
    TRC_PAYLOAD_DOUBLE = 0,
    TRC_PAYLOAD_UINT64 = 1,
    TRC_PAYLOAD_INT64 = 4,
};

typedef struct trc_rec {
    trc_rec_type type;
    uint64_t ts, end;
    uint64_t corr, corr2;
    uint64_t addr, bytes;
    uint64_t stream, thread;
    uint64_t flags, id, aux;
    uint64_t value; /* raw 64 bits (a double's bits for TRC_PAYLOAD_DOUBLE) */
    uint32_t n_ptrs;
    const uint64_t *ptrs;
    const char *name; /* NUL-terminated or NULL */
    const char *text; /* NUL-terminated or NULL */
} trc_rec;

/* Fills buf with the 24-byte file header. */
void trc_raw_header(uint8_t buf[TRC_RAW_HEADER_SIZE], uint32_t pid);

/* Encoded size of rec in bytes (record header + payload), 0 if it breaks a limit (too many
 * pointers, record larger than TRC_RAW_MAX_RECORD). */
size_t trc_raw_record_size(const trc_rec *rec);

/* Encodes rec into buf (cap bytes). Returns the bytes written, or 0 if it does not fit or
 * breaks a limit. */
size_t trc_raw_encode(const trc_rec *rec, uint8_t *buf, size_t cap);

/* ------------------------------------------------------------------------------------------
 * Reader: loads a whole raw file into memory. Records keep file order; the lifter sorts.
 */
typedef struct trc_raw trc_raw;

/* Opens and parses path. Corrupt or truncated tails are not errors: every complete record
 * before them is kept and trc_raw_warning() says what was wrong and where. Errors: the file
 * cannot be read (GMS_EIO), it is not a raw file or has a newer version (GMS_EFORMAT,
 * GMS_EVERSION), out of memory (GMS_ENOMEM). */
int trc_raw_open(const char *path, trc_raw **out, gms_error *err);
/* Same as trc_raw_open on a buffer (decoded, not kept); name is used in messages. */
int trc_raw_parse(const uint8_t *data, size_t len, const char *name, trc_raw **out,
                  gms_error *err);
size_t trc_raw_count(const trc_raw *r);
const trc_rec *trc_raw_at(const trc_raw *r, size_t i);
uint32_t trc_raw_pid(const trc_raw *r);
/* "FILE: truncated after record N ..." when the file ended early or was corrupt, else NULL. */
const char *trc_raw_warning(const trc_raw *r);
void trc_raw_close(trc_raw *r);

#endif
