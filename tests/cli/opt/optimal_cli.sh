#!/usr/bin/env bash
# End-to-end: 'graph' writes a trace's iteration as a graph 'optimal' reads; 'optimal' on a
# hand-solved graph (--json, text, --relax, --approx, --write-model), an infeasible budget
# (exit 1 and a sentence), bad graphs (the node named, exit 1, no crash) and bad options.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"

# a trace's iteration, op level and by layers; both read back by optimal
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"
"$GMS_BIN" graph "$T" -o ops.json 2>log || fail "graph: $(cat log)"
"$GMS_BIN" graph "$T" --coarsen layers -o layers.json 2>log || fail "graph --coarsen: $(cat log)"
grep -q "nodes" log || fail "graph says nothing: $(cat log)"
n_ops=$(field 'len(d["nodes"])' < ops.json)
n_layers=$(field 'len(d["nodes"])' < layers.json)
[ "$n_layers" -lt "$n_ops" ] && [ "$n_layers" -gt 1 ] || fail "layers $n_layers, ops $n_ops"
field 'all(i < k for k, n in enumerate(d["nodes"]) for i in n["inputs"]) and d["constant_bytes"] > 0' \
  < ops.json | grep -q True || fail "op graph not in execution order or no constants"
python3 -c "
import json; a=json.load(open('ops.json')); b=json.load(open('layers.json'))
s=lambda g: sum(n['cost'] for n in g['nodes'])
assert abs(s(a)-s(b)) <= 1e-9*s(a), (s(a), s(b))" || fail "coarsening changed the compute"
# 2.0 of the trace's peak holds the layer graph's (1.5 x the trace's): no recomputation, and
# no solver needed for it
out=$("$GMS_BIN" optimal layers.json --budget 2.0 --json) || fail "optimal at 2.0: $out"
[ "$(echo "$out" | field 'd["status"], d["recomputations"], abs(d["objective"] - d["compute"]) < 1e-9, d["no_solver"]')" = "optimal 0 True True" ] \
  || fail "no recomputation at the unconstrained peak: $out"
# a trace straight into optimal (coarsened by layers) gives the same answer as its graph
direct=$("$GMS_BIN" optimal "$T" --coarsen layers --budget 2.0 --json) || fail "optimal TRACE"
[ "$(echo "$direct" | field 'd["nodes"], d["objective"]')" = "$(echo "$out" | field 'd["nodes"], d["objective"]')" ] \
  || fail "trace and graph differ: $direct"
# no partial output: a graph into a missing folder fails and leaves nothing
"$GMS_BIN" graph "$T" -o nodir/g.json 2>err && fail "graph into a missing folder succeeded"
[ ! -e nodir ] || fail "left nodir"
ls | grep -q tmp- && fail "temporary file left: $(ls)"
"$GMS_BIN" graph "$T" --iteration 7 -o x.json 2>err; [ $? -eq 2 ] || fail "iteration 7 accepted"
grep -q "iteration" err || fail "no word on iterations: $(cat err)"

# the hand-solved diamond: a feeds b and c, they meet in d, e reads d and a; 30 bytes force
# exactly one recomputation, of a (cost 5), at stage 4
write_diamond diamond.json
out=$("$GMS_BIN" optimal diamond.json --budget 30B --json) || fail "diamond: $out"
[ "$(echo "$out" | field 'd["status"], d["objective"], d["recomputations"], d["schedule"][4]["compute"], d["peak"] <= 30')" \
  = "optimal 14.0 1 [0, 4] True" ] || fail "diamond: $out"
echo "$out" | field 'd["lower_bound"] <= d["objective"] and d["gap"] == 0 and d["seeded"]' | grep -q True \
  || fail "diamond bound/gap/seed: $out"
text=$("$GMS_BIN" optimal diamond.json --budget 0.75) || fail "text"
echo "$text" | grep -q "status: *optimal" && echo "$text" | grep -q "stage 4 (e) recomputes: 0" \
  || fail "text output: $text"
lp=$("$GMS_BIN" optimal diamond.json --budget 30B --relax --json) || fail "relax"
echo "$lp" | field 'd["mode"] == "relax" and d["objective"] <= 14 and "schedule" not in d' | grep -q True \
  || fail "relax: $lp"
ap=$("$GMS_BIN" optimal diamond.json --budget 30B --approx --json); rc=$?
echo "$ap" | field 'd["mode"]' | grep -q approx || fail "approx: $ap"
if [ $rc -eq 0 ]; then
  echo "$ap" | field 'd["objective"] >= 14 and d["peak"] <= 30' | grep -q True || fail "approx: $ap"
fi
tight=$("$GMS_BIN" optimal diamond.json --budget 30B --tighten --json) || fail "tighten"
[ "$(echo "$tight" | field 'd["objective"], d["program"]')" = "14.0 tightened" ] || fail "tighten: $tight"
"$GMS_BIN" optimal diamond.json --budget 30B --write-model m.lp >/dev/null || fail "write-model"
grep -qi "minimize" m.lp && grep -q "R_4_0" m.lp || fail "model file: $(head -5 m.lp)"
ls | grep -q "tmp-" && fail "temporary model file left: $(ls)"
"$GMS_BIN" optimal diamond.json --budget 30B --write-model nodir/m.lp >/dev/null 2>err && fail "model into a missing folder"
grep -q "nodir/m.lp" err || fail "model error: $(cat err)"

# infeasible: exit 1 and a sentence on what the smallest budget needs
out=$("$GMS_BIN" optimal diamond.json --budget 29B --json 2>err); [ $? -eq 1 ] || fail "29 B not refused"
[ "$(echo "$out" | field 'd["status"], d["min_budget_at_least"]')" = "infeasible 30" ] || fail "infeasible: $out"
grep -q "at least" err || fail "no sentence: $(cat err)"

# bad graphs: the node is named, exit 1
printf '{"nodes": [{"name": "x", "cost": 1, "bytes": 1}, {"name": "y", "cost": 1, "bytes": 1, "inputs": [1]}]}' > cyc.json
"$GMS_BIN" optimal cyc.json --budget 1.0 2>err; [ $? -eq 1 ] || fail "cycle accepted"
grep -q 'node 1 ("y")' err && grep -q cycle err || fail "cycle message: $(cat err)"
printf '{"nodes": [{"name": "x", "cost": -2, "bytes": 1}]}' > neg.json
"$GMS_BIN" optimal neg.json --budget 1.0 2>err; [ $? -eq 1 ] || fail "negative cost accepted"
grep -q 'node 0 ("x"): negative cost' err || fail "negative cost message: $(cat err)"

# usage errors
"$GMS_BIN" optimal diamond.json 2>err; [ $? -eq 2 ] || fail "no budget accepted"
"$GMS_BIN" optimal diamond.json --budget 30B --relax --approx 2>err; [ $? -eq 2 ] || fail "relax+approx"
"$GMS_BIN" optimal diamond.json --budget 30B --time-limit soon 2>err; [ $? -eq 2 ] || fail "bad time limit"
# --iteration and --time-limit read the same way in graph, optimal, sim and sweep
for bad in -1 x 4294967296; do
  "$GMS_BIN" graph "$T" --iteration "$bad" -o x.json 2>err; [ $? -eq 2 ] || fail "graph --iteration $bad"
  grep -q "give an iteration number" err || fail "graph --iteration $bad: $(cat err)"
  "$GMS_BIN" optimal "$T" --budget 1.0 --iteration "$bad" 2>err; [ $? -eq 2 ] || fail "optimal --iteration $bad"
  "$GMS_BIN" sim "$T" --policy checkmate --budget 1.0 --iteration "$bad" 2>err; [ $? -eq 2 ] ||
    fail "sim checkmate --iteration $bad"
  "$GMS_BIN" sweep "$T" --policies checkmate --budgets 1.0 --db bad.db --iteration "$bad" 2>err
  [ $? -eq 2 ] || fail "sweep --iteration $bad"
done
for bad in 0 -5 2h inf; do
  "$GMS_BIN" sim "$T" --policy checkmate --budget 1.0 --time-limit "$bad" 2>err; [ $? -eq 2 ] ||
    fail "sim checkmate --time-limit $bad"
  "$GMS_BIN" sweep "$T" --policies checkmate --budgets 1.0 --db bad.db --time-limit "$bad" 2>err
  [ $? -eq 2 ] || fail "sweep --time-limit $bad"
  grep -q "give seconds" err || fail "sweep --time-limit $bad: $(cat err)"
done
[ ! -e bad.db ] || fail "a refused sweep left a store"
out=$("$GMS_BIN" optimal diamond.json --budget 30B --time-limit 1m --json) || fail "--time-limit 1m: $out"
"$GMS_BIN" optimal --help | grep -q -- "--time-limit" || fail "help"
# the limit is a hard stop: the op-level graph (165 nodes) at 0.7 of its own peak (0.92 of the
# trace's), whose CBC root ran 252 s past a 20 s limit before, answers within 2 s + the grace
# (and some load) with the seed
t0=$(date +%s.%N)
out=$("$GMS_BIN" optimal ops.json --budget 0.92 --time-limit 2 --json) || fail "op level, 2 s: $out"
wall=$(python3 -c "print($(date +%s.%N) - $t0)")
echo "$out" | field 'd["status"], d["seeded"], d["solve_seconds"] <= '"$wall"', '"$wall"' < 2 + 5' \
  | grep -q "feasible True True True" || fail "2 s limit at op level: wall $wall s: $out"
echo "$out" | field '"killed_at_limit" in d' | grep -q True || fail "no killed_at_limit: $out"
"$GMS_BIN" graph --help | grep -q -- "--coarsen" || fail "graph help"

# --coarsen outputs (the extension: one node per output storage, each held until its own last
# reader): on one iteration of each synthetic family its unconstrained peak is sim's baseline
# peak, where the authors' op-level graph holds a batch norm's output with its saved values
for m in mlp resnet transformer unet; do
  "$GMS_BIN" synth --model $m --batch 2 -o s_$m.gmt 2>log || fail "synth $m: $(cat log)"
  base=$("$GMS_BIN" sim s_$m.gmt --budget 1.0 --json | field 'd["baseline_memory"]')
  # a budget of 1 KB is below every node: infeasible at once, with the graph's peak reported
  out=$("$GMS_BIN" optimal s_$m.gmt --coarsen outputs --budget 1KB --json)
  [ $? -eq 1 ] || fail "$m: 1 KB not infeasible: $out"
  [ "$(echo "$out" | field 'd["unconstrained_peak"]')" = "$base" ] \
    || fail "$m: outputs graph peak $(echo "$out" | field 'd["unconstrained_peak"]'), baseline $base"
  ops=$("$GMS_BIN" optimal s_$m.gmt --coarsen none --budget 1KB --json | field 'd["unconstrained_peak"]')
  [ "$ops" -ge "$base" ] || fail "$m: the authors' op graph peaks below the baseline: $ops < $base"
  [ $m != unet ] || [ "$ops" -gt "$base" ] || fail "unet: the authors' op graph no longer over-counts"
done
"$GMS_BIN" graph s_unet.gmt --coarsen outputs -o outs.json 2>log || fail "graph outputs: $(cat log)"
grep -q ":out1" outs.json || fail "no second output's node: $(head -c 300 outs.json)"
"$GMS_BIN" graph s_unet.gmt --coarsen bogus -o x.json 2>err; [ $? -eq 2 ] || fail "bogus coarsening"
grep -q "outputs" err || fail "the error does not offer outputs: $(cat err)"
# sim takes it too (issue 28): at the trace's peak the outputs graph fits without a solver
out=$("$GMS_BIN" sim s_unet.gmt --policy checkmate --coarsen outputs --budget 1.0 --json) \
  || fail "sim checkmate --coarsen outputs: $out"
[ "$(echo "$out" | field 'd["status"], d["coarsen"], d["overhead"], d["no_solver"]')" = "ok outputs 1.0 True" ] \
  || fail "sim checkmate --coarsen outputs at 1.0: $out"
echo ok
