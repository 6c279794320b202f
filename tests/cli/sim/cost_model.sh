#!/usr/bin/env bash
# End-to-end: the runtime-cost model in 'sim' (--op-overhead, --search-cost, --evict-cost,
# --seeds, --budget-band) and 'calibrate', on the DenseNet-121 log and its measured slowdown
# from ../shared/reference/dtr-prototype-measured.csv (development data).
set -u
: "${GMS_BIN:?}" "${GMS_SHARED_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$GMS_TMP"
LOG=$(ls "$GMS_SHARED_DIR"/traces/dtr-iclr21/tv_densenet121-*.log 2>/dev/null | head -1)
CSV="$GMS_SHARED_DIR/reference/dtr-prototype-measured.csv"
[ -f "$LOG" ] || fail "no DenseNet log under $GMS_SHARED_DIR/traces/dtr-iclr21"
[ -f "$CSV" ] || fail "no measurements $CSV"
# field of a JSON object on stdin, by a Python expression over d
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
measured=$(awk -F, '$1=="tv_densenet121" && $3=="dtr" && $4=="10000000000" {print $9}' "$CSV")
[ -n "$measured" ] || fail "no DenseNet 10 GB row in $CSV"

# the default replay reports zero costs; the cost terms are counted all the same
plain=$("$GMS_BIN" sim "$LOG" --budget 6GB --json) || fail "sim"
[ "$(echo "$plain" | field 'd["op_overhead_ns"], d["search_ns"], d["evict_ns"]')" = "0 0 0" ] \
  || fail "default run has costs: $plain"
[ "$(echo "$plain" | field 'd["ops_executed"] > 0 and d["candidates"] >= d["evictions"] > 0')" = True ] \
  || fail "default run counts no ops or candidates: $plain"

# without a budget nothing is evicted: the clock moves by exactly ops x overhead
a=$("$GMS_BIN" sim "$LOG" --json) && b=$("$GMS_BIN" sim "$LOG" --op-overhead 20us --json) || fail "sim"
ca=$(echo "$a" | field 'd["clock"]'); cb=$(echo "$b" | field 'd["clock"]')
ops=$(echo "$b" | field 'd["ops_executed"]')
[ $((cb - ca)) -eq $((ops * 20000)) ] || fail "clock moved by $((cb - ca)), not $ops x 20000"
[ "$(echo "$b" | field 'd["op_overhead_ns"], d["cost_model"]["op_overhead"]')" = "$((ops * 20000)) 20000" ] \
  || fail "op_overhead_ns: $b"

# every cost term lands on the clock and is reported apart
c=$("$GMS_BIN" sim "$LOG" --budget 6GB --op-overhead 1.5us --search-cost 100ns --evict-cost 0.01ms --json) || fail "sim costs"
echo "$c" | field 'd["clock"] == 1 + d["baseline_compute"] + d["remat_compute"] + d["op_overhead_ns"] + d["search_ns"] + d["evict_ns"] and d["search_ns"] == 100 * d["candidates"] and d["evict_ns"] == 10000 * d["evictions"] and d["op_overhead_ns"] == 1500 * d["ops_executed"]' \
  | grep -q True || fail "cost terms do not add up: $c"
echo "$c" | field 'd["cost_model"]' | grep -q "'search_cost': 100, 'evict_cost': 10000" || fail "cost_model: $c"

# calibrate reproduces the measured slowdown, and sim with its answer predicts the same
cal=$("$GMS_BIN" calibrate "$LOG" --budget 10GB --measured "$measured" --json) || fail "calibrate"
echo "$cal" | field "abs(d['slowdown'] - $measured) < 1e-4 and d['converged'] and d['op_overhead_ns'] > 0 and d['ideal'] < $measured" \
  | grep -q True || fail "calibrate missed $measured: $cal"
ovh=$(echo "$cal" | field 'd["op_overhead_ns"]')
s=$("$GMS_BIN" sim "$LOG" --budget 10GB --op-overhead "${ovh}ns" --json) || fail "sim calibrated"
echo "$s" | field "abs(d['overhead'] - $measured) < 1e-4" | grep -q True || fail "sim does not reproduce: $s"
"$GMS_BIN" calibrate "$LOG" --budget 10GB --measured "$measured" | grep -q "^op overhead *$ovh ns" \
  || fail "calibrate text"
# below the ideal replay: said, not hidden
"$GMS_BIN" calibrate "$LOG" --budget 4GB --measured 1.01 | grep -q "below the ideal replay" \
  || fail "calibrate below ideal"

# seeds: the spread of a sampled choice
sd=$("$GMS_BIN" sim "$LOG" --budget 6GB --sample sqrt --seeds 3 --json) || fail "sim --seeds"
echo "$sd" | field 'd["seeds"]["runs"] == 3 and d["seeds"]["overhead_min"] <= d["seeds"]["overhead_mean"] <= d["seeds"]["overhead_max"]' \
  | grep -q True || fail "--seeds: $sd"

# budget band: the budgets either side, and a verdict
bb=$("$GMS_BIN" sim "$LOG" --budget 6GB --budget-band 2% --json) || fail "--budget-band"
echo "$bb" | field 'd["budget_band"]["low"]["budget"] == 5880000000 and d["budget_band"]["high"]["budget"] == 6120000000 and d["budget_band"]["cliff"] in (True, False) and d["budget_band"]["sensitivity"] >= 0' \
  | grep -q True || fail "--budget-band json: $bb"
"$GMS_BIN" sim "$LOG" --budget 6GB --budget-band 0.02 | grep -Eq "^budget band +(flat|ON A CLIFF)" \
  || fail "--budget-band text"

# sweeps take the costs, key runs by them and store their totals; runs without costs keep
# their old keys, so both live side by side
db="$GMS_TMP/cost.db"; rm -f "$db"
"$GMS_BIN" sweep "$LOG" --policies dtr --budgets 0.6 --db "$db" --quiet || fail "sweep plain"
"$GMS_BIN" sweep "$LOG" --policies dtr --budgets 0.6 --db "$db" --quiet --op-overhead 20us --search-cost 50ns \
  || fail "sweep with costs"
rows=$(python3 -c "import sqlite3; c=sqlite3.connect('$db'); print(sorted(c.execute('select params, op_overhead_ns > 0, search_ns > 0, evict_ns from runs').fetchall()))")
[ "$rows" = "[('', 0, 0, 0), ('op_overhead=20000ns,search_cost=50ns', 1, 1, 0)]" ] || fail "sweep rows: $rows"
ov=$(python3 -c "import sqlite3; c=sqlite3.connect('$db'); print(c.execute(\"select overhead from runs where params != ''\").fetchone()[0])")
one=$("$GMS_BIN" sim "$LOG" --budget 0.6 --op-overhead 20us --search-cost 50ns --json | field 'd["overhead"]')
[ "$ov" = "$one" ] || fail "sweep overhead $ov differs from sim's $one"
# db export carries the totals: the costed run's equal the store's, the plain run's are 0
ex=$("$GMS_BIN" db export "$db" --json) || fail "db export --json"
echo "$ex" | python3 -c "
import json, sqlite3, sys
rows = {r['params']: r for r in json.load(sys.stdin)}
db = dict((p, (o, s, e)) for p, o, s, e in sqlite3.connect('$db').execute('select params, op_overhead_ns, search_ns, evict_ns from runs'))
for p, r in rows.items():
    assert (r['op_overhead_ns'], r['search_ns'], r['evict_ns']) == db[p], (p, r)
assert rows['']['op_overhead_ns'] == 0 and rows['op_overhead=20000ns,search_cost=50ns']['op_overhead_ns'] > 0
" || fail "db export --json cost totals"
"$GMS_BIN" db export "$db" --csv | head -1 | grep -q ",frag_ratio,op_overhead_ns,search_ns,evict_ns," \
  || fail "db export --csv header lacks the cost totals"
out=$("$GMS_BIN" sweep "$LOG" --db "$db" --op-overhead x 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "duration with a unit" || fail "sweep bad cost: $rc $out"

# dtr-proto: the same seed, the same run; it passes the budget only while an op runs
p1=$("$GMS_BIN" sim "$LOG" --policy dtr-proto --budget 6GB --seed 3 --op-overhead 20us --json) || fail "dtr-proto"
p2=$("$GMS_BIN" sim "$LOG" --policy dtr-proto --budget 6GB --seed 3 --op-overhead 20us --json) || fail "dtr-proto"
[ "$(echo "$p1" | field 'd["clock"], d["evictions"], d["candidates"]')" = "$(echo "$p2" | field 'd["clock"], d["evictions"], d["candidates"]')" ] \
  || fail "dtr-proto is not deterministic for a seed"
echo "$p1" | field 'd["status"] == "ok" and d["evictions"] > 0 and d["peak_memory"] > 6000000000' | grep -q True \
  || fail "dtr-proto at 6 GB: $p1"
out=$("$GMS_BIN" sim "$LOG" --policy dtr-proto --budget 6GB --allocator caching 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "only the ideal memory model" || fail "dtr-proto with an allocator: $rc $out"

# errors: what, and how to fix
out=$("$GMS_BIN" sim "$LOG" --op-overhead 20 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "duration with a unit" || fail "unitless overhead: $rc $out"
out=$("$GMS_BIN" sim "$LOG" --budget-band 2% 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "needs a --budget" || fail "band without budget: $rc $out"
out=$("$GMS_BIN" sim "$LOG" --budget 6GB --budget-band 150% 2>&1); rc=$?
[ $rc -eq 2 ] || fail "band 150%: $rc $out"
out=$("$GMS_BIN" calibrate "$LOG" --budget 10GB 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q -- "--measured is required" || fail "calibrate no measured: $rc $out"
out=$("$GMS_BIN" calibrate "$LOG" --budget 10GB --measured 0.9 2>&1); rc=$?
[ $rc -eq 2 ] || fail "calibrate measured < 1: $rc $out"
out=$("$GMS_BIN" calibrate "$LOG" --budget 10GB --measured 1.2 --policy nope 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "unknown policy 'nope'; valid policies: dtr" \
  || fail "calibrate unknown policy: $rc $out"
out=$("$GMS_BIN" calibrate "$LOG" --budget 1MB --measured 1.5 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "status oom" || fail "calibrate at an impossible budget: $rc $out"
"$GMS_BIN" calibrate --help | grep -q "usage: gpumemsim calibrate" || fail "calibrate --help"
echo ok
