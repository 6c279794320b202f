#!/usr/bin/env bash
# The overhead chart's data on a real sweep: a failed run has no point, an ok run is its
# overhead, and a randomized policy's point is the mean of its seeds, drawn only where
# every seed succeeded. A stand-in gnuplot (GMS_GNUPLOT) keeps the script and data it gets.
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "$0")/lib.sh"
"$GMS_BIN" sweep "$UNET" --policies dtr,random --seeds 3 --budgets 0.1:1.0:0.1 --db r.db --quiet
mkdir saved
cat > fake-gnuplot <<'SH'
#!/bin/sh
cp "$1" saved/script.gp
for f in $(grep -o "'[^']*gpumemsim-plot-[^']*'" "$1" | tr -d "'" | sort -u); do cp "$f" saved/data; done
out=$(sed -n "s/^set output '\(.*\)'$/\1/p" "$1")
echo chart > "$out"
SH
chmod +x fake-gnuplot
GMS_GNUPLOT="$PWD/fake-gnuplot" "$GMS_BIN" plot overhead r.db -o chart.png
[ -s saved/data ] || fail "the stand-in gnuplot got no data file"
[ "$(cat chart.png)" = chart ] || fail "the chart was not renamed into place"

# what the chart must show, from the store: ratio -> overhead (or "gap") per policy
"$GMS_BIN" db export r.db --csv | awk -F, -v OFS=' ' '
  NR > 1 { n[$3, $5]++; if ($9 == "ok") { ok[$3, $5]++; s[$3, $5] += $10 } ; r[$5] = 1; p[$3] = 1 }
  END { for (pol in p) for (x in r) {
          if (!((pol, x) in n)) continue
          if (ok[pol, x] == n[pol, x]) printf "%s %s %.6f\n", pol, x, s[pol, x] / n[pol, x]
          else printf "%s %s gap\n", pol, x } }' | sort > expected.txt
grep -q ' gap$' expected.txt || fail "the sweep has no failed runs; the test needs some"
grep -q '^dtr .* [0-9.]*$' expected.txt || fail "the sweep has no ok dtr runs"

# what the data file says: points per block, and a blank line inside a block marks a gap
awk '
  /^# / { pol = $2; next }
  NF == 2 && $1 != "NaN" { printf "%s %s %.6f\n", pol, $1 + 0, $2 }' saved/data | sort > drawn.txt
grep -v ' gap$' expected.txt > expected_points.txt
diff expected_points.txt drawn.txt || fail "drawn points differ from the ok runs (or seed means)"

# (line breaks at interior gaps are pinned by tests/unit/analysis/test_plot.c)
grep -q "random (3 seeds)" saved/script.gp || fail "the legend does not count the seeds"
grep -q "seeds: mean, min-max band" saved/script.gp || fail "the legend does not say the seed mean"
grep -q "Gaps: runs that failed" saved/script.gp || fail "the chart does not explain the gaps"
echo PASS
