/*
 * An independent implementation of Checkmate's program for the opt tests: every R and S of a
 * graph of at most 5 nodes, checked and measured by rules written again from the authors'
 * constraints (not with opt_schedule.c), the cheapest that fits.
 */
#ifndef OPT_BRUTE_H
#define OPT_BRUTE_H

#include <stdint.h>

#define BF_MAX 8

typedef struct bf_graph {
    int n;
    double cost[BF_MAX];
    uint64_t bytes[BF_MAX];
    int adj[BF_MAX][BF_MAX]; /* adj[u][v]: v reads u */
} bf_graph;

/* The authors' memory peak of a schedule. */
uint64_t bf_peak(const bf_graph *b, int R[BF_MAX][BF_MAX], int S[BF_MAX][BF_MAX]);
/* 1 when R and S meet the authors' correctness constraints. */
int bf_correct(const bf_graph *b, int R[BF_MAX][BF_MAX], int S[BF_MAX][BF_MAX]);
/* The cheapest correct schedule that fits budget and computes no node more than copies times
 * (b->n or more: no limit, Checkmate's optimum); INFINITY when none. */
double bf_optimum(const bf_graph *b, uint64_t budget, int copies);

#endif
