/*
 * sim_ckpt: the engine side of checkpoint planners (sim/planner.h; docs/planners.md), for
 * sim_run.c only. A planner run calls these hooks; a run without a planner has v->ckpt NULL
 * and never calls them, so the default replay is untouched.
 *
 * Units: a checkpointed layer, or consecutive layers the plan joins (sim_plan.with_previous).
 * At the end of a unit's forward the storages produced inside it that no later forward op
 * uses are freed (eager evictions); the storages it reads from before it are held until it
 * is re-run (torch keeps a checkpoint's inputs); when an op first needs a freed storage, all
 * of the unit's ops run again in order (rematerializations), and what was already released
 * is freed again after its last use inside the unit. A plan may nest intervals inside its units
 * (sim_plan.nested), checkpointed within their unit's re-run (sim_ckpt_nest.h), and may free a
 * unit's forward layer by layer (sim_plan.by_layer).
 */
#ifndef SIM_CKPT_H
#define SIM_CKPT_H

#include "sim_internal.h"

typedef struct sim_ckpt sim_ckpt;

/* The policy a planner run uses in place of an eviction policy: it never chooses a victim,
 * so memory over the budget ends the run with SIM_OOM. */
extern const sim_policy sim_ckpt_policy;

/* A planner run starts (after the engine's reset): sets v->ckpt, calls the planner's init. */
int sim_ckpt_start(sim_view *v, const sim_config *cfg, gms_error *err);
/* Before / after schedule op o runs (run_compute), called only when o reaches
 * v->ckpt_begin_op / equals v->ckpt_end_op (kept up to date here). -1 stops the run. */
int sim_ckpt_before_op(sim_view *v, uint32_t o);
int sim_ckpt_after_op(sim_view *v, uint32_t o);
/* The last reference to storage s died: 1 = keep it for now (a checkpoint's held input). */
int sim_ckpt_on_release(sim_view *v, uint32_t s);
/* Tensor t is about to be rematerialized: when a checkpoint freed it, re-runs its unit and
 * returns 1 (t is then defined), else 0; -1 stops the run. */
int sim_ckpt_on_missing(sim_view *v, uint32_t t);
/* The run ended (any status): reports the last iteration, frees the planner's state, fills
 * res's planner figures and restores v->peak. Non-zero = the planner failed (err says why). */
int sim_ckpt_finish(sim_view *v, sim_result *res, gms_error *err);
/* The runner's persistent part (NULL is fine). */
void sim_ckpt_free(sim_ckpt *c);

/* Engine operations sim_ckpt.c needs (sim_run.c). */
void sim_free_storage(sim_view *v, uint32_t s); /* frees a material storage (eager eviction) */
int sim_rerun_op(sim_view *v, uint32_t o);      /* runs op o again (a rematerialization) */

#endif
