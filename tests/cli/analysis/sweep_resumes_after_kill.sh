# A sweep killed with SIGKILL mid-way and run again ends with exactly the rows of an
# uninterrupted sweep: nothing lost, nothing duplicated.
source "$(dirname "$0")/lib.sh"
# many short runs, so that the kill lands between commits with near certainty
args=("$TRANSFORMER" "$RESNET" "$UNET" --policies lru,size,random --seeds 3
      --budgets 0.30:1.0:0.01)

"$GMS_BIN" sweep "${args[@]}" --db full.db -j 2 --quiet
total=$("$GMS_BIN" db export full.db --csv | tail -n +2 | wc -l)
[ "$total" -eq $((3 * 5 * 71)) ] || fail "the full sweep stored $total runs, expected $((3 * 5 * 71))"

"$GMS_BIN" sweep "${args[@]}" --db killed.db -j 2 --quiet &
pid=$!
# kill as soon as the first runs are committed (the store is readable while it is written)
for _ in $(seq 1 400); do
  n=$("$GMS_BIN" db export killed.db --csv 2>/dev/null | tail -n +2 | wc -l || true)
  [ "${n:-0}" -gt 0 ] && break
  sleep 0.02
done
sleep "$(printf '0.%02d' $((RANDOM % 20)))" # somewhere further into the sweep
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
partial=$("$GMS_BIN" db export killed.db --csv | tail -n +2 | wc -l)
echo "killed after $partial of $total runs"
[ "$partial" -gt 0 ] || fail "nothing was committed before the kill"
[ "$partial" -lt "$total" ] || fail "the sweep finished before the kill; the test did not interrupt it"

"$GMS_BIN" sweep "${args[@]}" --db killed.db -j 2 2>resume.log
grep -q "$partial already in killed.db were skipped" resume.log ||
  fail "the resumed sweep did not skip the $partial stored runs: $(cat resume.log)"
diff <(stable_csv full.db) <(stable_csv killed.db) || fail "resumed store differs from the full sweep"
echo PASS
