/*
 * optimal_xengine: the two-device report of `gpumemsim optimal` (optimal_xengine.h).
 */
#include "optimal_xengine.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt_xengine.h"

int optimal_xe_any_host_cost(const opt_graph *g)
{
    for (uint32_t i = 0; i < g->n; i++)
        if (g->nodes[i].cost_host >= 0)
            return 1;
    return 0;
}

static json_t *index_list(const opt_graph *g, const uint8_t *row, uint32_t upto)
{
    json_t *a = json_array();
    (void)g;
    for (uint32_t i = 0; i < upto; i++)
        if (row[i])
            json_array_append_new(a, json_integer(i));
    return a;
}

/* Per stage: the nodes computed on each device and the outputs kept on each into the next. */
static json_t *schedule_json(const opt_graph *g, const opt_xe_schedule *s)
{
    json_t *arr = json_array();
    uint32_t n = g->n;
    for (uint32_t t = 0; t < n; t++) {
        const uint8_t *none = s->S[0]; /* any row: the last stage keeps nothing */
        json_t *o = json_pack("{s:i}", "stage", (json_int_t)t);
        json_object_set_new(o, "gpu", index_list(g, s->R[0] + (size_t)t * n, t + 1));
        json_object_set_new(o, "host", index_list(g, s->R[1] + (size_t)t * n, t + 1));
        json_object_set_new(o, "keep_gpu", index_list(g, t + 1 < n ? s->S[0] + (size_t)(t + 1) * n : none, t + 1 < n ? t + 1 : 0));
        json_object_set_new(o, "keep_host", index_list(g, t + 1 < n ? s->S[1] + (size_t)(t + 1) * n : none, t + 1 < n ? t + 1 : 0));
        json_array_append_new(arr, o);
    }
    return arr;
}

static uint32_t host_runs(const opt_xe_schedule *s)
{
    uint32_t c = 0;
    for (size_t k = 0; k < (size_t)s->n * s->n; k++)
        c += s->R[1][k];
    return c;
}

static uint32_t recomputations(const opt_xe_schedule *s)
{
    uint32_t n = s->n, c = 0;
    for (uint32_t t = 0; t < n; t++)
        for (uint32_t i = 0; i < t; i++)
            c += s->R[0][(size_t)t * n + i] + s->R[1][(size_t)t * n + i];
    return c;
}

static void print_text(const opt_graph *g, const optimal_xe_opts *o, const opt_xe_answer *a)
{
    char b1[32], b2[32], b3[32], lk[64];
    sim_link_format(&o->link, lk, sizeof lk);
    printf("graph:       %s: %u nodes (%u with a cost_host), %u edges, constant %s, "
           "unconstrained peak %s\n", o->path, g->n, a->host_capable, g->n_edges,
           cli_format_bytes(g->constant_bytes, b1, sizeof b1),
           cli_format_bytes(o->peak0, b2, sizeof b2));
    printf("devices:     GPU budget %s (%.4g of the %s peak), host memory %s, %s\n",
           cli_format_bytes(o->budget, b1, sizeof b1),
           o->ref ? (double)o->budget / (double)o->ref : 0,
           g->baseline_peak ? "trace's baseline" : "graph's unconstrained",
           o->host_memory == UINT64_MAX ? "unlimited" : cli_format_bytes(o->host_memory, b2, sizeof b2),
           lk);
    printf("status:      %s (two-device %s, %u variables, %u rows, %s)\n",
           opt_status_name(a->status), o->relax ? "LP relaxation" : "MILP", a->n_cols, a->n_rows,
           opt_solver_name());
    if (o->relax) {
        printf("lower_bound: %.9g ms\n", a->objective);
    } else if (a->schedule) {
        const opt_xe_eval *e = &a->eval;
        printf("total time:  %.9g ms = GPU compute %.9g + host compute %.9g + copies %.9g "
               "(serial)\n", a->objective, e->compute[0], e->compute[1], e->transfer_ms);
        if (a->lower_bound >= 0)
            printf("lower_bound: %.9g ms (LP relaxation, %.3g s)\n", a->lower_bound, a->lp_seconds);
        printf("gap:         %.4g%%\n", 100 * a->gap);
        printf("copies:      %u to the host (%s), %u to the GPU (%s), %.9g ms\n",
               e->transfers[1], cli_format_bytes(e->transfer_bytes[1], b1, sizeof b1),
               e->transfers[0], cli_format_bytes(e->transfer_bytes[0], b2, sizeof b2),
               e->transfer_ms);
        printf("schedule:    GPU peak %s, host peak %s, %u runs on the host, %u "
               "recomputations\n", cli_format_bytes(e->peak[0], b1, sizeof b1),
               cli_format_bytes(e->peak[1], b3, sizeof b3), host_runs(a->schedule),
               recomputations(a->schedule));
        uint32_t n = g->n, shown = 0;
        for (uint32_t t = 0; t < n && shown < 20; t++) {
            const uint8_t *rg = a->schedule->R[0] + (size_t)t * n, *rh = a->schedule->R[1] + (size_t)t * n;
            int show = rh[t];
            for (uint32_t i = 0; i < t; i++)
                show |= rg[i] | rh[i];
            if (!show)
                continue;
            printf("  stage %u (%s): gpu", t, g->nodes[t].name);
            for (uint32_t i = 0; i <= t; i++)
                if (rg[i])
                    printf(" %u", i);
            printf("; host");
            for (uint32_t i = 0; i <= t; i++)
                if (rh[i])
                    printf(" %u", i);
            printf("\n");
            shown++;
        }
        if (shown == 20)
            printf("  ... (--json lists every stage)\n");
    }
    if (a->seeded)
        printf("seed:        %s, %.9g ms%s\n", a->seed_kind && !strcmp(a->seed_kind, "host-only")
               ? "every node on the host" : "the single-device (GPU) answer", a->seed_objective,
               a->skipped_search ? " (no search: the time left was shorter than the LP took, "
                                   "and CBC's root LP ignores the time limit)" : "");
    printf("solve time:  %.3f s\n", a->seconds);
}

static void print_json(const opt_graph *g, const optimal_xe_opts *o, const opt_xe_answer *a)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:i, s:I, s:f, s:I, s:I, s:f}", "graph", o->path,
                          "status", opt_status_name(a->status), "mode",
                          o->relax ? "relax" : "milp", "devices", 2,
                          "budget", (json_int_t)o->budget,
                          "budget_ratio", o->ref ? (double)o->budget / (double)o->ref : 0.0,
                          "unconstrained_peak", (json_int_t)o->peak0,
                          "constant_bytes", (json_int_t)g->constant_bytes,
                          "solve_seconds", a->seconds);
    json_object_set_new(j, "host_memory", o->host_memory == UINT64_MAX ? json_null()
                                          : json_integer((json_int_t)o->host_memory));
    json_object_set_new(j, "link_gbps", json_real(o->link.gbps));
    json_object_set_new(j, "link_latency_ns", json_integer((json_int_t)o->link.latency_ns));
    json_object_set_new(j, "nodes", json_integer(g->n));
    json_object_set_new(j, "host_capable_nodes", json_integer(a->host_capable));
    json_object_set_new(j, "edges", json_integer(g->n_edges));
    json_object_set_new(j, "solver", json_string(opt_solver_name()));
    json_object_set_new(j, "program", json_string("two-device"));
    json_object_set_new(j, "variables", json_integer(a->n_cols));
    json_object_set_new(j, "rows", json_integer(a->n_rows));
    json_object_set_new(j, "lower_bound", a->lower_bound >= 0 ? json_real(a->lower_bound) : json_null());
    json_object_set_new(j, "lp_seconds", json_real(a->lp_seconds));
    if (o->relax) {
        json_object_set_new(j, "objective", a->status == OPT_STATUS_OPTIMAL ? json_real(a->objective) : json_null());
    } else {
        json_object_set_new(j, "objective", a->schedule ? json_real(a->objective) : json_null());
        json_object_set_new(j, "solver_bound", a->solver_bound >= 0 ? json_real(a->solver_bound) : json_null());
        json_object_set_new(j, "seeded", json_boolean(a->seeded));
        json_object_set_new(j, "seed_objective", a->seeded ? json_real(a->seed_objective) : json_null());
        json_object_set_new(j, "seed", a->seeded ? json_string(a->seed_kind) : json_null());
        json_object_set_new(j, "search_skipped", json_boolean(a->skipped_search));
        json_object_set_new(j, "bb_nodes", json_integer(a->nodes));
    }
    if (a->schedule) {
        const opt_xe_eval *e = &a->eval;
        json_object_set_new(j, "gap", json_real(a->gap));
        json_object_set_new(j, "total_time", json_real(e->total_ms));
        json_object_set_new(j, "compute_gpu", json_real(e->compute[0]));
        json_object_set_new(j, "compute_host", json_real(e->compute[1]));
        json_object_set_new(j, "transfers", json_pack(
            "{s:i, s:i, s:i, s:I, s:I, s:f, s:b}", "count", (json_int_t)(e->transfers[0] + e->transfers[1]),
            "to_host", (json_int_t)e->transfers[1], "to_gpu", (json_int_t)e->transfers[0],
            "bytes_to_host", (json_int_t)e->transfer_bytes[1],
            "bytes_to_gpu", (json_int_t)e->transfer_bytes[0], "ms", e->transfer_ms,
            "overlap", 0));
        json_object_set_new(j, "peak", json_integer((json_int_t)e->peak[0]));
        json_object_set_new(j, "peak_host", json_integer((json_int_t)e->peak[1]));
        json_object_set_new(j, "host_runs", json_integer(host_runs(a->schedule)));
        json_object_set_new(j, "recomputations", json_integer(recomputations(a->schedule)));
        json_object_set_new(j, "schedule", schedule_json(g, a->schedule));
    }
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    if (text)
        puts(text);
    free(text);
    json_decref(j);
}

int optimal_xe_run(const char *cmd, const opt_graph *g, const optimal_xe_opts *o)
{
    opt_xe_request rq = {.budget = o->budget, .host_memory = o->host_memory, .link = o->link,
                         .relax = o->relax, .time_limit = o->time_limit,
                         .write_model = o->write_model, .log = o->log, .no_seed = o->no_seed};
    opt_xe_answer a;
    gms_error err = {0};
    if (opt_xe_solve(g, &rq, &a, &err) != 0) {
        cli_error(cmd, "%s: %s", o->path, err.msg);
        return 1;
    }
    if (o->json)
        print_json(g, o, &a);
    else
        print_text(g, o, &a);
    char b1[32], b2[32], b3[32];
    if (a.status == OPT_STATUS_INFEASIBLE) {
        if (o->budget < g->constant_bytes)
            cli_error(cmd, "infeasible: the GPU budget %s is below the graph's constant bytes "
                      "(%s), which stay on the GPU; give a budget of at least that",
                      cli_format_bytes(o->budget, b1, sizeof b1),
                      cli_format_bytes(g->constant_bytes, b2, sizeof b2));
        else
            cli_error(cmd, "infeasible: no two-device schedule fits a GPU budget of %s and %s "
                      "of host memory; raise either (nodes run on the host only where the "
                      "graph gives a cost_host)", cli_format_bytes(o->budget, b1, sizeof b1),
                      o->host_memory == UINT64_MAX ? "unlimited"
                                                   : cli_format_bytes(o->host_memory, b3, sizeof b3));
    } else if (a.status == OPT_STATUS_UNKNOWN) {
        cli_error(cmd, "unknown: no schedule found within the time limit; give more time");
    }
    int rc = a.status == OPT_STATUS_OPTIMAL || a.status == OPT_STATUS_FEASIBLE ? 0 : 1;
    opt_xe_answer_clear(&a);
    return rc;
}
