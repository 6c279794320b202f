/*
 * sim_trace: the frozen schedule (see sim_internal.h for its layout): the graph links built
 * once when the builder finishes (children per tensor, tensors per storage, the
 * de-duplicated storage graph the region walks follow), accessors, and freeing.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

int sim_grow_slow(void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    uint64_t n = *cap ? (uint64_t)*cap * 2 : 16;
    while (n < need)
        n *= 2;
    if (n > UINT32_MAX)
        n = UINT32_MAX;
    if (n < need)
        return -1;
    void *p = realloc(*arr, (size_t)n * sz);
    if (!p)
        return -1;
    *arr = p;
    *cap = (uint32_t)n;
    return 0;
}

/* Builds the CSR arrays: children per tensor and tensors per storage. cnt is n_tensors + 1
 * words of scratch; it ends holding each tensor's storage. */
static int build_links(sim_trace *tr, uint32_t *cnt)
{
    uint32_t total = tr->n_children_total;
    tr->children = malloc((size_t)(total ? total : 1) * sizeof *tr->children);
    tr->storage_tensors = malloc((size_t)(tr->n_tensors ? tr->n_tensors : 1) * sizeof(uint32_t));
    if (!tr->children || !tr->storage_tensors)
        return -1;
    uint32_t off = 0;
    for (uint32_t t = 0; t < tr->n_tensors; t++) {
        uint32_t c = tr->tensors[t].children_off; /* the count, until here */
        tr->tensors[t].children_off = off;
        cnt[t] = off; /* from here on: tensor t's next child slot */
        off += c;
    }
    tr->tensors[tr->n_tensors] = (sim_tensor){.children_off = off}; /* the sentinel */
    /* filled through the 4-byte cursors, not the 40-byte tensors (a random read and
     * write per child) */
    uint32_t *children = tr->children;
    for (uint32_t o = 0; o < tr->n_ops; o++) {
        const sim_op *op = &tr->ops[o];
        const uint32_t *args = tr->args + op->args_off;
        uint32_t n_args = op->n_args, n_out = op->n_out, first = op->out_first;
        for (uint32_t i = 0; i < n_args; i++) {
            uint32_t *cur = &cnt[args[i]];
            for (uint32_t k = 0; k < n_out; k++)
                children[(*cur)++] = first + k;
        }
    }
    off = 0;
    for (uint32_t s = 0; s < tr->n_storages; s++) {
        tr->storages[s].tensors_off = off;
        off += tr->storages[s].n_tensors; /* the count, until here */
        tr->storages[s].n_tensors = 0;
    }
    for (uint32_t t = 0; t < tr->n_tensors; t++) {
        uint32_t s = tr->tensors[t].storage;
        sim_storage_info *si = &tr->storages[s];
        tr->storage_tensors[si->tensors_off + si->n_tensors++] = t;
        cnt[t] = s; /* the cursors are done with: cnt becomes each tensor's storage */
    }
    return 0;
}

static int edge_cmp(const void *a, const void *b)
{
    const sim_edge *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->s < y->s ? -1 : x->s > y->s;
}

/* Sorts e[0..n) by (time, storage). The lists are short and mostly in order already (a
 * storage's children come in op order): insertion sort, qsort only for long unsorted ones. */
static void sort_edges(sim_edge *e, uint32_t n)
{
    if (n > 32) {
        uint32_t i = 1;
        while (i < n && edge_cmp(&e[i - 1], &e[i]) <= 0)
            i++;
        if (i < n)
            qsort(e, n, sizeof *e, edge_cmp);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        sim_edge x = e[i];
        uint32_t j = i;
        while (j > 0 && edge_cmp(&e[j - 1], &x) > 0) {
            e[j] = e[j - 1];
            j--;
        }
        e[j] = x;
    }
}

/* Keeps, in each list off[x]..off[x+1] of adj (raw lists, written in place from the front
 * into the final CSR), the distinct neighbours (self edges dropped) with their earliest op,
 * sorted by op: sorting by (op, storage) first makes the kept edge each neighbour's earliest
 * whatever order the raw list had. seen is ns + 1 words of scratch; *ordered is cleared when
 * a kept edge goes to a lower storage. */
static void dedup_lists(uint32_t ns, uint32_t *off, sim_edge *adj, uint32_t *seen,
                        int *ordered)
{
    memset(seen, 0xff, ((size_t)ns + 1) * sizeof *seen);
    uint32_t n = 0, start = 0;
    for (uint32_t x = 0; x < ns; x++) {
        uint32_t end = off[x + 1];
        sort_edges(adj + start, end - start);
        uint32_t k = n;
        for (uint32_t i = start; i < end; i++) {
            uint32_t y = adj[i].s;
            if (y == x || seen[y] == x)
                continue;
            seen[y] = x;
            if (y < x)
                *ordered = 0;
            adj[k++] = adj[i];
        }
        start = end;
        n = k;
        off[x + 1] = n;
    }
}

/* Builds both directions of the storage graph: per storage, the distinct neighbour storages
 * (self edges dropped) with the op from which each edge exists, sorted by that op.
 *
 * Forward, storage x has an edge to the storage of every output of every op reading a
 * tensor of x (one per read and output, as the children lists hold them); reverse, the
 * storage of each tensor of x has one to the storage of every argument of the tensor's op.
 * The raw lists of both are filled by one pass over the ops in order (sequential reads of
 * the ops, args and outputs; the lists come out nearly sorted), not by following each
 * tensor's children, a random read of a tensor per edge. Each offset array is its own fill
 * cursor: counted into off[x + 2], summed so that off[x + 1] is where x's list starts, and
 * advanced by the fill to where it ends, i.e. where x + 1's starts. seen is ns + 1 words of
 * scratch. */
static int build_graph(sim_trace *tr, const uint32_t *tst, uint32_t *seen)
{
    uint32_t ns = tr->n_storages;
    uint64_t total = tr->n_children_total; /* = sum over ops of n_args * n_out */
    uint32_t *fo = calloc((size_t)ns + 2, sizeof *fo);
    uint32_t *ro = calloc((size_t)ns + 2, sizeof *ro);
    sim_edge *fa = malloc((size_t)(total ? total : 1) * sizeof *fa);
    sim_edge *ra = malloc((size_t)(total ? total : 1) * sizeof *ra);
    tr->fwd_off = fo;
    tr->rev_off = ro;
    tr->fwd_adj = fa;
    tr->rev_adj = ra; /* freed with the trace on failure */
    if (!fo || !ro || !fa || !ra)
        return -1;
    for (uint32_t o = 0; o < tr->n_ops; o++) { /* raw list lengths */
        const sim_op *op = &tr->ops[o];
        const uint32_t *ast = tr->arg_st + op->args_off;
        const uint32_t *ost = tst + op->out_first;
        for (uint32_t i = 0; i < op->n_args; i++)
            for (uint32_t k = 0; k < op->n_out; k++)
                if (ost[k] != ast[i]) { /* self edges (a view of an argument) are dropped */
                    fo[ast[i] + 2]++;
                    ro[ost[k] + 2]++;
                }
    }
    for (uint32_t x = 0; x < ns; x++) {
        fo[x + 2] += fo[x + 1];
        ro[x + 2] += ro[x + 1];
    }
    for (uint32_t o = 0; o < tr->n_ops; o++) {
        const sim_op *op = &tr->ops[o];
        const uint32_t *ast = tr->arg_st + op->args_off;
        const uint32_t *ost = tst + op->out_first;
        for (uint32_t i = 0; i < op->n_args; i++)
            for (uint32_t k = 0; k < op->n_out; k++) {
                uint32_t a = ast[i], so = ost[k];
                if (so == a)
                    continue;
                fa[fo[a + 1]++] = (sim_edge){so, o};
                ra[ro[so + 1]++] = (sim_edge){a, o};
            }
    }
    int ordered = 1, unused = 1;
    dedup_lists(ns, fo, fa, seen, &ordered);
    dedup_lists(ns, ro, ra, seen, &unused);
    tr->graph_ordered = ordered;
    return 0;
}

int sim_trace_link(sim_trace *tr, sim_link_scratch *sc)
{
    /* exactly n_tensors + 1 tensors: the builder's spare capacity goes, the sentinel comes */
    sim_tensor *te = realloc(tr->tensors, ((size_t)tr->n_tensors + 1) * sizeof *te);
    if (!te)
        return -1;
    tr->tensors = te;
    /* never NULL, so that args + args_off and arg_st + args_off are always defined (a trace
     * whose ops take no arguments has none: found by fuzz_sim_load) */
    if ((!tr->args && !(tr->args = malloc(sizeof *tr->args))) ||
        (!tr->arg_st && !(tr->arg_st = malloc(sizeof *tr->arg_st))) ||
        (!tr->st_size && !(tr->st_size = malloc(sizeof *tr->st_size))))
        return -1;
    /* one word per tensor and one per storage of scratch: the children cursors, then each
     * tensor's storage (in 4 bytes, not 24: the graph passes read it per edge); the
     * de-duplication's stamps */
    if (sim_grow((void **)&sc->t, &sc->cap_t, tr->n_tensors + 1, sizeof *sc->t) ||
        sim_grow((void **)&sc->s, &sc->cap_s, tr->n_storages + 1, sizeof *sc->s) ||
        build_links(tr, sc->t) != 0)
        return -1;
    if (build_graph(tr, sc->t, sc->s) != 0)
        return -1;
    return sim_wgraph_build(tr, sc->t, sc->s);
}

void sim_trace_free(sim_trace *t)
{
    if (!t)
        return;
    free(t->ops);
    free(t->args);
    free(t->arg_st);
    free(t->tensors);
    free(t->children);
    free(t->storages);
    free(t->st_size);
    free(t->storage_tensors);
    free(t->schedule);
    free(t->strings);
    free(t->fwd_off);
    free(t->rev_off);
    free(t->fwd_adj);
    free(t->rev_adj);
    sim_wgraph_free(t);
    free(t->scopes);
    free(t->iter_op);
    free(t->iter_val);
    free(t->bwd_op);
    free(t->opt_op);
    free(t);
}

const sim_baseline *sim_trace_baseline(const sim_trace *t)
{
    return &t->baseline;
}

uint64_t sim_trace_storages(const sim_trace *t)
{
    return t->n_storages;
}

uint64_t sim_trace_tensors(const sim_trace *t)
{
    return t->n_tensors;
}

uint64_t sim_budget_for_ratio(const sim_trace *t, double ratio)
{
    double b = (double)t->baseline.memory * ratio;
    if (!(b > 0))
        return 0;
    if (b >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)b;
}
