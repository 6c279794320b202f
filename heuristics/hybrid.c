/*
 * hybrid: swap or recompute, never worse than the better of its two halves (docs/swap.md).
 * Training is iterative, and Capuchin measures a first iteration (its passive mode) before it
 * decides. hybrid measures the step (a replay of the trace with the run's budget, link and
 * limits: sim_view_measure) under each of its candidates, its own per-victim director
 * (hybrid-mix, hybrid_mix.c), dtr (every victim dropped) and swap-lru (every victim swapped),
 * and runs the steady state as the one that measured cheapest; one that failed (oom, remat
 * limit) is not kept, and when all failed the mix runs (and fails as it did). The run is then
 * that candidate's, choice for choice, so its overhead is the cheapest of the three by
 * construction. The overhead reported is the steady-state step's: the measured steps, paid
 * once in a training run of many, are not counted; they cost two or three more replays of
 * simulation time (docs/benchmarks.md: 3.2x hybrid-mix's on the DTR logs).
 *
 * Why measure rather than price: the per-victim director (hybrid-mix) compares a swap's
 * round trip with a recomputation at each choice, and missed the goal in 8 of the 60 DTR-log
 * cells, each time by swapping a few storages whose copies were cheaper when chosen but whose
 * swaps changed dtr's later victims (docs/swap.md, The hybrid goal); pricing the copy queues,
 * a fallback on measured stall and foreseen chains did not close that.
 */
#include <stdlib.h>

#include "policies.h"
#include "sim.h"

typedef struct hyb_state {
    const struct sim_config *cfg; /* the run's, for the chosen candidate's init */
    const sim_policy *arm;        /* the candidate that measured cheapest; NULL: not yet */
    void *arm_state;
} hyb_state;

/* In the order ties are broken: the mix, then dtr, then swap-lru. Their hooks are score,
 * action and on_remat only (hybrid forwards those); a candidate with another hook would need
 * it forwarded too. */
static const sim_policy *const candidates[] = {&pol_hybrid_mix, &pol_dtr, &pol_swap_lru};
#define N_CANDIDATES (sizeof candidates / sizeof candidates[0])

static int hyb_init(const struct sim_config *cfg, void **state, gms_error *err)
{
    hyb_state *h = calloc(1, sizeof *h);
    if (!h)
        return gms_error_set(err, GMS_ENOMEM, "hybrid: out of memory");
    h->cfg = cfg;
    *state = h;
    return 0;
}

static void hyb_free(void *state)
{
    hyb_state *h = state;
    if (h) {
        if (h->arm && h->arm->free)
            h->arm->free(h->arm_state);
        free(h);
    }
}

/* Measures each candidate once, at the run's first choice (until then no candidate has
 * decided anything, so the run so far is each one's), and keeps the cheapest that ran. A
 * measurement that cannot run (out of memory) counts as failed. A mix that swapped nothing
 * (nor fell back for want of host memory) dropped dtr's victims, so it was dtr's run: dtr is
 * not measured again then (it would tie, and ties keep the mix). */
static void choose_arm(const sim_view *v, hyb_state *h)
{
    const sim_policy *best = NULL;
    uint64_t best_clock = 0;
    int mix_was_dtr = 0;
    for (size_t i = 0; i < N_CANDIDATES; i++) {
        sim_result r;
        gms_error e = {0};
        if (candidates[i] == &pol_dtr && mix_was_dtr)
            continue;
        if (sim_view_measure(v, candidates[i], &r, &e) != 0)
            continue;
        if (candidates[i] == &pol_hybrid_mix)
            mix_was_dtr = r.swaps_out == 0 && r.swap_fallbacks == 0;
        if (r.status != SIM_OK)
            continue;
        if (!best || r.clock < best_clock) {
            best = candidates[i];
            best_clock = r.clock;
        }
    }
    if (!best)
        best = &pol_hybrid_mix;
    gms_error e = {0};
    if (best->init && best->init(h->cfg, &h->arm_state, &e) != 0)
        best = &pol_dtr; /* the mix's state could not be had: dtr needs none */
    h->arm = best;
}

static const sim_policy *arm(const sim_view *v, void *state)
{
    hyb_state *h = state;
    if (!h->arm) {
        choose_arm(v, h);
        /* the run's scores are the arm's from here: the engine may scan as its formula does
         * (the mix says so itself, from its score) */
        if (h->arm->score_kind != SIM_SCORE_CUSTOM)
            sim_view_scores_as(v, h->arm->score_kind);
    }
    return h->arm;
}

static double hybrid_score(const sim_view *v, uint32_t s, void *state)
{
    const sim_policy *a = arm(v, state);
    return a->score(v, s, ((hyb_state *)state)->arm_state);
}

static unsigned hybrid_action(const sim_view *v, uint32_t s, void *state)
{
    const sim_policy *a = arm(v, state);
    if (a->action)
        return a->action(v, s, ((hyb_state *)state)->arm_state);
    return (a->needs & SIM_NEEDS_SWAP) ? SIM_ACTION_SWAP : SIM_ACTION_DROP;
}

static void hybrid_on_remat(const sim_view *v, uint32_t op, void *state)
{
    const sim_policy *a = arm(v, state);
    if (a->on_remat)
        a->on_remat(v, op, ((hyb_state *)state)->arm_state);
}

const sim_policy pol_hybrid = {
    .name = "hybrid",
    .description = "measures the step under hybrid-mix, dtr and swap-lru (2-3 more replays, "
                   "not in the overhead) and runs the cheapest",
    .needs = SIM_NEEDS_REGIONS | SIM_NEEDS_SWAP, /* the candidates' needs, together */
    .score = hybrid_score,
    .action = hybrid_action,
    .init = hyb_init,
    .free = hyb_free,
    .on_remat = hybrid_on_remat,
};
