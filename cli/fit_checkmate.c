/* fit_checkmate: fit's search over solved schedules (see fit_checkmate.h). */
#include "fit_checkmate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "sweep_checkmate.h"

/* A probe's note (sweep_checkmate_run's): its answer is worse than a heuristic's run. */
typedef struct ck_note {
    uint64_t budget;
    char text[400];
} ck_note;

typedef struct ck_probe_ctx {
    const sim_trace *t;
    store *db;
    const char *hash, *policy;
    const fit_checkmate_opts *o;
    double max_overhead;
    unsigned solved, cached, by_windows, searched;
    ck_note *notes; /* the probes that have one */
    size_t n_notes, cap_notes;
} ck_probe_ctx;

const char *fit_checkmate_policy(const char *name)
{
    const char *n;
    for (size_t i = 0; (n = sweep_checkmate_name(i, NULL)) != NULL; i++)
        if (strcmp(n, name) == 0)
            return n;
    return NULL;
}

static int probe(void *vctx, uint64_t budget, fit_probe *out, gms_error *err)
{
    ck_probe_ctx *c = vctx;
    sim_result res;
    int cached = 0;
    sweep_checkmate_how how;
    char note[sizeof c->notes->text];
    int rc = sweep_checkmate_run_observed(c->db, c->t, c->hash, c->policy, budget,
                                          c->o->coarsen ? c->o->coarsen : "auto",
                                          c->o->iteration, c->o->time_limit, c->o->no_improve,
                                          c->o->seed_policies, NULL, NULL, &res, &cached, &how,
                                          note, sizeof note, err);
    if (rc)
        return rc;
    c->by_windows += how.from && !strcmp(how.from, "window-search");
    c->searched += how.searched != 0;
    if (note[0]) {
        if (c->n_notes == c->cap_notes) {
            size_t cap = c->cap_notes ? 2 * c->cap_notes : 8;
            ck_note *n = realloc(c->notes, cap * sizeof *n);
            if (!n)
                return gms_error_set(err, GMS_ENOMEM, "out of memory");
            c->notes = n;
            c->cap_notes = cap;
        }
        c->notes[c->n_notes].budget = budget;
        snprintf(c->notes[c->n_notes++].text, sizeof c->notes->text, "%s", note);
    }
    if (cached)
        c->cached++;
    else
        c->solved++;
    out->status = (int)res.status;
    out->overhead = res.overhead;
    out->pass = res.status == SIM_OK && res.overhead <= c->max_overhead;
    return 0;
}

/* The note that says most about the answer: the failing budget just below it (why the
 * answer is not lower), else the answer's own, else (no answer) the highest probed. */
static void pick_note(const ck_probe_ctx *c, const fit_answer *ans, fit_checkmate_note *out)
{
    memset(out, 0, sizeof *out);
    const ck_note *pick = NULL;
    for (size_t i = 0; i < c->n_notes; i++) {
        const ck_note *n = &c->notes[i];
        if (ans->found) {
            if (!ans->at_floor && n->budget == ans->failed_below)
                pick = n;
            else if (n->budget == ans->budget && (!pick || pick->budget != ans->failed_below))
                pick = n;
        } else if (!pick || n->budget > pick->budget) {
            pick = n;
        }
    }
    if (pick) {
        out->budget = pick->budget;
        snprintf(out->text, sizeof out->text, "%s", pick->text);
    }
}

int fit_checkmate(const sim_trace *t, const char *trace_path, const char *policy,
                  const fit_checkmate_opts *o, double max_overhead, const fit_search_opts *so,
                  fit_answer *ans, unsigned *solved, unsigned *cached, unsigned *searched,
                  unsigned *by_windows, fit_checkmate_note *note, gms_error *err)
{
    ck_probe_ctx c = {.t = t, .hash = "", .policy = policy, .o = o,
                      .max_overhead = max_overhead};
    char hash[17] = "";
    int rc = 0;
    if (o->db && ((rc = store_hash_file(trace_path, hash, err)) != 0 ||
                  (rc = store_open(o->db, STORE_CREATE, &c.db, err)) != 0))
        return rc;
    c.hash = hash;
    rc = fit_search(so, probe, &c, ans, err);
    store_close(c.db);
    *solved = c.solved;
    *cached = c.cached;
    if (searched)
        *searched = c.searched;
    if (by_windows)
        *by_windows = c.by_windows;
    pick_note(&c, ans, note);
    free(c.notes);
    return rc;
}
