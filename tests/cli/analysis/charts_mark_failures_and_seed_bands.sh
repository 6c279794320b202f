#!/usr/bin/env bash
# plot overhead: where a policy fails the chart marks it, oom and remat-limit told apart;
# a randomized policy gets a band from its smallest to its largest seed; budget ratios
# above 1 keep legible x labels. Checked against the store's own runs (db export).
# shellcheck source=tests/cli/analysis/charts_lib.sh
source "$(dirname "$0")/charts_lib.sh"
"$GMS_BIN" sweep "$SAMPLES/resnet-small.gmt" --policies dtr,random --seeds 3 \
  --budgets 0.2,0.5,0.6,0.7,0.8,0.9,1.0,1.5,2.0 --remat-limit 2 --db r.db --quiet
"$GMS_BIN" plot overhead r.db -o chart.pdf --script chart.gp
datablock chart.gp '$trace1' > data.txt
[ -s data.txt ] || fail "no data in the kept script"

# expected, from the store: per policy and ratio, the failure kind (the commonest failure
# of the point's runs) and, for random, min and max over the seeds where all succeeded
"$GMS_BIN" db export r.db --csv | awk -F, '
  NR > 1 { k = $3 SUBSEP $5; n[k]++; if ($9 == "oom") o[k]++; else if ($9 == "remat-limit") l[k]++
           else { ok[k]++; if (!(k in mn) || $10 < mn[k]) mn[k] = $10; if (!(k in mx) || $10 > mx[k]) mx[k] = $10 } }
  END { for (k in n) { split(k, a, SUBSEP)
          if (o[k] + l[k] > 0) printf "fail %s %s %s\n", a[1], a[2] + 0, (o[k] >= l[k] ? "oom" : "remat-limit")
          else if (a[1] == "random" && n[k] > 1) printf "band %s %s %.6f %.6f\n", a[1], a[2] + 0, mn[k], mx[k] } }' |
  sort > expected.txt
grep -q ' oom$' expected.txt || fail "the sweep has no oom runs; the test needs some"
grep -q ' remat-limit$' expected.txt || fail "the sweep has no remat-limit runs; the test needs some"
grep -q '^band ' expected.txt || fail "the sweep has no all-ok random points"

# drawn: "# POLICY failures" blocks hold "ratio kind name", "# POLICY seed band" blocks
# "ratio min max"
awk '
  /^# / { pol = $2; what = $3; next }
  what == "failures" && $1 != "NaN" && NF == 3 { printf "fail %s %s %s\n", pol, $1 + 0, $3 }
  what == "seed" && $1 != "NaN" && NF == 3 { printf "band %s %s %.6f %.6f\n", pol, $1 + 0, $2, $3 }' data.txt |
  sort > drawn.txt
diff expected.txt drawn.txt || fail "failure marks or seed bands differ from the store"

# the marks are drawn with distinct shapes and named in the legend
grep -q "using 1:(\$2 == 1 ? .* pt 2 " chart.gp || fail "oom failures are not drawn"
grep -q "using 1:(\$2 == 2 ? .* pt 10 " chart.gp || fail "remat-limit failures are not drawn"
grep -q "title 'out of memory'" chart.gp || fail "the legend does not name the oom mark"
grep -q "title 'over remat limit'" chart.gp || fail "the legend does not name the remat-limit mark"
grep -q "with filledcurves" chart.gp || fail "the seed band is not drawn"

# the shaded band: budgets below simrd's baseline bound, the pinned constants plus the largest
# op's footprint. It ends above the constants' share (gpumemsim info), below which every
# policy must run out of memory (constants are pinned)
# (the band stops at the top of the data range: the failure band above is not budget-bound)
floor=$(sed -n "s/^set object 1 rect from graph 0, graph 0 to first \([0-9.e-]*\), first .*/\1/p" chart.gp)
[ -n "$floor" ] || fail "no shaded band for the memory no policy can free"
grep -q "grey: below constants + largest op" chart.gp || fail "the legend does not explain the band"
"$GMS_BIN" info --json "$SAMPLES/resnet-small.gmt" > info.json
consts=$(jq -r .constant_bytes info.json) base=$(jq -r .baseline_memory info.json)
awk -v f="$floor" -v c="$consts" -v b="$base" 'BEGIN { exit !(f > c / b && f < 1) }' ||
  fail "band edge $floor is not above the constants' share $consts/$base"
below=$(awk -v c="$consts" -v b="$base" 'BEGIN { printf "%.4f", c / b * 0.97 }')
"$GMS_BIN" sweep "$SAMPLES/resnet-small.gmt" --budgets "$below" --db below.db --quiet
n=$("$GMS_BIN" db export below.db --csv | awk -F, 'NR > 1' | wc -l)
oom=$("$GMS_BIN" db export below.db --csv | awk -F, 'NR > 1 && $9 == "oom"' | wc -l)
[ "$n" -gt 0 ] && [ "$n" -eq "$oom" ] || fail "at $below, below the constants, $((n - oom)) of $n runs fit"
# a merged store keeps what the band needs
"$GMS_BIN" db merge r.db below.db -o merged.db
"$GMS_BIN" plot overhead merged.db --where status=ok -o m.pdf --script m.gp
grep -q "to first $floor, first " m.gp || fail "the merged store lost the band"

# budgets up to 2: at most about a dozen x labels in a one-column chart, none overlapping
step=$(sed -n "s/^set xtics \([0-9.]*\) .*/\1/p" chart.gp)
awk -v s="$step" 'BEGIN { exit !(s >= 0.25 && 2.04 / s + 1 <= 12) }' ||
  fail "x tick step $step crowds a 0..2 budget axis"
echo PASS
