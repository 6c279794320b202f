#!/usr/bin/env bash
# End-to-end: the yardstick (docs/optimal.md, "The yardstick"). A heuristic's sim --db reports
# its gap to every stored Checkmate answer at its trace and budget (op level and by layer,
# labelled), with the number defined as overhead / the optimum's overhead - 1; with none
# stored it says how to get one; db gaps (table, CSV, JSON) and the SQL view run_gaps give the
# same numbers; a heuristic that fits where the coarsened program is infeasible, or fails
# where it has a schedule, is a finding; plot overhead draws the optimum and the LP bound.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP/tmp" && cd "$GMS_TMP" || exit 1
export TMPDIR="$GMS_TMP/tmp"
# a 3-layer MLP: 34 op-level nodes, its MILP proven optimal in a few seconds
"$GMS_BIN" synth --model mlp --layers 3 --batch 16 --hidden 256 -q -o mlp.gmt || fail synth
UNET="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"

# a store that does not exist: created, holding the run, as a sweep would make it (sim --db
# stores its run, issue 32)
out=$("$GMS_BIN" sim mlp.gmt --budget 0.9 --db none.db --json 2>&1) || fail "new store: $out"
runs=$("$GMS_BIN" db runs none.db)
echo "$runs" | grep -q "^1 runs: 1 ok" || fail "sim --db did not store its run: $runs"
out=$("$GMS_BIN" sim mlp.gmt --db none.db 2>&1); [ $? = 2 ] || fail "no budget: $out"
echo "$out" | grep -q "give --budget" || fail "no budget: $out"
# nothing solved yet: an empty list and the command that solves one
"$GMS_BIN" sweep mlp.gmt --policies dtr,lru --budgets 0.86,0.9 --db y.db -j1 --quiet \
  || fail "sweep dtr"
out=$("$GMS_BIN" sim mlp.gmt --policy dtr --budget 0.9 --db y.db --json) || fail "$out"
python3 -c "
import json, sys
y = json.loads(sys.argv[1])['yardstick']
assert y['solutions'] == [] and y['comparable'] and y['trace_iterations'] == 1, y
assert '--policy checkmate' in y['hint'] and 'y.db' in y['hint'], y" "$out" \
  || fail "no answer stored: $out"
"$GMS_BIN" sim mlp.gmt --policy dtr --budget 0.9 --db y.db | grep -q "^yardstick        none: " \
  || fail "text without an answer"

# the optimum at op level and by layer, at two budgets
for k in none layers; do
  "$GMS_BIN" sweep mlp.gmt --policies checkmate --coarsen $k --budgets 0.86,0.9 --db y.db \
    -j1 --quiet || fail "sweep checkmate $k"
done
ck=$("$GMS_BIN" sim mlp.gmt --policy checkmate --coarsen none --budget 0.9 --db y.db --json)
dtr=$("$GMS_BIN" sim mlp.gmt --policy dtr --budget 0.9 --db y.db --json) || fail "$dtr"
python3 -c "
import json, sys
ck, d = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert ck['cached'] and ck['status'] == 'ok', ck
s = {e['coarsen']: e for e in d['yardstick']['solutions']}
assert set(s) == {'none', 'layers'}, s
op = s['none']
assert op['solver_status'] == 'optimal' and op['proven'] and op['nodes'] == 34, op
assert abs(op['opt_overhead'] - ck['overhead']) <= 1e-12, (op, ck['overhead'])
assert abs(op['bound_overhead'] - ck['lower_bound'] / ck['baseline_compute']) <= 1e-12, op
g = d['overhead'] / ck['overhead'] - 1
assert abs(op['gap_optimum'] - g) <= 1e-12 and g > 0, (op, g)
assert abs(op['gap_bound'] - (d['overhead'] / op['bound_overhead'] - 1)) <= 1e-12, op
assert op['gap_bound'] >= op['gap_optimum'], op
print(repr(op['gap_optimum']))" "$ck" "$dtr" > gap.txt || fail "gap at 0.9: $dtr"
# at 0.86 dtr fails where the layer program has a schedule: a finding, no number
out=$("$GMS_BIN" sim mlp.gmt --policy dtr --budget 0.86 --db y.db --json) || fail "$out"
python3 -c "
import json, sys
d = json.loads(sys.argv[1]); assert d['status'] == 'oom', d
s = {e['coarsen']: e for e in d['yardstick']['solutions']}
assert s['layers']['gap_optimum'] is None and 'failed' in s['layers']['finding'], s
assert s['none']['solver_status'] == 'infeasible' and s['none']['finding'] is None, s" "$out" \
  || fail "oom at 0.86: $out"

# db gaps: the same numbers as a table, CSV and JSON, and as the SQL view
"$GMS_BIN" db gaps y.db > gaps.txt || fail "db gaps"
grep -Eq '^mlp +dtr +0\.900 +ok .* none +0 +optimal ' gaps.txt || fail "table: $(cat gaps.txt)"
# a checkmate run is set beside its own program's answer only: its gap is 0
[ "$(grep -c '^mlp *checkmate ' gaps.txt)" = 4 ] || fail "checkmate rows: $(cat gaps.txt)"
grep -E '^mlp +checkmate +0\.900 ' gaps.txt | grep -vq ' +0\.00% ' && fail "checkmate gap"
grep -q "^12 rows, 12 beside a stored answer, 0 below" gaps.txt || fail "tally: $(tail -1 gaps.txt)"
"$GMS_BIN" db gaps y.db --csv --policy dtr -o gaps.csv || fail "db gaps --csv"
"$GMS_BIN" db gaps y.db --json --policy dtr -o gaps.json || fail "db gaps --json"
ls gaps.csv.tmp-* gaps.json.tmp-* 2>/dev/null && fail "temporary files left"
python3 - "$(cat gap.txt)" <<'PY' || fail "db gaps and the view disagree with sim"
import csv, json, sqlite3, sys
want = float(sys.argv[1])
rows = [r for r in csv.DictReader(open('gaps.csv')) if r['ratio'].startswith('0.9')]
op = [r for r in rows if r['coarsen'] == 'none'][0]
assert abs(float(op['gap_optimum']) - want) <= 1e-12, op
js = [r for r in json.load(open('gaps.json')) if r['ratio'] > 0.89 and r['coarsen'] == 'none']
assert abs(js[0]['gap_optimum'] - want) <= 1e-12, js
db = sqlite3.connect('y.db')
(v,) = db.execute("SELECT gap_optimum FROM run_gaps WHERE policy = 'dtr' AND coarsen = 'none'"
                  " AND ratio > 0.89").fetchone()
assert abs(v - want) <= 1e-12, v
(n,) = db.execute("SELECT count(*) FROM run_gaps").fetchone()
assert n == 12, n  # as db gaps: checkmate runs beside their own program only
PY
out=$("$GMS_BIN" db gaps y.db --csv --json 2>&1) && fail "two formats: $out"
echo "$out" | grep -q "one format" || fail "two formats: $out"

# a heuristic that fits where the layer program is infeasible (unet-small's layer graph
# peaks at 1.51 x the trace, its largest layer needs 1.16 x): a finding, never a number
"$GMS_BIN" sim "$UNET" --policy checkmate --coarsen layers --budget 1.0 --db u.db --json >/dev/null || fail "unet"
out=$("$GMS_BIN" sim "$UNET" --policy dtr --budget 1.0 --db u.db --json) || fail "$out"
python3 -c "
import json, sys
d = json.loads(sys.argv[1]); assert d['status'] == 'ok', d
(e,) = d['yardstick']['solutions']
assert e['solver_status'] == 'infeasible' and e['coarsen'] == 'layers', e
assert e['gap_optimum'] is None and 'infeasible' in e['finding'], e" "$out" \
  || fail "infeasible finding: $out"

# plot overhead: the optimum's line and the region below its LP bound. One line never mixes
# two programs (the store holds checkmate runs of both): keep the op-level ones.
cp y.db p.db && python3 -c "
import sqlite3; db = sqlite3.connect('p.db')
db.execute(\"DELETE FROM runs WHERE params LIKE 'coarsen=layers%'\"); db.commit()" || fail "p.db"
"$GMS_BIN" plot overhead p.db -o c.svg --script c.gp >/dev/null || fail "plot overhead"
[ -s c.svg ] || fail "no chart"
grep -q "^# lp bound none$" c.gp || fail "no bound block: $(cat c.gp)"
grep -q "using 1:(0):2 with filledcurves fc rgb '#f2c4c4'" c.gp || fail "no bound region"
grep -q "title 'optimum (checkmate, op level)'" c.gp || fail "no optimum line"
grep -q "below the LP bound (op level)" c.gp || fail "no note on the region"
# the bound at 0.9 is the solver's LP bound over the graph's compute
python3 - "$ck" <<'PY' || fail "bound in the chart"
import json, re, sys
ck = json.loads(sys.argv[1])
block = open('c.gp').read().split('# lp bound none\n')[1].split('\n\n')[0]
pts = dict(map(float, l.split()) for l in block.splitlines())
assert abs(pts[0.9] - ck['lower_bound'] / ck['baseline_compute']) < 1e-8, (pts, ck)
PY
echo ok
