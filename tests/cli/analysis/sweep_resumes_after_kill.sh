#!/usr/bin/env bash
# A sweep killed with SIGKILL mid-way and run again ends with exactly the rows of an
# uninterrupted sweep: nothing lost, nothing duplicated.
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "$0")/lib.sh"
# many short runs, so that the kill lands between commits
# shellcheck disable=SC2054 # the commas belong to the --policies value
args=("$TRANSFORMER" "$RESNET" "$UNET" --policies lru,size,random --seeds 3
      --budgets 0.30:1.0:0.005)
count() {
  local csv
  csv=$("$GMS_BIN" db export "$1" --csv 2>/dev/null) || { echo 0; return; }
  echo "$csv" | tail -n +2 | grep -c . || true
}

"$GMS_BIN" sweep "${args[@]}" --db full.db -j 2 --quiet
total=$(count full.db)
[ "$total" -eq $((3 * 5 * 141)) ] || fail "the full sweep stored $total runs, expected $((3 * 5 * 141))"

# kill once a random share of the runs is committed (the store is readable while written);
# on a fast machine the sweep may finish first: then try again with a smaller share
partial=0
for attempt in 1 2 3 4 5; do
  rm -f killed.db killed.db-wal killed.db-shm
  target=$((1 + RANDOM % (total / (2 * attempt))))
  "$GMS_BIN" sweep "${args[@]}" --db killed.db -j 2 --quiet &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && [ "$(count killed.db)" -lt "$target" ]; do sleep 0.01; done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  partial=$(count killed.db)
  echo "attempt $attempt: killed after $partial of $total runs (aimed at $target)"
  [ "$partial" -gt 0 ] && [ "$partial" -lt "$total" ] && break
done
[ "$partial" -gt 0 ] && [ "$partial" -lt "$total" ] ||
  fail "no attempt interrupted the sweep with some runs committed"

"$GMS_BIN" sweep "${args[@]}" --db killed.db -j 2 2>resume.log
grep -q "$partial already in killed.db were skipped" resume.log ||
  fail "the resumed sweep did not skip the $partial stored runs: $(cat resume.log)"
diff <(stable_csv full.db) <(stable_csv killed.db) || fail "resumed store differs from the full sweep"
echo PASS
