/* Shared by the fuzz targets: drain a reader, checking every event it returns. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gmt.h"

/* An event a reader returned must satisfy the model's invariants; anything else is a bug the
 * fuzzer should report, so abort. */
static inline void fuzz_check_event(const gmt_event *ev)
{
    if (gmt_event_validate(ev, NULL) != 0)
        abort();
    for (uint32_t i = 0; i < ev->n_inputs; i++)
        (void)*(volatile const uint64_t *)&ev->inputs[i]; /* ASan checks the arrays */
    for (uint32_t i = 0; i < ev->n_outputs; i++)
        (void)*(volatile const uint64_t *)&ev->outputs[i].size;
    for (uint32_t i = 0; i < ev->n_mutated; i++)
        (void)*(volatile const uint32_t *)&ev->mutated[i];
}

/* Scopes a reader returns must balance: an end names the innermost open scope, and a trace
 * that ends cleanly (no error, not truncated) leaves none open. Names are copied (the
 * reader's pointers live until the next call). */
typedef struct fuzz_scopes {
    char *open[300];
    unsigned depth;
} fuzz_scopes;

static inline void fuzz_scopes_check(fuzz_scopes *s, const gmt_event *ev)
{
    if (ev->kind != GMT_SCOPE)
        return;
    if (!ev->text)
        abort();
    if (!ev->scope_end) {
        if (s->depth >= sizeof s->open / sizeof s->open[0])
            abort();
        s->open[s->depth] = strdup(ev->text);
        if (!s->open[s->depth++])
            abort();
        return;
    }
    if (s->depth == 0 || strcmp(s->open[s->depth - 1], ev->text) != 0)
        abort();
    free(s->open[--s->depth]);
}

static inline void fuzz_scopes_finish(fuzz_scopes *s, int clean_end)
{
    if (clean_end && s->depth != 0)
        abort();
    while (s->depth)
        free(s->open[--s->depth]);
}

/* Reads every event of r, checking each and the scopes' balance, and closes r. */
static inline void fuzz_drain_reader(gmt_reader *r)
{
    gmt_event ev;
    gms_error err;
    fuzz_scopes sc = {.depth = 0};
    int rc;
    while ((rc = gmt_reader_next(r, &ev, &err)) > 0) {
        fuzz_check_event(&ev);
        fuzz_scopes_check(&sc, &ev);
    }
    fuzz_scopes_finish(&sc, rc == 0 && !gmt_reader_warning(r));
    gmt_reader_close(r);
}

/* The fuzz input as a file, for readers that take a path: one file per process (removed at
 * exit), named after `what`, rewritten for every input. Returns its path. */
static char fuzz_path_[64];

static inline void fuzz_remove_path_(void)
{
    remove(fuzz_path_);
}

static inline const char *fuzz_input_file(const char *what, const uint8_t *data, size_t size)
{
    if (!fuzz_path_[0]) {
        snprintf(fuzz_path_, sizeof fuzz_path_, "/tmp/gms-fuzz-%s-%ld", what, (long)getpid());
        atexit(fuzz_remove_path_);
    }
    FILE *f = fopen(fuzz_path_, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    return fuzz_path_;
}

#endif
