#!/usr/bin/env bash
# A planner swept at several knob values (ac-budget's budget=, issue 29) is one line per
# parameter set in plot overhead, labelled by what differs ("ac-budget budget=0.3"), in its
# policy's colour with its own dash, each line's points those of its own runs; a line whose
# runs differ in more than the seed and the parameters is still refused.
# shellcheck source=tests/cli/analysis/charts_lib.sh
source "$(dirname "$0")/charts_lib.sh"
T="$SAMPLES/transformer-small.gmt"
for k in 0.3 0.7; do
  "$GMS_BIN" sweep "$T" --policies ac-budget --policy-args budget=$k --budgets 0.6,0.8,1.0 \
    --db k.db --quiet || fail "sweep ac-budget budget=$k"
done
"$GMS_BIN" sweep "$T" --policies dtr --budgets 0.6,0.8,1.0 --db k.db --quiet || fail "sweep dtr"
"$GMS_BIN" plot overhead k.db --script k.gp -o k.svg || fail "plot of two knob values"
[ -s k.svg ] || fail "no chart"
data=$(datablock k.gp '$trace1')
for k in 0.3 0.7; do
  grep -qx "# ac-budget budget=$k" <<<"$data" || fail "no line for budget=$k: $(grep '^# ' <<<"$data")"
  grep -q "title 'ac-budget budget=$k'" k.gp || fail "no legend entry for budget=$k"
  # the line's points are exactly its runs' overheads
  awk -v h="# ac-budget budget=$k" '$0 == h { on = 1; next } on && NF == 0 { exit }
    on && $1 != "NaN" { printf "%.6f %.6f\n", $1, $2 }' <<<"$data" | sort >drawn$k.txt
  "$GMS_BIN" db export k.db --csv --policy ac-budget --where params="budget=$k" |
    awk -F, 'NR > 1 && $9 == "ok" { printf "%.6f %.6f\n", $5, $10 }' | sort >runs$k.txt
  [ -s runs$k.txt ] || fail "no ok runs at budget=$k"
  diff runs$k.txt drawn$k.txt || fail "budget=$k: drawn points differ from its runs"
done
grep -qx "# dtr" <<<"$data" || fail "a policy with one line is labelled by its name alone"
s3=$(policy_style k.gp 'ac-budget budget=0.3'); s7=$(policy_style k.gp 'ac-budget budget=0.7')
[ -n "$s3" ] && [ -n "$s7" ] && [ "$s3" != "$s7" ] || fail "the two lines look alike: '$s3' / '$s7'"
[ "${s3%% lw *}" = "${s7%% lw *}" ] || fail "the two lines of one policy differ in colour: '$s3' / '$s7'"
# one knob at two remat limits: still refused, naming the parameters
"$GMS_BIN" sweep "$T" --policies ac-budget --policy-args budget=0.3 --budgets 0.6 \
  --remat-limit 3 --db k.db --quiet || fail "sweep at remat limit 3"
expect_fail "differ in more than the seed \(remat limit .*parameters 'budget=0.3" \
  "$GMS_BIN" plot overhead k.db -o mixed.svg
[ ! -e mixed.svg ] || fail "a refused chart was written"
echo PASS
