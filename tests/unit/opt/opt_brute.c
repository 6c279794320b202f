/* opt_brute: Checkmate's program by enumeration, for the opt tests (opt_brute.h). */
#include "opt_brute.h"

#include <math.h>

/* No node computed more than copies times in all stages. */
static int within_copies(const bf_graph *b, int R[BF_MAX][BF_MAX], int copies)
{
    for (int v = 0; v < b->n; v++) {
        int c = 0;
        for (int t = 0; t < b->n; t++)
            c += R[t][v];
        if (c > copies)
            return 0;
    }
    return 1;
}

/* The authors' memory: U[t,0] = R[t,0] m0 + sum S[t,i] m_i, U[t,k+1] = U[t,k] + R[t,k+1]
 * m_{k+1} - sum over edges (i,k) of m_i FREE; FREE = no hazard: R[t,k], i not kept into t+1,
 * no consumer j > k of i computed in t. */
uint64_t bf_peak(const bf_graph *b, int R[BF_MAX][BF_MAX], int S[BF_MAX][BF_MAX])
{
    int n = b->n;
    uint64_t peak = 0;
    for (int t = 0; t < n; t++) {
        int64_t u = R[t][0] ? (int64_t)b->bytes[0] : 0;
        for (int i = 0; i < n; i++)
            u += S[t][i] ? (int64_t)b->bytes[i] : 0;
        if ((uint64_t)u > peak)
            peak = (uint64_t)u;
        for (int k = 0; k + 1 <= t; k++) {
            for (int i = 0; i < n; i++) {
                if (!b->adj[i][k])
                    continue;
                int hazard = !R[t][k] || (t + 1 < n && S[t + 1][i]);
                for (int j = k + 1; j < n; j++)
                    hazard |= b->adj[i][j] && R[t][j];
                if (!hazard)
                    u -= (int64_t)b->bytes[i];
            }
            u += R[t][k + 1] ? (int64_t)b->bytes[k + 1] : 0;
            if ((uint64_t)u > peak)
                peak = (uint64_t)u;
        }
    }
    return peak;
}

int bf_correct(const bf_graph *b, int R[BF_MAX][BF_MAX], int S[BF_MAX][BF_MAX])
{
    int n = b->n;
    for (int t = 0; t < n; t++) {
        if (!R[t][t])
            return 0;
        for (int i = 0; i < n; i++) {
            if (t + 1 < n && S[t + 1][i] > S[t][i] + R[t][i])
                return 0;
            for (int v = 0; v < n; v++)
                if (b->adj[i][v] && R[t][v] > R[t][i] + S[t][i])
                    return 0;
        }
    }
    return 1;
}

/* Every S, then every R: INFINITY when nothing fits. */
double bf_optimum(const bf_graph *b, uint64_t budget, int copies)
{
    int n = b->n, cells[64][2], nc = 0;
    for (int t = 0; t < n; t++)
        for (int i = 0; i < t; i++)
            cells[nc][0] = t, cells[nc][1] = i, nc++;
    double best = INFINITY;
    for (uint64_t sm = 0; sm < (UINT64_C(1) << nc); sm++) {
        int S[BF_MAX][BF_MAX] = {{0}};
        for (int c = 0; c < nc; c++)
            S[cells[c][0]][cells[c][1]] = (int)((sm >> c) & 1);
        for (uint64_t rm = 0; rm < (UINT64_C(1) << nc); rm++) {
            int R[BF_MAX][BF_MAX] = {{0}};
            for (int t = 0; t < n; t++)
                R[t][t] = 1;
            for (int c = 0; c < nc; c++)
                R[cells[c][0]][cells[c][1]] = (int)((rm >> c) & 1);
            if (!bf_correct(b, R, S) || !within_copies(b, R, copies))
                continue;
            double cost = 0;
            for (int t = 0; t < n; t++)
                for (int i = 0; i <= t; i++)
                    cost += R[t][i] ? b->cost[i] : 0;
            if (cost < best && bf_peak(b, R, S) <= budget)
                best = cost;
        }
    }
    return best;
}
