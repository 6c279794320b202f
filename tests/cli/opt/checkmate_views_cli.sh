#!/usr/bin/env bash
# The optimum seen and used (issue 28, item 5): sim --policy checkmate --perfetto (the
# replayed schedule as trace events: remat slices = the replay's recomputations, the resident
# counter's maximum = its peak), plot timeline --policy checkmate, checkmate in
# --list-policies marked as solved, and fit --policies checkmate (bisection over solves,
# through the store's solutions cache: a second fit solves nothing).
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
rm -f f.db p.json tl.svg

# --no-improve: these views are the subject, not the window search (cli_opt_checkmate_search);
# plot timeline has no such switch and runs it.
# an 8-layer MLP by layers: 20 nodes, each budget solved to optimality within a second
"$GMS_BIN" synth --model mlp --layers 8 --batch 64 --hidden 32 --optimizer none -o m.gmt 2>log \
  || fail "synth: $(cat log)"
B=0.8
run=$("$GMS_BIN" sim m.gmt --policy checkmate --coarsen layers --budget $B --time-limit 20 --no-improve \
      --perfetto p.json --json) || fail "sim --perfetto: $run"
[ "$(echo "$run" | field 'd["status"]')" = ok ] || fail "not ok at $B: $run"
remats=$(echo "$run" | field 'd["remats"]')
[ "$remats" -gt 0 ] || fail "nothing recomputed at $B: pick a tighter budget: $run"
python3 - "$run" <<'PY' || fail "perfetto file disagrees with the run"
import json, sys
run = json.loads(sys.argv[1])
d = json.load(open("p.json"))
ev = d["traceEvents"]
rem = sum(1 for e in ev if e.get("cat") == "remat")
ops = sum(1 for e in ev if e.get("cat") == "op")
res = max(e["args"]["bytes"] for e in ev if e.get("ph") == "C" and e.get("name") == "resident")
assert rem == run["remats"], (rem, run["remats"])
assert ops + rem == run["computes"], (ops, rem, run["computes"])
assert res == run["peak_memory"], (res, run["peak_memory"])
assert any(e.get("ph") == "C" and e.get("name") == "budget" for e in ev)
PY
ls | grep -q "tmp-" && fail "temporary file left: $(ls)"
# a perfetto file into a missing folder: an error, nothing left
"$GMS_BIN" sim m.gmt --policy checkmate --coarsen layers --budget $B --perfetto nodir/p.json \
  >/dev/null 2>err; [ $? -eq 1 ] || fail "perfetto into a missing folder"
[ ! -e nodir ] || fail "left nodir"

# the timeline: the same schedule drawn, its recomputations counted in the legend
"$GMS_BIN" plot timeline m.gmt --policy checkmate --coarsen layers --budget $B --time-limit 20 \
  -o tl.svg >/dev/null 2>err || fail "plot timeline checkmate: $(cat err)"
grep -q "policy checkmate" tl.svg || fail "title does not name checkmate"
grep -q "rematerialization ($remats)" tl.svg || fail "legend does not count $remats recomputations"
"$GMS_BIN" plot timeline m.gmt --policy checkmate --coarsen layers --budget $B --seed 3 -o x.svg 2>err
[ $? -ne 0 ] && grep -q "seed" err || fail "--seed accepted for checkmate: $(cat err)"
"$GMS_BIN" plot timeline m.gmt --policy dtr --budget $B --coarsen outputs -o x.svg 2>err
[ $? -ne 0 ] && grep -q "checkmate" err || fail "--coarsen accepted for dtr: $(cat err)"

# listed, and marked as solved
"$GMS_BIN" sim --list-policies | grep -E "^checkmate +solved: " >/dev/null \
  || fail "checkmate not listed as solved: $("$GMS_BIN" sim --list-policies)"
"$GMS_BIN" sim --list-policies | grep -q "^checkmate-approx" || fail "checkmate-approx not listed"

# fit: the smallest budget within 1.2, by solves; the answer passes and the budget below fails
fit=$("$GMS_BIN" fit m.gmt --policies checkmate,dtr --coarsen layers --max-overhead 1.2 \
      --grid 4 --db f.db --time-limit 20 --no-improve --json --quiet) || fail "fit: $fit"
read -r found budget below solved cached <<<"$(echo "$fit" | field '" ".join(str(x) for x in [
  d["results"][0]["found"], d["results"][0]["budget_bytes"], d["results"][0]["failed_below_bytes"],
  d["results"][0]["solved"], d["results"][0]["cached"]])')"
[ "$found" = True ] && [ "$solved" -gt 3 ] || fail "fit checkmate: $fit"
[ "$(echo "$fit" | field 'd["results"][0]["policy"], d["results"][1]["policy"]')" = "checkmate dtr" ] \
  || fail "policies: $fit"
at=$("$GMS_BIN" sim m.gmt --policy checkmate --coarsen layers --budget ${budget}B --db f.db --time-limit 20 --no-improve --json)
echo "$at" | field 'd["status"] == "ok" and d["overhead"] <= 1.2 and d["cached"]' | grep -q True \
  || fail "the fit's budget does not pass, or was not cached: $at"
if [ "$below" != None ]; then
  bl=$("$GMS_BIN" sim m.gmt --policy checkmate --coarsen layers --budget ${below}B --db f.db --time-limit 20 --no-improve --json)
  echo "$bl" | field 'd["status"] != "ok" or d["overhead"] > 1.2' | grep -q True \
    || fail "the budget below the fit's passes: $bl"
fi
again=$("$GMS_BIN" fit m.gmt --policies checkmate --coarsen layers --max-overhead 1.2 \
        --grid 4 --db f.db --time-limit 20 --no-improve --json --quiet) || fail "fit again: $again"
[ "$(echo "$again" | field 'd["results"][0]["solved"], d["results"][0]["cached"] == '"$solved"', d["results"][0]["budget_bytes"]')" \
  = "0 True $budget" ] || fail "the second fit solved again: $again"
"$GMS_BIN" fit m.gmt --policies dtr --coarsen outputs 2>err; [ $? -eq 2 ] || fail "--coarsen without checkmate"
"$GMS_BIN" fit m.gmt --policies checkmate --coarsen layers --allocator caching 2>err; [ $? -eq 2 ] \
  || fail "checkmate with an allocator"
echo ok
