#!/usr/bin/env bash
# Issue 28, item 2: where a coarser graph's answer is worse than a heuristic's run at the same
# bytes, or has no schedule where that run fits, sweep's stored row and fit's answer say so,
# as sim --policy checkmate does: the store's runs.note (schema v11) shown by db runs, db gaps
# and db export; fit's note line and worse_than_heuristic in --json. An op-level row the seeds
# make never worse has no note.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"
rm -f ./*.db
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"

# sim's notes at these budgets are the yardstick of the stored ones
sim_note() {
  "$GMS_BIN" sim "$T" --policy checkmate --coarsen "$1" --budget "$2" --json \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["worse_than_heuristic"] or "")'
}
n12=$(sim_note layers 1.2) && n08=$(sim_note layers 0.8) || fail "sim"
grep -q "is worse than" <<<"$n12" || fail "sim at 1.2 has no note: $n12"
grep -q "has no schedule at this budget" <<<"$n08" || fail "sim at 0.8 has no note: $n08"

"$GMS_BIN" sweep "$T" --policies checkmate,dtr --coarsen layers --budgets 0.8,1.2 --db s.db \
  -j1 --quiet 2>err || fail "sweep: $(cat err)"
N12="$n12" N08="$n08" python3 - <<'PY' || fail "stored notes"
import os, sqlite3
c = sqlite3.connect("s.db")
assert c.execute("PRAGMA user_version").fetchone()[0] >= 11
rows = {(p, r): n for p, r, n in c.execute("SELECT policy, ratio, note FROM runs")}
assert rows[("checkmate", 1.2)] == os.environ["N12"], rows
assert rows[("checkmate", 0.8)] == os.environ["N08"], rows
assert rows[("dtr", 1.2)] is None and rows[("dtr", 0.8)] is None, rows
PY
txt=$("$GMS_BIN" db runs s.db) || fail "db runs: $txt"
grep -q "^  note: the layers graph's answer (overhead [0-9.]*) is worse than [a-z-]*'s run" \
  <<<"$txt" || fail "db runs shows no note at 1.2: $txt"
grep -q "^  note: the layers graph has no schedule at this budget, but [a-z-]*'s run fits" \
  <<<"$txt" || fail "db runs shows no note at 0.8: $txt"
[ "$(grep -c '^  note: ' <<<"$txt")" -eq 2 ] || fail "a note on a heuristic's row: $txt"
"$GMS_BIN" db export s.db --json -o e.json || fail "export"
"$GMS_BIN" db export s.db --csv -o e.csv || fail "export csv"
"$GMS_BIN" db gaps s.db --json -o g.json || fail "gaps"
"$GMS_BIN" db gaps s.db --csv -o g.csv || fail "gaps csv"
N12="$n12" python3 - <<'PY' || fail "export and gaps"
import csv, json, os
e = {(r["policy"], r["ratio"]): r["note"] for r in json.load(open("e.json"))}
assert e[("checkmate", 1.2)] == os.environ["N12"] and e[("dtr", 1.2)] is None, e
c = {(r["policy"], float(r["ratio"])): r["note"] for r in csv.DictReader(open("e.csv"))}
assert c[("checkmate", 1.2)] == os.environ["N12"] and c[("dtr", 1.2)] == "", c
g = json.load(open("g.json"))
assert any(r["policy"] == "checkmate" and r["note"] == os.environ["N12"] for r in g), g
assert all(r["note"] is None for r in g if r["policy"] == "dtr"), g
gc = list(csv.DictReader(open("g.csv")))
assert any(r["policy"] == "checkmate" and r["note"] == os.environ["N12"] for r in gc), gc
PY
txt=$("$GMS_BIN" db gaps s.db) || fail "db gaps: $txt"
grep -q "^  note: the layers graph's answer" <<<"$txt" || fail "db gaps shows no note: $txt"

# op level: the runs seed the MILP, so its row is never worse than one that fits: no note
"$GMS_BIN" sweep "$T" --policies checkmate --coarsen outputs --budgets 0.7 --time-limit 3 \
  --db o.db -j1 --quiet 2>err || fail "sweep outputs: $(cat err)"
python3 -c "
import sqlite3
n = sqlite3.connect('o.db').execute('SELECT note FROM runs').fetchall()
assert n == [(None,)], n
" || fail "a note on the seeded op-level row"
# --seed-policies none: nothing to compare with, no note
"$GMS_BIN" sweep "$T" --policies checkmate --coarsen layers --budgets 1.2 \
  --seed-policies none --db n.db -j1 --quiet 2>err || fail "sweep none: $(cat err)"
python3 -c "
import sqlite3
n = sqlite3.connect('n.db').execute('SELECT note FROM runs').fetchall()
assert n == [(None,)], n
" || fail "a note without heuristics"

# fit by layers: the budget below its answer fails by layers where dtr's run fits: said so
# (the second fit, for the text, takes every solve from the first's store)
"$GMS_BIN" fit "$T" --policies checkmate --coarsen layers --max-overhead 1.5 --grid 4 \
  --up-to 1.5 --db f.db --json --quiet >f.json || fail "fit: $(cat f.json)"
python3 - <<'PY' || fail "fit json: $(cat f.json)"
import json
d = json.load(open("f.json"))
r = d["results"][0]
w = r["worse_than_heuristic"]
assert r["found"] and not r["at_floor"], r
assert w and "has no schedule at this budget" in w and "--coarsen outputs" in w, r
assert r["worse_than_heuristic_bytes"] == r["failed_below_bytes"], r
assert abs(r["worse_than_heuristic_ratio"] - r["failed_below_ratio"]) < 1e-12, r
PY
txt=$("$GMS_BIN" fit "$T" --policies checkmate --coarsen layers --max-overhead 1.5 --grid 4 \
      --up-to 1.5 --db f.db --quiet) || fail "fit text: $txt"
grep -q "^  note *at [0-9.]* x baseline: the layers graph has no schedule" <<<"$txt" \
  || fail "fit text: $txt"
echo ok
