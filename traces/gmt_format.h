/*
 * gmt_format: private constants and codec of the .gmt format (docs/trace-format.md is the
 * byte-level spec; this header mirrors its numbers). Used by gmt_writer.c, gmt_reader.c, the
 * unit tests and the fuzz targets; not part of the public contract (gmt.h).
 *
 * Layers:
 *   gmt_encoder / gmt_decoder  one event <-> bytes of an event frame's body (id deltas,
 *                              string table); no I/O, no compression.
 *   gmt_writer / gmt_reader    frames: header, event batches, end; one zstd frame each.
 */
#ifndef GMT_FORMAT_H
#define GMT_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gmt.h"

/* First 8 bytes of the header frame's content. */
#define GMT_MAGIC "GMTRACE\n"
#define GMT_MAGIC_LEN 8

/* Frame kinds: first byte of each frame's content (after the magic for the header). */
#define GMT_FRAME_HEADER 'H'
#define GMT_FRAME_EVENTS 'E'
#define GMT_FRAME_END 'Z'

/* Limits (the spec's section "Limits"). Writers refuse events beyond them; readers treat
 * anything beyond them as corruption. */
#define GMT_MAX_FRAME_RAW ((size_t)4 << 20)  /* decompressed bytes of one frame */
#define GMT_MAX_INPUTS 16384u                /* inputs of a CALL/MUTATE */
#define GMT_MAX_OUTPUTS 16384u               /* outputs of a CALL */
#define GMT_MAX_STRING 4095u                 /* bytes of an op name, text, meta key or value */
#define GMT_MAX_STRINGS ((uint64_t)1 << 20)  /* entries in the string table */
#define GMT_MAX_META 4096u                   /* header metadata entries */
#define GMT_MAX_SCOPE_DEPTH 256u             /* scopes open at once */
#define GMT_BATCH_BYTES ((size_t)64 << 10)   /* writer: raw bytes per event frame (target) */
#define GMT_ZSTD_LEVEL 3

/* Event record tag byte: low 4 bits = kind, high 4 bits = flags. */
#define GMT_TAG_KIND(t) ((t) & 0x0f)
#define GMT_TAG_EXT 15       /* extension record: uv length + bytes, skipped by readers */
#define GMT_F_NEXT 0x10      /* CONSTANT, COPY: id = prev + 1; CALL: outputs are prev+1.. */
#define GMT_F_VALUE 0x10     /* ANNOTATE: a value follows */
#define GMT_F_NIN_SHIFT 5    /* CALL, MUTATE: bits 5..7 = n_inputs, 7 = varint follows */
#define GMT_F_NIN_MAX 7

/* Extension record types (first uv of an extension record's payload; format 1.1). Readers of
 * 1.1 decode these, and only in files of minor >= 1; every other type is skipped. */
#define GMT_EXT_SCOPE_BEGIN 1 /* then sref name (against the scope-name table) */
#define GMT_EXT_SCOPE_END 2   /* nothing follows: closes the innermost open scope */

/* ------------------------------------------------------------------------------------------
 * Encoder: appends one event's record to a growable byte buffer.
 */
typedef struct gmt_strtab gmt_strtab; /* op-name/annotation string -> index (writer side) */

typedef struct gmt_encoder {
    uint64_t prev;       /* id state: last id written in a "new id" position */
    gmt_strtab *strings;
    uint8_t *buf;        /* the current batch */
    size_t len, cap;
    uint64_t n_events;   /* counted events in buf (SCOPE records are not counted) */
    gmt_strtab *scope_names;              /* scope name -> index (their own table) */
    char *open[GMT_MAX_SCOPE_DEPTH];      /* names of the open scopes, outermost first */
    uint32_t depth;                       /* scopes open */
} gmt_encoder;

int gmt_encoder_init(gmt_encoder *e);
void gmt_encoder_free(gmt_encoder *e);
/* Checks ev (gmt_event_validate + format limits) and appends its record. Returns 0,
 * GMS_EFORMAT/GMS_EINVAL (err says why) or GMS_ENOMEM. On failure nothing is appended.
 * A SCOPE becomes an extension record and is checked against the open scopes (an end needs
 * one open, and a name given with it must be the innermost one's). */
int gmt_encoder_add(gmt_encoder *e, const gmt_event *ev, gms_error *err);
/* Empties the batch buffer (the id state and string table carry over). */
void gmt_encoder_reset_batch(gmt_encoder *e);

/* ------------------------------------------------------------------------------------------
 * Decoder: reads records from the body of one event frame at a time. The id state and the
 * string table carry over from frame to frame. Never reads outside [p, end).
 */
typedef struct gmt_decoder {
    uint64_t prev;
    /* string table: pointers stay valid until gmt_decoder_free */
    char **strings;
    uint64_t n_strings, cap_strings;
    size_t string_bytes;
    /* the current frame body */
    const uint8_t *p, *end;
    /* scratch the returned events point into (grown, never shrunk) */
    uint64_t *inputs;
    gmt_output *outputs;
    uint32_t *mutated;
    uint32_t cap_inputs, cap_outputs, cap_mutated;
    char text[GMT_MAX_STRING + 1];
    /* scopes (format 1.1): decoded only when `scopes` is set (the file's minor >= 1) */
    int scopes;
    char **scope_names;                          /* their own string table */
    uint64_t n_scope_names, cap_scope_names;
    const char *open[GMT_MAX_SCOPE_DEPTH];       /* open scopes, outermost first */
    uint32_t depth;
} gmt_decoder;

void gmt_decoder_init(gmt_decoder *d);
void gmt_decoder_free(gmt_decoder *d);
void gmt_decoder_set_body(gmt_decoder *d, const uint8_t *p, size_t len);
/* Decodes the next record of the body into *ev. Returns 0, or GMS_EFORMAT/GMS_ENOMEM with
 * a description of the problem in what_buf ("CALL mm: output 2: alias_of 7 is not an input
 * index (3 inputs)"). Extension records before the event are skipped, except SCOPE records
 * when d->scopes is set: those come back as GMT_SCOPE events (which frames do not count). */
int gmt_decoder_next(gmt_decoder *d, gmt_event *ev, char *what_buf, size_t what_len);
#define GMT_DECODED_SCOPE (-1)
/* After the frame's last counted event: returns GMT_DECODED_SCOPE with the next SCOPE event of the records
 * left (d->scopes set), 0 once only skipped extension records were left, GMS_EFORMAT when
 * other bytes are left (or a SCOPE record is bad), GMS_ENOMEM. */
int gmt_decoder_trailing(gmt_decoder *d, gmt_event *ev, char *what_buf, size_t what_len);

/* ------------------------------------------------------------------------------------------
 * Hooks for tests and fuzz targets.
 */
/* Sets the writer's target raw bytes per event frame (default GMT_BATCH_BYTES); tests use
 * tiny batches to get many frames from few events. Must be called before the first event. */
void gmt_writer_set_batch_bytes(gmt_writer *w, size_t bytes);
/* Opens a reader on an open stream (fmemopen in fuzz targets); name is used in messages.
 * The reader closes f in gmt_reader_close (and on failure here). */
int gmt_reader_open_stream(FILE *f, const char *name, gmt_reader **out, gms_error *err);

#endif
