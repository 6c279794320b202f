#!/usr/bin/env bash
# Bad input to a solve (issue 28, items 4 and 7): a program too big for the 8 GB a solve may
# use is never built: the MILP answers with its best seed and the boundary bound, saying so;
# the LP and the rounding, which need the program, are refused in one line naming the way out;
# a solver process killed from outside is one line naming the signal, exit 1, nothing stored.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
rm -f k.db
rows() { python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute('SELECT count(*) FROM solutions').fetchone()[0] + c.execute('SELECT count(*) FROM runs').fetchone()[0])" "$1"; }

# a 3000-node U (node j of the second half also reads node n-1-j of the first, as a U-Net's
# skips): its program has tens of millions of nonzeros, over 8 GB for CBC
python3 -c "
import json
n = 3000
ins = lambda i: ([i - 1] if i else []) + ([n - 1 - i] if i >= n // 2 and n - 1 - i < i - 1 else [])
print(json.dumps({'nodes': [{'cost': 1, 'bytes': 10, 'inputs': ins(i)} for i in range(n)]}))" > chain.json
t0=$(date +%s)
"$GMS_BIN" optimal chain.json --budget 0.5 --relax --json >out 2>err; rc=$?
[ $rc -eq 1 ] || fail "a 13 GB LP: exit $rc: $(cat err)"
[ "$(wc -l < err)" -eq 1 ] && grep -q "more than the 8 GB a solve may use" err && grep -q -- "--coarsen" err \
  || fail "too big: $(cat err)"
[ ! -s out ] || fail "a refused LP printed: $(cat out)"
[ $(( $(date +%s) - t0 )) -lt 20 ] || fail "the refusal took $(( $(date +%s) - t0 )) s: sized after building?"
# the boundary bound is small at any size: still answered
"$GMS_BIN" optimal chain.json --budget 0.5 --bound boundary --json >/dev/null 2>err || fail "boundary: $(cat err)"

# the MILP of a program over the cap (lowered by GMS_OPT_MEMORY_CAP, so a sample is "too
# big"): the best seed, here a heuristic's run, and the boundary bound; never worse than the
# best run, the bound below it, no solver run, said in text and JSON
U="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"
GMS_OPT_MEMORY_CAP=1e5 "$GMS_BIN" optimal "$U" --coarsen outputs --budget 0.7 --json >big.json 2>err \
  || fail "too big MILP: exit $?: $(cat err)"
python3 - big.json <<'PY' || fail "too big MILP: $(cat big.json | head -40)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] in ("feasible", "optimal"), d["status"]
assert d["program_too_big_bytes"] > 1e5, d["program_too_big_bytes"]
assert d["lower_bound_from"] == "boundary" and d["solver"] == "none" and d["bb_nodes"] == 0
assert d["lower_bound"] <= d["objective"] + 1e-9
assert d["peak"] <= d["budget"]
runs = [h["schedule_overhead"] for h in d["heuristics"] if h["fits_program"]]
assert runs and d["overhead"] <= min(runs) + 1e-9, (d["overhead"], runs)
assert abs(d["gap"] - (d["objective"] - d["lower_bound"]) / d["objective"]) < 1e-9
assert d["seed_from"] in [h["policy"] for h in d["heuristics"]] + ["greedy", "checkpoint-all"]
PY
GMS_OPT_MEMORY_CAP=1e5 "$GMS_BIN" optimal "$U" --coarsen outputs --budget 0.7 >big.txt 2>err || fail "text: $(cat err)"
grep -q "program too big: .* answered with the best seed and the boundary bound" big.txt \
  && grep -q "lower_bound: .*(the boundary bound" big.txt || fail "text: $(cat big.txt)"
# without the cap the program is built and solved as before: its bound is the LP's
"$GMS_BIN" optimal "$U" --coarsen layers --budget 1.2 --seed-policies none --json >small.json 2>err \
  || fail "uncapped: $(cat err)"
python3 -c "import json,sys; d=json.load(open('small.json')); assert d['program_too_big_bytes'] is None and d['lower_bound_from'] == 'lp' and d['solver'] != 'none', d" \
  || fail "uncapped: $(head -30 small.json)"

# a solver killed from outside (out of memory, an operator): one line, exit 1, no row
# (--no-improve: the window search's own solves may fail, each leaving its incumbent)
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"
"$GMS_BIN" sim "$T" --policy checkmate --coarsen none --budget 0.92 --time-limit 60 --no-improve --db k.db \
  >out 2>err & pid=$!
kids=""
for _ in $(seq 1 100); do kids=$(pgrep -P $pid); [ -n "$kids" ] && break; sleep 0.1; done
[ -n "$kids" ] || fail "no solver process to kill"
sleep 1
for k in $kids; do kill -KILL "$k"; done
wait $pid; rc=$?
[ $rc -eq 1 ] || fail "killed solver: exit $rc: $(cat err)"
[ "$(wc -l < err)" -eq 1 ] && grep -q "died of signal 9" err || fail "killed solver: $(cat err)"
[ ! -s out ] || fail "a result printed after the solver died: $(cat out)"
[ "$(rows k.db)" = 0 ] || fail "the store kept something of the killed solve"
echo ok
