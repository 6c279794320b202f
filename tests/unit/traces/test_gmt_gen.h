/* Helpers shared by the .gmt unit tests: random event streams that own their memory, event
 * comparison, writing a list to a .gmt file and reading one back against the list, and a
 * per-test temporary folder. */
#ifndef TEST_GMT_GEN_H
#define TEST_GMT_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "gmt.h"

typedef struct tg_list {
    gmt_event *ev; /* every pointer inside is owned by the list */
    size_t n, cap;
} tg_list;

/* Deterministic generator (xorshift64*). */
uint64_t tg_rand(uint64_t *state);

/* Appends n random events of every kind, with every field exercised: sequential and wild
 * ids, zero and huge sizes and durations, aliases, long and fresh op names, NAME texts,
 * ANNOTATE with and without values. */
void tg_generate(tg_list *l, size_t n, uint64_t seed);
/* As tg_generate, with balanced SCOPE begins and ends (text set on ends too) interleaved:
 * nested, empty, long-named and repeated scopes, runs of them at frame boundaries. */
void tg_generate_scoped(tg_list *l, size_t n, uint64_t seed);
/* Appends a copy of ev (deep). */
void tg_push(tg_list *l, const gmt_event *ev);
void tg_free(tg_list *l);

/* 1 when a and b are the same event (fields that matter for the kind); else 0 and a reason
 * in why. */
int tg_equal(const gmt_event *a, const gmt_event *b, char *why, size_t len);

/* Writes l to path with the given batch size (0 = default) and metadata pairs
 * (key, value, ..., NULL). Returns the writer's error code. */
int tg_write(const char *path, const tg_list *l, size_t batch_bytes, const char *const *meta,
             gms_error *err);

typedef struct tg_result {
    int open_rc;       /* gmt_reader_open's code */
    int rc;            /* last gmt_reader_next return (0 end, < 0 error) */
    uint64_t n;        /* events read */
    int prefix_ok;     /* every event read equals l's event at the same index */
    char why[256];     /* first mismatch */
    char warning[512]; /* gmt_reader_warning or "" */
    gms_error err;
} tg_result;

/* Reads path to the end (or the first error), comparing each event with l. */
void tg_read(const char *path, const tg_list *l, tg_result *res);

/* A fresh empty temporary folder for this process (created once); path of name in it.
 * Caller frees. */
char *tg_path(const char *name);
/* Whole file into memory; NULL when unreadable. Caller frees. */
uint8_t *tg_slurp(const char *path, size_t *len);
int tg_spit(const char *path, const uint8_t *buf, size_t len);

/* The zstd frames of a .gmt file: frame i spans [start[i], start[i+1]) with raw content
 * size raw[i] and, for event frames, events[i] events (0 for other frames). Returns the frame
 * count (at most max); start[count] = file length. */
size_t tg_frames(const uint8_t *buf, size_t len, size_t *start, size_t *raw, uint64_t *events,
                 size_t max);

#endif
