#!/usr/bin/env bash
# --coarsen auto, the default (issue 28, item 2): the finest graph (outputs) when the budget
# holds its peak (answered without a solver) or its program fits the memory cap and its LP a
# quarter of the time limit; else layers, saying why, and saying when the layer graph is
# infeasible where the outputs graph is not. A sweep keys runs by what auto picked.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
rm -f a.db
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"

# 1.0 of the trace's peak holds the outputs graph's: outputs, no solver, nothing recomputed
out=$("$GMS_BIN" sim "$T" --policy checkmate --budget 1.0 --json) || fail "auto at 1.0: $out"
[ "$(echo "$out" | field 'd["coarsen"], d["status"], d["overhead"], d["no_solver"], d["remats"]')" \
  = "outputs ok 1.0 True 0" ] || fail "auto at 1.0: $out"
echo "$out" | field 'd["coarsen_auto"]' | grep -q "holds its unconstrained peak" || fail "why: $out"
txt=$("$GMS_BIN" sim "$T" --policy checkmate --budget 1.0) || fail "text"
echo "$txt" | grep -q "^coarsen *outputs" || fail "text does not say what auto picked: $txt"

# a 1 s limit leaves no time for the outputs graph's LP (about a minute): layers, which is
# infeasible at 0.6 (a layer with its inputs needs 1.16 x), where the outputs graph is not
out=$("$GMS_BIN" sim "$T" --policy checkmate --budget 0.6 --time-limit 1 --json) || fail "0.6: $out"
[ "$(echo "$out" | field 'd["coarsen"], d["status"], d["solver_status"]')" = "layers oom infeasible" ] \
  || fail "auto at 0.6, 1 s: $out"
echo "$out" | field 'd["coarsen_auto"]' | grep -q "layer graph is infeasible.*where the outputs graph is not" \
  || fail "no word on the finer graph: $out"
o=$("$GMS_BIN" optimal "$T" --budget 0.6 --time-limit 1 --json) ; [ $? -eq 1 ] || fail "optimal auto: $o"
echo "$o" | field 'd["coarsen_auto"]' | grep -q "coarsen auto: layers" || fail "optimal auto: $o"
"$GMS_BIN" optimal "$T" --budget 1.0 --relax 2>err >/dev/null || fail "optimal text"
grep -q "coarsen auto: outputs" err || fail "optimal does not say what auto picked: $(cat err)"

# a sweep keys its runs and solutions by the graph auto picked
"$GMS_BIN" sweep "$T" --policies checkmate --budgets 1.0 --db a.db -j1 2>err || fail "sweep: $(cat err)"
python3 -c "
import sqlite3
c = sqlite3.connect('a.db')
assert c.execute(\"SELECT params FROM runs\").fetchall() == [('coarsen=outputs,iteration=0,time_limit=0',)]
assert c.execute(\"SELECT coarsen, status FROM solutions\").fetchall() == [('outputs', 'optimal')]
" || fail "sweep keys"
"$GMS_BIN" graph "$T" --coarsen auto -o g.json 2>err; [ $? -eq 2 ] || fail "graph took auto"
echo ok
