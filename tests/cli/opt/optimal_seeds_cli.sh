#!/usr/bin/env bash
# optimal on a trace runs the heuristics at the same bytes (issue 28, items 2 and 3): at op
# level each run, as a schedule of the graph, seeds the MILP, so a time-limited answer is never
# worse than the best run that fits the program's memory (here the LP alone outlasts the
# limit: before, the answer was the greedy seed); on the layer graph an answer worse than a
# run, or none where a run fits, is said so in text and --json.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"

"$GMS_BIN" optimal "$T" --coarsen outputs --budget 0.7 --time-limit 3 --json >a.json \
  || fail "outputs 0.7: $(cat a.json)"
python3 - <<'PY' || fail "seeded answer: $(head -c 3000 a.json)"
import json
d = json.load(open("a.json"))
h = d["heuristics"]
assert [r["policy"] for r in h] == ["dtr", "dtr-eq", "msps", "lru"], h
fit = [r for r in h if r["status"] == "ok" and r["fits_program"]]
assert fit, h
best = min(r["schedule_overhead"] for r in fit)
# each run's schedule computes no more than the run did
assert all(r["schedule_overhead"] <= r["overhead"] + 1e-9 for r in fit), h
assert d["status"] in ("feasible", "optimal") and d["overhead"] <= best + 1e-9, (d["overhead"], best)
# the best run seeds, or the window search improved it first (issue 28, item 3)
seed = d["improvement"]["from"] if d["seed_from"] == "window-search" else d["seed_from"]
assert seed in [r["policy"] for r in fit if r["schedule_overhead"] <= best + 1e-12], d["seed_from"]
assert d["worse_than_heuristic"] is None
PY
txt=$("$GMS_BIN" optimal "$T" --coarsen outputs --budget 0.7 --time-limit 3) || fail "text: $txt"
grep -q "^heuristics: *dtr [0-9.]* (as a schedule" <<<"$txt" || fail "no heuristics line: $txt"
grep -q "^seed from: *\(dtr\|dtr-eq\|msps\|lru\|window-search\)$" <<<"$txt" || fail "no seed line: $txt"

# without the runs the seed is one of optimal's own
"$GMS_BIN" optimal "$T" --coarsen outputs --budget 0.7 --time-limit 3 --json \
  --seed-policies none >n.json || fail "none: $(head -c 3000 n.json)"
python3 -c "
import json
d = json.load(open('n.json'))
own = ('checkpoint-all', 'greedy', 'lp-rounding')
assert d['heuristics'] == [], d['heuristics']
# the window search may improve it within the limit: then its seed is one of those
imp = d['improvement']
assert d['seed_from'] in own or (d['seed_from'] == 'window-search' and imp['from'] in own), (d['seed_from'], imp)
" || fail "--seed-policies none: $(head -c 3000 n.json)"
"$GMS_BIN" optimal "$T" --coarsen outputs --budget 0.7 --seed-policies dtr,bogus >o 2>err
[ $? -eq 2 ] || fail "a bad policy name was taken"
[ "$(wc -l <err)" -eq 1 ] && grep -q "'bogus' is not an eviction policy" err || fail "message: $(cat err)"
[ -s o ] && fail "output on a usage error: $(cat o)"

# layers at 1.2: a layer needs recomputation where every run needs none: said so
"$GMS_BIN" optimal "$T" --coarsen layers --budget 1.2 --time-limit 60 --json >l.json \
  || fail "layers: $(cat l.json)"
python3 -c "
import json
d = json.load(open('l.json'))
w = d['worse_than_heuristic']
assert d['overhead'] > min(r['overhead'] for r in d['heuristics']), d['overhead']
assert w and 'worse than' in w and '--coarsen outputs' in w, w
" || fail "layers 1.2: $(cat l.json)"
# layers at 0.8: a layer with its inputs does not fit, the runs do: said so, exit 1
"$GMS_BIN" optimal "$T" --coarsen layers --budget 0.8 >o 2>err; [ $? -eq 1 ] || fail "layers 0.8"
grep -q "^note: *the layers graph has no schedule at this budget, but [a-z-]*'s run fits" o \
  || fail "no note on the infeasible layer graph: $(cat o)"

# issue 28, item 7: a graph JSON with the trace it came from (--trace): the trace_hash must
# match, else one line, exit 2, nothing on stdout; when it does, the runs seed as on the trace
"$GMS_BIN" graph "$T" --coarsen outputs -o g.json 2>/dev/null || fail "graph"
M="$GMS_SOURCE_DIR/traces/samples/mlp-small.gmt"
"$GMS_BIN" optimal g.json --trace "$M" --budget 0.7 >o 2>err; [ $? -eq 2 ] || fail "another trace was taken"
[ "$(wc -l <err)" -eq 1 ] && grep -q "g.json was made from another trace (trace_hash [0-9a-f]\{16\}) than .*mlp-small.gmt" err \
  || fail "message: $(cat err)"
[ -s o ] && fail "output for another trace's graph: $(cat o)"
python3 -c "
import json
d = json.load(open('g.json')); del d['trace_hash']; json.dump(d, open('nohash.json', 'w'))"
"$GMS_BIN" optimal nohash.json --trace "$T" --budget 0.7 >o 2>err; [ $? -eq 2 ] || fail "no trace_hash taken"
grep -q "names no trace_hash" err || fail "message: $(cat err)"
"$GMS_BIN" optimal "$T" --trace "$T" --budget 0.7 >o 2>err; [ $? -eq 2 ] || fail "--trace with a trace"
"$GMS_BIN" optimal g.json --trace "$T" --budget 0.7 --time-limit 3 --json >gt.json || fail "own trace"
python3 -c "
import json
d = json.load(open('gt.json'))
h = d['heuristics']
assert [r['policy'] for r in h] == ['dtr', 'dtr-eq', 'msps', 'lru'], h
best = min(r['schedule_overhead'] for r in h if r['status'] == 'ok' and r['fits_program'])
seed = d['improvement']['from'] if d['seed_from'] == 'window-search' else d['seed_from']
assert seed in [r['policy'] for r in h] and d['overhead'] <= best + 1e-9, (d['seed_from'], d['overhead'])
" || fail "graph with its trace: $(head -c 2000 gt.json)"
echo ok
