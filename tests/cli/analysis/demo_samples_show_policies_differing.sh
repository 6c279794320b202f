#!/usr/bin/env bash
# The demo's samples are configurations where activations dominate: at half the memory every
# sample has several policies that finish, at different costs, so the demo's summary and chart
# show policies differing rather than failing. The summary names how a run ended (oom or
# remat-limit), checked against the store, and never says "fail".
# shellcheck source=tests/cli/analysis/charts_lib.sh
source "$(dirname "$0")/charts_lib.sh"
"$GMS_BIN" sweep "$SAMPLES"/*.gmt --budgets 0.3,0.5 --seeds 2 --db r.db --quiet -j 2
GMS_BIN=$GMS_BIN "$GMS_SOURCE_DIR/scripts/demo-summary.sh" r.db > at05.txt
GMS_BIN=$GMS_BIN "$GMS_SOURCE_DIR/scripts/demo-summary.sh" r.db 0.3 > at03.txt
grep -q 'OVERHEAD AT 0.5' at05.txt || fail "no summary header: $(cat at05.txt)"
! grep -qi 'fail' at05.txt at03.txt || fail "the summary calls outcomes failures: $(cat at05.txt at03.txt)"

# every sample: at least two policies finish at 0.5, with at least two different overheads
for f in "$SAMPLES"/*.gmt; do
  t=$(basename "$f" .gmt)
  awk -v t="$t" '$1 == t && $4 ~ /x$/ { n++; v[$4] = 1 } END { for (k in v) d++; exit !(n >= 2 && d >= 2) }' at05.txt ||
    fail "$t: fewer than two policies finish at half the memory, or all cost the same: $(grep "^$t " at05.txt)"
done

# each cell where runs did not finish names the store's commonest outcome there
for r in 0.3 0.5; do
  f=at0${r#0.}.txt
  "$GMS_BIN" db export r.db --csv | awk -F, -v r="$r" 'NR > 1 && $5 + 0 == r + 0 {
      k = $1 " " $3; n[k]++; if ($9 == "ok") ok[k]++; else if ($9 == "oom") o[k]++; else l[k]++ }
    END { for (k in n) if (ok[k] < n[k]) print k, (o[k] >= l[k] ? "oom" : "remat-limit") }' | sort > want$r.txt
  awk '$4 == "oom" || $4 == "remat-limit" { print $1, $2, $4 }' "$f" | sort > got$r.txt
  diff want$r.txt got$r.txt || fail "summary at $r misreports how runs ended"
done
grep -q ' oom$' want0.3.txt || fail "no oom at 0.3; the test needs one"
grep -q ' remat-limit$' want0.3.txt want0.5.txt || fail "no remat-limit runs; the test needs one"
echo PASS
