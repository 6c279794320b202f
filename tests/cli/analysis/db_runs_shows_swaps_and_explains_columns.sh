#!/usr/bin/env bash
# End-to-end (issue 32 item 6): 'db runs' shows what a swapping run moved (bytes out and in,
# stall time), which evictions and rematerializations do not, and 'db --help' explains every
# column of its table.
. "$(dirname "$0")/lib.sh"

"$GMS_BIN" sweep "$UNET" --policies swap-lru,dtr --budgets 0.5 --db s.db --quiet || fail "sweep"
"$GMS_BIN" db runs s.db >runs.txt || fail "db runs"
head -1 runs.txt | grep -Eq ' SWAPPED-OUT +SWAPPED-IN +STALL$' || fail "no swap columns: $(head -1 runs.txt)"
want=$("$GMS_BIN" sim "$UNET" --policy swap-lru --budget 0.5 --json | jq .swap.swap_out_bytes)
[ "$want" -gt 0 ] || fail "swap-lru moved nothing at 0.5 (bad test): $want"
mib=$(awk -v b="$want" 'BEGIN { printf "%.2f MiB", b / 1048576 }')
grep -E '^unet-small +swap-lru ' runs.txt | grep -q "  $mib  " ||
  fail "swap-lru's row lacks its $mib swapped: $(grep swap-lru runs.txt)"
grep -E '^unet-small +swap-lru ' runs.txt | grep -Eq ' [0-9.]+ ms$' || fail "no stall time"
grep -E '^unet-small +dtr ' runs.txt | grep -Eq ' +- +- +-$' || fail "dtr's swap columns: $(grep ' dtr ' runs.txt)"

help=$("$GMS_BIN" db --help)
for col in $(head -1 runs.txt); do
  grep -Eq "^  $col  " <<<"$help" || fail "db --help does not explain column $col"
done
grep -Eq '^  LIMIT +the remat limit' <<<"$help" || fail "LIMIT unexplained"
echo ok
