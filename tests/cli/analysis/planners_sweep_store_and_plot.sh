#!/usr/bin/env bash
# End-to-end: checkpoint planners in sweep (--policies ckpt-all,..., --policy-args), their
# figures and iterations in the store (export, merge), and 'plot iterations' from a store
# and from a trace, with its errors.
source "$(dirname "$0")/lib.sh"
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
T="$SAMPLES/resnet-vary.gmt"

"$GMS_BIN" sweep "$T" --policies dtr,ckpt-all,ckpt-sqrt --budgets 0.5,1.0 --db p.db -j 2 \
  --quiet || fail "sweep with planners"
runs=$("$GMS_BIN" db export p.db --json) || fail "db export"
[ "$(echo "$runs" | field 'len(d)')" = 6 ] || fail "not 6 runs: $runs"
# planner runs carry their figures, eviction-policy runs none
[ "$(echo "$runs" | field 'all((r["plan_iterations"] > 0) == (r["policy"] != "dtr") for r in d)')" = True ] ||
  fail "plan_iterations wrong: $runs"
[ "$(echo "$runs" | field 'all(r["checkpoints"] > 0 for r in d if r["policy"] == "ckpt-all")')" = True ] ||
  fail "ckpt-all runs stored no checkpoints: $runs"
"$GMS_BIN" db export p.db --csv | head -1 | grep -q ',plan_iterations,plan_predicted,' ||
  fail "CSV lacks the planner columns"
# the same as sim: a stored run's figures are a sim run's
sim=$("$GMS_BIN" sim "$T" --policy ckpt-sqrt --budget 1.0 --json) || fail "sim"
[ "$(echo "$runs" | field '[r["remat_compute"] for r in d if r["policy"] == "ckpt-sqrt" and r["ratio"] == 1][0]')" = \
  "$(echo "$sim" | field 'd["remat_compute"]')" ] || fail "stored ckpt-sqrt run differs from sim"

# resuming skips everything; --policy-args must name a planner's parameter
"$GMS_BIN" sweep "$T" --policies ckpt-all --budgets 0.5,1.0 --db p.db -j 2 2>resume.log ||
  fail "resume"
grep -q "2 already in p.db were skipped" resume.log || fail "resume: $(cat resume.log)"
expect_fail "no planner is swept|names none" \
  "$GMS_BIN" sweep "$T" --policies dtr --policy-args a=1 --db bad.db
expect_fail "planner ckpt-all has no parameter 'a'" \
  "$GMS_BIN" sweep "$T" --policies ckpt-all --policy-args a=1 --db bad.db --quiet
expect_fail "stray comma" "$GMS_BIN" sweep "$T" --policies ckpt-all --policy-args a=1, --db bad.db

# a merged store keeps the iterations
"$GMS_BIN" db merge p.db -o m.db || fail "merge"
"$GMS_BIN" plot iterations m.db --budget 1.0 -o it-db.png 2>plot.log || fail "plot from the store: $(cat plot.log)"
grep -q "(2 policies)" plot.log || fail "not 2 planner lines: $(cat plot.log)"
[ -s it-db.png ] || fail "no chart"
# from a trace: planners and an eviction policy at a budget
"$GMS_BIN" plot iterations "$T" --policies dtr,ckpt-all,ckpt-sqrt --budget 0.8 -o it-trace.svg \
  2>plot.log || fail "plot from a trace: $(cat plot.log)"
grep -q "(3 policies)" plot.log || fail "not 3 lines: $(cat plot.log)"
grep -q "ckpt-sqrt" it-trace.svg || fail "the SVG does not name ckpt-sqrt"
expect_fail "give --budget" "$GMS_BIN" plot iterations "$T" --policies dtr -o x.png
expect_fail "give --policies" "$GMS_BIN" plot iterations "$T" --budget 0.5 -o x.png
expect_fail "no planner run with stored iterations" \
  "$GMS_BIN" plot iterations p.db --policies dtr -o x.png
[ ! -e x.png ] || fail "a failed plot left a file"
echo PASS
