/*
 * db_gaps: `gpumemsim db gaps DB [FILTER] [--csv|--json] [-o FILE]`: every stored run beside
 * every exact Checkmate answer at its trace and budget, with its gap to the optimum and to
 * the LP bound (analysis/store_gaps.h; docs/optimal.md, "The yardstick").
 */
#ifndef DB_GAPS_H
#define DB_GAPS_H

#include "store.h"

/* format: 0 table, 1 CSV, 2 JSON; out NULL or "-": standard output. The exit status. */
int db_gaps(store *s, const store_filter *f, int format, const char *out);

#endif
