/* libFuzzer: arbitrary bytes as a graph JSON for `gpumemsim optimal` (opt_graph_json.c). A
 * graph the reader accepts must be in execution order, survive the program's memory
 * accounting and the greedy schedule, and read back the same after being written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "opt_graph_json.h"
#include "opt_schedule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    opt_graph *g = NULL;
    gms_error err;
    if (opt_graph_parse((const char *)data, size, "fuzz", &g, &err) != 0) {
        if (g)
            abort(); /* a refused graph is never handed out */
        return 0;
    }
    for (uint32_t v = 0; v < g->n; v++) {
        double h = g->nodes[v].cost_host; /* absent (-1) or a finite cost >= 0 */
        if (h != -1 && !(h >= 0 && h <= 1.8e308))
            abort();
    }
    for (uint32_t v = 0; v < g->n; v++)
        for (uint32_t k = 0; k < g->nodes[v].n_inputs; k++)
            if (g->nodes[v].inputs[k] >= v)
                abort();
    uint64_t peak = opt_graph_peak(g), floor = opt_graph_floor(g);
    if (g->n > 0 && g->n <= 64) {
        if (floor > peak)
            abort(); /* checkpoint-all runs every node with its inputs */
        opt_schedule *s = opt_schedule_new(g->n);
        if (s && opt_schedule_greedy(g, peak - g->constant_bytes, s) == 0 &&
            (opt_schedule_check(g, s, NULL, 0) != 0 ||
             opt_schedule_peak(g, s) > peak - g->constant_bytes))
            abort();
        opt_schedule_free(s);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        int rc = opt_graph_write(g, f, NULL);
        fclose(f);
        opt_graph *h = NULL;
        if (rc == 0 && (opt_graph_parse(buf, len, "again", &h, &err) != 0 || h->n != g->n ||
                        h->n_edges != g->n_edges || h->constant_bytes != g->constant_bytes))
            abort();
        for (uint32_t v = 0; h && v < g->n; v++)
            if (h->nodes[v].cost_host != g->nodes[v].cost_host)
                abort(); /* cost_host reads back exactly (or stays absent) */
        opt_graph_free(h);
    }
    free(buf);
    opt_graph_free(g);
    return 0;
}
