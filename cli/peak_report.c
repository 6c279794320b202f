/* peak_report: the peak's whereabouts for info and sim (peak_report.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "peak_report.h"

void peak_report_text(const sim_peak *p, int width)
{
    char b[32];
    printf("%-*s%" PRIu64 " B (%s) at op %" PRIu64 " %s (%s)\n", width, "peak at:", p->memory,
           cli_format_bytes(p->memory, b, sizeof b), p->op_index, p->op,
           sim_phase_name(p->phase));
    for (int k = 0; k < SIM_CAT_COUNT; k++)
        printf("  %-*s%" PRIu64 " B (%s)\n", width - 2 > 18 ? width - 2 : 18,
               sim_category_name((sim_category)k),
               p->by_category[k], cli_format_bytes(p->by_category[k], b, sizeof b));
    printf("%-*s%" PRIu64 " B (%s) at op %" PRIu64 " %s (outputs and inputs at once)\n", width,
           "largest op:", p->largest_op_bytes, cli_format_bytes(p->largest_op_bytes, b, sizeof b),
           p->largest_op_index, p->largest_op ? p->largest_op : "");
}

static json_t *jint(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v);
}

json_t *peak_report_json(const sim_peak *p)
{
    json_t *o = json_object(), *cats = json_object(), *big = json_object();
    if (!o || !cats || !big) {
        json_decref(o), json_decref(cats), json_decref(big);
        return NULL;
    }
    int bad = 0;
    bad |= json_object_set_new(o, "memory", jint(p->memory));
    bad |= json_object_set_new(o, "op_index", jint(p->op_index));
    bad |= json_object_set_new(o, "op", json_string(p->op));
    bad |= json_object_set_new(o, "phase", json_string(sim_phase_name(p->phase)));
    for (int k = 0; k < SIM_CAT_COUNT; k++)
        bad |= json_object_set_new(cats, sim_category_key((sim_category)k),
                                   jint(p->by_category[k]));
    bad |= json_object_set_new(o, "by_category", cats);
    bad |= json_object_set_new(big, "bytes", jint(p->largest_op_bytes));
    bad |= json_object_set_new(big, "op_index", jint(p->largest_op_index));
    bad |= json_object_set_new(big, "op", json_string(p->largest_op ? p->largest_op : ""));
    bad |= json_object_set_new(o, "largest_op", big);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static void follow(void *ctx, const sim_event *ev)
{
    peak_follow *f = ctx;
    sim_peak_observe(f->tracker, ev);
    if (f->next)
        f->next(f->next_ctx, ev);
}

int peak_follow_start(peak_follow *f, const sim_trace *t, sim_config *cfg, gms_error *err)
{
    memset(f, 0, sizeof *f);
    int rc = sim_categories_build(t, &f->cats, err);
    if (!rc)
        rc = sim_peak_tracker_new(t, f->cats, &f->tracker, err);
    if (rc) {
        peak_follow_free(f);
        return rc;
    }
    f->next = cfg->observer;
    f->next_ctx = cfg->observer_ctx;
    cfg->observer = follow;
    cfg->observer_ctx = f;
    return 0;
}

void peak_follow_result(const peak_follow *f, sim_peak *out)
{
    sim_peak_tracker_result(f->tracker, out);
}

void peak_follow_free(peak_follow *f)
{
    sim_peak_tracker_free(f->tracker);
    sim_categories_free(f->cats);
    memset(f, 0, sizeof *f);
}
