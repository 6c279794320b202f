/*
 * db_seeds: the seed distributions `gpumemsim db runs` prints after its table. A sweep stores
 * each seed of a randomized policy as its own run (params "seed=K"); this groups the runs
 * that differ only in their seed and gives each group's distribution, as 'sim --seeds' does:
 * the median (stopped runs ranked above every finished one), min, max, how many ran out of
 * memory or hit the remat limit, and the mean only when every seed finished.
 */
#ifndef DB_SEEDS_H
#define DB_SEEDS_H

#include <stddef.h>

#include "store.h"

typedef struct db_seeds db_seeds;

db_seeds *db_seeds_new(void);
/* Adds one stored run (runs without a "seed=" parameter are ignored). 0, or -1 out of memory. */
int db_seeds_add(db_seeds *d, const store_row *r);
/* Prints the groups with at least two seeds (nothing when there are none). */
void db_seeds_print(const db_seeds *d);
void db_seeds_free(db_seeds *d);

#endif
