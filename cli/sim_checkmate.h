/*
 * sim_checkmate: `gpumemsim sim TRACE --policy checkmate|checkmate-approx`: the trace's
 * iteration as a graph (as `graph`), solved (as `optimal`, or its --approx), the schedule
 * carried out by the replay engine (opt/opt_replay.h) and reported like a sim run
 * (docs/optimal.md, "In sim"). Its own file so the default replay path stays untouched.
 */
#ifndef SIM_CHECKMATE_H
#define SIM_CHECKMATE_H

/* 1 when argv asks sim for one of these policies (--policy NAME or --policy=NAME). */
int sim_checkmate_wanted(int argc, char **argv);

/* The whole `sim` command for them: its exit status (0 ok or oom, 1 failure, 2 usage). */
int sim_checkmate_main(int argc, char **argv);

#endif
