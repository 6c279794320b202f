#!/usr/bin/env bash
# End-to-end (issue 32 items 1 and 2): 'plot overhead' hides no successful run and keeps
# failures apart. Every ok run is inside the y range or marked above it with its value (the
# range covers runs up to 3x, past the old clamp at the remat limit); failure marks sit in a
# shaded band labelled "failed", above a break in the axis, never among the data.
. "$(dirname "$0")/lib.sh"

"$GMS_BIN" sweep "$UNET" "$RESNET" --policies dtr,lru,size,swap-lru,autoswap \
  --budgets 0.3:1.0:0.1 --db r.db --quiet || fail "sweep"
"$GMS_BIN" db export r.db --json >runs.json
jq -e '[.[] | select(.status == "ok" and .overhead > 2.1 and .overhead <= 3)] | length > 0' \
  runs.json >/dev/null || fail "no run between 2.1 and 3 to check (bad test data)"
jq -e '[.[] | select(.status == "ok" and .overhead > 3.2)] | length > 0' runs.json >/dev/null ||
  fail "no run above 3.2 to check (bad test data)"
jq -e '[.[] | select(.status != "ok")] | length > 0' runs.json >/dev/null || fail "no failures"

for t in unet-small resnet-small; do
  "$GMS_BIN" plot overhead r.db --trace "$t" -o "$t.svg" --script "$t.gp" >/dev/null ||
    fail "plot $t"
  top=$(sed -n "s/^set ytics 1,[0-9.e-]*,\([0-9.e-]*\)\( format.*\)*$/\1/p" "$t.gp" | tail -1)
  [ -n "$top" ] || fail "$t: no data range in the script"
  # item 1: runs up to 3x are inside the range; any above it is labelled with its value
  want_top=$(jq --arg t "$t" '[.[] | select(.trace == $t and .status == "ok") | .overhead] | max |
    if . > 3 then 3 else . end' runs.json)
  awk -v a="$top" -v b="$want_top" 'BEGIN { exit !(a + 1e-9 >= b) }' ||
    fail "$t: the range ends at $top, below a successful run at $want_top"
  jq -r --arg t "$t" --argjson top "$top" \
    '.[] | select(.trace == $t and .status == "ok" and .overhead > $top) |
     "\(.policy) \(.overhead * 100 | round / 100)"' runs.json >above.txt
  while read -r pol v; do
    label=$(printf '%.2f' "$v")
    grep -q ">$label<" "$t.svg" || fail "$t: $pol's run at $v, above the range $top, is not marked"
  done <above.txt
  # item 2: the failure band
  band=$(sed -n "s/^set object 2 rect from graph 0, first \([0-9.e-]*\) to graph 1, first \([0-9.e-]*\) .*/\1 \2/p" "$t.gp")
  [ -n "$band" ] || fail "$t: no failure band"
  read -r lo hi <<<"$band"
  awk -v lo="$lo" -v top="$top" 'BEGIN { exit !(lo > top) }' || fail "$t: band $lo not above $top"
  grep -q "^set ytics add ('failed' " "$t.gp" || fail "$t: the band is not labelled"
  grep -q ">failed<" "$t.svg" || fail "$t: no 'failed' label drawn"
  grep -q "^set arrow 1 from graph -0.02" "$t.gp" || fail "$t: no axis break"
  marks=$(grep -o 'using 1:(\$2 == [12] ? [0-9.e-]* : NaN)' "$t.gp" | sed 's/.*? \([0-9.e-]*\) :.*/\1/')
  [ -n "$marks" ] || fail "$t: no failure marks"
  for y in $marks; do
    awk -v y="$y" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(y > lo && y < hi) }' ||
      fail "$t: a failure mark at $y is outside the band $lo..$hi"
  done
done
echo ok
