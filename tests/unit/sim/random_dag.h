/*
 * Seeded random DAGs for the engine's unit tests: calls with one to three recent inputs (a
 * constant among them), views on live storages or in-place ops, releases of older tensors.
 */
#ifndef GMS_TEST_RANDOM_DAG_H
#define GMS_TEST_RANDOM_DAG_H

#include "graph.h"

/* The generator from state x: calls with one to three recent inputs, releases, and either
 * views (10%) or, with inplace, in-place ops (15%: an op writing into a live tensor's storage
 * from it and another live tensor, as an imported in-place op does, which gives an existing
 * storage a new parent). */
static inline sim_trace *random_dag_from(uint64_t x, int n, int inplace)
{
    sim_trace_builder *b = g_new();
    uint64_t live[2048], next = 3;
    int n_live = 0;
    g_constant(b, 1, 64);
    g_constant(b, 2, 64);
    live[n_live++] = 1;
#define RND(k) ((x = x * 6364136223846793005u + 1442695040888963407u), (x >> 33) % (k))
    for (int i = 0; i < n && n_live < 2000; i++) {
        uint64_t out = next++;
        uint64_t r = n_live > 4 ? RND(100) : 100;
        if (!inplace && r < 10) {
            uint64_t cost = 1 + RND(20); /* one draw per statement: an order to rely on */
            g_view(b, "view", cost, out, live[1 + RND((uint64_t)n_live - 1)]);
        } else if (inplace && r < 15) {
            uint64_t in[2];
            in[0] = live[1 + RND((uint64_t)n_live - 1)];
            in[1] = live[n_live - 1 - (int)RND(4)];
            gmt_output o = {.id = out, .size = 12345, .alias_of = 0};
            uint64_t cost = 1 + RND(20);
            g_call_multi(b, "add_", cost, in, in[1] == in[0] ? 1 : 2, &o, 1);
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

/* A random DAG of n ops (seeded): calls with one to three recent inputs, views, releases. */
static inline sim_trace *random_dag(uint64_t seed, int n)
{
    return random_dag_from(seed * 2654435761u + 1, n, 0);
}

/* random_dag with in-place ops instead of views (seeded). */
static inline sim_trace *random_dag_inplace(uint64_t seed, int n)
{
    return random_dag_from(seed * 2654435761u + 7, n, 1);
}

#endif
