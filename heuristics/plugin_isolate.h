/*
 * plugin_isolate: runs a simulation with a plugin policy in a child process, so that a plugin
 * that crashes (segfault, abort, exit) ends that run with an error naming the plugin instead
 * of ending gpumemsim (docs/plugins.md, "Failures and crashes").
 *
 * One fork per run: the child runs sim_runner_run on its copy-on-write image of the caller's
 * runner and sends the result back through a pipe. Built-in policies never come here (callers
 * check first), so they pay nothing; a plugin run pays the fork (docs/plugins.md measures it).
 * An observer is called in the child, so pol_run_isolated refuses runs with one; an observer
 * whose findings fit a small reply (a run's peak) runs there through pol_run_isolated_reply. The child never outlives the caller (PR_SET_PDEATHSIG, plus its
 * process group killed at exit), and a run longer than the plugin timeout is killed and
 * fails with an error saying so.
 */
#ifndef POL_PLUGIN_ISOLATE_H
#define POL_PLUGIN_ISOLATE_H

#include "gms_error.h"

struct sim_runner;
struct sim_config;
struct sim_result;

/* sim_runner_run(r, cfg, res, err) in a child process. Returns what it returns; when the child
 * dies instead, non-zero with "plugin 'NAME' (PATH) crashed (signal 11, Segmentation fault);
 * ..." in err. Safe to call from several threads at once (each with its own runner). */
int pol_run_isolated(struct sim_runner *r, const struct sim_config *cfg, struct sim_result *res,
                     gms_error *err);

/* The same with an observer (cfg->observer, its context cfg->observer_ctx) following the run
 * in the child: after a run that returned 0 the child calls reply(observer_ctx, buf) to write
 * what the observer made of it, at most POL_ISOLATED_REPLY bytes, and those bytes come back in
 * buf (the caller's, that large). Pointers in them are the child's: they stay valid here only
 * where they point at what existed before the run and is not freed (the trace), so a reply
 * had better hold indices. sim_peak (sim/sim_peak.h) follows plugin runs this way. */
#define POL_ISOLATED_REPLY 512
int pol_run_isolated_reply(struct sim_runner *r, const struct sim_config *cfg,
                           void (*reply)(void *ctx, void *buf), void *buf,
                           struct sim_result *res, gms_error *err);

/* The default limit on one plugin run, in seconds (--plugin-timeout), and the largest. */
#define POL_PLUGIN_TIMEOUT_DEFAULT 600.0
#define POL_PLUGIN_TIMEOUT_MAX 1e7
/* Sets the limit for the runs that start afterwards (0: none). -1 when seconds is not in
 * [0, POL_PLUGIN_TIMEOUT_MAX]. Process-wide: one command has one limit. */
int pol_set_plugin_timeout(double seconds);
double pol_plugin_timeout(void);

/* The fork gate. glibc's malloc is safe across a fork from a multithreaded process (its
 * fork handlers lock every arena first), but the sanitizers' allocator in the GCC 12 runtime
 * is not: a child forked while another thread held its lock deadlocks in its first malloc.
 * In sanitizer builds, threads that allocate while plugin runs may fork (sweep workers and
 * its writer, fit's workers) bracket that work with enter/leave, and pol_run_isolated forks
 * only when no thread is inside; in other builds these do nothing. Never call
 * pol_run_isolated between enter and leave. */
void pol_fork_gate_enter(void);
void pol_fork_gate_leave(void);

#endif
