/*
 * A seeded random DAG for the engine's unit tests: calls with one to three recent inputs (a
 * constant among them), views on live storages, releases of older tensors.
 */
#ifndef GMS_TEST_RANDOM_DAG_H
#define GMS_TEST_RANDOM_DAG_H

#include "graph.h"

/* A random DAG of n ops (seeded): calls with one to three recent inputs, views, releases. */
static inline sim_trace *random_dag(uint64_t seed, int n)
{
    sim_trace_builder *b = g_new();
    uint64_t live[2048], x = seed * 2654435761u + 1, next = 3;
    int n_live = 0;
    g_constant(b, 1, 64);
    g_constant(b, 2, 64);
    live[n_live++] = 1;
#define RND(k) ((x = x * 6364136223846793005u + 1442695040888963407u), (x >> 33) % (k))
    for (int i = 0; i < n && n_live < 2000; i++) {
        uint64_t out = next++;
        if (n_live > 4 && RND(100) < 10) {
            uint64_t cost = 1 + RND(20); /* one draw per statement: an order to rely on */
            g_view(b, "view", cost, out, live[1 + RND((uint64_t)n_live - 1)]);
        } else {
            uint64_t in[3];
            int k = 1 + (int)RND(3);
            for (int j = 0; j < k; j++)
                in[j] = j == 2 ? 2 : live[n_live - 1 - (int)RND(n_live < 6 ? (uint64_t)n_live : 6)];
            if (k >= 2 && in[1] == in[0])
                k = 1;
            if (k == 3 && (in[2] == in[0] || in[2] == in[1]))
                k = 2;
            gmt_output o = {.id = out, .size = 1000 * (1 + RND(100)), .alias_of = -1};
            uint64_t cost = 1 + RND(100);
            g_call_multi(b, "f", cost, in, k, &o, 1);
        }
        live[n_live++] = out;
        if (n_live > 8 && RND(100) < 45) {
            int j = 1 + (int)RND((uint64_t)n_live - 6);
            g_release(b, live[j]);
            live[j] = live[--n_live];
        }
    }
#undef RND
    return g_finish(b);
}

#endif
