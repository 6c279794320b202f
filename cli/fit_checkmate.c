/* fit_checkmate: fit's search over solved schedules (see fit_checkmate.h). */
#include "fit_checkmate.h"

#include <string.h>

#include "store.h"
#include "sweep_checkmate.h"

typedef struct ck_probe_ctx {
    const sim_trace *t;
    store *db;
    const char *hash, *policy;
    const fit_checkmate_opts *o;
    double max_overhead;
    unsigned solved, cached;
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
    int rc = sweep_checkmate_run_observed(c->db, c->t, c->hash, c->policy, budget,
                                          c->o->coarsen ? c->o->coarsen : "auto",
                                          c->o->iteration, c->o->time_limit,
                                          c->o->seed_policies, NULL, NULL, &res, &cached, err);
    if (rc)
        return rc;
    if (cached)
        c->cached++;
    else
        c->solved++;
    out->status = (int)res.status;
    out->overhead = res.overhead;
    out->pass = res.status == SIM_OK && res.overhead <= c->max_overhead;
    return 0;
}

int fit_checkmate(const sim_trace *t, const char *trace_path, const char *policy,
                  const fit_checkmate_opts *o, double max_overhead, const fit_search_opts *so,
                  fit_answer *ans, unsigned *solved, unsigned *cached, gms_error *err)
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
    return rc;
}
