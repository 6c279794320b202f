#!/usr/bin/env bash
# sim --policy checkmate and sweep's checkmate rows run the heuristics at the same bytes, as
# optimal does (issue 28, item 2): at op level each run seeds the MILP, so a time-limited
# answer (here the LP alone outlasts the limit: before, the greedy seed) is never worse than
# the best run that fits the program's memory, also when the answer comes from a store filled
# without seeds; on the layer graph an answer worse than a run, or none where a run fits, is
# said in text (note) and --json (worse_than_heuristic). The time-limited solves here run
# without the window search (--no-improve), whose answer would be a run improved further
# (checkmate_search_cli.sh tests it).
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
rm -f *.db
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"

# op level, 3 s: the answer is at most the best fitting run's schedule, and says its seed
"$GMS_BIN" sim "$T" --policy checkmate --coarsen outputs --budget 0.7 --time-limit 3 --no-improve --json \
  >a.json || fail "outputs 0.7: $(cat a.json)"
python3 - <<'PY' || fail "seeded sim: $(head -c 3000 a.json)"
import json
d = json.load(open("a.json"))
h = d["heuristics"]
assert [r["policy"] for r in h] == ["dtr", "dtr-eq", "msps", "lru"], h
fit = [r for r in h if r["status"] == "ok" and r["fits_program"]]
assert fit, h
best = min(r["schedule_overhead"] for r in fit)
assert d["status"] == "ok" and d["overhead"] <= best + 1e-9, (d["overhead"], best)
assert d["seeded"] and d["seed_from"] in [r["policy"] for r in fit], d["seed_from"]
assert d["worse_than_heuristic"] is None, d["worse_than_heuristic"]
PY
txt=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen outputs --budget 0.7 --time-limit 3 --no-improve) \
  || fail "text: $txt"
grep -q "^heuristics *dtr [0-9.]*, dtr-eq [0-9.]*, msps [0-9.]*, lru " <<<"$txt" \
  || fail "no heuristics line: $txt"
grep -q "^seed from *\(dtr\|dtr-eq\|msps\|lru\)$" <<<"$txt" || fail "no seed line: $txt"

# a store filled without seeds (sweep --seed-policies none: the greedy seed's answer) is
# keyed apart; its answer, read by a sim that has seeds, is replaced by the better run
"$GMS_BIN" sweep "$T" --policies checkmate --coarsen outputs --budgets 0.7 --time-limit 3 --no-improve \
  --seed-policies none --db n.db -j1 --quiet 2>err || fail "sweep none: $(cat err)"
python3 - <<'PY' || fail "sweep none"
import sqlite3
c = sqlite3.connect("n.db")
assert c.execute("SELECT params FROM runs").fetchall() == \
    [("coarsen=outputs,iteration=0,time_limit=3,seeds=none",)], c.execute("SELECT params FROM runs").fetchall()
PY
"$GMS_BIN" sim "$T" --policy checkmate --coarsen outputs --budget 0.7 --time-limit 3 --no-improve --db n.db \
  --json >c.json || fail "cached: $(cat c.json)"
python3 - <<'PY' || fail "cached answer: $(head -c 3000 c.json)"
import json, sqlite3
d = json.load(open("c.json"))
assert d["cached"], d
best = min(r["schedule_overhead"] for r in d["heuristics"] if r["status"] == "ok" and r["fits_program"])
assert d["overhead"] <= best + 1e-9, (d["overhead"], best)
none = sqlite3.connect("n.db").execute("SELECT overhead FROM runs").fetchone()[0]
# the store's unseeded answer was worse: the run replaced it
assert none > best + 1e-9 and d["seeded"] and d["seed_from"] in ("dtr", "dtr-eq", "msps", "lru"), (none, best, d["seed_from"])
PY

# sweep's checkmate row, default seeds: never worse than the best seeded run (sim's answer)
"$GMS_BIN" sweep "$T" --policies checkmate,msps --coarsen outputs --budgets 0.7 --time-limit 3 --no-improve \
  --db s.db -j1 --quiet 2>err || fail "sweep: $(cat err)"
python3 - <<'PY' || fail "sweep seeded row"
import json, sqlite3
c = sqlite3.connect("s.db")
rows = dict(c.execute("SELECT policy, overhead FROM runs"))
params = c.execute("SELECT params FROM runs WHERE policy = 'checkmate'").fetchone()[0]
assert params == "coarsen=outputs,iteration=0,time_limit=3", params
d = json.load(open("a.json"))
best = min(r["schedule_overhead"] for r in d["heuristics"] if r["status"] == "ok" and r["fits_program"])
assert rows["checkmate"] <= best + 1e-9, (rows, best)
PY
"$GMS_BIN" sweep "$T" --policies checkmate --budgets 0.7 --seed-policies dtr,bogus --db b.db \
  >o 2>err; [ $? -eq 2 ] || fail "sweep took a bad seed policy"
grep -q "'bogus' is not an eviction policy" err || fail "sweep message: $(cat err)"
[ -e b.db ] && fail "a store was written on a usage error"
"$GMS_BIN" sweep "$T" --policies dtr --budgets 0.7 --seed-policies dtr --db b.db >o 2>err
[ $? -eq 2 ] && grep -q "names neither checkmate" err || fail "--seed-policies without checkmate: $(cat err)"
"$GMS_BIN" fit "$T" --policies checkmate --seed-policies dtr,bogus >o 2>err
[ $? -eq 2 ] && grep -q "'bogus' is not an eviction policy" err || fail "fit message: $(cat err)"
"$GMS_BIN" fit "$T" --policies dtr --seed-policies dtr >o 2>err
[ $? -eq 2 ] && grep -q "are for the solved policies" err || fail "fit without checkmate: $(cat err)"
"$GMS_BIN" sim "$T" --policy checkmate --budget 0.7 --seed-policies bogus >o 2>err
[ $? -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "'bogus' is not an eviction policy" err \
  || fail "sim message: $(cat err)"
[ -s o ] && fail "output on a usage error: $(cat o)"

# layers at 1.2: a layer needs recomputation where every run needs none: said so
"$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 1.2 --json >l.json \
  || fail "layers: $(cat l.json)"
python3 -c "
import json
d = json.load(open('l.json'))
w = d['worse_than_heuristic']
assert d['overhead'] > min(r['overhead'] for r in d['heuristics'] if r['status'] == 'ok'), d['overhead']
assert w and 'worse than' in w and '--coarsen outputs' in w, w
" || fail "layers 1.2: $(cat l.json)"
txt=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 1.2) || fail "text 1.2"
grep -q "^note *the layers graph's answer (overhead [0-9.]*) is worse than [a-z-]*'s run" <<<"$txt" \
  || fail "no note at 1.2: $txt"
# layers at 0.8: a layer with its inputs does not fit, the runs do: said so (exit 0, oom)
txt=$("$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 0.8) || fail "layers 0.8"
grep -q "^note *the layers graph has no schedule at this budget, but [a-z-]*'s run fits" <<<"$txt" \
  || fail "no note on the infeasible layer graph: $txt"
# --seed-policies none: nothing to compare with, no note
"$GMS_BIN" sim "$T" --policy checkmate --coarsen layers --budget 0.8 --seed-policies none \
  --json >n.json || fail "none"
python3 -c "
import json
d = json.load(open('n.json'))
assert d['heuristics'] == [] and d['worse_than_heuristic'] is None, d
" || fail "--seed-policies none: $(cat n.json)"
echo ok
