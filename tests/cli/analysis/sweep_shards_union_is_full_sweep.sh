#!/usr/bin/env bash
# Three shards of a sweep are disjoint and their merged stores equal the unsharded sweep.
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "$0")/lib.sh"
args=("$RESNET" "$UNET" --budgets 0.1:1.0:0.1 --seeds 3 --quiet -j 2)

"$GMS_BIN" sweep "${args[@]}" --db full.db
sum=0
for k in 1 2 3; do
  "$GMS_BIN" sweep "${args[@]}" --shard "$k/3" --db "shard$k.db"
  n=$("$GMS_BIN" db export "shard$k.db" --csv | tail -n +2 | wc -l)
  [ "$n" -gt 0 ] || fail "shard $k/3 is empty"
  sum=$((sum + n))
done
total=$("$GMS_BIN" db export full.db --csv | tail -n +2 | wc -l)
[ "$sum" -eq "$total" ] || fail "shards hold $sum runs together, the full sweep $total"

"$GMS_BIN" db merge shard1.db shard2.db shard3.db -o merged.db
diff <(stable_csv full.db) <(stable_csv merged.db) || fail "merged shards differ from the full sweep"

# merging again (overlapping inputs) adds nothing; an existing output needs --force
expect_fail 'exists; pass --force' "$GMS_BIN" db merge merged.db full.db -o merged.db
"$GMS_BIN" db merge merged.db full.db shard1.db -o merged.db --force
diff <(stable_csv full.db) <(stable_csv merged.db) || fail "re-merge duplicated or lost runs"
no_temp_files
echo PASS
