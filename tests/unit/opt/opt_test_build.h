/*
 * For the opt tests: graphs built in code, the same in every test that uses them, so that a
 * threshold a test states (answered trials, windows improved) is about one known graph family.
 */
#ifndef OPT_TEST_BUILD_H
#define OPT_TEST_BUILD_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "opt_graph.h"

/* The opt tests' seeded generator (an LCG with Knuth's MMIX constants): a number below m from
 * *state, which it advances. Each test keeps its own state, so its graphs are its seed's. */
static inline uint32_t opt_test_rnd(uint64_t *state, uint32_t m)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((*state >> 33) % m);
}

/* A training-like chain of 2 * layers nodes: forward 0..layers-1, each node reading the one
 * before, and each backward node also reading its forward twin. Costs 1..5 and sizes 10..26
 * vary with the index, so that no two schedules tie by accident. */
static inline opt_graph *opt_test_training_chain(int layers)
{
    int n = 2 * layers;
    opt_graph *g = opt_graph_new((uint32_t)n);
    ck_assert_ptr_nonnull(g);
    gms_error err = {0};
    for (int v = 0; v < n; v++) {
        uint32_t in[2], n_in = 0;
        if (v > 0)
            in[n_in++] = (uint32_t)v - 1;
        if (v >= layers && n - 1 - v != v - 1)
            in[n_in++] = (uint32_t)(n - 1 - v);
        char name[16];
        snprintf(name, sizeof name, "n%d", v);
        ck_assert_msg(opt_graph_set_node(g, (uint32_t)v, name, 1 + (v * 7) % 5,
                                         (uint64_t)(10 + (v * 13) % 17), in, n_in, &err) == 0,
                      "%s", err.msg);
    }
    ck_assert_msg(opt_graph_finish(g, &err) == 0, "%s", err.msg);
    return g;
}

/* A random graph of n nodes drawn from *seed (rand_r): each node reads the one before and
 * each of two random earlier ones with odds 1 in 3; costs 1..7, sizes 1..100. Tests count
 * what their seeds' graphs give, so the draws stay as they are: the cost and the size are
 * drawn in one call, in the order the compiler evaluates its arguments (gcc's and clang's
 * graphs differ there; test_opt_too_big's threshold allows for both). */
static inline opt_graph *opt_test_random_graph(uint32_t n, unsigned *seed)
{
    opt_graph *g = opt_graph_new(n);
    ck_assert_ptr_nonnull(g);
    gms_error err = {0};
    for (uint32_t v = 0; v < n; v++) {
        uint32_t in[3], k = 0;
        for (uint32_t j = 0; j < 3 && v > 0; j++) {
            uint32_t u = j == 0 ? v - 1 : (uint32_t)rand_r(seed) % v;
            int dup = 0;
            for (uint32_t q = 0; q < k; q++)
                dup |= in[q] == u;
            if (!dup && (j == 0 || rand_r(seed) % 3 == 0))
                in[k++] = u;
        }
        ck_assert_msg(opt_graph_set_node(g, v, "n", 1.0 + rand_r(seed) % 7,
                                         1 + (uint64_t)(rand_r(seed) % 100), in, k, &err) == 0,
                      "%s", err.msg);
    }
    ck_assert_msg(opt_graph_finish(g, &err) == 0, "%s", err.msg);
    return g;
}

#endif
