/*
 * sim_wgraph: the graph DTR's and MSPS's region walks follow (sim_regions.c), the storage
 * graph with wide ops kept as groups.
 *
 * In the storage graph an op with A distinct argument storages and X distinct output
 * storages is A x X edges: every output has every argument as a parent. Optimizer steps
 * built from `_foreach_*` ops are such ops (GPT-2 Large's Adam: 436 outputs of up to 1308
 * arguments each, 2.1M of the trace's edges), and a region walk that enters one of their
 * outputs enumerated all its parents, then did the same for the next output of the same op:
 * 5.8G edges followed in one DTR run. Here such an op is one group per direction, listed once
 * in each of its arguments' forward lists and once in each of its outputs' reverse lists; a
 * walk expands a group once (the members are the same whichever storage reached it), so the
 * op costs A + X, not A x X.
 *
 * The regions are sets, so a walk's result does not depend on how often or in which order it
 * meets a neighbour: the walks find exactly the storages the plain storage graph gives. An
 * op is grouped only when its argument and output storages are disjoint (no view of an
 * argument: the storage graph has no self edges, and a group containing the storage that
 * entered it would be one), and when grouping saves entries (A, X >= 2 and A x X > A + X).
 * The other ops' edges are listed as the storage graph lists them: de-duplicated, each at the
 * op that first creates it. Every list is in op order, so a walk stops at its first entry
 * whose op does not exist yet.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* Counts op o's distinct argument storages (*na; stamped 2o in seen) and distinct output
 * storages (*nx; stamped 2o + 1); *disjoint = 0 when an output storage is also an
 * argument's (a view of an argument). */
static void op_storages(const sim_trace *tr, const uint32_t *tst, uint32_t o, uint32_t *seen,
                        uint32_t *na, uint32_t *nx, int *disjoint)
{
    const sim_op *op = &tr->ops[o];
    const uint32_t *ast = tr->arg_st + op->args_off;
    uint32_t sa = 2 * o, sx = 2 * o + 1;
    *na = *nx = 0;
    *disjoint = 1;
    for (uint32_t i = 0; i < op->n_args; i++)
        if (seen[ast[i]] != sa) {
            seen[ast[i]] = sa;
            ++*na;
        }
    for (uint32_t k = 0; k < op->n_out; k++) {
        uint32_t s = tst[op->out_first + k];
        if (seen[s] == sa)
            *disjoint = 0;
        else if (seen[s] != sx) {
            seen[s] = sx;
            ++*nx;
        }
    }
}

/* After op_storages: lists the distinct argument storages into a and the output storages
 * into x (either may be NULL: counted by the caller then), each once, in order. */
static void op_members(const sim_trace *tr, const uint32_t *tst, uint32_t o, uint32_t *seen,
                       uint32_t *a, uint32_t *x, uint32_t *fo, uint32_t *ro)
{
    const sim_op *op = &tr->ops[o];
    uint32_t na = 0, nx = 0;
    for (uint32_t i = 0; i < op->n_args; i++) {
        uint32_t s = tr->arg_st[op->args_off + i];
        if (seen[s] == 2 * o) {
            seen[s] = UINT32_MAX;
            if (a)
                a[na++] = s;
            if (fo)
                fo[s + 2]++;
        }
    }
    for (uint32_t k = 0; k < op->n_out; k++) {
        uint32_t s = tst[op->out_first + k];
        if (seen[s] == 2 * o + 1) {
            seen[s] = UINT32_MAX;
            if (x)
                x[nx++] = s;
            if (ro)
                ro[s + 2]++;
        }
    }
}

int sim_wgraph_grouping = 1;

static int grouped(uint32_t na, uint32_t nx, int disjoint)
{
    return sim_wgraph_grouping && disjoint && na >= 2 && nx >= 2 && (uint64_t)na * nx > (uint64_t)na + nx;
}

/* Drops, in each list of (off, adj), the storage entries whose neighbour came earlier in the
 * list (lists are in op order: the kept one is the earliest); groups are kept. seen: ns + 1
 * words of scratch. */
static void dedup(uint32_t ns, uint32_t *off, sim_edge *adj, uint32_t *seen)
{
    memset(seen, 0xff, ((size_t)ns + 1) * sizeof *seen);
    uint32_t n = 0, start = 0;
    for (uint32_t x = 0; x < ns; x++) {
        uint32_t end = off[x + 1];
        for (uint32_t i = start; i < end; i++) {
            uint32_t y = adj[i].s;
            if (!(y & SIM_WG_GROUP)) {
                if (seen[y] == x)
                    continue;
                seen[y] = x;
            }
            adj[n++] = adj[i];
        }
        start = end;
        off[x + 1] = n;
    }
}

int sim_wgraph_build(sim_trace *tr, const uint32_t *tst, uint32_t *seen)
{
    uint32_t ns = tr->n_storages;
    uint32_t *fo = calloc((size_t)ns + 2, sizeof *fo), *ro = calloc((size_t)ns + 2, sizeof *ro);
    tr->wfwd_off = fo;
    tr->wrev_off = ro; /* everything is freed with the trace on failure */
    if (!fo || !ro)
        return -1;
    /* pass 1: list lengths, groups and their members */
    memset(seen, 0xff, ((size_t)ns + 1) * sizeof *seen);
    uint64_t ng = 0, gin = 0, gout = 0;
    for (uint32_t o = 0; o < tr->n_ops; o++) {
        const sim_op *op = &tr->ops[o];
        uint32_t na, nx;
        int disjoint;
        op_storages(tr, tst, o, seen, &na, &nx, &disjoint);
        if (grouped(na, nx, disjoint)) {
            ng++;
            gin += na;
            gout += nx;
            op_members(tr, tst, o, seen, NULL, NULL, fo, ro); /* one entry per storage */
            continue;
        }
        const uint32_t *ast = tr->arg_st + op->args_off;
        for (uint32_t i = 0; i < op->n_args; i++)
            for (uint32_t k = 0; k < op->n_out; k++)
                if (tst[op->out_first + k] != ast[i]) {
                    fo[ast[i] + 2]++;
                    ro[tst[op->out_first + k] + 2]++;
                }
    }
    for (uint32_t x = 0; x < ns; x++) {
        fo[x + 2] += fo[x + 1];
        ro[x + 2] += ro[x + 1];
    }
    if (ng >= SIM_WG_GROUP || fo[ns + 1] == UINT32_MAX || ro[ns + 1] == UINT32_MAX ||
        gin > UINT32_MAX || gout > UINT32_MAX)
        return -1;
    tr->n_groups = (uint32_t)ng;
    tr->wfwd_adj = malloc(((size_t)fo[ns + 1] + 1) * sizeof *tr->wfwd_adj);
    tr->wrev_adj = malloc(((size_t)ro[ns + 1] + 1) * sizeof *tr->wrev_adj);
    tr->gfwd_off = malloc(((size_t)ng + 1) * sizeof *tr->gfwd_off);
    tr->grev_off = malloc(((size_t)ng + 1) * sizeof *tr->grev_off);
    tr->gfwd = malloc(((size_t)gout + 1) * sizeof *tr->gfwd);
    tr->grev = malloc(((size_t)gin + 1) * sizeof *tr->grev);
    tr->gkey = malloc(((size_t)ng + 1) * 2 * sizeof *tr->gkey);
    if (!tr->wfwd_adj || !tr->wrev_adj || !tr->gfwd_off || !tr->grev_off || !tr->gfwd ||
        !tr->grev || !tr->gkey)
        return -1;
    /* pass 2: fill, in op order */
    memset(seen, 0xff, ((size_t)ns + 1) * sizeof *seen);
    sim_edge *fa = tr->wfwd_adj, *ra = tr->wrev_adj;
    uint32_t g = 0;
    tr->gfwd_off[0] = tr->grev_off[0] = 0;
    for (uint32_t o = 0; o < tr->n_ops; o++) {
        const sim_op *op = &tr->ops[o];
        uint32_t na, nx, *a = tr->grev + tr->grev_off[g], *x = tr->gfwd + tr->gfwd_off[g];
        int disjoint;
        op_storages(tr, tst, o, seen, &na, &nx, &disjoint);
        if (grouped(na, nx, disjoint)) {
            op_members(tr, tst, o, seen, a, x, NULL, NULL);
            uint32_t amax = 0, xmin = UINT32_MAX;
            for (uint32_t i = 0; i < na; i++) {
                fa[fo[a[i] + 1]++] = (sim_edge){SIM_WG_GROUP | g, o};
                amax = a[i] > amax ? a[i] : amax;
            }
            for (uint32_t k = 0; k < nx; k++) {
                ra[ro[x[k] + 1]++] = (sim_edge){SIM_WG_GROUP | g, o};
                xmin = x[k] < xmin ? x[k] : xmin;
            }
            tr->gkey[2 * g] = xmin; /* forward sweeps expand it there, reverse ones at amax */
            tr->gkey[2 * g + 1] = amax;
            tr->grev_off[g + 1] = tr->grev_off[g] + na;
            tr->gfwd_off[g + 1] = tr->gfwd_off[g] + nx;
            g++;
            continue;
        }
        const uint32_t *ast = tr->arg_st + op->args_off;
        for (uint32_t i = 0; i < op->n_args; i++)
            for (uint32_t k = 0; k < op->n_out; k++) {
                uint32_t ai = ast[i], so = tst[op->out_first + k];
                if (so == ai)
                    continue;
                fa[fo[ai + 1]++] = (sim_edge){so, o};
                ra[ro[so + 1]++] = (sim_edge){ai, o};
            }
    }
    dedup(ns, fo, fa, seen);
    dedup(ns, ro, ra, seen);
    return 0;
}

void sim_wgraph_free(sim_trace *tr)
{
    free(tr->wfwd_off);
    free(tr->wrev_off);
    free(tr->wfwd_adj);
    free(tr->wrev_adj);
    free(tr->gfwd_off);
    free(tr->grev_off);
    free(tr->gfwd);
    free(tr->grev);
    free(tr->gkey);
}
