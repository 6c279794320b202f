/* peak_report: the peak's whereabouts for info and sim (peak_report.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "peak_report.h"

void peak_report_text(const sim_peak *p, int width, const char *note)
{
    char b[32];
    printf("%-*s%" PRIu64 " B (%s) at op %" PRIu64 " %s (%s)%s\n", width, "peak at:", p->memory,
           cli_format_bytes(p->memory, b, sizeof b), p->op_index, p->op,
           sim_phase_name(p->phase), note);
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

char *peak_report_run_json(const sim_peak *p, uint64_t seed, unsigned seeds)
{
    json_t *pk = peak_report_json(p);
    if (pk && (json_object_set_new(pk, "seed", jint(seed)) ||
               (seeds > 1 && json_object_set_new(pk, "median_of_seeds", jint(seeds))))) {
        json_decref(pk);
        return NULL;
    }
    char *q = pk ? json_dumps(pk, JSON_COMPACT) : NULL;
    json_decref(pk);
    return q;
}
