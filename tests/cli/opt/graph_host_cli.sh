#!/usr/bin/env bash
# End-to-end: 'graph --host-trace' and 'graph --host-estimate' (docs/optimal.md "Two devices",
# where cost_host comes from). A "host" trace is the same synthetic job with another GPU's
# roofline (same structure, other costs); one of another batch or depth is refused naming the
# first differing node, with no output file. The written graph runs optimal's two-device
# program. Bad estimate specs and option mixes are usage errors.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
synth() { "$GMS_BIN" synth --model mlp --layers 3 --hidden 64 -q "$@" || fail "synth $*"; }

synth --batch 8 --gpu h100 -o job.gmt
synth --batch 8 --gpu v100 -o host.gmt
synth --batch 16 --gpu v100 -o batch16.gmt
synth --batch 8 --layers 4 --gpu v100 -o deeper.gmt

for c in none layers; do
  "$GMS_BIN" graph job.gmt --coarsen $c -o plain.json 2>/dev/null || fail "plain $c"
  "$GMS_BIN" graph host.gmt --coarsen $c -o hostonly.json 2>/dev/null || fail "host alone $c"
  err=$("$GMS_BIN" graph job.gmt --coarsen $c --host-trace host.gmt -o two.json 2>&1) \
    || fail "host trace $c: $err"
  echo "$err" | grep -q "cost_host from host.gmt" || fail "host trace message: $err"
  # every node: cost as the job's, cost_host the host trace's cost, structure unchanged
  python3 - plain.json hostonly.json two.json <<'P' || fail "host trace $c: costs not taken"
import json, sys
p, h, t = (json.load(open(f)) for f in sys.argv[1:])
assert len(t["nodes"]) == len(p["nodes"]) > 3
assert any(a["cost"] != b["cost"] for a, b in zip(p["nodes"], h["nodes"])), "costs equal: weak test"
for a, b, n in zip(p["nodes"], h["nodes"], t["nodes"]):
    assert n["cost"] == a["cost"] and n["cost_host"] == b["cost"], n
    assert n["bytes"] == a["bytes"] and n.get("inputs") == a.get("inputs"), n
assert "cost_host" not in json.dumps(p)
P
done

# the written graph runs the two-device program
out=$("$GMS_BIN" optimal two.json --budget 0.8 --json) || fail "optimal on host-trace graph: $out"
echo "$out" | field 'd["program"] == "two-device" and d["status"] in ("optimal", "feasible")' \
  | grep -q True || fail "not two-device: $out"

# mismatching host traces: exit 1, the first differing node named, nothing written
rm -f bad.json
err=$("$GMS_BIN" graph job.gmt --host-trace batch16.gmt -o bad.json 2>&1); rc=$?
[ $rc -eq 1 ] || fail "batch mismatch exit $rc: $err"
echo "$err" | grep -q 'differs at node 0 ("copy_h2d"): 2048 bytes here, 4096 in the host trace' \
  || fail "batch mismatch message: $err"
err=$("$GMS_BIN" graph job.gmt --coarsen layers --host-trace deeper.gmt -o bad.json 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q "differs at node [0-9]* (\"[^\"]*\"): " \
  || fail "depth mismatch ($rc): $err"
err=$("$GMS_BIN" graph job.gmt --host-trace missing.gmt -o bad.json 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q -- "--host-trace missing.gmt" || fail "missing ($rc): $err"
[ ! -e bad.json ] || fail "a refused host trace left an output file"

# estimates: slowdown=4 is 4 x each node's cost; with a roofline no node is below it
"$GMS_BIN" graph job.gmt --coarsen layers --host-estimate slowdown=4 -o s4.json 2>/dev/null \
  || fail "slowdown"
field 'all(abs(n["cost_host"] - 4 * n["cost"]) <= 1e-9 * n["cost"] + 1e-12 for n in d["nodes"])' \
  < s4.json | grep -q True || fail "slowdown=4: $(head -c 400 s4.json)"
"$GMS_BIN" graph job.gmt --coarsen layers --host-estimate slowdown=4,roofline=0.001 -o sr.json \
  2>/dev/null || fail "slowdown+roofline"
python3 - s4.json sr.json <<'P' || fail "roofline did not raise any node above slowdown"
import json, sys
a, b = (json.load(open(f))["nodes"] for f in sys.argv[1:])
assert all(y["cost_host"] >= x["cost_host"] - 1e-12 for x, y in zip(a, b))
assert any(y["cost_host"] > x["cost_host"] for x, y in zip(a, b))
P
out=$("$GMS_BIN" optimal s4.json --budget 0.8 --json) || fail "optimal on estimate: $out"
echo "$out" | field 'd["program"]' | grep -qx two-device || fail "estimate not two-device: $out"

# usage errors: exit 2 with the reason
for spec in "" slowdown=0 roofline=50,100 gflops=3 slowdown=2,slowdown=2; do
  err=$("$GMS_BIN" graph job.gmt --host-estimate "$spec" -o e.json 2>&1); rc=$?
  [ $rc -eq 2 ] && echo "$err" | grep -q -- "--host-estimate '$spec': " \
    || fail "bad spec '$spec' ($rc): $err"
done
err=$("$GMS_BIN" graph job.gmt --host-trace host.gmt --host-estimate slowdown=2 -o e.json 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "not both" || fail "both: $err"
[ ! -e e.json ] || fail "a usage error left an output file"
"$GMS_BIN" graph --help | grep -q -- "--host-estimate SPEC" || fail "help"
echo ok
