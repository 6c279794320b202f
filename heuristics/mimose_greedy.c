/*
 * mimose_greedy: which layers Mimose checkpoints to free `deficit` bytes, exactly as
 * GreedyStrategy.get_checkpoint_module (with split_bucket and sort_by_name) in the authors'
 * manager.py. See mimose.h for the rule.
 *
 * Reading the authors' order carefully: split_bucket lists the groups largest first and, inside
 * a group, the layers last-in-the-model first ("priority from low to high", their comment);
 * get_fit_module walks that list from its end. So among near-equal layers the EARLIEST one in
 * the model is tried first, and when no layer covers the remaining deficit the one taken is the
 * earliest layer of the smallest group. (Checkpointing an early layer frees bytes that would
 * otherwise stay live through the whole rest of the forward pass.)
 */
#include "mimose.h"

/* 1 when layer a goes before layer b in the authors' sort: bytes descending (Python sorts the
 * (bytes, name) tuples in reverse; for equal bytes the name order stands in for the later
 * position, which only decides which equal layer heads a group, not the group's content). */
static int before_by_bytes(const double *bytes, uint32_t a, uint32_t b)
{
    if (bytes[a] != bytes[b])
        return bytes[a] > bytes[b];
    return a > b;
}

/* Insertion sort of idx[0..n-1]; n is the number of layers (tens, rarely thousands). */
static void sort_by_bytes(const double *bytes, uint32_t *idx, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = idx[i], j = i;
        while (j > 0 && before_by_bytes(bytes, v, idx[j - 1])) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
}

/* Later layer first (sort_by_name: layer indexes in reverse). */
static void sort_by_position_desc(uint32_t *idx, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = idx[i], j = i;
        while (j > 0 && v > idx[j - 1]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
}

uint32_t pol_mimose_greedy(const double *bytes, uint32_t n, double deficit, uint8_t *pick,
                           uint32_t *scratch)
{
    for (uint32_t i = 0; i < n; i++)
        pick[i] = 0;
    if (!(deficit > 0.0) || n == 0)
        return 0;

    /* split_bucket: the list, "priority from low to high". */
    uint32_t *list = scratch, *alive = scratch + n;
    for (uint32_t i = 0; i < n; i++)
        list[i] = i;
    sort_by_bytes(bytes, list, n);
    for (uint32_t i = 0; i < n;) {
        double threshold = bytes[list[i]] * 0.9;
        uint32_t j = i + 1;
        while (j < n && bytes[list[j]] >= threshold)
            j++;
        sort_by_position_desc(list + i, j - i);
        i = j;
    }
    for (uint32_t i = 0; i < n; i++)
        alive[i] = 1;

    /* The greedy loop with get_fit_module. */
    double chosen = 0.0;
    uint32_t left = n, picked = 0;
    while (chosen < deficit && left > 0) {
        double target = deficit - chosen;
        uint32_t take = UINT32_MAX, last = UINT32_MAX;
        for (uint32_t k = n; k-- > 0;) {
            if (!alive[k])
                continue;
            if (last == UINT32_MAX)
                last = k; /* candidate_modules[-1] */
            if (bytes[list[k]] >= target) {
                take = k;
                break;
            }
        }
        if (take == UINT32_MAX)
            take = last;
        alive[take] = 0;
        left--;
        chosen += bytes[list[take]];
        pick[list[take]] = 1;
        picked++;
    }
    return picked;
}
