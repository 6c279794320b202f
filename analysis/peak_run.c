/* peak_run: a run with its peak followed, in this process or a plugin's child (peak_run.h). */
#include "peak_run.h"

#include <string.h>

#include "plugin.h"
#include "plugin_isolate.h"

_Static_assert(sizeof(sim_peak) <= POL_ISOLATED_REPLY, "a peak fits an isolated run's reply");

typedef struct follow {
    sim_peak_tracker *k;
    sim_observer next;
    void *next_ctx;
} follow;

static void observe(void *ctx, const sim_event *ev)
{
    follow *f = ctx;
    sim_peak_observe(f->k, ev);
    if (f->next)
        f->next(f->next_ctx, ev);
}

/* In the plugin's child: the peak, whose names the parent sets again from the indices. */
static void reply(void *ctx, void *buf)
{
    const follow *f = ctx;
    sim_peak p;
    sim_peak_tracker_result(f->k, &p);
    p.op = p.largest_op = NULL;
    memcpy(buf, &p, sizeof p);
}

int peak_run(sim_runner *r, const sim_trace *t, const sim_config *cfg,
             const sim_categories *cats, sim_result *res, sim_peak *peak, gms_error *err)
{
    /* a plugin runs in a child process, so that its crash is an error, not ours; not with
     * the caller's observer (sim --perfetto), which must see the run in this process */
    int isolate = pol_plugin_path(cfg->policy) && !cfg->observer;
    if (!cats)
        return isolate ? pol_run_isolated(r, cfg, res, err) : sim_runner_run(r, cfg, res, err);
    follow f = {NULL, cfg->observer, cfg->observer_ctx};
    int rc = sim_peak_tracker_new(t, cats, &f.k, err);
    if (rc)
        return rc;
    sim_config c = *cfg;
    c.observer = observe;
    c.observer_ctx = &f;
    if (isolate) {
        unsigned char buf[POL_ISOLATED_REPLY];
        rc = pol_run_isolated_reply(r, &c, reply, buf, res, err);
        if (!rc) {
            memcpy(peak, buf, sizeof *peak);
            sim_peak_name_ops(t, peak);
        }
    } else {
        rc = sim_runner_run(r, &c, res, err);
        if (!rc)
            sim_peak_tracker_result(f.k, peak);
    }
    sim_peak_tracker_free(f.k);
    return rc;
}
