#!/usr/bin/env bash
# End-to-end: 'sweep --policies checkmate' stores a normal run row per budget (the same
# outcome as 'sim --policy checkmate'), keyed with its settings in params, and caches each
# solver answer in the store's solutions table: runs at a budget already solved (a new run key,
# or 'sim --db') replay the stored schedule without solving; db merge carries the table.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
rm -f r.db m.db
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"
sql() { # $1: the store, $2: a query; rows as a|b|c (python's sqlite3: no sqlite3 CLI needed)
  python3 -c "
import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):
    print('|'.join(map(str, r)))" "$1" "$2"
}
q() { sql r.db "$1"; }
"$GMS_BIN" sweep "$T" --policies checkmate --coarsen layers --budgets 1.5,2.0 --db r.db -j1 2>err \
  || fail "sweep: $(cat err)"
grep -q "checkmate: 2 schedules solved, 0 from the store's solution cache" err \
  || fail "first sweep: $(cat err)"
[ "$(q "SELECT count(*) FROM runs WHERE policy = 'checkmate' AND status = 'ok'
        AND params = 'coarsen=layers,iteration=0,time_limit=0' AND overhead >= 1
        AND peak_memory <= budget")" = 2 ] || fail "rows: $(q 'SELECT * FROM runs')"
[ "$(q "SELECT count(*) FROM solutions WHERE mode = 'exact' AND status = 'optimal'
        AND schedule IS NOT NULL")" = 2 ] || fail "solutions: $(q 'SELECT * FROM solutions')"
# the row says what sim says at that budget
sim=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 1.5 --json) || fail "sim: $sim"
python3 -c "
import json, sys
d = json.loads(sys.argv[1])
ov, peak = float(sys.argv[2]), int(sys.argv[3])
assert abs(d['overhead'] - ov) <= 1e-12 and d['peak_memory'] == peak and not d['cached'], (d, ov)
" "$sim" "$(q "SELECT overhead FROM runs WHERE ratio = 1.5")" \
  "$(q "SELECT peak_memory FROM runs WHERE ratio = 1.5")" || fail "sim vs sweep: $sim"
# the same sweep again: every run is there already, nothing solved
"$GMS_BIN" sweep "$T" --policies checkmate --coarsen layers --budgets 1.5,2.0 --db r.db -j1 2>err || fail "again"
grep -q "2 already in r.db were skipped" err || fail "second sweep: $(cat err)"
# new run keys (another remat limit) at the same budgets: answered from the cache
"$GMS_BIN" sweep "$T" --policies checkmate --coarsen layers --budgets 1.5,2.0 --remat-limit 0 --db r.db -j1 \
  2>err || fail "cached sweep: $(cat err)"
grep -q "checkmate: 0 schedules solved, 2 from the store's solution cache" err \
  || fail "not from the cache: $(cat err)"
[ "$(q "SELECT count(*) FROM solutions")" = 2 ] || fail "solutions grew"
[ "$(q "SELECT count(DISTINCT overhead || '/' || peak_memory) FROM runs WHERE policy = 'checkmate'
        GROUP BY budget" | sort -u)" = 1 ] || fail "cached rows differ: $(q 'SELECT * FROM runs')"
# sim --db: a solved budget is cached, a new one is solved and stored
out=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 1.5 --db r.db --json) || fail "sim db: $out"
echo "$out" | grep -q '"cached":true' || fail "sim did not use the cache: $out"
out=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 1.2 --db r.db --json) || fail "sim 1.2: $out"
echo "$out" | grep -q '"cached":false' || fail "sim 1.2 claims a cache: $out"
[ "$(q "SELECT count(*) FROM solutions")" = 3 ] || fail "sim did not store its answer"
"$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 1.2 --db r.db | grep -q "cached in the store" \
  || fail "sim text does not say cached"
# other settings are other keys: approx and a time limit solve again
"$GMS_BIN" sweep "$T" --policies checkmate-approx,checkmate --coarsen layers --budgets 2.0 --time-limit 60 \
  --db r.db -j1 2>err || fail "time limit sweep: $(cat err)"
grep -q "checkmate: 2 schedules solved, 0 from" err || fail "settings collided: $(cat err)"
# checkmate's time-limited solve runs the window search (its params and its solution say
# so); checkmate-approx's is a rounding, without it
[ "$(q "SELECT count(*) FROM runs WHERE policy = 'checkmate' AND params = 'coarsen=layers,iteration=0,time_limit=60,search=windows'")" = 1 ] \
  || fail "time limit params: $(q 'SELECT params FROM runs')"
[ "$(q "SELECT count(*) FROM runs WHERE policy = 'checkmate-approx' AND params = 'coarsen=layers,iteration=0,time_limit=60'")" = 1 ] \
  || fail "approx time limit params: $(q 'SELECT params FROM runs')"
[ "$(q "SELECT search FROM solutions WHERE time_limit = 60 AND mode = 'exact'")" = windows ] \
  || fail "solution search: $(q 'SELECT mode, time_limit, search FROM solutions')"
# db merge carries the solutions
"$GMS_BIN" db merge r.db -o m.db 2>err || fail "merge: $(cat err)"
[ "$(sql m.db "SELECT count(*) FROM solutions")" = 5 ] || fail "merge lost solutions"
# the settings without a Checkmate policy, or a bad iteration: clear errors
"$GMS_BIN" sweep "$T" --policies dtr --time-limit 3 --db r.db 2>err; [ $? -eq 2 ] \
  || fail "--time-limit without checkmate accepted"
grep -q "names neither checkmate" err || fail "no word: $(cat err)"
"$GMS_BIN" sweep "$T" --policies checkmate --coarsen layers --iteration 9 --budgets 1.5 --db r.db 2>err
[ $? -eq 1 ] || fail "iteration 9 accepted"
grep -q "iteration 9" err || fail "no word on the iteration: $(cat err)"

# --coarsen outputs (issue 28): keyed as such in the runs' params and the solutions, and read
# back by db gaps beside a heuristic. The outputs graph of a synth trace peaks at its
# baseline, so 1.0 is answered without a solver and 0.05 is below every node.
rm -f o.db
"$GMS_BIN" synth --model mlp --layers 2 --batch 4 --hidden 32 --optimizer none -o o.gmt 2>/dev/null
"$GMS_BIN" sweep o.gmt --policies checkmate,dtr --coarsen outputs --budgets 0.05,1.0 --db o.db -j1 \
  2>err || fail "sweep --coarsen outputs: $(cat err)"
[ "$(sql o.db "SELECT count(*) FROM runs WHERE policy = 'checkmate'
               AND params = 'coarsen=outputs,iteration=0,time_limit=0'")" = 2 ] \
  || fail "outputs params: $(sql o.db 'SELECT policy, params FROM runs')"
[ "$(sql o.db "SELECT coarsen, status FROM solutions ORDER BY budget")" = "outputs|infeasible
outputs|optimal" ] || fail "outputs solutions: $(sql o.db 'SELECT * FROM solutions')"
gaps=$("$GMS_BIN" db gaps o.db --json) || fail "db gaps: $gaps"
echo "$gaps" | python3 -c "
import json, sys
rows = json.load(sys.stdin)
rows = rows['rows'] if isinstance(rows, dict) else rows
d = [r for r in rows if r['policy'] == 'dtr' and r['coarsen'] == 'outputs' and r['gap_optimum'] is not None]
assert d and abs(d[0]['gap_optimum']) < 1e-3, rows  # dtr's clock starts at 1 ns" || fail "db gaps does not read outputs: $gaps"
echo ok
